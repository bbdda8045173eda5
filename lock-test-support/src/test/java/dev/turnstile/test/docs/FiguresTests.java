package dev.turnstile.test.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Figures come from the code: every generated page (the tables under {@code docs/benchmarks},
 * {@code docs/marketplace} and {@code docs/history}) starts with a line naming the command that
 * wrote it, and that command's code writes that line; the hand-written pages (the READMEs,
 * {@code docs/*.md}, {@code SECURITY.md}, {@code CONTRIBUTING.md}) quote a measured figure only if
 * a generated page holds it, and hold no table of measurements of their own. {@code CHANGELOG.md}
 * is left out: it records what earlier commits measured.
 *
 * <p>What counts as a measured figure: a number with a unit of throughput or of microseconds, a
 * ratio or a percentage, anywhere ({@code 41,827 acquisitions/s}, {@code 2.5 µs}, {@code 0.92×},
 * {@code 51%}); and, in a sentence that measures, every time ({@code 1,760 ms}, {@code 2.5 s}) and
 * every count ({@code 84}, {@code 340}). A sentence measures when it names a rate, a percentile or a
 * checker's count, or reports what a run did ({@code measured}, {@code took}, {@code got}, {@code
 * led again}, {@code alongside}, {@code 200 tests}): see {@link #MEASURES}. Configuration is not
 * measured: a time written right beside what it sets ({@code lease 900 ms}, {@code a 2 s lease},
 * {@code heartbeat 3 s}), a number with a decimal point and no unit (a version: {@code 6.2}), an
 * HTTP status and anything in a code span are left alone. Defaults such as {@code 30 s} or {@code
 * 20 ms} in a sentence without those words are configuration too, and are not checked.
 */
class FiguresTests {

    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

    /** Where the generated pages live. */
    private static final List<String> GENERATED = List.of("docs/benchmarks", "docs/marketplace", "docs/history");

    /** The first line of a generated page: the command in backticks. */
    private static final Pattern HEADER = Pattern.compile("^(?:Written by|Rows from) `((?:\\./mvnw|java -jar)[^`]*)`");

    /** A number with its unit: {@code 41,827 acquisitions/s}, {@code 2.5 µs}, {@code 0.92×}, {@code 51%}. */
    private static final Pattern FIGURE_WITH_UNIT = Pattern.compile(
            "(?<![\\w.,])(\\d{1,3}(?:,\\d{3})+|\\d+(?:\\.\\d+)?)\\s?(?:µs|×|%|(?:[a-z+ ]{0,30}?)/s\\b|per s\\b)");

    /**
     * In a sentence that measures, a time ({@code 1,760 ms}, {@code 2.5 s}) or a count ({@code 84},
     * {@code 100,000}): group 1 the number, group 2 its unit if it has one.
     */
    private static final Pattern NUMBER_IN_MEASUREMENT = Pattern.compile(
            "(?<![\\w.,\\-/:#=])(\\d{1,3}(?:,\\d{3})+|\\d+(?:\\.\\d+)?)(?![\\d]|[.,]\\d)(\\s?(?:ms|s|min)\\b)?");

    /** What a configured time is written right after: {@code lease 900 ms}, {@code heartbeat 3 s}. */
    private static final Pattern SETTING_BEFORE =
            Pattern.compile("(?:lease|heartbeat|timeout|wait|retention|delay|period|lapse|max-age|every)\\s+$");

    /** What a configured time is written right before: {@code a 2 s lease}, {@code 700 ms hold}. */
    private static final Pattern SETTING_AFTER =
            Pattern.compile("^\\s?(?:ms|s|min)?\\s+(?:lease|heartbeat|timeout|wait|retention|delay|period|hold)\\b");

    /** HTTP statuses the pages name: answers, not counts. */
    private static final Set<String> HTTP_STATUSES = Set.of("200", "201", "400", "404", "405", "409", "429", "503");

    /**
     * What marks a sentence, or a table's header, as one of measurements: a rate, a percentile, a
     * checker's count, or a word that reports what a run did.
     */
    private static final Pattern MEASURES =
            Pattern.compile("µs|/s\\b|per s\\b|p50|p99|overlaps|inversions|faults applied"
                    + "|/ 60 s|\\bmeasured\\b|\\btook\\b|\\bgot\\b|\\bled again\\b|\\balongside\\b|\\d tests\\b");

    private static final Pattern NUMBER_CELL = Pattern.compile("^\\s*(\\d{1,3}(?:,\\d{3})+|\\d+(?:\\.\\d+)?)\\s*$");

    @Test
    void everyGeneratedPageNamesTheCommandThatWroteIt() {
        List<String> wrong = new ArrayList<>();
        List<Path> pages = generatedPages();
        assertThat(pages).as("generated pages").isNotEmpty();
        for (Path page : pages) {
            String first = read(page).lines().findFirst().orElse("");
            Matcher header = HEADER.matcher(first);
            if (!header.find()) {
                wrong.add(ROOT.relativize(page) + ": its first line names no command (\"Written by `./mvnw ...`\")");
                continue;
            }
            Matcher mainClass =
                    Pattern.compile("-D(?:exec\\.mainClass|test)=([\\w.]+)").matcher(header.group(1));
            while (mainClass.find()) {
                String simple = mainClass.group(1).substring(mainClass.group(1).lastIndexOf('.') + 1);
                if (sources().stream().noneMatch(s -> s.getFileName().toString().equals(simple + ".java"))) {
                    wrong.add(ROOT.relativize(page) + ": names " + mainClass.group(1)
                            + ", which is not in the repository");
                }
            }
        }
        assertThat(wrong).isEmpty();
    }

    @Test
    void theCodeThatWritesEachGeneratedPageWritesItsHeader() {
        List<String> wrong = new ArrayList<>();
        for (Path page : generatedPages()) {
            String name = page.getFileName().toString();
            List<Path> writers = sources().stream()
                    .filter(s -> read(s).contains("\"" + name + "\""))
                    .toList();
            if (writers.isEmpty()) {
                wrong.add(ROOT.relativize(page) + ": no code in the repository writes " + name);
            } else if (writers.stream()
                    .noneMatch(s -> read(s).contains("Written by `") || read(s).contains("Provenance."))) {
                wrong.add(ROOT.relativize(page) + ": "
                        + writers.stream().map(ROOT::relativize).toList() + " write " + name
                        + " without the line naming the command");
            }
        }
        assertThat(wrong).isEmpty();
    }

    @Test
    void handWrittenPagesQuoteOnlyFiguresAGeneratedPageHolds() {
        String generated = generatedText();
        List<String> unbacked = new ArrayList<>();
        for (Path page : handWrittenPages()) {
            String text = withoutCodeBlocks(read(page));
            for (String sentence : sentences(text)) {
                Set<String> figures = new LinkedHashSet<>();
                Matcher withUnit = FIGURE_WITH_UNIT.matcher(sentence);
                while (withUnit.find()) {
                    figures.add(withUnit.group(1));
                }
                if (MEASURES.matcher(sentence).find()) {
                    figures.addAll(measuredNumbers(sentence));
                }
                for (String figure : figures) {
                    if (!holds(generated, figure)) {
                        unbacked.add(ROOT.relativize(page) + ": " + figure + " in \"" + shorten(sentence) + "\"");
                    }
                }
            }
        }
        assertThat(unbacked)
                .as("figures no generated page holds: quote the generated table, or make a command write it")
                .isEmpty();
    }

    @Test
    void handWrittenPagesHoldNoTableOfMeasurementsOfTheirOwn() {
        String generated = generatedText();
        List<String> copied = new ArrayList<>();
        for (Path page : handWrittenPages()) {
            List<String> lines = withoutCodeBlocks(read(page)).lines().toList();
            for (int i = 0; i + 1 < lines.size(); i++) {
                if (!lines.get(i).startsWith("|") || !lines.get(i + 1).matches("^\\|[-:| ]+\\|\\s*$")) {
                    continue;
                }
                boolean measured = MEASURES.matcher(lines.get(i)).find();
                for (int row = i + 2; row < lines.size() && lines.get(row).startsWith("|"); row++) {
                    for (String cell : lines.get(row).split("\\|")) {
                        Matcher number = NUMBER_CELL.matcher(cell);
                        if (measured && number.find() && !holds(generated, number.group(1))) {
                            copied.add(ROOT.relativize(page) + ":" + (row + 1) + ": " + number.group(1));
                        }
                    }
                }
            }
        }
        assertThat(copied)
                .as("cells of measurement tables that no generated page holds")
                .isEmpty();
    }

    @Test
    void noParagraphEndsInAColonWithNothingAfterIt() {
        List<String> dangling = new ArrayList<>();
        for (Path page : handWrittenPages()) {
            List<String> lines = read(page).lines().toList();
            for (int i = 0; i < lines.size(); i++) {
                if (!lines.get(i).strip().endsWith(":") || lines.get(i).startsWith("|")) {
                    continue;
                }
                int next = i + 1;
                while (next < lines.size() && lines.get(next).isBlank()) {
                    next++;
                }
                String following = next < lines.size() ? lines.get(next).strip() : "";
                boolean introduces = following.startsWith("|")
                        || following.startsWith("```")
                        || following.startsWith("- ")
                        || following.startsWith("* ")
                        || following.matches("^\\d+\\. .*")
                        || following.startsWith("![")
                        || following.startsWith(">")
                        || (next == i + 1 && !following.isEmpty());
                if (!introduces) {
                    dangling.add(ROOT.relativize(page) + ":" + (i + 1) + ": \"" + shorten(lines.get(i)) + "\"");
                }
            }
        }
        assertThat(dangling).as("sentences that announce what never follows").isEmpty();
    }

    /** The times and counts of a sentence that measures, without what is configuration (see the class). */
    private static List<String> measuredNumbers(String sentence) {
        String text = sentence.replaceAll("`[^`]*`", "``");
        List<String> numbers = new ArrayList<>();
        Matcher number = NUMBER_IN_MEASUREMENT.matcher(text);
        while (number.find()) {
            String figure = number.group(1);
            boolean version = figure.contains(".") && number.group(2) == null;
            boolean setting = SETTING_BEFORE
                            .matcher(text.substring(0, number.start()))
                            .find()
                    || SETTING_AFTER.matcher(text.substring(number.end(1))).find();
            if (!version && !setting && !HTTP_STATUSES.contains(figure)) {
                numbers.add(figure);
            }
        }
        return numbers;
    }

    /** Whether {@code figure} occurs in {@code text} as a whole number (not inside a longer one). */
    private static boolean holds(String text, String figure) {
        return Pattern.compile("(?<![\\d.,])" + Pattern.quote(figure) + "(?![\\d]|[.,]\\d)")
                .matcher(text)
                .find();
    }

    private static List<String> sentences(String text) {
        List<String> sentences = new ArrayList<>();
        for (String paragraph : text.split("\\n\\s*\\n")) {
            String joined = paragraph.replace('\n', ' ');
            if (joined.strip().startsWith("|")) {
                sentences.addAll(List.of(paragraph.split("\\n")));
            } else {
                sentences.addAll(List.of(joined.split("(?<=[.;!?])\\s+(?=[A-Z(*`])")));
            }
        }
        return sentences;
    }

    private static String withoutCodeBlocks(String text) {
        StringBuilder kept = new StringBuilder();
        boolean code = false;
        for (String line : text.split("\\n", -1)) {
            if (line.strip().startsWith("```")) {
                code = !code;
                kept.append('\n');
                continue;
            }
            kept.append(code ? "" : line).append('\n');
        }
        return kept.toString();
    }

    private static String shorten(String text) {
        String one = text.strip().replaceAll("\\s+", " ");
        return one.length() > 140 ? one.substring(0, 140) + "..." : one;
    }

    private static String generatedText() {
        StringBuilder text = new StringBuilder();
        for (String dir : GENERATED) {
            try (Stream<Path> files = Files.walk(ROOT.resolve(dir))) {
                files.filter(f -> f.toString().endsWith(".md") || f.toString().endsWith(".csv"))
                        .sorted()
                        .forEach(f -> text.append(read(f)).append('\n'));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return text.toString();
    }

    private static List<Path> generatedPages() {
        List<Path> pages = new ArrayList<>();
        for (String dir : GENERATED) {
            try (Stream<Path> files = Files.walk(ROOT.resolve(dir))) {
                files.filter(f -> f.toString().endsWith(".md")).sorted().forEach(pages::add);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return pages;
    }

    private static List<Path> handWrittenPages() {
        List<Path> pages = new ArrayList<>(List.of(
                ROOT.resolve("README.md"),
                ROOT.resolve("SECURITY.md"),
                ROOT.resolve("CONTRIBUTING.md"),
                ROOT.resolve("sample-app/README.md")));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(f -> f.toString().endsWith(".md")).sorted().forEach(pages::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return pages;
    }

    private static List<Path> sources;

    /** Every Java source file of the repository, main and test, outside build output. */
    private static synchronized List<Path> sources() {
        if (sources == null) {
            try (Stream<Path> files = Files.walk(ROOT)) {
                sources = files.filter(f -> f.toString().endsWith(".java"))
                        .filter(f -> !ROOT.relativize(f).toString().contains("target/"))
                        .filter(f -> !ROOT.relativize(f).startsWith("."))
                        .toList();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return sources;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
