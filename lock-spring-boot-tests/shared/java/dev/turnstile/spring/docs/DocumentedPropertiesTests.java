package dev.turnstile.spring.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.spring.autoconfigure.TurnstileProperties;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.json.JsonParserFactory;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;

/**
 * Every property the README and {@code docs/} name exists on this Spring Boot line, as the
 * configuration metadata of the line's jars lists it (a key under a map property, such as {@code
 * management.endpoint.health.group.readiness.include}, counts as its map's), and is not deprecated
 * to an error. Checked: the lines of {@code properties} and {@code yaml} blocks, every {@code
 * `spring.…`}, {@code `server.…`} and {@code `management.…`} code span, and every {@code
 * `turnstile.…=value`} one (a bare {@code turnstile.…} name may be a metric's, and other names are
 * an application's own). A code span right after "Boot 3.5:" is Boot 3.5's alone, one after
 * "Boot 4:" Boot 4's alone, so a page can give each line's name. The {@code turnstile.*} snippets
 * are bound to {@link TurnstileProperties} as well: a value that does not bind fails.
 */
class DocumentedPropertiesTests {

    private static final Pattern CODE_SPAN = Pattern.compile("`([a-z][a-zA-Z0-9.\\-\\[\\]]*)(=([^`]*))?`");

    private static final Pattern PROPERTY_LINE = Pattern.compile("^#?\\s*([a-z][a-zA-Z0-9.\\-\\[\\]]*)=(.*)$");

    private static final Pattern BOOT_MARK = Pattern.compile("Boot (3\\.5|4)(\\.x)?:\\s*$");

    /**
     * Properties of Spring Boot modules this suite does not have on Boot 4 (Boot 3.5 has them all in
     * spring-boot-autoconfigure, and checks them): the module, to say why.
     */
    private static final Map<String, String> MODULES_NOT_HERE_ON_BOOT4 = Map.of("spring.jpa.", "spring-boot-jpa");

    /** A row of the property table: {@code | `turnstile.x` | `default` |}. */
    private static final Pattern DEFAULT_ROW =
            Pattern.compile("^\\| `(turnstile\\.[a-z.\\-]+)` \\| `([^`]*)` \\|", Pattern.MULTILINE);

    private final boolean boot3 = SpringBootVersion.getVersion().startsWith("3.");

    @Test
    void everyDocumentedPropertyExistsOnThisBootLine() throws IOException {
        Metadata metadata = Metadata.load();
        List<String> problems = new ArrayList<>();
        for (Documented property : documented()) {
            if (!this.boot3
                    && MODULES_NOT_HERE_ON_BOOT4.keySet().stream().anyMatch(property.name()::startsWith)) {
                continue;
            }
            String problem = metadata.problem(property.name());
            if (problem != null) {
                problems.add(property.where() + ": `" + property.name() + "` " + problem + " on Spring Boot "
                        + SpringBootVersion.getVersion());
            }
        }
        assertThat(problems).as("documented properties this Boot line does not know").isEmpty();
    }

    @Test
    void everyDocumentedTurnstileValueBinds() throws IOException {
        Map<String, String> values = new LinkedHashMap<>();
        for (Documented property : documented()) {
            if (property.name().startsWith("turnstile.") && property.value() != null && !property.value().contains("...")) {
                values.put(property.name(), property.value().replaceAll("\\s+#.*$", "").trim());
            }
        }
        assertThat(values).isNotEmpty();
        // Each on its own, since two snippets may set one list differently.
        values.forEach((name, value) -> new Binder(new MapConfigurationPropertySource(Map.of(name, value)))
                .bindOrCreate("turnstile", TurnstileProperties.class));
    }

    @Test
    void theDocsNameTheErrorMessagePropertyOfEachBootLine() throws IOException {
        List<String> names = documented().stream().map(Documented::name).toList();
        assertThat(names)
                .as("a browser's error page shows the refusal's detail only with this line's property")
                .contains(this.boot3 ? "server.error.include-message" : "spring.web.error.include-message");
    }

