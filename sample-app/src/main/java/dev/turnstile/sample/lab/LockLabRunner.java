package dev.turnstile.sample.lab;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.stereotype.Component;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;

/** {@code --lab}: runs the {@link LockLab}, prints its table and writes it to {@code --out} (docs/marketplace). */
@Component
@ConditionalOnProperty("lab")
class LockLabRunner implements ApplicationRunner {

    private final DataRedisConnectionDetails redis;
    private final UnifiedJedis shared;

    LockLabRunner(DataRedisConnectionDetails redis, UnifiedJedis shared) {
        this.redis = redis;
        this.shared = shared;
    }

    @Override
    public void run(ApplicationArguments args) throws Exception {
        DataRedisConnectionDetails.Standalone server = this.redis.getStandalone();
        Map<String, Map<String, String>> table =
                new LockLab(() -> new Jedis(server.getHost(), server.getPort()), this.shared).run();
        String markdown = LockLab.markdown(table);
        System.out.println(markdown);
        List<String> out = args.getOptionValues("out");
        Path dir = Path.of(out == null || out.isEmpty() ? "docs/marketplace" : out.get(0));
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("lock-lab.md"), markdown);
        System.out.println("Wrote " + dir.resolve("lock-lab.md"));
    }
}
