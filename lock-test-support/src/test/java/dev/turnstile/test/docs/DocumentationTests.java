package dev.turnstile.test.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The documentation says only what the repository holds: every relative link of every Markdown
 * page reaches a file (and its heading, for a {@code #anchor}), and every test a page names
 * ({@code SomethingTests}, {@code SomethingTests#method}, and the contract suites {@code SomethingContract}) exists with that method.
 */
class DocumentationTests {

    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Pattern TEST_NAME =
            Pattern.compile("`([A-Z][A-Za-z0-9]*(?:Tests|Contract))(?:#([a-zA-Z0-9]+))?`");
    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.+?)\\s*$");

    @Test
    void everyRelativeLinkReachesAFileAndItsHeading() {
        List<String> broken = new ArrayList<>();
        for (Path page : pages()) {
            String text = read(page);
            Matcher link = LINK.matcher(withoutCode(text));
            while (link.find()) {
                String target = link.group(1);
                if (target.matches("^[a-z]+:.*")) {
                    continue; // http:, https:, mailto:
                }
                int hash = target.indexOf('#');
                String file = hash < 0 ? target : target.substring(0, hash);
                String anchor = hash < 0 ? null : target.substring(hash + 1);
                Path resolved =
                        file.isEmpty() ? page : page.getParent().resolve(file).normalize();
                if (!Files.exists(resolved)) {
                    broken.add(ROOT.relativize(page) + ": " + target + " (no such file)");
                } else if (anchor != null
                        && resolved.toString().endsWith(".md")
                        && !anchors(resolved).contains(anchor)) {
                    broken.add(ROOT.relativize(page) + ": " + target + " (no such heading)");
                }
            }
        }
        assertThat(broken).as("broken links").isEmpty();
    }

    @Test
    void everyTestAPageNamesExistsWithTheMethodItNames() {
        Map<String, List<Path>> tests = testSources();
        List<String> missing = new ArrayList<>();
        int named = 0;
        for (Path page : pages()) {
            Matcher name = TEST_NAME.matcher(read(page));
            while (name.find()) {
                named++;
                List<Path> sources = tests.get(name.group(1));
                if (sources == null) {
                    missing.add(ROOT.relativize(page) + ": " + name.group(1) + " (no such test class)");
                } else if (name.group(2) != null
                        && sources.stream()
                                .noneMatch(s -> read(s).matches("(?s).*\\b(void|fun) " + name.group(2) + "\\(.*"))) {
                    missing.add(ROOT.relativize(page) + ": " + name.group() + " (no such test method)");
                }
            }
        }
        assertThat(named).as("tests named in the documentation").isGreaterThan(20);
        assertThat(missing)
                .as("tests the documentation names that do not exist")
                .isEmpty();
    }

    private static List<Path> pages() {
        List<Path> pages = new ArrayList<>();
        for (String top : List.of("README.md", "CONTRIBUTING.md", "SECURITY.md", "sample-app/README.md")) {
            if (Files.exists(ROOT.resolve(top))) {
                pages.add(ROOT.resolve(top));
            }
        }
        try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        assertThat(pages).as("pages found under " + ROOT).isNotEmpty();
        return pages;
    }

    /** The test classes of the repository, by simple name (a name may exist in several modules). */
    private static Map<String, List<Path>> testSources() {
        Map<String, List<Path>> tests = new HashMap<>();
        try (Stream<Path> files = Files.walk(ROOT)) {
            files.filter(p -> p.toString().endsWith("Tests.java")
                            || p.toString().endsWith("Tests.kt")
                            || p.toString().endsWith("Contract.java"))
                    .filter(p -> !p.toString().contains("/target/"))
                    .forEach(p -> tests.computeIfAbsent(
                                    p.getFileName().toString().replaceAll("\\.(java|kt)$", ""), n -> new ArrayList<>())
                            .add(p));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return tests;
    }

    /** GitHub's anchors of a page's headings: lower case, punctuation dropped, spaces as hyphens. */
    private static Set<String> anchors(Path page) {
        Set<String> anchors = new HashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        boolean inCode = false;
        for (String line : read(page).split("\n")) {
            if (line.startsWith("```")) {
                inCode = !inCode;
            }
            Matcher heading = HEADING.matcher(line);
            if (!inCode && heading.matches()) {
                String slug = heading.group(1)
                        .toLowerCase(Locale.ROOT)
                        .replaceAll("[^\\p{L}\\p{N} _-]", "")
                        .replace(' ', '-');
                int count = seen.merge(slug, 1, Integer::sum);
                anchors.add(count == 1 ? slug : slug + "-" + (count - 1));
            }
        }
        return anchors;
    }

    private static String withoutCode(String text) {
        return text.replaceAll("(?s)```.*?```", "");
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
