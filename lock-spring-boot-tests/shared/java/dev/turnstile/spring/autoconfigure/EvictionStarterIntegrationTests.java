package dev.turnstile.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.spring.BootLine;
import dev.turnstile.spring.actuate.TurnstileEndpoint;
import dev.turnstile.test.redis.RedisServer;
import dev.turnstile.test.redis.RedisServerExtension;
import dev.turnstile.test.redis.RestrictedRedisUser;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * A Redis that may evict keys, as the starter shows it: one WARN when the application starts, the
 * {@code eviction} detail of the health contributor (still UP: a risk, not an outage), and the
 * endpoint's {@code redis.eviction}; for the Redlock masters too. A server that never evicts is no
 * WARN; one whose {@code INFO} is refused is one line, and the application starts.
 */
@ExtendWith(OutputCaptureExtension.class)
class EvictionStarterIntegrationTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final String MAY_EVICT = "allkeys-lru, maxmemory 2097152 bytes: may evict lock keys";

    private final ApplicationContextRunner runner =
            new ApplicationContextRunner()
                    .withConfiguration(BootLine.turnstile())
                    .withPropertyValues("spring.data.redis.host=127.0.0.1");

    @Test
    void aServerThatMayEvictIsOneWarnAtStartAndShownByHealthAndTheEndpoint(CapturedOutput output) {
        RedisServer evicting = evictingServer();
        String address = "127.0.0.1:" + evicting.port();
        this.runner.withPropertyValues("spring.data.redis.port=" + evicting.port()).run(context -> {
            assertThat(warnings(output, address))
                    .as("logged while the application started")
                    .singleElement()
                    .satisfies(line -> assertThat(line)
                            .contains("maxmemory-policy is allkeys-lru")
                            .contains("only at its next renewal"));

            BootLine.HealthView health = BootLine.health(context);
            BootLine.health(context);
            assertThat(health.status()).as("a risk, not an outage").isEqualTo("UP");
            assertThat(health.details()).containsEntry("eviction", Map.of(address, MAY_EVICT));

            TurnstileEndpoint.Report report =
                    context.getBean(TurnstileEndpoint.class).report();
            assertThat(report.redis().eviction()).singleElement().satisfies(server -> {
                assertThat(server.server()).isEqualTo(address);
                assertThat(server.risk()).isEqualTo("MAY_EVICT");
                assertThat(server.policy()).isEqualTo("allkeys-lru");
                assertThat(server.maxmemory()).isEqualTo(2L * 1024 * 1024);
                assertThat(server.summary()).isEqualTo(MAY_EVICT);
            });
        });
        assertThat(warnings(output, address))
                .as("once, though health and the endpoint read the server again")
                .hasSize(1);
    }

    @Test
    void aServerThatNeverEvictsIsNoWarningAndHealthSaysNoeviction(CapturedOutput output) {
        String address = "127.0.0.1:" + redis.server().port();
        this.runner
                .withPropertyValues("spring.data.redis.port=" + redis.server().port())
                .run(context -> {
                    BootLine.HealthView health = BootLine.health(context);
                    assertThat(health.status()).isEqualTo("UP");
                    assertThat(health.details()).containsEntry("eviction", Map.of(address, "noeviction"));
                    assertThat(context.getBean(TurnstileEndpoint.class).report().redis().eviction())
                            .extracting(TurnstileEndpoint.ServerEviction::risk)
                            .containsExactly("NONE");
                });
        assertThat(output.getAll()).doesNotContain("may evict Turnstile's keys");
    }

    @Test
    void aRedlockMasterThatMayEvictIsNamedAtStartAndInHealthAndTheEndpoint(CapturedOutput output) {
        RedisServer evicting = evictingServer();
        List<RedisServer> masters = List.of(redis.startServer(b -> b), redis.startServer(b -> b), evicting);
        String master = "Redlock master 127.0.0.1:" + evicting.port();
        this.runner
                .withPropertyValues(
                        "spring.data.redis.port=" + redis.server().port(),
                        "turnstile.redlock.nodes=" + String.join(",", masters.stream()
                                .map(m -> m.uri().toString())
                                .toList()))
                .run(context -> {
                    assertThat(warnings(output, master)).hasSize(1);
                    BootLine.HealthView health = BootLine.health(context);
                    assertThat(health.status()).isEqualTo("UP");
                    assertThat(health.details())
                            .extractingByKey("eviction")
                            .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP)
                            .hasSize(4)
                            .containsEntry("127.0.0.1:" + redis.server().port(), "noeviction")
                            .containsEntry(master, MAY_EVICT);
                    assertThat(context.getBean(TurnstileEndpoint.class).report().redis().eviction())
                            .filteredOn(server -> server.risk().equals("MAY_EVICT"))
                            .extracting(TurnstileEndpoint.ServerEviction::server)
                            .containsExactly(master);
                });
        assertThat(warnings(output, master)).hasSize(1);
    }

    @Test
    void aUserRefusedInfoStartsAndIsOneLineAndHealthSaysNotChecked(CapturedOutput output) {
        RedisServer evicting = evictingServer();
        RestrictedRedisUser.createOn(evicting, "no-info", RestrictedRedisUser.rulesFor(evicting).replace(" +info", ""));
        String address = "127.0.0.1:" + evicting.port();
        this.runner
                .withPropertyValues(
                        "spring.data.redis.port=" + evicting.port(),
                        "spring.data.redis.username=no-info",
                        "spring.data.redis.password=" + RestrictedRedisUser.PASSWORD)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    BootLine.HealthView health = BootLine.health(context);
                    BootLine.health(context);
                    assertThat(health.status()).isEqualTo("UP");
                    assertThat(health.details())
                            .extractingByKey("eviction")
                            .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP)
                            .extractingByKey(address)
                            .asString()
                            .startsWith("not checked: the user Turnstile connects as may not run INFO");
                });
        assertThat(output.getAll().lines()
                        .filter(line -> line.contains("Could not check whether Redis " + address)))
                .singleElement()
                .satisfies(line -> assertThat(line).contains("INFO").doesNotContain("WARN"));
        assertThat(warnings(output, address)).isEmpty();
    }

    private static RedisServer evictingServer() {
        return redis.startServer(b -> b.arguments("--maxmemory", "2mb", "--maxmemory-policy", "allkeys-lru"));
    }

    private static List<String> warnings(CapturedOutput output, String server) {
        return output.getAll()
                .lines()
                .filter(line -> line.contains("WARN") && line.contains(server + " may evict"))
                .toList();
    }
}
