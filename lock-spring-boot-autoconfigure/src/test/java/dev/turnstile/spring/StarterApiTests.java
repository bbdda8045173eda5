package dev.turnstile.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The starter's public types outside {@code dev.turnstile.spring.internal} are exactly those listed
 * in "The starter's API" of {@code docs/annotations-and-properties.md}: a new public type fails
 * this test until it is either listed there (and so documented as something applications write
 * against) or put in an internal package.
 */
class StarterApiTests {

    private static final Path DOC = Path.of("..", "docs", "annotations-and-properties.md");

    private static final Pattern LISTED = Pattern.compile("`((?:dev\\.turnstile\\.spring\\.)?[\\w.]+)`");

    @Test
    void everyPublicTypeOutsideInternalIsListedInTheDocumentation() throws Exception {
        assertThat(publicTypes()).isEqualTo(listedTypes());
    }

    @Test
    void theAspectsPlumbingIsNotPublicOutsideInternal() throws Exception {
        assertThat(publicTypes())
                .doesNotContain(
                        "dev.turnstile.spring.aop.GuardAspect",
                        "dev.turnstile.spring.aop.GuardOperationSupport",
                        "dev.turnstile.spring.key.KeyExpressionEvaluator")
                .allSatisfy(name -> assertThat(name).doesNotContain(".internal."));
    }

    /**
     * Returns the public types of the starter outside internal packages: top-level ones by their
     * qualified name, member types (public, or protected for subclasses) as {@code Outer.Inner}.
     */
    private static Set<String> publicTypes() throws IOException, URISyntaxException, ClassNotFoundException {
        Path classes = Path.of(LockContext.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
        Set<String> types = new TreeSet<>();
        try (Stream<Path> files = Files.walk(classes.resolve("dev/turnstile/spring"))) {
            for (Path file : files.filter(f -> f.toString().endsWith(".class")).toList()) {
                String name = classes.relativize(file)
                        .toString()
                        .replace(file.getFileSystem().getSeparator(), ".");
                name = name.substring(0, name.length() - ".class".length());
                if (name.contains(".internal.") || name.endsWith("package-info")) {
                    continue;
                }
                Class<?> type = Class.forName(name, false, StarterApiTests.class.getClassLoader());
                if (isApi(type)) {
                    types.add(
                            type.getEnclosingClass() == null
                                    ? type.getName()
                                    : type.getEnclosingClass().getSimpleName() + "." + type.getSimpleName());
                }
            }
        }
        return types;
    }

    private static boolean isApi(Class<?> type) {
        if (type.isAnonymousClass() || type.isLocalClass() || type.isSynthetic()) {
            return false;
        }
        int modifiers = type.getModifiers();
        if (type.getEnclosingClass() == null) {
            return Modifier.isPublic(modifiers);
        }
        return (Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers)) && isApi(type.getEnclosingClass());
    }

    /** Returns the types named in the documentation's list, in the same form. */
    private static Set<String> listedTypes() throws IOException {
        String doc = Files.readString(DOC);
        int start = doc.indexOf("## The starter's API");
        assertThat(start).as("the section listing the starter's API in " + DOC).isNotNegative();
        int end = doc.indexOf("\n## ", start + 1);
        String section = doc.substring(start, end < 0 ? doc.length() : end);
        String list = section.substring(section.indexOf("\n- "));
        Set<String> listed = new TreeSet<>();
        Matcher matcher = LISTED.matcher(list);
        while (matcher.find()) {
            String name = matcher.group(1);
            boolean qualified = name.startsWith("dev.turnstile.spring.");
            boolean member = !qualified && name.matches("[A-Z]\\w*\\.[A-Z]\\w*");
            if (qualified || member) {
                listed.add(name);
            }
        }
        return listed;
    }
}
