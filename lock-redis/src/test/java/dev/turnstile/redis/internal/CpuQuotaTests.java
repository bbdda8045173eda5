package dev.turnstile.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.redis.AwakeWaiting;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A CPU quota smaller than the online CPUs a process may run on is found in the cgroup files of its
 * own cgroup or a parent's, on v1 and v2; without cgroup files the runtime's processor count stands
 * in. Each case is a copy of the files that matter, laid out as Linux has them.
 */
class CpuQuotaTests {

    private static final String V2_MOUNT = "35 25 0:30 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw\n";
    private static final String V1_CPU_MOUNT =
            "31 30 0:28 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct\n";

    @TempDir
    Path root;

    @Test
    void aCgroupV2QuotaOnTheProcessOrAParentCountsAndMaxIsNone() throws IOException {
        cpus("0-3", "0-3");
        write("proc/self/mountinfo", V2_MOUNT);
        write("proc/self/cgroup", "0::/system.slice/app.service\n");
        write("sys/fs/cgroup/system.slice/app.service/cpu.max", "max 100000\n");
        write("sys/fs/cgroup/system.slice/cpu.max", "max 100000\n");
        assertThat(CpuQuota.detect(this.root, 4)).as("no quota anywhere").isFalse();
        write("sys/fs/cgroup/system.slice/cpu.max", "150000 100000\n");
        assertThat(CpuQuota.detect(this.root, 4))
                .as("1.5 CPUs on the parent slice")
                .isTrue();
        write("sys/fs/cgroup/system.slice/cpu.max", "max 100000\n");
        write("sys/fs/cgroup/system.slice/app.service/cpu.max", "350000 100000\n");
        assertThat(CpuQuota.detect(this.root, 4))
                .as("3.5 CPUs of 4, though the runtime rounds it up to 4")
                .isTrue();
        write("sys/fs/cgroup/system.slice/app.service/cpu.max", "400000 100000\n");
        assertThat(CpuQuota.detect(this.root, 4))
                .as("a quota of every CPU limits nothing")
                .isFalse();
    }

    @Test
    void aCgroupV1QuotaCountsAndMinusOneIsNone() throws IOException {
        cpus("0-3", "0-3");
        write("proc/self/mountinfo", V1_CPU_MOUNT);
        write("proc/self/cgroup", "4:memory:/x\n3:cpu,cpuacct:/kubepods/pod1/c1\n");
        write("sys/fs/cgroup/cpu,cpuacct/kubepods/pod1/c1/cpu.cfs_period_us", "100000\n");
        write("sys/fs/cgroup/cpu,cpuacct/kubepods/pod1/c1/cpu.cfs_quota_us", "-1\n");
        assertThat(CpuQuota.detect(this.root, 4)).isFalse();
        write("sys/fs/cgroup/cpu,cpuacct/kubepods/pod1/cpu.cfs_period_us", "100000\n");
        write("sys/fs/cgroup/cpu,cpuacct/kubepods/pod1/cpu.cfs_quota_us", "200000\n");
        assertThat(CpuQuota.detect(this.root, 4)).as("2 CPUs on the pod").isTrue();
    }

    @Test
    void aContainerSeesItsOwnCgroupAtTheMountRoot() throws IOException {
        cpus("0-63", "0-63");
        // The mount's root is the container's cgroup; /proc/self/cgroup names the host's path.
        write("proc/self/mountinfo", "31 30 0:28 /docker/abc /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n");
        write("proc/self/cgroup", "3:cpu:/docker/abc\n");
        write("sys/fs/cgroup/cpu/cpu.cfs_period_us", "100000\n");
        write("sys/fs/cgroup/cpu/cpu.cfs_quota_us", "200000\n");
        assertThat(CpuQuota.detect(this.root, 64)).isTrue();
    }

    @Test
    void cpusThatAreAllowedButOfflineDoNotCount() throws IOException {
        cpus("0-31", "0-15");
        write("proc/self/mountinfo", V2_MOUNT);
        write("proc/self/cgroup", "0::/\n");
        write("sys/fs/cgroup/cpu.max", "1600000 100000\n");
        assertThat(CpuQuota.detect(this.root, 16)).isFalse();
    }

    @Test
    void withCgroupFilesTheRuntimesCountIsNotTakenForAQuota() throws IOException {
        // -XX:ActiveProcessorCount=2, or a count from CPU shares: the cgroup says there is no quota.
        cpus("0-7", "0-7");
        write("proc/self/mountinfo", V2_MOUNT);
        write("proc/self/cgroup", "0::/\n");
        write("sys/fs/cgroup/cpu.max", "max 100000\n");
        assertThat(CpuQuota.detect(this.root, 2)).isFalse();
    }

    @Test
    void withoutCgroupFilesFewerProcessorsThanCpusStandsForAQuota() throws IOException {
        cpus("0-63", "0-63");
        assertThat(CpuQuota.detect(this.root, 2)).isTrue();
        assertThat(CpuQuota.detect(this.root, 64)).isFalse();
    }

    @Test
    void nothingReadableIsNoQuota() throws IOException {
        assertThat(CpuQuota.detect(this.root, 8)).isFalse();
        write("proc/self/status", "Name:\tjava\nCpus_allowed_list:\tnot-a-list\n");
        write("proc/self/mountinfo", "garbage\n" + V2_MOUNT);
        write("proc/self/cgroup", "garbage\n0::/\n");
        write("sys/fs/cgroup/cpu.max", "garbage\n");
        assertThat(CpuQuota.detect(this.root, 8)).isFalse();
    }

    @Test
    void aProcessNameCutMidCharacterDoesNotHideTheAllowedCpus() throws IOException {
        Path status = this.root.resolve("proc/self/status");
        Files.createDirectories(status.getParent());
        byte[] name = {'N', 'a', 'm', 'e', ':', '\t', 'j', (byte) 0xC3, '\n'};
        Files.write(status, name);
        Files.writeString(status, "Cpus_allowed_list:\t0-63\n", java.nio.file.StandardOpenOption.APPEND);
        write("sys/devices/system/cpu/online", "0-63\n");
        assertThat(CpuQuota.detect(this.root, 2)).isTrue();
    }

    @Test
    void cpuListsAreReadAndAnythingElseIsEmpty() {
        assertThat(CpuQuota.cpus("0-3,8,10-11").cardinality()).isEqualTo(7);
        assertThat(CpuQuota.cpus("0\n").cardinality()).isEqualTo(1);
        for (String notAList : new String[] {"x", "-", "3-1", "1-2-3", ""}) {
            assertThat(CpuQuota.cpus(notAList)).as(notAList).isEqualTo(new BitSet());
        }
    }

    @Test
    void alwaysAndNeverAreFixedWhateverTheQuota() {
        assertThat(Locks.waitsAwake(AwakeWaiting.ALWAYS)).isTrue();
        assertThat(Locks.waitsAwake(AwakeWaiting.NEVER)).isFalse();
    }

    private void cpus(String allowed, String online) throws IOException {
        write("proc/self/status", "Name:\tjava\nCpus_allowed_list:\t" + allowed + "\nMems_allowed_list:\t0\n");
        write("sys/devices/system/cpu/online", online + "\n");
    }

    private void write(String file, String text) throws IOException {
        Path path = this.root.resolve(file);
        Files.createDirectories(path.getParent());
        Files.writeString(path, text);
    }
}
