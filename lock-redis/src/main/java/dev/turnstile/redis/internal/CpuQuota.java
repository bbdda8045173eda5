package dev.turnstile.redis.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * Whether this process runs under a CPU quota smaller than the CPUs it may run on (a container's
 * CPU limit, a systemd {@code CPUQuota}): then a thread busy on an otherwise idle CPU spends the
 * quota of the whole process. Read once per process, when first asked (a quota changed later, as
 * by an in-place resize of a Kubernetes pod, is not seen). Linux only; elsewhere no quota is
 * assumed.
 *
 * <p>The quota is cgroup's: the smallest {@code cpu.max} (v2) or {@code cpu.cfs_quota_us} over
 * {@code cpu.cfs_period_us} (v1) on the way from this process's own cgroup up to the root of its
 * mount, so a limit set on a parent (a systemd slice, a Kubernetes pod) counts. It is compared with
 * the CPUs this process may run on that are online. Where no cgroup file can be read, the runtime's
 * processor count stands in for the quota (it follows the quota under the runtime's container
 * support, and {@code -XX:ActiveProcessorCount} then counts as one).
 */
final class CpuQuota {

    /** Whether a quota limits this process, as found when the class was loaded. */
    static final boolean PRESENT = detect(Path.of("/"), Runtime.getRuntime().availableProcessors());

    private CpuQuota() {}

    /** Looks under {@code root} (the file system's root, or a test's copy of what matters of it). */
    static boolean detect(Path root, int processors) {
        int cpus = usableCpus(root);
        if (cpus == 0) {
            cpus = processors;
        }
        double quota = cgroupQuota(root);
        if (Double.isNaN(quota)) { // no cgroup file read: the runtime's count is all there is
            return processors < cpus;
        }
        return quota < cpus;
    }

    /**
     * The CPUs in {@code Cpus_allowed_list} that are also online; 0 when either cannot be read. (The
     * allowed list of a process outside any cpuset can name CPUs that are only possible, not online.)
     */
    private static int usableCpus(Path root) {
        BitSet allowed = null;
        for (String line : lines(root.resolve("proc/self/status"))) {
            if (line.startsWith("Cpus_allowed_list:")) {
                allowed = cpus(line.substring(line.indexOf(':') + 1));
            }
        }
        BitSet online = cpus(read(root.resolve("sys/devices/system/cpu/online")));
        if (allowed == null || allowed.isEmpty() || online.isEmpty()) {
            return 0;
        }
        allowed.and(online);
        return allowed.cardinality();
    }

    /** The CPUs of a list like {@code 0-3,8,10-11}; empty if it is not one. */
    static BitSet cpus(String list) {
        BitSet cpus = new BitSet();
        for (String range : list.trim().split(",")) {
            String[] ends = range.trim().split("-", -1);
            try {
                int first = Integer.parseInt(ends[0].trim());
                int last = ends.length == 2 ? Integer.parseInt(ends[1].trim()) : first;
                if (ends.length > 2 || first < 0 || last < first) {
                    return new BitSet();
                }
                cpus.set(first, last + 1);
            } catch (NumberFormatException notAList) {
                return new BitSet();
            }
        }
        return cpus;
    }

    /**
     * The smallest CPU quota over this process's cgroup and its parents, in CPUs: infinite if none
     * is set, NaN if no quota file could be read.
     */
    private static double cgroupQuota(Path root) {
        double quota = Double.NaN;
        for (Path dir : cgroupDirs(root)) {
            quota = least(quota, quotaV2(dir.resolve("cpu.max")));
            quota = least(quota, quotaV1(dir.resolve("cpu.cfs_quota_us"), dir.resolve("cpu.cfs_period_us")));
        }
        return quota;
    }

    /** The smaller of two quotas, where NaN (not read) is no quota at all, not a smaller one. */
    private static double least(double a, double b) {
        return Double.isNaN(a) ? b : Double.isNaN(b) ? a : Math.min(a, b);
    }

