package dev.turnstile.sample.benchmark;

import java.util.List;
import java.util.Locale;

/** The measured Table 6.3 beside the book's: Markdown, CSV, and an SVG bar chart of purchases. */
final class BenchmarkReport {

    private static final String[] LABELS = {"no lock (WATCH)", "with lock", "fine-grained lock"};

    private final List<RunResult> results;

    BenchmarkReport(List<RunResult> results) {
        this.results = results;
    }

    String markdown() {
        StringBuilder text = new StringBuilder();
        double seconds = this.results.isEmpty() ? 0 : this.results.get(0).seconds();
        text.append(String.format(
                Locale.ROOT,
                "Measured for %.0f s per row on %d cores, scaled to the book's 60 s; the book's row (2012 hardware,"
                        + " one process per worker) in brackets.%n%n",
                seconds,
                Runtime.getRuntime().availableProcessors()));
        text.append(
                "| workers | strategy | listed / 60 s | bought / 60 s | purchase retries / 60 s | avg wait per purchase |\n");
        text.append("|---|---|---:|---:|---:|---:|\n");
        for (RunResult result : this.results) {
            BookTable book = BookTable.of(result.listers(), result.buyers(), result.strategy());
            text.append(String.format(
                    Locale.ROOT,
                    "| %d listers, %d buyer%s | %s | %,d (%s) | %,d (%s) | %,d (%s) | %.2f ms (%s) |%n",
                    result.listers(),
                    result.buyers(),
                    result.buyers() == 1 ? "" : "s",
                    label(result.strategy()),
                    result.per60s(result.listed()),
                    book.listed(),
                    result.per60s(result.bought()),
                    book.bought(),
                    result.per60s(result.retries()),
                    book.retries(),
                    result.averageWaitMillis(),
                    book.averageWait()));
        }
        return text.toString();
    }

    String csv() {
        StringBuilder text = new StringBuilder(
                "listers,buyers,strategy,seconds,listed,bought,retries,avg_wait_ms,book_listed,book_bought,book_retries,book_wait\n");
        for (RunResult result : this.results) {
            BookTable book = BookTable.of(result.listers(), result.buyers(), result.strategy());
            text.append(String.format(
                    Locale.ROOT,
                    "%d,%d,%s,%.1f,%d,%d,%d,%.3f,\"%s\",\"%s\",\"%s\",\"%s\"%n",
                    result.listers(),
                    result.buyers(),
                    result.strategy(),
                    result.seconds(),
                    result.listed(),
                    result.bought(),
                    result.retries(),
                    result.averageWaitMillis(),
                    book.listed(),
                    book.bought(),
                    book.retries(),
                    book.averageWait()));
        }
        return text.toString();
    }

    /** Grouped bars: items bought per 60 s for each worker shape, one bar per strategy. */
    String svg() {
        int width = 720;
        int height = 360;
        int left = 80;
        int bottom = 300;
        long max = Math.max(
                1,
                this.results.stream().mapToLong(r -> r.per60s(r.bought())).max().orElse(1));
        String[] colors = {"#c0504d", "#4f81bd", "#9bbb59"};
        StringBuilder svg = new StringBuilder(String.format(
                Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"12\">%n",
                width,
                height));
        svg.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        svg.append(
                "<text x=\"360\" y=\"24\" text-anchor=\"middle\" font-size=\"15\">Items bought per 60 s (Table 6.3, measured)</text>\n");
        svg.append(String.format(
                Locale.ROOT,
                "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>%n",
                left,
                bottom,
                width - 20,
                bottom));
        svg.append(String.format(
                Locale.ROOT, "<line x1=\"%d\" y1=\"40\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>%n", left, left, bottom));
        svg.append(
                String.format(Locale.ROOT, "<text x=\"%d\" y=\"44\" text-anchor=\"end\">%,d</text>%n", left - 6, max));
        svg.append(
                String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">0</text>%n", left - 6, bottom));
        int groupWidth = (width - left - 40) / 3;
        int barWidth = groupWidth / 4;
        for (int group = 0; group < MarketBenchmark.SHAPES.size(); group++) {
            int[] shape = MarketBenchmark.SHAPES.get(group);
            int x0 = left + 20 + group * groupWidth;
            for (int bar = 0; bar < 3; bar++) {
                RunResult result = find(shape[0], shape[1], bar);
                long value = result == null ? 0 : result.per60s(result.bought());
                int barHeight = (int) Math.round((bottom - 50) * (double) value / max);
                int x = x0 + bar * barWidth;
                svg.append(String.format(
                        Locale.ROOT,
                        "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>%n",
                        x,
                        bottom - barHeight,
                        barWidth - 4,
                        barHeight,
                        colors[bar]));
                svg.append(String.format(
                        Locale.ROOT,
                        "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"10\">%,d</text>%n",
                        x + (barWidth - 4) / 2,
                        bottom - barHeight - 4,
                        value));
            }
            svg.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%d listers, %d buyer%s</text>%n",
                    x0 + barWidth * 3 / 2,
                    bottom + 18,
                    shape[0],
                    shape[1],
                    shape[1] == 1 ? "" : "s"));
        }
        for (int bar = 0; bar < 3; bar++) {
            int x = left + 20 + bar * 200;
            svg.append(String.format(
                    Locale.ROOT,
                    "<rect x=\"%d\" y=\"330\" width=\"12\" height=\"12\" fill=\"%s\"/>%n",
                    x,
                    colors[bar]));
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"341\">%s</text>%n", x + 18, LABELS[bar]));
        }
        return svg.append("</svg>\n").toString();
    }

    private RunResult find(int listers, int buyers, int strategyIndex) {
        String strategy = List.of("watch", "lock", "fine").get(strategyIndex);
        return this.results.stream()
                .filter(r -> r.listers() == listers
                        && r.buyers() == buyers
                        && r.strategy().equals(strategy))
                .findFirst()
                .orElse(null);
    }

    private static String label(String strategy) {
        return switch (strategy) {
            case "watch" -> LABELS[0];
            case "lock" -> LABELS[1];
            default -> LABELS[2];
        };
    }
}
