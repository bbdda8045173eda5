package dev.turnstile.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The documentation says only what the repository holds: every relative link of every Markdown
 * page reaches a file (and its heading, for a {@code #anchor}), and every test a page names
 * ({@code SomethingTests}, {@code SomethingTests#method}, and the contract suites {@code
 * SomethingContract}) is a test method and ran in this build. This module builds last in the
 * reactor, after every module whose reports it reads.
 */
class DocumentationTests {

    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Pattern TEST_NAME =
            Pattern.compile("`([A-Z][A-Za-z0-9]*(?:Tests|Contract))(?:#([a-zA-Z0-9]+))?`");
    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.+?)\\s*$");
    private static final Pattern SUPERTYPES =
            Pattern.compile("\\b(?:class|interface)\\s+\\w+(?:<[^{]*?>)?\\s+((?:extends|implements)[^{]*)\\{");

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
    void everyTestAPageNamesIsATest() {
        Map<String, List<Path>> tests = testSources();
        List<String> missing = new ArrayList<>();
        List<Named> named = named();
        for (Named name : named) {
            List<Path> sources = tests.get(name.className());
            if (sources == null) {
                missing.add(name + " (no such test class)");
            } else if (name.method() != null) {
                List<String> declarations = sources.stream()
                        .flatMap(source -> TestMethods.annotationsOf(read(source), name.method()).stream())
                        .toList();
                if (declarations.isEmpty()) {
                    missing.add(name + " (no such method)");
                } else if (declarations.stream().noneMatch(TestMethods::marksATest)) {
                    missing.add(name + " (a method, but not a test: no @Test, @ParameterizedTest,"
                            + " @RepeatedTest or @TestFactory on it)");
                }
            }
        }
        assertThat(named).as("tests named in the documentation").hasSizeGreaterThan(20);
        assertThat(missing)
                .as("tests the documentation names that are not tests")
                .isEmpty();
    }

    /**
     * Each test a page names ran, and was not skipped, in this build: the JUnit reports of the
     * modules that hold it, written since the build started, have a case of it (for a class, of any
     * of its methods; for a contract suite, of a class that runs it). A module whose tests did not
     * run in this build (built on its own, {@code -pl}, {@code -rf}, {@code -DskipTests}) leaves its
     * tests unchecked: CI ({@code CI} set) fails then; elsewhere this test is skipped and names
     * those modules. A test skipped by an assumption (e.g. no Chromium) fails CI the same way; one
     * skipped only for the JDK's version ({@code @EnabledForJreRange}) is left to CI's Java 25 leg,
     * which checks that it ran there; a Testcontainers test skipped where no Docker engine can be
     * reached is accepted (the pages say those tests need Docker).
     */
    /** Whether the test class runs only with Docker ({@code @Testcontainers(disabledWithoutDocker = true)}). */
    private static boolean needsDocker(List<Path> sources) {
        return sources.stream().anyMatch(source -> read(source).contains("disabledWithoutDocker = true"));
    }

    /** Whether a Docker engine could be reached here: {@code DOCKER_HOST}, or the default socket. */
    private static boolean dockerReachable() {
        String host = System.getenv("DOCKER_HOST");
        return (host != null && !host.isBlank()) || Files.exists(Path.of("/var/run/docker.sock"));
    }

    @Test
    void everyTestAPageNamesRanInThisBuild() {
        Map<String, List<Path>> tests = testSources();
        Map<String, Set<String>> runners = runners(tests);
        String started = System.getProperty("documentation.build.started");
        TestReports reports = started == null || started.isBlank()
                ? TestReports.since(ROOT, Instant.MAX)
                : TestReports.since(ROOT, Instant.parse(started));
        List<String> didNotRun = new ArrayList<>();
        List<String> skipped = new ArrayList<>();
        Set<String> modulesNotRun = new TreeSet<>();
        for (Named name : named()) {
            List<Path> sources = tests.get(name.className());
            if (sources == null || name.className().equals(DocumentationTests.class.getSimpleName())) {
                continue; // named by everyTestAPageNamesIsATest; or this test, reported when it ends
            }
            Set<String> classes = runners.getOrDefault(name.className(), Set.of(name.className()));
            List<TestReports.TestCase> cases = reports.of(classes).stream()
                    .filter(c -> name.method() == null || TestReports.isInvocationOf(c, name.method()))
                    .toList();
            if (cases.stream().anyMatch(c -> !c.skipped())) {
                continue;
            }
            if (!cases.isEmpty() && cases.stream().allMatch(TestReports.TestCase::skippedForThisJre)) {
                continue; // e.g. the virtual-thread tests on Java 17: CI's Java 25 leg runs and checks them
            }
            if (!cases.isEmpty() && needsDocker(sources) && !dockerReachable()) {
                continue; // a Testcontainers test skips without Docker, and the page names it as such
            }
            Set<String> owners = new TreeSet<>();
            classes.forEach(c -> tests.getOrDefault(c, List.of()).forEach(source -> owners.addAll(modulesOf(source))));
            if (cases.isEmpty() && reports.skippedAsAClass(classes)) {
                skipped.add(name + " (its class was skipped as a whole)");
            } else if (!cases.isEmpty()) {
                skipped.add(name + " (skipped in "
                        + cases.stream()
                                .map(TestReports.TestCase::module)
                                .distinct()
                                .toList() + ")");
            } else if (owners.stream().anyMatch(reports::reported)) {
                didNotRun.add(name + " (not in the reports of "
                        + owners.stream().filter(reports::reported).toList() + ")");
            } else {
                modulesNotRun.addAll(owners);
            }
        }
        assertThat(didNotRun)
                .as("tests the documentation names that did not run in this build, though their modules' tests did")
                .isEmpty();
        boolean ci = System.getenv("CI") != null && !System.getenv("CI").isBlank();
        String notChecked = "The tests of " + modulesNotRun + " did not run in this build (reports written since "
                + started + " under " + ROOT + "), so the tests the documentation names there were not seen to"
                + " run: run the whole build, ./mvnw verify";
        if (ci) {
            assertThat(modulesNotRun).as(notChecked).isEmpty();
            assertThat(skipped)
                    .as("tests the documentation names that were skipped in this build")
                    .isEmpty();
        } else {
            Assumptions.assumeTrue(modulesNotRun.isEmpty(), notChecked);
            Assumptions.assumeTrue(
                    skipped.isEmpty(), () -> "Tests the documentation names were skipped in this build: " + skipped);
        }
    }

    /** A test a page names: {@code Class} (method null) or {@code Class#method}. */
    private record Named(Path page, String className, String method) {
        @Override
        public String toString() {
            return ROOT.relativize(this.page) + ": " + this.className + (this.method == null ? "" : "#" + this.method);
        }
    }

    private static List<Named> named() {
        List<Named> named = new ArrayList<>();
        for (Path page : pages()) {
            Matcher name = TEST_NAME.matcher(read(page));
            while (name.find()) {
                named.add(new Named(page, name.group(1), name.group(2)));
            }
        }
        return named;
    }

    /**
     * The test classes that run each class's tests: itself, and for a contract suite the classes
     * that extend or implement it (directly or through another).
     */
    private static Map<String, Set<String>> runners(Map<String, List<Path>> tests) {
        Map<String, Set<String>> runners = new HashMap<>();
        tests.keySet().forEach(name -> runners.put(name, new HashSet<>(Set.of(name))));
        boolean grew = true;
        while (grew) {
            grew = false;
            for (Map.Entry<String, List<Path>> test : tests.entrySet()) {
                for (Path source : test.getValue()) {
                    Matcher supertypes = SUPERTYPES.matcher(read(source));
                    while (supertypes.find()) {
                        for (String supertype : supertypes.group(1).split("[^A-Za-z0-9_.]+")) {
                            String simple = supertype.substring(supertype.lastIndexOf('.') + 1);
                            Set<String> runnersOfSupertype = runners.get(simple);
                            if (runnersOfSupertype != null && !simple.equals(test.getKey())) {
                                grew |= runnersOfSupertype.addAll(runners.get(test.getKey()));
                            }
                        }
                    }
                }
            }
        }
        return runners;
    }

    /**
     * The modules that run the tests of {@code source}: the one it lies in, or for the Boot lines'
     * shared tests ({@code lock-spring-boot-tests/shared}) every Boot line's module.
     */
    private static Set<String> modulesOf(Path source) {
        String relative = ROOT.relativize(source).toString().replace('\\', '/');
        if (relative.startsWith("lock-spring-boot-tests/shared/")) {
            Set<String> lines = new TreeSet<>();
            try (Stream<Path> modules = Files.list(ROOT.resolve("lock-spring-boot-tests"))) {
                modules.filter(m -> Files.exists(m.resolve("pom.xml")))
                        .forEach(m -> lines.add(ROOT.relativize(m).toString().replace('\\', '/')));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return lines;
        }
        int src = relative.indexOf("/src/");
        return Set.of(src < 0 ? relative : relative.substring(0, src));
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
