package dev.turnstile.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;

/** A queued thread that waits awake before it parks takes an entry, its deadline and an interrupt as a parked one does. */
class QueuedThreadTests {

    private static final Duration LONG = Duration.ofSeconds(30);

    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<QueuedThread<String>> queue = new ArrayDeque<>();

    @Test
    void anEntryHandedOverWhileTheThreadWaitsAwakeIsTakenWithoutParking() throws Exception {
        assumeTrue(QueuedThread.MAX_AWAKE_THREADS > 0, "one processor: nobody waits awake");
        Waiting waiting = queue(LONG.multipliedBy(2), LONG);
        // Still awake after a while: it has not parked.
        await().during(Duration.ofMillis(50))
                .atMost(Duration.ofSeconds(2))
                .until(() -> waiting.thread().getState() == Thread.State.RUNNABLE);
        // Admitted without the unpark: only a thread still awake sees it.
        admitFirst("let in", false);
        assertThat(waiting.entry().get(1, TimeUnit.SECONDS)).isEqualTo("let in");
    }

    @Test
    void aProcessOnOneProcessorWaitsAwakeNeverAndOtherwiseFourThreadsPerProcessor() {
        assertThat(QueuedThread.awakeThreadsFor(1)).isZero();
        assertThat(QueuedThread.awakeThreadsFor(2)).isEqualTo(8);
        assertThat(QueuedThread.awakeThreadsFor(64)).isEqualTo(256);
    }

    @Test
    void noMoreThreadsWaitAwakeAtOnceThanTheLimitTheOthersPark() throws Exception {
        List<Waiting> waiting = new ArrayList<>();
        try {
            for (int i = 0; i <= QueuedThread.MAX_AWAKE_THREADS; i++) {
                waiting.add(queue(LONG.multipliedBy(2), LONG));
            }
            // Whichever thread came last to the limit parks (threads reach it in any order), and it stays so.
            await().during(Duration.ofMillis(50))
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> count(waiting, Thread.State.TIMED_WAITING) == 1
                            && count(waiting, Thread.State.RUNNABLE) == QueuedThread.MAX_AWAKE_THREADS);
        } finally {
            // Admitted in queue order, also after a failure: no thread is left awake for the next test.
            for (int i = 0; i < waiting.size(); i++) {
                admitFirst("let in " + i, true);
            }
        }
        for (int i = 0; i < waiting.size(); i++) {
            assertThat(waiting.get(i).entry().get(5, TimeUnit.SECONDS)).isEqualTo("let in " + i);
        }
    }

    private static long count(List<Waiting> waiting, Thread.State state) {
        return waiting.stream().filter(w -> w.thread().getState() == state).count();
    }

    /**
     * Hunts for a lost wake-up: entries handed over at random moments around the end of a short
     * wait awake (just before, during the switch, after the park). A lost one would leave the
     * thread parked until its deadline; every entry must arrive long before that.
     */
    @Test
    void anEntryHandedOverAroundTheEndOfTheWaitAwakeIsNeverLost() throws Exception {
        assumeTrue(QueuedThread.MAX_AWAKE_THREADS > 0, "one processor: nobody waits awake");
        int rounds = 20_000;
        AtomicBoolean done = new AtomicBoolean();
        Thread admitter = new Thread(() -> {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            while (!done.get()) {
                QueuedThread<String> next;
                this.lock.lock();
                try {
                    next = this.queue.peekFirst();
                } finally {
                    this.lock.unlock();
                }
                if (next == null) {
                    Thread.yield();
                    continue;
                }
                spin(random.nextLong(60_000));
                admitFirst("let in", true);
            }
        });
        admitter.start();
        try {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            for (int i = 0; i < rounds; i++) {
                // A permit left by the last round's wake-up would let a park return and hide a lost one.
                LockSupport.parkNanos(1);
                QueuedThread<String> waiter = join();
                long start = System.nanoTime();
                // A lost wake-up would leave the thread parked until this deadline, then let it in.
                String entry = waiter.await(
                        start + TimeUnit.SECONDS.toNanos(2), random.nextLong(40_000), this, this.lock, this.queue, "x");
                assertThat(entry).as("round " + i).isEqualTo("let in");
                assertThat(Duration.ofNanos(System.nanoTime() - start))
                        .as("round %d: handed over, but the thread woke only at its deadline", i)
                        .isLessThan(Duration.ofSeconds(1));
            }
        } finally {
            done.set(true);
            admitter.join(5_000);
        }
    }

    private static void spin(long nanos) {
        long until = System.nanoTime() + nanos;
        while (System.nanoTime() - until < 0) {
            Thread.onSpinWait();
        }
    }

    @Test
    void aThreadWaitingAwakeLeavesTheQueueAtItsDeadline() throws Exception {
        Waiting waiting = queue(Duration.ofMillis(100), LONG);
        assertThat(waiting.entry().get(5, TimeUnit.SECONDS))
                .as("no entry: the deadline passed")
                .isNull();
        assertThat(this.queue).isEmpty();
    }

    @Test
    void anInterruptEndsTheWaitAwakeAndTheThreadLeavesTheQueue() throws Exception {
        Waiting waiting = queue(LONG.multipliedBy(2), LONG);
        waiting.thread().interrupt();
        assertThat(waiting.entry().get(5, TimeUnit.SECONDS)).isEqualTo("interrupted while queued for x");
        assertThat(this.queue).isEmpty();
    }

    @Test
    void withoutAnEntryTheWaitAwakeEndsAndTheThreadParks() throws Exception {
        Waiting waiting = queue(LONG, Duration.ofMillis(20));
        awaitState(waiting.thread(), Thread.State.TIMED_WAITING);
        assertThat(waiting.thread().getState())
                .as("parked once the time awake is over")
                .isEqualTo(Thread.State.TIMED_WAITING);
        admitFirst("let in", true);
        assertThat(waiting.entry().get(5, TimeUnit.SECONDS)).isEqualTo("let in");
    }

    /** A thread queued in {@link #queue}, and what its wait ends with: the entry, null, or the interrupt's message. */
    private record Waiting(Thread thread, CompletableFuture<String> entry) {}

    /** Queues the calling thread, as a place does under its lock. */
    private QueuedThread<String> join() {
        QueuedThread<String> waiter = new QueuedThread<>();
        this.lock.lock();
        try {
            this.queue.addLast(waiter);
        } finally {
            this.lock.unlock();
        }
        return waiter;
    }

    private Waiting queue(Duration wait, Duration awake) throws Exception {
        CompletableFuture<Thread> started = new CompletableFuture<>();
        CompletableFuture<String> entry = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            QueuedThread<String> waiter = join();
            started.complete(Thread.currentThread());
            try {
                entry.complete(waiter.await(
                        System.nanoTime() + wait.toNanos(), awake.toNanos(), this, this.lock, this.queue, "x"));
            } catch (InterruptedException e) {
                entry.complete(e.getMessage());
            }
        });
        thread.setDaemon(true);
        thread.start();
        started.get(5, TimeUnit.SECONDS);
        return new Waiting(thread, entry);
    }

    private static void awaitState(Thread thread, Thread.State state) {
        await().atMost(Duration.ofSeconds(5)).until(() -> thread.getState() == state);
    }

    private void admitFirst(String entry, boolean wake) {
        QueuedThread<String> next;
        this.lock.lock();
        try {
            next = this.queue.pollFirst();
            assertThat(next).isNotNull();
            next.admit(entry);
        } finally {
            this.lock.unlock();
        }
        if (wake) {
            next.wake();
        }
    }
}
