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

    /** One reported test case: its class's simple name (outer class of a nested one), method, skip. */
    record TestCase(String className, String method, boolean skipped, String module) {}

    private final Map<String, List<TestCase>> byClass = new HashMap<>();
    private final Set<String> modulesReported = new HashSet<>();

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
            NodeList cases = parser.parse(report.toFile()).getElementsByTagName("testcase");
            for (int i = 0; i < cases.getLength(); i++) {
                Element testCase = (Element) cases.item(i);
                String className = testCase.getAttribute("classname");
                String simple = className.substring(className.lastIndexOf('.') + 1);
                int nested = simple.indexOf('$');
                String outer = nested < 0 ? simple : simple.substring(0, nested);
                boolean skipped = testCase.getElementsByTagName("skipped").getLength() > 0;
                this.byClass
                        .computeIfAbsent(outer, n -> new ArrayList<>())
                        .add(new TestCase(outer, testCase.getAttribute("name"), skipped, module));
            }
            this.modulesReported.add(module);
        } catch (SAXException | IOException e) {
            throw new IllegalStateException("Could not parse the test report " + report + ": " + e.getMessage(), e);
        }
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
