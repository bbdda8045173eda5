package dev.turnstile.sample.benchmark;

import java.util.List;
import java.util.Locale;

/** The measured Table 6.3 beside the book's: Markdown, CSV, and an SVG bar chart of purchases. */
public final class BenchmarkReport {

    private static final String[] LABELS = {"no lock (WATCH)", "with lock", "fine-grained lock"};

    private final List<RunResult> results;

    /** A report of {@code results}, in the order measured. */
    public BenchmarkReport(List<RunResult> results) {
        this.results = results;
    }

    /** The table, each measured row beside the book's. */
    public String markdown() {
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
                    "| %s | %s | %,d (%s) | %,d (%s) | %,d (%s) | %.2f ms (%s) |%n",
                    workers(result.listers(), result.buyers()),
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

    /** The measured rows and the book's, as CSV. */
    public String csv() {
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

    /** "1 lister, 1 buyer", "5 listers, 5 buyers". */
    public static String workers(int listers, int buyers) {
        return listers + (listers == 1 ? " lister, " : " listers, ") + buyers + (buyers == 1 ? " buyer" : " buyers");
    }

    /**
     * Grouped bars on one scale: items bought per 60 s for each worker shape, one bar per strategy,
     * with a legend, labelled axes and gridlines.
     */
    public String svg() {
        int width = 760;
        int height = 400;
        int left = 90;
        int top = 50;
        int bottom = 320;
        long max = niceCeiling(
                this.results.stream().mapToLong(r -> r.per60s(r.bought())).max().orElse(1));
        String[] colors = {"#c0504d", "#4f81bd", "#9bbb59"};
        StringBuilder svg = new StringBuilder(String.format(
                Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\""
                        + " font-family=\"sans-serif\" font-size=\"12\">%n",
                width,
                height,
                width,
                height));
        svg.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        svg.append(String.format(
                Locale.ROOT,
                "<text x=\"%d\" y=\"24\" text-anchor=\"middle\" font-size=\"15\">Items bought per 60 s, by"
                        + " workers and strategy (Table 6.3, measured)</text>%n",
                width / 2));
        for (int tick = 0; tick <= 4; tick++) {
            long value = max * tick / 4;
            int y = bottom - (bottom - top) * tick / 4;
            svg.append(String.format(
                    Locale.ROOT,
                    "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\"/>%n",
                    left,
                    y,
                    width - 20,
                    y,
                    tick == 0 ? "black" : "#dddddd"));
            svg.append(String.format(
                    Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%,d</text>%n", left - 6, y + 4, value));
        }
        svg.append(String.format(
                Locale.ROOT,
                "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>%n",
                left,
                top,
                left,
                bottom));
        svg.append(String.format(
                Locale.ROOT,
                "<text transform=\"translate(18,%d) rotate(-90)\" text-anchor=\"middle\">items bought per 60 s</text>%n",
                (top + bottom) / 2));
        int groupWidth = (width - left - 40) / 3;
        int barWidth = groupWidth / 4;
        for (int group = 0; group < Table63.SHAPES.size(); group++) {
            int[] shape = Table63.SHAPES.get(group);
            int x0 = left + 20 + group * groupWidth;
            for (int bar = 0; bar < 3; bar++) {
                RunResult result = find(shape[0], shape[1], bar);
                long value = result == null ? 0 : result.per60s(result.bought());
                int barHeight = (int) Math.round((bottom - top) * (double) value / max);
                int x = x0 + bar * barWidth;
                svg.append(String.format(
                        Locale.ROOT,
                        "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"><title>%s, %s: %,d</title></rect>%n",
                        x,
                        bottom - barHeight,
                        barWidth - 4,
                        barHeight,
                        colors[bar],
                        workers(shape[0], shape[1]),
                        LABELS[bar],
                        value));
                svg.append(String.format(
                        Locale.ROOT,
                        "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"10\">%,d</text>%n",
                        x + (barWidth - 4) / 2,
                        bottom - barHeight - 4,
                        value));
            }
            svg.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
                    x0 + barWidth * 3 / 2,
                    bottom + 18,
                    workers(shape[0], shape[1])));
        }
        svg.append(String.format(
                Locale.ROOT,
                "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">workers (threads listing, threads buying)</text>%n",
                (left + width - 20) / 2,
                bottom + 40));
        for (int bar = 0; bar < 3; bar++) {
            int x = left + 20 + bar * 200;
            svg.append(String.format(
                    Locale.ROOT,
                    "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>%n",
                    x,
                    height - 26,
                    colors[bar]));
            svg.append(String.format(
                    Locale.ROOT, "<text x=\"%d\" y=\"%d\">%s</text>%n", x + 18, height - 15, LABELS[bar]));
        }
        return svg.append("</svg>\n").toString();
    }

    /** The top of a scale whose four ticks are round: 4 × (1, 2 or 5 × 10ⁿ), at or above {@code value}. */
    static long niceCeiling(long value) {
        for (long step = 1; ; step *= 10) {
            for (long factor : new long[] {1, 2, 5}) {
                if (4 * step * factor >= value) {
                    return 4 * step * factor;
                }
            }
        }
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

    /** The book's row for the same workers and strategy: listed, bought, retries, wait, as printed. */
    public static List<String> bookRow(RunResult result) {
        BookTable book = BookTable.of(result.listers(), result.buyers(), result.strategy());
        return List.of(book.listed(), book.bought(), book.retries(), book.averageWait());
    }

    /** "no lock (WATCH)", "with lock" or "fine-grained lock", as the book labels the strategies. */
    public static String label(String strategy) {
        return switch (strategy) {
            case "watch" -> LABELS[0];
            case "lock" -> LABELS[1];
            default -> LABELS[2];
        };
    }
}
