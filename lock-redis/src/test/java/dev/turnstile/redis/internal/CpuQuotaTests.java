package dev.turnstile.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.redis.AwakeWaiting;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A CPU quota smaller than the CPUs a process may run on is found, from the runtime's count or the cgroup files. */
class CpuQuotaTests {

    @TempDir
    Path root;

    @Test
    void fewerProcessorsThanAllowedCpusIsAQuota() throws IOException {
        allowed("0-63");
        assertThat(CpuQuota.detect(this.root, 2)).isTrue();
        assertThat(CpuQuota.detect(this.root, 64)).isFalse();
    }

    @Test
    void aCgroupV2QuotaBelowTheAllowedCpusIsAQuotaAndMaxOrALargerOneIsNot() throws IOException {
        allowed("0-1");
        write("sys/fs/cgroup/cpu.max", "max 100000\n");
        assertThat(CpuQuota.detect(this.root, 2)).isFalse();
        write("sys/fs/cgroup/cpu.max", "150000 100000\n");
        assertThat(CpuQuota.detect(this.root, 2)).isTrue();
        write("sys/fs/cgroup/cpu.max", "400000 100000\n");
        assertThat(CpuQuota.detect(this.root, 2)).isFalse();
    }

    @Test
    void aCgroupV1QuotaCountsAndMinusOneIsNone() throws IOException {
        allowed("0-3");
        write("sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us", "100000\n");
        write("sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "-1\n");
        assertThat(CpuQuota.detect(this.root, 4)).isFalse();
        write("sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "200000\n");
        assertThat(CpuQuota.detect(this.root, 4)).isTrue();
    }

    @Test
    void nothingReadableIsNoQuota() throws IOException {
        assertThat(CpuQuota.detect(this.root, 8)).isFalse();
        write("sys/fs/cgroup/cpu.max", "garbage\n");
        write("proc/self/status", "Name:\tjava\nCpus_allowed_list:\tnot-a-list\n");
        assertThat(CpuQuota.detect(this.root, 8)).isFalse();
    }

    @Test
    void cpuListsAreCounted() {
        assertThat(CpuQuota.count("0-3,8,10-11")).isEqualTo(7);
        assertThat(CpuQuota.count("0")).isEqualTo(1);
        assertThat(CpuQuota.count("x")).isZero();
    }

    @Test
    void autoWaitsAwakeExactlyWhenNoQuotaWasFoundAndTheOtherModesAreFixed() {
        assertThat(Locks.waitsAwake(AwakeWaiting.AUTO)).isEqualTo(!CpuQuota.PRESENT);
        assertThat(Locks.waitsAwake(AwakeWaiting.ALWAYS)).isTrue();
        assertThat(Locks.waitsAwake(AwakeWaiting.NEVER)).isFalse();
    }

    private void allowed(String list) throws IOException {
        write("proc/self/status", "Name:\tjava\nCpus_allowed_list:\t" + list + "\nMems_allowed_list:\t0\n");
    }

    private void write(String file, String text) throws IOException {
        Path path = this.root.resolve(file);
        Files.createDirectories(path.getParent());
        Files.writeString(path, text);
    }
}