    private List<Documented> documented() throws IOException {
        Path root = repositoryRoot();
        List<Path> pages = new ArrayList<>();
        pages.add(root.resolve("README.md"));
        try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
            docs.filter(page -> page.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        List<Documented> found = new ArrayList<>();
        for (Path page : pages) {
            found.addAll(documented(root.relativize(page).toString(), Files.readString(page)));
        }
        return found;
    }

    private List<Documented> documented(String page, String text) throws IOException {
        List<Documented> found = new ArrayList<>();
        String[] lines = text.split("\n", -1);
        String fence = null;
        StringBuilder yaml = new StringBuilder();
        int yamlStart = 0;
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            String where = page + ":" + (i + 1);
            if (line.startsWith("```")) {
                if (fence == null) {
                    fence = line.substring(3).trim();
                    yaml.setLength(0);
                    yamlStart = i + 2;
                } else {
                    if (fence.equals("yaml")) {
                        found.addAll(yaml(page + ":" + yamlStart, yaml.toString()));
                    }
                    fence = null;
                }
                continue;
            }
            if ("properties".equals(fence)) {
                Matcher property = PROPERTY_LINE.matcher(line.trim());
                if (property.matches()) {
                    found.add(new Documented(where, property.group(1), property.group(2)));
                }
            } else if ("yaml".equals(fence)) {
                yaml.append(line).append('\n');
            } else if (fence == null) {
                Matcher span = CODE_SPAN.matcher(line);
                while (span.find()) {
                    String name = span.group(1);
                    boolean valued = span.group(2) != null;
                    boolean platform =
                            name.startsWith("spring.") || name.startsWith("server.") || name.startsWith("management.");
                    if (!platform && !(valued && name.startsWith("turnstile."))) {
                        continue; // an application's own property, or a bare turnstile.* name (maybe a metric)
                    }
                    if (!name.contains(".") || !appliesHere(line.substring(0, span.start()))) {
                        continue;
                    }
                    found.add(new Documented(where, name, valued ? span.group(3) : null));
                }
            }
        }
        return found;
    }

    /** Whether a code span after {@code before} on its line applies to this Boot line. */
    private boolean appliesHere(String before) {
        Matcher mark = BOOT_MARK.matcher(before);
        if (!mark.find()) {
            return true;
        }
        return mark.group(1).equals("3.5") == this.boot3;
    }

    private static List<Documented> yaml(String where, String yaml) throws IOException {
        List<Documented> found = new ArrayList<>();
        for (PropertySource<?> source : new YamlPropertySourceLoader()
                .load(where, new ByteArrayResource(yaml.getBytes(StandardCharsets.UTF_8)))) {
            EnumerablePropertySource<?> properties = (EnumerablePropertySource<?>) source;
            for (String name : properties.getPropertyNames()) {
                found.add(new Documented(where, name, String.valueOf(properties.getProperty(name))));
            }
        }
        return found;
    }

