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
        text.append(String.format(
                Locale.ROOT,
                "Measured for %s per row on %d cores, scaled to the book's 60 s; the book's row (2012 hardware,"
                        + " one process per worker) in brackets.%n%n",
                seconds(rowSeconds()),
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

    /**
     * The measured rows and the book's, as CSV of numbers only (and the strategy's name): the counts
     * as measured in {@code seconds}, the same scaled to 60 s, and the book's values per 60 s. Where
     * the book printed only a bound ({@code <200}), its column holds the bound and the {@code _lt}
     * column beside it is 1.
     */
    public String csv() {
        StringBuilder text = new StringBuilder("listers,buyers,strategy,seconds,listed,bought,retries,avg_wait_ms,"
                + "listed_per_60s,bought_per_60s,retries_per_60s,"
                + "book_listed_per_60s,book_listed_lt,book_bought_per_60s,book_bought_lt,"
                + "book_retries_per_60s,book_retries_lt,book_avg_wait_ms,book_avg_wait_ms_lt\n");
        for (RunResult result : this.results) {
            BookTable book = BookTable.of(result.listers(), result.buyers(), result.strategy());
            text.append(String.format(
                    Locale.ROOT,
                    "%d,%d,%s,%.3f,%d,%d,%d,%.3f,%d,%d,%d,%s,%s,%s,%s%n",
                    result.listers(),
                    result.buyers(),
                    result.strategy(),
                    result.seconds(),
                    result.listed(),
                    result.bought(),
                    result.retries(),
                    result.averageWaitMillis(),
                    result.per60s(result.listed()),
                    result.per60s(result.bought()),
                    result.per60s(result.retries()),
                    csv(book.listedValue()),
                    csv(book.boughtValue()),
                    csv(book.retriesValue()),
                    csv(book.averageWaitValue())));
        }
        return text.toString();
    }

    private static String csv(BookTable.Value value) {
        double number = value.number();
        String printed =
                number == Math.rint(number) ? Long.toString((long) number) : String.format(Locale.ROOT, "%.3f", number);
        return printed + "," + (value.upperBound() ? 1 : 0);
    }

    /** "1 s", "10 s", "1.5 s": a row's length as people write it. */
    public static String seconds(double seconds) {
        double rounded = Math.round(seconds * 10) / 10.0;
        return (rounded == Math.rint(rounded)
                        ? Long.toString((long) rounded)
                        : String.format(Locale.ROOT, "%.1f", rounded))
                + " s";
    }

    /** The length of the measured rows, as asked for (the measured lengths, rounded to 0.1 s). */
    private double rowSeconds() {
        return this.results.isEmpty() ? 0 : this.results.get(0).seconds();
    }

    /** "1 lister, 1 buyer", "5 listers, 5 buyers". */
    public static String workers(int listers, int buyers) {
        return listers + (listers == 1 ? " lister, " : " listers, ") + buyers + (buyers == 1 ? " buyer" : " buyers");
    }

    /**
     * Grouped bars on one scale: items bought per 60 s for each worker shape, one bar per strategy,
     * each with the book's value as a marker (a diamond on a line across the bar, labelled; "<" where
     * the book gives a bound); the rows' length in the title, a legend, labelled axes and gridlines.
     * Drawn 960 units wide with 14-unit labels, to be shown at full width.
     */
    public String svg() {
        int width = 960;
        int height = 500;
        int left = 96;
        int right = 24;
        int top = 70;
        int bottom = 370;
        long highest = 1;
        for (RunResult result : this.results) {
            highest = Math.max(highest, result.per60s(result.bought()));
            highest = Math.max(highest, (long) BookTable.of(result.listers(), result.buyers(), result.strategy())
                    .boughtValue()
                    .number());
        }
        long max = niceCeiling(highest);
        String[] colors = {"#c0504d", "#4f81bd", "#9bbb59"};
        StringBuilder svg = new StringBuilder(String.format(
                Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\""
                        + " font-family=\"sans-serif\" font-size=\"14\">%n",
                width,
                height,
                width,
                height));
        svg.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        svg.append(String.format(
                Locale.ROOT,
                "<text x=\"%d\" y=\"26\" text-anchor=\"middle\" font-size=\"18\" font-weight=\"bold\">Items bought"
                        + " per 60 s: Table 6.3, measured in rows of %s, scaled to 60 s</text>%n",
                width / 2,
                seconds(rowSeconds())));
        svg.append(String.format(
                Locale.ROOT,
                "<text x=\"%d\" y=\"48\" text-anchor=\"middle\" fill=\"#444\">bars and the numbers under them: measured"
                        + " here, on %d cores; ◆ and its label: the book's value (2012 hardware, 60 s rows)</text>%n",
                width / 2,
                Runtime.getRuntime().availableProcessors()));
        for (int tick = 0; tick <= 4; tick++) {
            long value = max * tick / 4;
            int y = bottom - (bottom - top) * tick / 4;
            svg.append(String.format(
                    Locale.ROOT,
                    "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\"/>%n",
                    left,
                    y,
                    width - right,
                    y,
                    tick == 0 ? "black" : "#dddddd"));
            svg.append(String.format(
                    Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%,d</text>%n", left - 8, y + 5, value));
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
                "<text transform=\"translate(20,%d) rotate(-90)\" text-anchor=\"middle\">items bought per 60 s</text>%n",
                (top + bottom) / 2));
        int groupWidth = (width - left - right) / 3;
        int barWidth = (groupWidth - 40) / 3;
        for (int group = 0; group < Table63.SHAPES.size(); group++) {
            int[] shape = Table63.SHAPES.get(group);
            int x0 = left + 20 + group * groupWidth;
            for (int bar = 0; bar < 3; bar++) {
                RunResult result = find(shape[0], shape[1], bar);
                long value = result == null ? 0 : result.per60s(result.bought());
                int barHeight = (int) Math.round((bottom - top) * (double) value / max);
                int x = x0 + bar * barWidth;
                int inner = barWidth - 8;
                int middle = x + inner / 2;
                svg.append(String.format(
                        Locale.ROOT,
                        "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"><title>%s, %s: %,d measured"
                                + "</title></rect>%n",
                        x,
                        bottom - barHeight,
                        inner,
                        barHeight,
                        colors[bar],
                        workers(shape[0], shape[1]),
                        LABELS[bar],
                        value));
                BookTable book = BookTable.of(shape[0], shape[1], Table63.STRATEGIES.get(bar));
                int bookY = bottom
                        - (int) Math.round((bottom - top) * book.boughtValue().number() / max);
                // The measured value under the axis, where no marker reaches; the book's above its
                // diamond, with a white halo so that it reads over a bar too.
                int bookLabelY = bookY - 10;
                svg.append(String.format(
                        Locale.ROOT,
                        "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"13\">%,d</text>%n",
                        middle,
                        bottom + 17,
                        value));
                svg.append(String.format(
                        Locale.ROOT,
                        "<g class=\"book\"><title>%s, %s: the book's %s</title>"
                                + "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\" stroke-width=\"2\"/>"
                                + "<path d=\"M %d %d l 6 6 l -6 6 l -6 -6 z\" fill=\"black\"/>"
                                + "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"12\" font-style=\"italic\""
                                + " fill=\"#222\" stroke=\"white\" stroke-width=\"3\" paint-order=\"stroke\">book %s</text></g>%n",
                        workers(shape[0], shape[1]),
                        LABELS[bar],
                        escape(book.bought()),
                        x - 3,
                        bookY,
                        x + inner + 3,
                        bookY,
                        middle,
                        bookY - 6,
                        middle,
                        bookLabelY,
                        escape(book.bought())));
            }
            svg.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-weight=\"bold\">%s</text>%n",
                    x0 + barWidth * 3 / 2,
                    bottom + 40,
                    workers(shape[0], shape[1])));
        }
        svg.append(String.format(
                Locale.ROOT,
                "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">workers (threads listing, threads buying)</text>%n",
                (left + width - right) / 2,
                bottom + 62));
        for (int bar = 0; bar < 3; bar++) {
            int x = left + 20 + bar * 210;
            svg.append(String.format(
                    Locale.ROOT,
                    "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" fill=\"%s\"/>%n",
                    x,
                    height - 34,
                    colors[bar]));
            svg.append(String.format(
                    Locale.ROOT, "<text x=\"%d\" y=\"%d\">%s</text>%n", x + 20, height - 22, LABELS[bar]));
        }
        int x = left + 20 + 3 * 210;
        svg.append(String.format(
                Locale.ROOT,
                "<path d=\"M %d %d l 7 7 l -7 7 l -7 -7 z\" fill=\"black\"/>%n<text x=\"%d\" y=\"%d\">the book's"
                        + " value</text>%n",
                x + 7,
                height - 35,
                x + 20,
                height - 22));
        return svg.append("</svg>\n").toString();
    }

    private static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
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
