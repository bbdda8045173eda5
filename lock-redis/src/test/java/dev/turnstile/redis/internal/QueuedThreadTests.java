package dev.turnstile.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;

/** A queued thread that waits awake before it parks takes an entry, its deadline and an interrupt as a parked one does. */
class QueuedThreadTests {

    private static final Duration LONG = Duration.ofSeconds(30);

    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<QueuedThread<String>> queue = new ArrayDeque<>();

    @Test
    void anEntryHandedOverWhileTheThreadWaitsAwakeIsTakenWithoutParking() throws Exception {
        Waiting waiting = queue(LONG.multipliedBy(2), LONG);
        Thread.sleep(50);
        assertThat(waiting.thread().getState()).as("waiting awake, not parked").isEqualTo(Thread.State.RUNNABLE);
        admitFirst("let in");
        assertThat(waiting.entry().get(5, TimeUnit.SECONDS)).isEqualTo("let in");
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
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (waiting.thread().getState() != Thread.State.TIMED_WAITING && System.nanoTime() < until) {
            Thread.sleep(5);
        }
        assertThat(waiting.thread().getState())
                .as("parked once the time awake is over")
                .isEqualTo(Thread.State.TIMED_WAITING);
        admitFirst("let in");
        assertThat(waiting.entry().get(5, TimeUnit.SECONDS)).isEqualTo("let in");
    }

    /** A thread queued in {@link #queue}, and what its wait ends with: the entry, null, or the interrupt's message. */
    private record Waiting(Thread thread, CompletableFuture<String> entry) {}

    private Waiting queue(Duration wait, Duration awake) throws Exception {
        CompletableFuture<Thread> started = new CompletableFuture<>();
        CompletableFuture<String> entry = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            QueuedThread<String> waiter = new QueuedThread<>();
            this.lock.lock();
            try {
                this.queue.addLast(waiter);
            } finally {
                this.lock.unlock();
            }
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

    private void admitFirst(String entry) {
        QueuedThread<String> next;
        this.lock.lock();
        try {
            next = this.queue.pollFirst();
            assertThat(next).isNotNull();
            next.admit(entry);
        } finally {
            this.lock.unlock();
        }
        next.wake();
    }
}
