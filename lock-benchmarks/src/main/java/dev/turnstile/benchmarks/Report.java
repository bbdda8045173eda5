package dev.turnstile.benchmarks;

import java.time.Duration;
import java.time.LocalDate;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Renders measurements as Markdown (one table per group, with ratios to the group's first row)
 * and CSV.
 */
final class Report {

    private final List<Measurement> results;
    private final String header;

    Report(
            List<Measurement> results,
            Duration trial,
            Duration warmUp,
            int trials,
            String redisVersion,
            LocalDate date) {
        this.results = results;
        this.header = String.format(
                Locale.ROOT,
                "Measured %s on %d cores, %s, Java %s; warm-up %ds, median of %d trials of %ds each.",
                date,
                Runtime.getRuntime().availableProcessors(),
                redisVersion.replace(':', ' '),
                System.getProperty("java.version"),
                warmUp.toSeconds(),
                trials,
                trial.toSeconds());
    }

    String markdown() {
        StringBuilder text = new StringBuilder(this.header).append("\n");
        Map<String, List<Measurement>> groups = new LinkedHashMap<>();
        for (Measurement result : this.results) {
            groups.computeIfAbsent(result.scenario().group(), key -> new java.util.ArrayList<>())
                    .add(result);
        }
        for (Map.Entry<String, List<Measurement>> group : groups.entrySet()) {
            double baseline = group.getValue().get(0).acquisitionsPerSecond();
            text.append("\n### ").append(group.getKey()).append("\n\n");
            text.append(
                    "| contender | acquisitions/s | × first row | Redis commands/acquisition | p50 µs | p99 µs |\n");
            text.append("|---|---:|---:|---:|---:|---:|\n");
            for (Measurement result : group.getValue()) {
                text.append(String.format(
                        Locale.ROOT,
                        "| %s | %,.0f | %.2f | %.2f | %.2f | %.0f | %.0f |%n",
                        result.scenario().contender(),
                        result.acquisitionsPerSecond(),
                        result.acquisitionsPerSecond() / baseline,
                        result.roundTripsPerAcquisition(),
                        result.commandsPerAcquisition(),
                        result.p50Micros(),
                        result.p99Micros()));
            }
        }
        return text.toString();
    }

    String csv() {
        StringBuilder text = new StringBuilder(
                "group,contender,threads,acquisitions_per_s,round_trips_per_acquisition,commands_per_acquisition,p50_us,p99_us\n");
        for (Measurement result : this.results) {
            text.append(String.format(
                    Locale.ROOT,
                    "\"%s\",\"%s\",%d,%.1f,%.3f,%.3f,%.1f,%.1f%n",
                    result.scenario().group(),
                    result.scenario().contender(),
                    result.scenario().threads(),
                    result.acquisitionsPerSecond(),
                    result.roundTripsPerAcquisition(),
                    result.commandsPerAcquisition(),
                    result.p50Micros(),
                    result.p99Micros()));
        }
        return text.toString();
    }
}
