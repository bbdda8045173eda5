package dev.turnstile.benchmarks;

import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Renders measurements as Markdown (one table per group, each row as a ratio to the group's first
 * row), CSV, and an SVG chart of acquisitions per second per group.
 *
 * @param results the measurements, by group
 * @param ratios the ratios the run states
 * @param processes the two-process rows
 * @param idle the keys left per idle name
 * @param redisBenchmark {@code redis-benchmark -t set}: requests per second by clients
 * @param header when, where and how it was measured
 */
record Report(
        List<Measurement> results,
        List<Ratio> ratios,
        List<ProcessRow> processes,
        List<IdleNames.Row> idle,
        Map<Integer, Double> redisBenchmark,
        String header) {

    /**
     * One library in the two-process scenario.
     *
     * @param contender the library
     * @param acquisitionsPerSecond acquisitions per second of both processes together
     * @param commandsPerAcquisition commands Redis executed per acquisition
     */
    record ProcessRow(
            String contender,
            double acquisitionsPerSecond,
            double commandsPerAcquisition,
            double firstProcessShare,
            double acquireP99Micros) {}

    /**
     * A ratio the run states: {@code contender}'s acquisitions per second over {@code reference}'s,
     * both rows of {@code group} in the same run.
     *
     * @param target the least the ratio should be, or NaN for none
     */
    record Ratio(String group, String contender, String reference, double target) {}

    /** The report of one run, whose header says when, where and how it was measured. */
    static Report of(
            List<Measurement> results,
            List<Ratio> ratios,
            List<ProcessRow> processes,
            List<IdleNames.Row> idle,
            Map<Integer, Double> redisBenchmark,
            Duration trial,
            Duration warmUp,
            int trials,
            String redisVersion,
            LocalDate date) {
        String header = String.format(
                Locale.ROOT,
                "Measured %s on %d cores, %s, Java %s, client and server on one machine; warm-up %ds,"
                        + " median of %d trials of %ds each. Each row waits up to 30 s with a fixed 30 s lease"
                        + " unless it says otherwise.",
                date,
                Runtime.getRuntime().availableProcessors(),
                redisVersion.replace(':', ' '),
                System.getProperty("java.version"),
                warmUp.toSeconds(),
                trials,
                trial.toSeconds());
        return new Report(results, ratios, processes, idle, redisBenchmark, header);
    }

    /**
     * The stated ratios whose two rows were both measured in this run, as a Markdown table (empty
     * when none was).
     */
    String ratioTable() {
        Map<String, List<Measurement>> groups = groups();
        StringBuilder rows = new StringBuilder();
        for (Ratio ratio : this.ratios) {
            List<Measurement> group = groups.getOrDefault(ratio.group(), List.of());
            Measurement contender = row(group, ratio.contender());
            Measurement reference = row(group, ratio.reference());
            if (contender != null && reference != null) {
                double value = contender.acquisitionsPerSecond() / reference.acquisitionsPerSecond();
                rows.append(String.format(
                        Locale.ROOT,
                        "| %s | %s | %s | %,.0f / %,.0f | **%.2f×** | %s | %s |%n",
                        ratio.group(),
                        ratio.contender(),
                        ratio.reference(),
                        contender.acquisitionsPerSecond(),
                        reference.acquisitionsPerSecond(),
                        value,
                        roundRatios(contender, reference),
                        Double.isNaN(ratio.target())
                                ? "–"
                                : String.format(
                                        Locale.ROOT,
                                        "≥ %.2f× (%s)",
                                        ratio.target(),
                                        value >= ratio.target() ? "met" : "not met")));
            }
        }
        if (rows.length() == 0) {
            return "";
        }
        return "\n### Ratios within this run\n\n"
                + "The ratio is of the two medians; \"each round\" gives the lowest and highest ratio of the two"
                + " rows' trials of the same round (a group's scenarios take their trials in turns): how far"
                + " one trial's ratio strays on this machine.\n\n"
                + "| group | contender | against | acquisitions/s | ratio | each round | target |\n"
                + "|---|---|---|---:|---:|---:|---|\n" + rows;
    }

    /** The lowest and highest ratio of the two rows' trials of the same round, as {@code 0.84–0.95×}. */
    private static String roundRatios(Measurement contender, Measurement reference) {
        int rounds =
                Math.min(contender.roundRates().size(), reference.roundRates().size());
        double low = Double.POSITIVE_INFINITY;
        double high = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < rounds; i++) {
            if (reference.roundRates().get(i) <= 0) {
                return "–"; // a round with no acquisition of the reference has no ratio
            }
            double ratio =
                    contender.roundRates().get(i) / reference.roundRates().get(i);
            low = Math.min(low, ratio);
            high = Math.max(high, ratio);
        }
        return rounds == 0 ? "–" : String.format(Locale.ROOT, "%.2f–%.2f×", low, high);
    }

    private static @Nullable Measurement row(List<Measurement> group, String contender) {
        return group.stream()
                .filter(result -> result.scenario().contender().equals(contender))
                .findFirst()
                .orElse(null);
    }

    String markdown() {
        StringBuilder text = new StringBuilder(this.header).append("\n").append(ratioTable());
        for (Map.Entry<String, List<Measurement>> group : groups().entrySet()) {
            double baseline = group.getValue().get(0).acquisitionsPerSecond();
            text.append("\n### ").append(group.getKey()).append("\n\n");
            text.append("| contender | acquisitions/s | × first row | round trips/acq | commands/acq"
                    + " | acquire p50 µs | acquire p99 µs | hand-off p50 µs | client CPU µs/acq"
                    + " | server CPU µs/acq |\n");
            text.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
            for (Measurement result : group.getValue()) {
                text.append(rateCells(result.scenario().contender(), result.acquisitionsPerSecond(), baseline))
                        .append(String.format(
                                Locale.ROOT,
                                " %s | %.1f | %.0f | %.0f | %s | %.0f | %.1f |%n",
                                orDash("%.2f", result.roundTripsPerAcquisition()),
                                result.commandsPerAcquisition(),
                                result.acquireP50Micros(),
                                result.acquireP99Micros(),
                                orDash("%.0f", result.handoffP50Micros()),
                                result.cpuMicrosPerAcquisition(),
                                result.serverCpuMicrosPerAcquisition()));
            }
        }
        if (!this.processes.isEmpty()) {
            double baseline = this.processes.get(0).acquisitionsPerSecond();
            text.append("\n### 2 JVM processes x 4 threads, one key\n\n");
            text.append(
                    "| contender | acquisitions/s (both processes) | × first row | commands/acq | split (process 1 / 2) | acquire p99 µs |\n");
            text.append("|---|---:|---:|---:|---:|---:|\n");
            for (ProcessRow row : this.processes) {
                text.append(rateCells(row.contender(), row.acquisitionsPerSecond(), baseline))
                        .append(String.format(
                                Locale.ROOT,
                                " %.1f | %.0f%% / %.0f%% | %.0f |%n",
                                row.commandsPerAcquisition(),
                                row.firstProcessShare() * 100,
                                (1 - row.firstProcessShare()) * 100,
                                row.acquireP99Micros()));
            }
        }
        if (!this.idle.isEmpty()) {
            text.append("\n### Keys left per idle name\n\n");
            text.append("100,000 distinct names, each locked and released once by 8 threads; then the keys under each"
                    + " library's pattern and their bytes (`MEMORY USAGE`), right after and "
                    + IdleNames.AFTER.toSeconds() + " s later.\n\n");
            text.append("| contender | names | keys right after | bytes per name | keys " + IdleNames.AFTER.toSeconds()
                    + " s later | bytes per name then |\n");
            text.append("|---|---:|---:|---:|---:|---:|\n");
            this.idle.forEach(row -> text.append(row.markdown()));
        }
        if (!this.redisBenchmark.isEmpty()) {
            text.append("\n### For reference: `redis-benchmark -t set` on the same server\n\n");
            text.append("| clients | SET requests/s |\n|---:|---:|\n");
            this.redisBenchmark.forEach(
                    (clients, rate) -> text.append(String.format(Locale.ROOT, "| %d | %,.0f |%n", clients, rate)));
        }
        return text.toString();
    }

    /**
     * The first cells of a contender's row, the same in every table: its name, its acquisitions per
     * second and their ratio to {@code reference}'s (the table's first row, or the row it is
     * compared with). The row's other cells follow, each as {@code " value |"}.
     */
    static String rateCells(String contender, double acquisitionsPerSecond, double reference) {
        return String.format(
                Locale.ROOT,
                "| %s | %,.0f | %.2f |",
                contender,
                acquisitionsPerSecond,
                acquisitionsPerSecond / reference);
    }

    /** A table cell: {@code value} in {@code format}, or a dash when it was not measured (NaN). */
    static String orDash(String format, double value) {
        return Double.isNaN(value) ? "–" : String.format(Locale.ROOT, format, value);
    }

    String csv() {
        StringBuilder text = new StringBuilder("group,contender,threads,acquisitions_per_s,round_trips_per_acq,"
                + "commands_per_acq,acquire_p50_us,acquire_p99_us,handoff_p50_us,client_cpu_us_per_acq,"
                + "server_cpu_us_per_acq\n");
        for (ProcessRow row : this.processes) {
            text.append(String.format(
                    Locale.ROOT,
                    "\"2 JVM processes x 4 threads, one key\",\"%s\",8,%.1f,NaN,%.3f,NaN,%.1f,NaN,NaN,NaN%n",
                    row.contender(),
                    row.acquisitionsPerSecond(),
                    row.commandsPerAcquisition(),
                    row.acquireP99Micros()));
        }
        for (Measurement result : this.results) {
            text.append(String.format(
                    Locale.ROOT,
                    "\"%s\",\"%s\",%d,%.1f,%.3f,%.3f,%.1f,%.1f,%.1f,%.1f,%.2f%n",
                    result.scenario().group(),
                    result.scenario().contender(),
                    result.scenario().threads(),
                    result.acquisitionsPerSecond(),
                    result.roundTripsPerAcquisition(),
                    result.commandsPerAcquisition(),
                    result.acquireP50Micros(),
                    result.acquireP99Micros(),
                    result.handoffP50Micros(),
                    result.cpuMicrosPerAcquisition(),
                    result.serverCpuMicrosPerAcquisition()));
        }
        return text.toString();
    }

    /**
     * One panel per group: a horizontal bar per contender, acquisitions per second. The bars of a
     * group are compared on one scale, drawn with its ticks; groups differ by orders of magnitude,
     * so each has its own. A legend tells Turnstile, its peers and the raw baseline apart.
     */
    String svg() {
        int width = 900;
        int rowHeight = 18;
        int left = 330;
        int right = width - 70;
        StringBuilder body = new StringBuilder();
        int y = 64;
        for (Map.Entry<String, List<Measurement>> group : groups().entrySet()) {
            body.append(String.format(
                    Locale.ROOT,
                    "<text x=\"10\" y=\"%d\" font-weight=\"bold\">%s</text>%n",
                    y,
                    escape(group.getKey())));
            y += 8;
            double[] scale = scale(group.getValue().stream()
                    .mapToDouble(Measurement::acquisitionsPerSecond)
                    .max()
                    .orElse(1));
            double max = scale[0] * scale[1];
            int ticks = (int) scale[1];
            int barsHeight = group.getValue().size() * rowHeight;
            for (int tick = 0; tick <= ticks; tick++) {
                int x = left + (right - left) * tick / ticks;
                body.append(String.format(
                        Locale.ROOT,
                        "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\"/>%n",
                        x,
                        y,
                        x,
                        y + barsHeight + 3,
                        tick == 0 ? "black" : "#dddddd"));
                body.append(String.format(
                        Locale.ROOT,
                        "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"10\" fill=\"#555555\">%,.0f</text>%n",
                        x,
                        y + barsHeight + 14,
                        scale[0] * tick));
            }
            for (Measurement result : group.getValue()) {
                int bar = (int) Math.round((right - left) * result.acquisitionsPerSecond() / max);
                body.append(String.format(
                        Locale.ROOT,
                        "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>%n",
                        left - 6,
                        y + 13,
                        escape(result.scenario().contender())));
                body.append(String.format(
                        Locale.ROOT,
                        "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>%n",
                        left,
                        y + 2,
                        Math.max(bar, 1),
                        rowHeight - 4,
                        color(result.scenario().contender())));
                body.append(String.format(
                        Locale.ROOT,
                        "<text x=\"%d\" y=\"%d\">%,.0f/s</text>%n",
                        left + bar + 4,
                        y + 13,
                        result.acquisitionsPerSecond()));
                y += rowHeight;
            }
            body.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"10\" fill=\"#555555\">acquisitions per second</text>%n",
                    (left + right) / 2,
                    y + 26));
            y += 46;
        }
        StringBuilder legend = new StringBuilder();
        String[][] entries = {{"Turnstile", "#2e7d32"}, {"peers", "#1565c0"}, {"raw SET NX PX baseline", "#9e9e9e"}};
        for (int i = 0; i < entries.length; i++) {
            int x = 10 + i * 160;
            legend.append(String.format(
                    Locale.ROOT,
                    "<rect x=\"%d\" y=\"32\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%d\" y=\"43\">%s</text>%n",
                    x,
                    entries[i][1],
                    x + 18,
                    entries[i][0]));
        }
        return String.format(
                        Locale.ROOT,
                        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"11\">%n",
                        width,
                        y)
                + "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
                + "<text x=\"10\" y=\"20\" font-size=\"14\">Acquisitions per second (acquire + release), one redis-server;"
                + " each group on its own scale</text>\n"
                + legend + body + "</svg>\n";
    }

    /** Grey for the raw baselines and the in-process anchor, blue for the peers, green for Turnstile (by any of its names). */
    private static String color(String contender) {
        if (contender.startsWith("raw") || contender.startsWith("fair ReentrantLock")) {
            return "#9e9e9e";
        }
        return contender.startsWith("Redisson") || contender.startsWith("Spring Integration") ? "#1565c0" : "#2e7d32";
    }

    /**
     * A scale for values up to {@code value}: a round step (1, 2, 2.5 or 5 × 10ⁿ) and how many of
     * them (at most 6) reach it.
     */
    static double[] scale(double value) {
        for (double power = 1; ; power *= 10) {
            for (double factor : new double[] {1, 2, 2.5, 5}) {
                double step = power * factor;
                double ticks = Math.max(1, Math.ceil(value / step));
                if (ticks <= 6) {
                    return new double[] {step, ticks};
                }
            }
        }
    }

    private Map<String, List<Measurement>> groups() {
        Map<String, List<Measurement>> groups = new LinkedHashMap<>();
        for (Measurement result : this.results) {
            groups.computeIfAbsent(result.scenario().group(), key -> new ArrayList<>())
                    .add(result);
        }
        return groups;
    }

    private static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
