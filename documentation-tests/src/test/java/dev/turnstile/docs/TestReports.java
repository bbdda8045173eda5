package dev.turnstile.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.SAXException;

/**
 * The test cases the JUnit runs of this build reported: every {@code TEST-*.xml} under a module's
 * {@code target/surefire-reports*} or {@code target/failsafe-reports*} directory written since the
 * build started. A report written before is another build's and is not read.
 */
final class TestReports {

    /**
     * One reported test case: its class's simple name (outer class of a nested one), method, whether
     * it was skipped and why (empty when it ran), the module that reported it.
     */
    record TestCase(String className, String method, boolean skipped, String skipReason, String module) {

        /**
         * Returns whether it was skipped only for this JDK's version ({@code @EnabledForJreRange}):
         * CI runs it again on a later JDK (.ci/run's Java 25 leg, which checks it ran there).
         */
        boolean skippedForThisJre() {
            return this.skipped && this.skipReason.startsWith("Disabled on JRE version");
        }
    }

    private final Map<String, List<TestCase>> byClass = new HashMap<>();
    private final Set<String> modulesReported = new HashSet<>();
    private final Set<String> suitesReported = new HashSet<>();

    private TestReports() {}

    /**
     * Reads the reports under {@code root}'s modules written at or after {@code buildStarted} (less
     * two seconds, for file systems that keep whole seconds).
     */
    static TestReports since(Path root, Instant buildStarted) {
        TestReports reports = new TestReports();
        FileTime notBefore = FileTime.from(buildStarted.minusSeconds(2));
        DocumentBuilder parser = parser();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path report : files.filter(TestReports::isReport).toList()) {
                if (Files.getLastModifiedTime(report).compareTo(notBefore) >= 0) {
                    reports.read(root, report, parser);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Could not read the test reports under " + root, e);
        }
        return reports;
    }

    /** Returns whether the module at {@code module} (relative to the root) reported tests in this build. */
    boolean reported(String module) {
        return this.modulesReported.contains(module);
    }

    /** Returns the modules that reported tests in this build. */
    Set<String> modules() {
        return Set.copyOf(this.modulesReported);
    }

    /**
     * Returns whether one of these classes reported in this build without running any case: a
     * class skipped as a whole (its report has no case, or only skipped ones).
     */
    boolean skippedAsAClass(Set<String> classNames) {
        return classNames.stream().anyMatch(this.suitesReported::contains)
                && of(classNames).stream().allMatch(TestCase::skipped);
    }

    /** Returns the reported cases of the classes with these simple names. */
    List<TestCase> of(Set<String> classNames) {
        List<TestCase> cases = new ArrayList<>();
        classNames.forEach(name -> cases.addAll(this.byClass.getOrDefault(name, List.of())));
        return cases;
    }

    /**
     * Returns whether a reported case is {@code method}: its name, or a parameterized or repeated
     * invocation of it ({@code method(String)[1]}, {@code method()[2]}).
     */
    static boolean isInvocationOf(TestCase testCase, String method) {
        String name = testCase.method();
        return name.equals(method) || name.startsWith(method + "(") || name.startsWith(method + "[");
    }

    private static boolean isReport(Path file) {
        String name = file.getFileName().toString();
        Path directory = file.getParent();
        if (!name.startsWith("TEST-") || !name.endsWith(".xml") || directory == null) {
            return false;
        }
        String directoryName = directory.getFileName().toString();
        Path target = directory.getParent();
        return (directoryName.startsWith("surefire-reports") || directoryName.startsWith("failsafe-reports"))
                && target != null
                && target.getFileName().toString().equals("target");
    }

    private void read(Path root, Path report, DocumentBuilder parser) {
        String module = root.relativize(report.getParent().getParent().getParent())
                .toString()
                .replace('\\', '/');
        try {
            org.w3c.dom.Document document = parser.parse(report.toFile());
            this.suitesReported.add(
                    outerSimpleName(document.getDocumentElement().getAttribute("name")));
            NodeList cases = document.getElementsByTagName("testcase");
            for (int i = 0; i < cases.getLength(); i++) {
                Element testCase = (Element) cases.item(i);
                String outer = outerSimpleName(testCase.getAttribute("classname"));
                NodeList skips = testCase.getElementsByTagName("skipped");
                boolean skipped = skips.getLength() > 0;
                String reason = skipped ? ((Element) skips.item(0)).getAttribute("message") : "";
                this.byClass
                        .computeIfAbsent(outer, n -> new ArrayList<>())
                        .add(new TestCase(outer, testCase.getAttribute("name"), skipped, reason, module));
            }
            this.modulesReported.add(module);
        } catch (SAXException | IOException e) {
            throw new IllegalStateException("Could not parse the test report " + report + ": " + e.getMessage(), e);
        }
    }

    /** {@code a.b.Outer$Inner} → {@code Outer}. */
    private static String outerSimpleName(String className) {
        String simple = className.substring(className.lastIndexOf('.') + 1);
        int nested = simple.indexOf('$');
        return nested < 0 ? simple : simple.substring(0, nested);
    }

    private static DocumentBuilder parser() {
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            return factory.newDocumentBuilder();
        } catch (ParserConfigurationException e) {
            throw new IllegalStateException("No XML parser for the test reports", e);
        }
    }
}
