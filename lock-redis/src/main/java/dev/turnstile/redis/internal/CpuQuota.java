package dev.turnstile.redis.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Whether this process runs under a CPU quota that is smaller than the CPUs it may be scheduled on
 * (a container's CPU limit, a systemd {@code CPUQuota}): then a thread busy on an otherwise idle CPU
 * spends the quota of the whole process. Linux only; elsewhere, or where nothing can be read, no
 * quota is assumed. Read once per process.
 */
final class CpuQuota {

    /** Whether a quota limits this process, as found when the class was loaded. */
    static final boolean PRESENT = detect(Path.of("/"), Runtime.getRuntime().availableProcessors());

    private CpuQuota() {}

    /**
     * Looks under {@code root}: a quota is present if the runtime grants fewer processors ({@code
     * processors}, which the runtime derives from the quota) than the CPUs the process may run on
     * ({@code Cpus_allowed_list} in {@code /proc/self/status}), or if the cgroup quota at the root of
     * this process's cgroup view (a container's own) allows fewer CPUs than that.
     */
    static boolean detect(Path root, int processors) {
        int allowed = allowedCpus(root.resolve("proc/self/status"));
        int cpus = allowed > 0 ? allowed : processors;
        if (processors < cpus) {
            return true;
        }
        Path cgroup = root.resolve("sys/fs/cgroup");
        double quota = Math.min(
                quotaV2(cgroup.resolve("cpu.max")),
                Math.min(
                        quotaV1(cgroup.resolve("cpu")),
                        Math.min(quotaV1(cgroup.resolve("cpu,cpuacct")), quotaV1(cgroup.resolve("cpuacct,cpu")))));
        return quota < cpus;
    }

    /** The CPUs in {@code Cpus_allowed_list}, or 0 when it cannot be read. */
    private static int allowedCpus(Path status) {
        try {
            for (String line : Files.readAllLines(status)) {
                if (line.startsWith("Cpus_allowed_list:")) {
                    return count(line.substring(line.indexOf(':') + 1).trim());
                }
            }
        } catch (IOException | RuntimeException unreadable) {
            return 0;
        }
        return 0;
    }

    /** Counts the CPUs of a list like {@code 0-3,8,10-11}; 0 if it is not one. */
    static int count(String list) {
        int cpus = 0;
        for (String range : list.split(",")) {
            String[] ends = range.trim().split("-");
            try {
                int first = Integer.parseInt(ends[0].trim());
                int last = ends.length > 1 ? Integer.parseInt(ends[1].trim()) : first;
                cpus += last - first + 1;
            } catch (NumberFormatException notAList) {
                return 0;
            }
        }
        return cpus;
    }

    /** cgroup v2's {@code cpu.max} ({@code max 100000}, or quota and period in µs) as CPUs; infinite if none. */
    private static double quotaV2(Path cpuMax) {
        String[] fields = read(cpuMax).split("\\s+");
        return fields.length == 2 ? cpus(fields[0], fields[1]) : Double.POSITIVE_INFINITY;
    }

    /** cgroup v1's {@code cpu.cfs_quota_us} (-1 for none) over {@code cpu.cfs_period_us} in {@code dir}, as CPUs. */
    private static double quotaV1(Path dir) {
        return cpus(read(dir.resolve("cpu.cfs_quota_us")), read(dir.resolve("cpu.cfs_period_us")));
    }

    private static double cpus(String quota, String period) {
        try {
            long q = Long.parseLong(quota);
            long p = Long.parseLong(period);
            return q > 0 && p > 0 ? (double) q / p : Double.POSITIVE_INFINITY;
        } catch (NumberFormatException none) { // "max", or nothing read
            return Double.POSITIVE_INFINITY;
        }
    }

    private static String read(Path file) {
        try {
            return Files.isReadable(file) ? Files.readString(file).trim() : "";
        } catch (IOException | RuntimeException unreadable) {
            return "";
        }
    }
}
