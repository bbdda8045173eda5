package dev.turnstile.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.turnstile.test.redis.RedisClients;
import dev.turnstile.test.redis.RedisServer;
import dev.turnstile.test.redis.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Connection;
import redis.clients.jedis.UnifiedJedis;

/** Calls to three real masters: on the caller's thread while they answer, through their pools when not. */
class RedlockNodesIntegrationTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final LuaScript ECHO = LuaScript.of("return ARGV[1]");
    private static final List<RedisServer> masters = new ArrayList<>();

    private final List<UnifiedJedis> clients = new ArrayList<>();
    private RedlockNodes nodes;

    @BeforeEach
    void startMasters() {
        if (masters.isEmpty()) {
            masters.add(redis.server());
            masters.add(redis.startServer(builder -> builder));
            masters.add(redis.startServer(builder -> builder));
        }
        for (RedisServer master : masters) {
            master.resume();
            this.clients.add(master.newClient(Duration.ofSeconds(2)));
        }
        this.nodes = new RedlockNodes(List.<UnifiedJedis>copyOf(this.clients), List.of("a", "b", "c"));
    }

    @AfterEach
    void close() {
        this.nodes.close();
        this.clients.forEach(UnifiedJedis::close);
    }

    private List<RedlockNodes.Answer<Object>> echo(int index, long timeoutMillis) {
        return this.nodes.runAll(
                ECHO,
                List.of(),
                master -> List.of("call " + index + " to " + master),
                System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis),
                true,
                3);
    }

    /** A first round goes through the pools, whose threads then take a connection per master. */
    private void warmUp() {
        assertThat(echo(0, 1_000)).allMatch(RedlockNodes.Answer::answered);
        await().atMost(Duration.ofSeconds(5)).until(this.nodes::allReady);
    }

    @Test
    void answeringMastersAreCalledOnTheCallersThreadOnceTheyHaveAConnectionReady() {
        warmUp();
        long pooled = this.nodes.pooledCalls();
        for (int i = 1; i <= 50; i++) {
            List<RedlockNodes.Answer<Object>> answers = echo(i, 1_000);
            for (int master = 0; master < 3; master++) {
                assertThat(answers.get(master).value()).isEqualTo("call " + i + " to " + master);
            }
        }
        assertThat(this.nodes.pooledCalls()).as("calls handed to a pool thread").isEqualTo(pooled);
    }

    @Test
    void closingGivesEveryConnectionItHeldBackToTheClientsPools() {
        warmUp();
        assertThat(this.clients).allMatch(client -> RedisClients.poolOf(client).getNumActive() > 0);
        this.nodes.close();
        await().atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(this.clients)
                        .allMatch(client -> RedisClients.poolOf(client).getNumActive() == 0));
    }

    @Test
    void closingWhileAMastersThreadsAreStuckOnItGivesItsConnectionsBackAllTheSame() {
        warmUp();
        UnifiedJedis stalled = this.clients.get(2);
        List<Connection> idle = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            idle.add(RedisClients.poolOf(stalled).getResource()); // connected now, so the calls below need not connect
        }
        idle.forEach(Connection::close);
        masters.get(2).pause();
        try {
            // Every thread of the stalled master is busy with a call through its pool (each blocks
            // for the client's 2 s socket timeout) ...
            for (int i = 0; i < 4; i++) {
                this.nodes.callAll(UnifiedJedis::ping, System.nanoTime(), false);
            }
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> RedisClients.poolOf(stalled).getNumActive() >= 5);
            // ... when a direct call to it times out: its connection's give-back is queued behind them.
            assertThat(echo(1, 50).get(2).answered()).isFalse();
            this.nodes.close();
        } finally {
            masters.get(2).resume();
        }
        await().atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(this.clients)
                        .allMatch(client -> RedisClients.poolOf(client).getNumActive() == 0));
        assertThat(stalled.ping()).isEqualTo("PONG");
    }

    @Test
    void aMasterThatForgotTheScriptGetsItInFullOnTheSameCall() {
        warmUp();
        masters.get(1).client().scriptFlush();
        long pooled = this.nodes.pooledCalls();
        List<RedlockNodes.Answer<Object>> answers = echo(1, 1_000);
        assertThat(answers.get(1).value()).isEqualTo("call 1 to 1");
        assertThat(this.nodes.pooledCalls()).isEqualTo(pooled);
    }

    @Test
    void aStalledMasterTimesOutOnceAtTheDeadlineThenGoesThroughItsPoolUntilItAnswers() {
        warmUp();
        masters.get(2).pause();
        try {
            long start = System.nanoTime();
            List<RedlockNodes.Answer<Object>> first = echo(1, 50);
            long firstMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(first.get(0).answered()).isTrue();
            assertThat(first.get(2).answered()).isFalse();
            assertThat(first.get(2).failure()).hasMessage("no answer within the node timeout");
            assertThat(firstMillis)
                    .as("bounded by the 50 ms deadline, not the 2 s socket timeout")
                    .isLessThan(1_000);
            // A master that missed the first deadline goes through its pool on the next call: the
            // stalled one, and any other that a busy machine kept from answering within 50 ms.
            long missed = first.stream().filter(answer -> !answer.answered()).count();
            long pooled = this.nodes.pooledScripts();
            List<RedlockNodes.Answer<Object>> second = echo(2, 50);
            assertThat(second.get(2).answered()).isFalse();
            assertThat(this.nodes.pooledScripts() - pooled)
                    .as("the calls of the masters that missed the first deadline, the stalled one's among them,"
                            + " went through their pools")
                    .isEqualTo(missed);
        } finally {
            masters.get(2).resume();
        }
        // A pooled call that answers in time makes the master fit for direct calls again.
        assertThat(echo(3, 1_000).get(2).answered()).isTrue();
        // The next call finds no connection ready on it (they went back to the pool) and has one taken.
        await().atMost(Duration.ofSeconds(5)).until(() -> echo(3, 1_000).get(2).answered() && this.nodes.allReady());
        long pooled = this.nodes.pooledCalls();
        assertThat(echo(4, 1_000)).allMatch(RedlockNodes.Answer::answered);
        assertThat(this.nodes.pooledCalls()).isEqualTo(pooled);
    }
}