    /**
     * The defaults the property table of {@code docs/annotations-and-properties.md} gives are the
     * code's: each row against the {@code defaultValue} the configuration metadata (and so the IDE)
     * shows for it.
     */
    @Test
    void everyDocumentedDefaultIsTheCodesDefault() throws IOException {
        Map<String, Object> defaults = metadataDefaults();
        String page = Files.readString(
                repositoryRoot().resolve("docs/annotations-and-properties.md"), StandardCharsets.UTF_8);
        List<String> wrong = new ArrayList<>();
        int compared = 0;
        Matcher row = DEFAULT_ROW.matcher(page);
        while (row.find()) {
            if (!defaults.containsKey(row.group(1))) {
                continue; // no default in the metadata (computed, such as the aspect's order)
            }
            compared++;
            String actual = String.valueOf(defaults.get(row.group(1)));
            String documented = row.group(2);
            if (!documented.equals(actual) && !(documented.equals("0s") && actual.equals("0"))) {
                wrong.add(row.group(1) + ": the page says " + documented + ", the code " + actual);
            }
        }
        assertThat(compared).as("defaults compared").isGreaterThan(10);
        assertThat(wrong).isEmpty();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> metadataDefaults() throws IOException {
        Map<String, Object> defaults = new HashMap<>();
        for (Map<String, Object> parsed : metadataFiles()) {
            if (parsed.get("properties") instanceof List<?> list) {
                for (Object each : list) {
                    Map<String, Object> property = (Map<String, Object>) each;
                    Object name = property.get("name");
                    if (name instanceof String n && n.startsWith("turnstile.") && property.containsKey("defaultValue")) {
                        defaults.put(n, property.get("defaultValue"));
                    }
                }
            }
        }
        return defaults;
    }

    /** The configuration metadata of every jar on this Boot line's classpath, parsed. */
    private static List<Map<String, Object>> metadataFiles() throws IOException {
        List<Map<String, Object>> files = new ArrayList<>();
        for (URL url : Collections.list(DocumentedPropertiesTests.class
                .getClassLoader()
                .getResources("META-INF/spring-configuration-metadata.json"))) {
            try (InputStream in = url.openStream()) {
                files.add(JsonParserFactory.getJsonParser()
                        .parseMap(new String(in.readAllBytes(), StandardCharsets.UTF_8)));
            }
        }
        return files;
    }

    private static Path repositoryRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.isRegularFile(dir.resolve("docs/web-applications.md"))) {
            dir = dir.getParent();
        }
        assertThat(dir).as("the repository root, above " + Path.of("").toAbsolutePath()).isNotNull();
        return dir;
    }

    /** A property a page names, where, and the value it gives (null for none). */
    private record Documented(String where, String name, String value) {}

    /** The configuration metadata of every jar on this Boot line's classpath. */
    private record Metadata(Set<String> properties, Set<String> maps, Set<String> groups, Map<String, String> errors) {

        static Metadata load() throws IOException {
            Set<String> properties = new HashSet<>();
            Set<String> maps = new HashSet<>();
            Set<String> groups = new HashSet<>();
            Map<String, String> errors = new HashMap<>();
            for (Map<String, Object> parsed : metadataFiles()) {
                for (Object entry : list(parsed.get("groups"))) {
                    groups.add((String) ((Map<?, ?>) entry).get("name"));
                }
                for (Object entry : list(parsed.get("properties"))) {
                    Map<?, ?> property = (Map<?, ?>) entry;
                    String name = (String) property.get("name");
                    properties.add(name);
                    Object type = property.get("type");
                    if (type instanceof String typeName && typeName.startsWith("java.util.Map")) {
                        maps.add(name);
                    }
                    if (property.get("deprecation") instanceof Map<?, ?> deprecation
                            && "error".equals(deprecation.get("level"))) {
                        errors.put(name, String.valueOf(deprecation.get("replacement")));
                    }
                }
            }
            assertThat(properties).as("metadata of Boot and Turnstile").contains("server.port", "turnstile.enabled");
            return new Metadata(properties, maps, groups, errors);
        }

        private static List<?> list(Object value) {
            return value instanceof List<?> list ? list : List.of();
        }

        /** What is wrong with {@code name} here, or null if it exists. */
        String problem(String name) {
            String canonical = name.replaceAll("\\[\\d+]$", "");
            if (this.errors.containsKey(canonical)) {
                return "is deprecated to an error (use " + this.errors.get(canonical) + ")";
            }
            if (this.properties.contains(canonical) || this.groups.contains(canonical)) {
                return null;
            }
            for (String map : this.maps) {
                if (canonical.startsWith(map + ".")) {
                    return null;
                }
            }
            return "is unknown";
        }
    }
}
