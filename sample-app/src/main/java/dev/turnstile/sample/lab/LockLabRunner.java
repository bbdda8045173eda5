package dev.turnstile.sample.lab;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.stereotype.Component;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;

/**
 * {@code --lab}: runs the {@link LockLab} on the redis-server the command started, printing each
 * stage as it is done, then the table; writes it to {@code --out} ({@code sample.run.out}, checked
 * before anything started; by default a new directory per run under the system's temporary
 * directory).
 */
@Component
@ConditionalOnProperty("lab")
class LockLabRunner implements ApplicationRunner {

    private final DataRedisConnectionDetails redis;
    private final UnifiedJedis shared;
    private final Path out;

    LockLabRunner(DataRedisConnectionDetails redis, UnifiedJedis shared, @Value("${sample.run.out}") Path out) {
        this.redis = redis;
        this.shared = shared;
        this.out = out;
    }

    @Override
    public void run(ApplicationArguments args) throws Exception {
        Path dir = this.out;
        DataRedisConnectionDetails.Standalone server = this.redis.getStandalone();
        System.out.println("The lock lab: " + LockLab.STAGES.size() + " stages against their faults, about 15 s");
        long start = System.nanoTime();
        long[] stageStart = {start};
        Map<String, Map<String, String>> table = new LockLab(
                        () -> new Jedis(server.getHost(), server.getPort()), this.shared)
                .run(progress -> {
                    long now = System.nanoTime();
                    System.out.printf(
                            Locale.ROOT,
                            "[%d/%d] %s: done in %.1f s, %.1f s in all%n",
                            progress.done(),
                            progress.total(),
                            progress.stage(),
                            (now - stageStart[0]) / 1e9,
                            (now - start) / 1e9);
                    stageStart[0] = now;
                });
        String markdown = LockLab.markdown(table);
        System.out.println(markdown);
        Files.createDirectories(dir);
        // The first line names the command, as every generated page under docs/ does.
        Files.writeString(
                dir.resolve("lock-lab.md"),
                "Written by `./mvnw -q -DskipTests install && java -jar sample-app/target/sample-app.jar --lab --out="
                        + dev.turnstile.sample.RunOutput.shown(dir) + "` on " + java.time.LocalDate.now()
                        + "; rerun it to refresh, never edit by hand.\n\n" + markdown);
        System.out.println("Wrote " + dir.toAbsolutePath().resolve("lock-lab.md"));
    }
}
