package dev.turnstile.redis.nemesis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.test.history.History;
import dev.turnstile.test.history.HistoryChecker;
import dev.turnstile.test.history.HistoryClock;
import dev.turnstile.test.history.Hold;
import dev.turnstile.test.redis.ChildJvm;
import dev.turnstile.test.redis.RedisServer;
import dev.turnstile.test.redis.RedisServerExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Redlock under its own fault model. Two worker JVMs increment a fenced register under one
 * Redlock lock over five masters, while a nemesis pauses masters, freezes holders past their lease
 * (SIGSTOP), and kills masters and restarts them without persistence: at once, then after one
 * lease as the README recommends. Whatever the nemesis does, no acknowledged increment is lost and
 * the tokens of the writes the register accepted strictly increase. The register hides what it
 * refuses, so every acquisition is also recorded in a {@link History} and judged by the {@link
 * HistoryChecker}: no phase gives a hold a token below one granted before it was asked for, and with
 * restarts delayed by a lease no two holds overlap unless the earlier one was reported lost. (An
 * immediate restart without persistence may let a second holder in: that phase prints its overlaps.)
 */
class RedlockNemesisIntegrationTests {

    private static final long LEASE_MILLIS = 500;
    private static final long PHASE_MILLIS = 8000;

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void noAcknowledgedIncrementIsLostAndAcceptedTokensIncreaseWhateverTheNemesisDoes() throws IOException {
        RedisServer register = redis.server();
        List<RedisServer> masters = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            masters.add(redis.startServer(builder -> builder));
        }
        long staleInAllPhases = 0;
        for (boolean delayedRestart : new boolean[] {false, true}) {
            register.flushAll();
            masters.forEach(RedisServer::flushAll);
            Outcome outcome = phase(register, masters, delayedRestart);
            System.out.println("Redlock nemesis, "
                    + (delayedRestart ? "restarts delayed by one lease" : "immediate restarts") + ": " + outcome
                    + "; history: " + outcome.verdict);
            assertThat(outcome.verdict.holds()).as("holds recorded").isGreaterThanOrEqualTo((int) outcome.acks);
            assertThat(outcome.verdict.tokenInversions())
                    .as("holds granted a token below one granted before they were asked for: %s", outcome.verdict)
                    .isZero();
            if (delayedRestart) {
                assertThat(outcome.verdict.unexplainedOverlaps())
                        .as("overlapping holds, the earlier not reported lost: %s", outcome.verdict)
                        .isZero();
            }
            FencedRegister fenced = new FencedRegister(register.client());
            assertThat(outcome.acks).as("the workers made progress").isPositive();
            staleInAllPhases += outcome.stale;
            assertThat(fenced.value()).as("no acknowledged increment lost").isEqualTo(outcome.acks);
            List<Long> tokens = fenced.acceptedWriteTokens();
            assertThat(tokens).hasSize((int) outcome.acks);
            for (int i = 1; i < tokens.size(); i++) {
                assertThat(tokens.get(i)).as("accepted write %d", i).isGreaterThan(tokens.get(i - 1));
            }
        }
        // A frozen worker is a stale holder only when it was holding and the other one took over
        // meanwhile: some phase may see none of its few freezes land there.
        assertThat(staleInAllPhases)
                .as("the nemesis caught holders past their lease")
                .isPositive();
    }

    private Outcome phase(RedisServer register, List<RedisServer> masters, boolean delayedRestart) throws IOException {
        String ports = masters.stream().map(m -> Integer.toString(m.port())).collect(Collectors.joining(","));
        List<ChildJvm> workers = new ArrayList<>();
        List<Path> historyFiles = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            Path historyFile = Files.createTempFile("redlock-nemesis-worker-" + (i + 1), ".tsv");
            historyFile.toFile().deleteOnExit();
            historyFiles.add(historyFile);
            workers.add(redis.startChild(
                    RedlockWorkerMain.class,
                    ports,
                    Integer.toString(register.port()),
                    Long.toString(LEASE_MILLIS),
                    Long.toString(PHASE_MILLIS),
                    historyFile.toString(),
                    "worker-" + (i + 1)));
        }
        // [worker index, paused from, resumed at], in HistoryClock micros, for the checker.
        List<long[]> pauses = java.util.Collections.synchronizedList(new ArrayList<>());
        Outcome outcome = new Outcome();
        Random random = new Random(delayedRestart ? 7 : 3);
        ScheduledExecutorService later = Executors.newSingleThreadScheduledExecutor();
        List<RedisServer> faulted = java.util.Collections.synchronizedList(new ArrayList<>());
        java.util.Set<ChildJvm> frozen = java.util.concurrent.ConcurrentHashMap.newKeySet();
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(PHASE_MILLIS - 1000);
        try {
            while (System.nanoTime() < end) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(150 + random.nextInt(250)));
                int action = random.nextInt(4);
                if (action < 2) {
                    int index = random.nextInt(workers.size());
                    ChildJvm worker = workers.get(index);
                    if (frozen.add(worker)) {
                        long pausedAt = HistoryClock.nowMicros();
                        worker.pause();
                        outcome.holderPauses++;
                        later.schedule(
                                () -> {
                                    worker.resume();
                                    pauses.add(new long[] {index, pausedAt, HistoryClock.nowMicros()});
                                    frozen.remove(worker);
                                },
                                LEASE_MILLIS * 2,
                                TimeUnit.MILLISECONDS);
                    }
                    continue;
                }
                if (faulted.size() >= 2) {
                    continue;
                }
                RedisServer master = masters.get(random.nextInt(masters.size()));
                if (faulted.contains(master)) {
                    continue;
                }
                faulted.add(master);
                if (action == 2) {
                    master.pause();
                    outcome.masterPauses++;
                    later.schedule(
                            () -> {
                                master.resume();
                                faulted.remove(master);
                            },
                            200 + random.nextInt(1000),
                            TimeUnit.MILLISECONDS);
                } else {
                    master.kill();
                    outcome.masterKills++;
                    later.schedule(
                            () -> {
                                master.restart();
                                faulted.remove(master);
                            },
                            delayedRestart ? LEASE_MILLIS + 100 : 0,
                            TimeUnit.MILLISECONDS);
                }
            }
        } finally {
            later.shutdown();
            try {
                later.awaitTermination(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            workers.forEach(ChildJvm::resume);
            masters.forEach(master -> {
                if (!master.isRunning()) {
                    master.restart();
                }
                master.resume();
            });
        }
        for (ChildJvm worker : workers) {
            String[] done =
                    worker.awaitLineStartingWith("DONE", Duration.ofSeconds(60)).split(" ");
            outcome.acks += Long.parseLong(done[1]);
            outcome.stale += Long.parseLong(done[2]);
            outcome.unavailable += Long.parseLong(done[3]);
        }
        HistoryChecker checker = HistoryChecker.withBounds(Duration.ofMillis(LEASE_MILLIS), Duration.ofSeconds(2));
        synchronized (pauses) {
            for (long[] pause : pauses) {
                checker.paused("worker-" + (pause[0] + 1), pause[1], pause[2]);
            }
        }
        List<Hold> holds = new ArrayList<>();
        for (Path historyFile : historyFiles) {
            holds.addAll(History.read(historyFile));
        }
        outcome.verdict = checker.check(holds);
        return outcome;
    }

    /** What one phase did and saw. */
    private static final class Outcome {
        long acks;
        long stale;
        long unavailable;
        int masterPauses;
        int holderPauses;
        int masterKills;
        HistoryChecker.Verdict verdict;

        @Override
        public String toString() {
            return this.acks + " acknowledged increments, " + this.stale + " stale holders refused by fencing, "
                    + this.unavailable + " acquires failed; nemesis: " + this.masterPauses + " master pauses, "
                    + this.holderPauses + " holders frozen past their lease, " + this.masterKills
                    + " master kills";
        }
    }
}
