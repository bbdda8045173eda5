package dev.turnstile.sample;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.sample.lab.LockLab;
import dev.turnstile.test.redis.RedisServerExtension;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;

/** Each of the book's stages fails the way the book says, and Turnstile passes every row. */
class LockLabTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void everyStageMeetsItsFaultAndTurnstileHoldsEveryRow() {
        List<LockLab.Progress> told = new ArrayList<>();
        Map<String, Map<String, String>> table = new LockLab(
                        () -> new Jedis(redis.server().hostAndPort()),
                        redis.server().client())
                .run(told::add);
        assertThat(told)
                .as("progress, stage by stage")
                .extracting(LockLab.Progress::stage)
                .containsExactlyElementsOf(LockLab.STAGES);
        assertThat(told).extracting(LockLab.Progress::done).containsExactly(1, 2, 3, 4, 5, 6, 7);
        assertThat(table.get("naive SETNX lock (6.8)").get("holder crash")).startsWith("stuck forever");
        assertThat(table.get("SETNX + EXPIRE lock (6.11)").get("holder crash")).startsWith("recovered after");
        assertThat(table.get("SETNX + EXPIRE lock (6.11)").get("crash between SETNX and EXPIRE"))
                .startsWith("recovered after");
        assertThat(table.get("basic semaphore (6.12)").get("10 ms client clock skew"))
                .startsWith("over the limit");
        assertThat(table.get("fair semaphore (6.14)").get("10 ms client clock skew"))
                .startsWith("held");
        assertThat(table.get("fair semaphore (6.14)").get("fair-semaphore race"))
                .startsWith("over the limit");
        assertThat(table.get("fair semaphore + lock (6.16)").get("fair-semaphore race"))
                .startsWith("held");
        assertThat(table.get("Turnstile RedisLock").get("holder crash")).startsWith("recovered after");
        assertThat(table.get("Turnstile RedisSemaphore").get("holder crash")).startsWith("recovered after");
        assertThat(table.get("Turnstile RedisSemaphore").get("10 ms client clock skew"))
                .startsWith("held");
        assertThat(table.get("Turnstile RedisSemaphore").get("fair-semaphore race"))
                .startsWith("held");
        assertThat(LockLab.markdown(table)).contains("| stage | holder crash |");
        assertThat(LockLab.verdict(table.get("naive SETNX lock (6.8)").get("holder crash")))
                .isEqualTo("broken");
        assertThat(LockLab.verdict(table.get("basic semaphore (6.12)").get("10 ms client clock skew")))
                .isEqualTo("broken");
        assertThat(LockLab.verdict(table.get("Turnstile RedisLock").get("holder crash")))
                .isEqualTo("held");
        assertThat(LockLab.verdict(table.get("Turnstile RedisLock").get("crash between SETNX and EXPIRE")))
                .as("cannot happen")
                .isEqualTo("held");
        assertThat(LockLab.verdict(table.get("naive SETNX lock (6.8)").get("10 ms client clock skew")))
                .isEqualTo("n/a");
    }

    @Test
    void theCommandsWriteOutsideTheSourceTreeUnlessTold() {
        Path out = CommandLine.defaultOutRoot().toAbsolutePath();
        assertThat(out.startsWith(Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath()))
                .as("%s is under the temporary directory", out)
                .isTrue();
        assertThat(out.startsWith(Path.of("").toAbsolutePath().getParent()))
                .as("%s is inside the source tree", out)
                .isFalse();
    }
}