    /**
     * The directories from this process's cgroup up to the root of each CPU controller mount (v2,
     * and v1's {@code cpu}), as {@code /proc/self/mountinfo} and {@code /proc/self/cgroup} give
     * them; the mount's root alone where the process's path is not inside it (a container's view).
     */
    private static List<Path> cgroupDirs(Path root) {
        List<Path> dirs = new ArrayList<>();
        List<String> memberships = lines(root.resolve("proc/self/cgroup"));
        for (String mount : lines(root.resolve("proc/self/mountinfo"))) {
            // id parent major:minor root mount-point options... - type source super-options
            String[] halves = mount.split(" - ", 2);
            String[] fields = halves[0].split(" ");
            if (halves.length < 2 || fields.length < 5) {
                continue;
            }
            String[] after = halves[1].split(" ");
            boolean v2 = after[0].equals("cgroup2");
            boolean v1Cpu = after[0].equals("cgroup")
                    && after.length > 2
                    && List.of(after[2].split(",")).contains("cpu");
            if (!v2 && !v1Cpu) {
                continue;
            }
            Path mountPoint = root.resolve(fields[4].substring(1));
            String path = membership(memberships, v2);
            String mountRoot = fields[3];
            Path dir = mountPoint;
            if (path != null && (mountRoot.equals("/") || path.startsWith(mountRoot))) {
                String inside = mountRoot.equals("/") ? path : path.substring(mountRoot.length());
                String relative = inside.startsWith("/") ? inside.substring(1) : inside;
                dir = relative.isEmpty() ? mountPoint : mountPoint.resolve(relative);
            }
            for (Path up = dir; up != null && up.startsWith(mountPoint); up = up.getParent()) {
                dirs.add(up);
            }
        }
        return dirs;
    }

    /** This process's cgroup path in the v2 hierarchy ({@code 0::/path}) or v1's cpu one; null if none. */
    private static String membership(List<String> memberships, boolean v2) {
        for (String line : memberships) {
            String[] parts = line.split(":", 3);
            if (parts.length < 3) {
                continue;
            }
            boolean match = v2
                    ? parts[0].equals("0") && parts[1].isEmpty()
                    : List.of(parts[1].split(",")).contains("cpu");
            if (match) {
                return parts[2];
            }
        }
        return null;
    }

    /** cgroup v2's {@code cpu.max} ({@code max 100000}, or quota and period in µs) as CPUs; NaN if unread. */
    private static double quotaV2(Path cpuMax) {
        String[] fields = read(cpuMax).split("\\s+");
        if (fields.length != 2) {
            return Double.NaN;
        }
        return fields[0].equals("max") ? Double.POSITIVE_INFINITY : cpus(fields[0], fields[1]);
    }

    /** cgroup v1's quota (-1 for none) over its period, as CPUs; NaN if unread. */
    private static double quotaV1(Path quota, Path period) {
        String text = read(quota);
        if (text.isEmpty()) {
            return Double.NaN;
        }
        return text.equals("-1") ? Double.POSITIVE_INFINITY : cpus(text, read(period));
    }

    private static double cpus(String quota, String period) {
        try {
            long q = Long.parseLong(quota);
            long p = Long.parseLong(period);
            return q > 0 && p > 0 ? (double) q / p : Double.NaN;
        } catch (NumberFormatException unreadable) {
            return Double.NaN;
        }
    }

    private static String read(Path file) {
        List<String> lines = lines(file);
        return lines.isEmpty() ? "" : String.join("\n", lines).trim();
    }

    /** The file's lines (bytes as ISO-8859-1: a process name cut mid-character never fails the read); none if unreadable. */
    private static List<String> lines(Path file) {
        try {
            return Files.isReadable(file) ? Files.readAllLines(file, StandardCharsets.ISO_8859_1) : List.of();
        } catch (IOException | RuntimeException unreadable) {
            return List.of();
        }
    }
}
