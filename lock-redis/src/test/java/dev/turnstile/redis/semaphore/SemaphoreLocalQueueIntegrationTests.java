package dev.turnstile.redis.semaphore;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.redis.Turnstile;
import dev.turnstile.test.redis.ChildJvm;
import dev.turnstile.test.redis.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.UnifiedJedis;

/**
 * Hunts for more than N holders while permits pass between the threads of each process: three JVMs
 * of eight threads on a semaphore of 4 (this one alone for the first second), holds of up to 10 ms
 * on a fixed lease of 400 ms and a cohort of 200 holders and 1 s, so that a chain of local passes outlives the lease the permit was granted with
 * and stays held only if the permit is renewed in Redis as it passes. Every hold is counted in
 * Redis at once, and every fencing token is checked for a duplicate.
 */
class SemaphoreLocalQueueIntegrationTests {

    private static final int LIMIT = 4;
    private static final int THREADS = 8;
    private static final int CHILDREN = 2;
    private static final Duration RUN = Duration.ofSeconds(4);
    private static final Duration LEASE = Duration.ofMillis(400);
    private static final int COHORT_HOLDERS = 200;
    private static final Duration COHORT_AGE = Duration.ofSeconds(1);
    /** How long this process runs before the others start (a fair semaphore must not pass on even then). */
    private static final Duration ALONE = Duration.ofSeconds(1);

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @ParameterizedTest(name = "fair: {0}")
    @ValueSource(booleans = {false, true})
    void threeJvmsPassingPermitsLocallyNeverHoldMoreThanTheLimitAndNeverShareAToken(boolean fair) throws Exception {
        String name = "local-queue-" + fair;
        List<ChildJvm> children = new ArrayList<>();
        for (int i = 0; i < CHILDREN; i++) {
            children.add(redis.startChild(
                    SemaphoreWorkerMain.class,
                    "queue",
                    Integer.toString(redis.server().port()),
                    name,
                    Integer.toString(LIMIT),
                    Integer.toString(THREADS),
                    Long.toString(RUN.minus(ALONE).toMillis()),
                    Long.toString(LEASE.toMillis()),
                    Boolean.toString(fair),
                    Long.toString(COHORT_AGE.toMillis()),
                    Long.toString(ALONE.toMillis())));
        }
        for (ChildJvm child : children) {
            child.awaitLineStartingWith("READY", Duration.ofSeconds(30));
        }
        List<SemaphoreWorkerMain.LocalQueue.Result> results = new ArrayList<>();
        try (UnifiedJedis client = redis.server().newClient(Duration.ofSeconds(5));
                Turnstile turnstile = Turnstile.builder(client)
                        .lockCohort(COHORT_HOLDERS, COHORT_AGE)
                        .build()) {
            RedisSemaphore semaphore = turnstile.semaphore(name, LIMIT);
            children.forEach(child -> child.send("go"));
            results.add(SemaphoreWorkerMain.LocalQueue.run(
                    fair ? semaphore.fair() : semaphore, client, THREADS, RUN, LEASE, SemaphoreWorkerMain.MAX_HOLD));
        }
        for (ChildJvm child : children) {
            String[] line =
                    child.awaitLineStartingWith("RESULT", Duration.ofMinutes(2)).split(" ");
            results.add(new SemaphoreWorkerMain.LocalQueue.Result(
                    Long.parseLong(line[1]),
                    Long.parseLong(line[2]),
                    Long.parseLong(line[3]),
                    Long.parseLong(line[4]),
                    Long.parseLong(line[5])));
            child.awaitLineStartingWith("DONE", Duration.ofSeconds(10));
        }
        long holds = results.stream()
                .mapToLong(SemaphoreWorkerMain.LocalQueue.Result::holds)
                .sum();
        System.out.printf("fair %s: %s%n", fair, results);

        // A thread stalled past its 400 ms lease (a loaded machine) is still counted after its permit
        // expired, and its loss is reported: each reported loss may explain one holder over the limit,
        // nothing else may.
        long lost = results.stream()
                .mapToLong(SemaphoreWorkerMain.LocalQueue.Result::lost)
                .sum();
        assertThat(results)
                .extracting(SemaphoreWorkerMain.LocalQueue.Result::maxHolders)
                .as("most holders counted at once, per process, with %d leases reported lost", lost)
                .allMatch(max -> max <= LIMIT + lost);
        assertThat(results.stream()
                        .mapToLong(SemaphoreWorkerMain.LocalQueue.Result::maxHolders)
                        .max()
                        .orElse(0))
                .as("every slot was used")
                .isGreaterThanOrEqualTo(LIMIT);
        assertThat(results)
                .extracting(SemaphoreWorkerMain.LocalQueue.Result::duplicateTokens)
                .as("fencing tokens handed out twice")
                .containsOnly(0L);
        // Every process passes permits between its threads: an unfair semaphore's within the
        // cohort's bounds, a fair one's also only to a waiter whose ticket no other process's is
        // below (arrival order across processes is SemaphoreContract's and the history's to check).
        assertThat(results)
                .extracting(SemaphoreWorkerMain.LocalQueue.Result::passes)
                .as("permits passed between the threads of a process")
                .allMatch(passes -> passes > 0);
        // Every process got permits; how evenly, with the default cohort, is the benchmark's to measure
        // (this test stretches the cohort so that chains of passes outlive the lease).
        assertThat(results)
                .extracting(SemaphoreWorkerMain.LocalQueue.Result::holds)
                .as("every process held permits, of %d holds", holds)
                .allMatch(own -> own > 0);
        assertThat(redis.server().client().get(SemaphoreWorkerMain.HolderCount.KEY))
                .isEqualTo("0");
    }
}
