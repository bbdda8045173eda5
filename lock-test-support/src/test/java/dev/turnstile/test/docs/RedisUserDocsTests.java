package dev.turnstile.test.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.test.redis.RestrictedRedisUser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The Redis user's commands, three ways that must agree: the Lua scripts call only what the rule
 * the tests run under ({@link RestrictedRedisUser}, which the README prints) grants, and {@code
 * SECURITY.md} names every command of that rule.
 */
class RedisUserDocsTests {

    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
    private static final Path SCRIPTS = ROOT.resolve("lock-redis/src/main/java/dev/turnstile/redis/internal");
    private static final Pattern LUA_CALL = Pattern.compile("\\bp?call\\('([A-Z]+)'(?:, '([A-Z]+)')?");

    private static Set<String> granted() {
        Set<String> granted = new TreeSet<>();
        String rules = RestrictedRedisUser.RULES + " " + RestrictedRedisUser.SHARDED_PUBSUB_RULES + " "
                + RestrictedRedisUser.CLIENT_SETINFO_RULES;
        for (String rule : rules.split("\\s+")) {
            if (rule.startsWith("+")) {
                granted.add(rule.substring(1).toUpperCase(Locale.ROOT).replace('|', ' '));
            }
        }
        return granted;
    }

    @Test
    void theScriptsCallOnlyWhatTheTestedRuleGrants() throws IOException {
        Set<String> called = new TreeSet<>();
        for (String file : List.of("LockScripts.java", "SemaphoreScripts.java", "FencingCounter.java")) {
            Matcher call = LUA_CALL.matcher(Files.readString(SCRIPTS.resolve(file), StandardCharsets.UTF_8));
            while (call.find()) {
                called.add(
                        call.group(2) == null || !call.group(1).equals("PUBSUB")
                                ? call.group(1)
                                : call.group(1) + " " + call.group(2));
            }
        }
        assertThat(called).as("commands the scripts call").contains("SET", "TIME", "ZADD");
        Set<String> missing = new TreeSet<>(called);
        missing.removeAll(granted());
        assertThat(missing)
                .as("called by a script but not granted by the README's rule")
                .isEmpty();
    }

    @Test
    void securityNamesEveryCommandOfTheTestedRule() throws IOException {
        String security = Files.readString(ROOT.resolve("SECURITY.md"), StandardCharsets.UTF_8);
        List<String> unnamed = new ArrayList<>();
        for (String command : granted()) {
            if (!security.contains("`" + command + "`") && !security.contains("`" + command + " ")) {
                unnamed.add(command);
            }
        }
        assertThat(unnamed)
                .as("commands of the README's rule that SECURITY.md does not name")
                .isEmpty();
    }
}
