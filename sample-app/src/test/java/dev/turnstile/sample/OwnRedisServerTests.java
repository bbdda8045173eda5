package dev.turnstile.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.turnstile.test.redis.ChildJvm;
import dev.turnstile.test.redis.RedisProcesses;
import dev.turnstile.test.redis.RedisServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import redis.clients.jedis.Jedis;

/**
 * The sample's own redis-server: started again when it dies, and never outliving the application,
 * not even one killed with SIGKILL.
 */
@ExtendWith(OutputCaptureExtension.class)
class OwnRedisServerTests {

    @Test
    void aFreePortAnotherServerTookMeanwhileIsGivenUpAndThatServerIsNotTouched() {
        try (RedisServer other = RedisServer.start()) {
            other.client().set("owner", "other");
            int[] offered = {other.port(), 0};
            int[] next = {0};
            try (OwnRedisServer server =
                    OwnRedisServer.start(false, () -> next[0]++ == 0 ? offered[0] : RedisProcesses.freePort())) {
                assertThat(server.port()).isNotEqualTo(other.port());
                assertThat(server.pid()).isNotEqualTo(other.pid());
                try (Jedis conn = new Jedis("127.0.0.1", server.port())) {
                    assertThat(conn.exists("owner")).isFalse();
                }
            }
            assertThat(other.client().get("owner")).isEqualTo("other");
            assertThat(other.client().ping()).isEqualTo("PONG");
        }
    }

    @Test
    void aServerKilledWithSigkillIsStartedAgainOnItsPortOnceAndTheListenersHearIt(CapturedOutput output) {
        try (OwnRedisServer server = OwnRedisServer.start(true)) {
            AtomicInteger restarts = new AtomicInteger();
            server.onRestart(restarts::incrementAndGet);
            try (Jedis conn = new Jedis("127.0.0.1", server.port())) {
                conn.set("before", "the death");
            }
            long first = server.pid();
            Path firstDirectory = server.directory();
            ProcessHandle.of(first).orElseThrow().destroyForcibly();

            await().atMost(Duration.ofSeconds(10)).until(() -> restarts.get() == 1);
            OwnRedisServer.Status status = server.status();
            assertThat(status.restarts()).isEqualTo(1);
            assertThat(status.lastExit()).isNotNull();
            assertThat(status.failure()).isNull();
            assertThat(status.pid()).isNotEqualTo(first).isPositive();
            try (Jedis conn = new Jedis("127.0.0.1", server.port())) {
                assertThat(conn.ping()).isEqualTo("PONG");
                assertThat(conn.exists("before"))
                        .as("a new server: the old one's data is gone")
                        .isFalse();
            }
            assertThat(firstDirectory).doesNotExist();
            assertThat(output.getAll())
                    .containsOnlyOnce("The sample's redis-server (pid " + first + ") exited; started a new one on the"
                            + " same port " + server.port());
        }
    }

    @Test
    void aServerThatKeepsDyingIsLeftDownAndReportedOnceSayingToRestartTheSample(CapturedOutput output) {
        try (OwnRedisServer server = OwnRedisServer.start(true)) {
            for (int death = 1; death <= OwnRedisServer.MAX_RESTARTS + 1; death++) {
                long pid = server.pid();
                ProcessHandle.of(pid).orElseThrow().destroyForcibly();
                int restarted = death;
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> server.status().restarts() == restarted
                                || server.status().failure() != null);
            }
            OwnRedisServer.Status status = server.status();
            assertThat(status.restarts()).isEqualTo(OwnRedisServer.MAX_RESTARTS);
            assertThat(status.pid()).as("left down").isZero();
            assertThat(status.failure()).contains("it is left down. Restart the sample.");
            assertThat(output.getAll()).containsOnlyOnce("it is left down. Restart the sample.");
        }
    }

    @Test
    void theServerAndItsDirectoryDieWithTheApplicationEvenWhenItIsKilledWithSigkill() {
        try (ChildJvm application = ChildJvm.start(OwnRedisServerChild.class)) {
            String[] started = application
                    .awaitLineStartingWith("STARTED ", Duration.ofSeconds(30))
                    .split(" ");
            long pid = Long.parseLong(started[1]);
            Path directory = Path.of(started[2]);
            assertThat(ProcessHandle.of(pid))
                    .hasValueSatisfying(server -> assertThat(server.isAlive()).isTrue());
            assertThat(directory).isDirectory();

            application.kill();

            await().atMost(Duration.ofSeconds(5))
                    .until(() ->
                            ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false) == false
                                    && !Files.exists(directory));
        }
    }
}
