package dev.turnstile.spring.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.boot.json.JsonParserFactory;

/**
 * The defaults the property table of {@code docs/annotations-and-properties.md} gives are the
 * defaults the code has: each {@code | `turnstile.x` | `value` |} row against the {@code
 * defaultValue} the configuration metadata (and so the IDE) shows for it.
 */
class DocumentedDefaultsTests {

    private static final Pattern ROW = Pattern.compile("^\\| `(turnstile\\.[a-z.\\-]+)` \\| `([^`]*)` \\|", Pattern.MULTILINE);

    @Test
    void everyDocumentedDefaultIsTheCodesDefault() throws IOException {
        Map<String, Object> defaults = metadataDefaults();
        String page = Files.readString(
                repositoryRoot().resolve("docs/annotations-and-properties.md"), StandardCharsets.UTF_8);
        List<String> wrong = new ArrayList<>();
        int compared = 0;
        Matcher row = ROW.matcher(page);
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
        for (URL url : Collections.list(DocumentedDefaultsTests.class
                .getClassLoader()
                .getResources("META-INF/spring-configuration-metadata.json"))) {
            String json;
            try (InputStream in = url.openStream()) {
                json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            Object properties = JsonParserFactory.getJsonParser().parseMap(json).get("properties");
            if (properties instanceof List<?> list) {
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

    private static Path repositoryRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.isRegularFile(dir.resolve("docs/annotations-and-properties.md"))) {
            dir = dir.getParent();
        }
        assertThat(dir).as("the repository root, above " + Path.of("").toAbsolutePath()).isNotNull();
        return dir;
    }
}
