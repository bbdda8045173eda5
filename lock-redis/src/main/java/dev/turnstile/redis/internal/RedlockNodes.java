package dev.turnstile.redis.internal;

import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.IntFunction;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * The Redlock masters and the calls to them. A script call goes out on the caller's thread to
 * every master that can take it that way ({@link DirectCalls}); the others are called through
 * their pools. Each master has its own small, bounded pool of threads and queue, so a master that
 * stops answering (a SIGSTOP, a black-holed network) ties up at most its own threads: the thread count stays flat however many calls are made, and a call
 * whose caller has already given up is dropped instead of sent late. Every wait for an answer is
 * bounded by the caller's deadline. Thread-safe.
 */
final class RedlockNodes implements AutoCloseable {

    /** Threads per master: enough for concurrent acquires, renewals and releases of one process. */
    private static final int THREADS_PER_MASTER = 4;
    /** Calls queued per master before further calls to it fail at once. */
    private static final int QUEUE_PER_MASTER = 256;

    private final List<UnifiedJedis> masters;
    private final List<String> names;
    private final List<ThreadPoolExecutor> executors = new ArrayList<>();
    /** Scripts sent through a master's pool, not on the caller's thread (for tests). */
    private final LongAdder pooledScripts = new LongAdder();

    private final DirectCalls direct;

    /** @param names how messages name each master, in the masters' order */
    RedlockNodes(List<UnifiedJedis> masters, List<String> names) {
        this.masters = List.copyOf(masters);
        this.names = List.copyOf(names);
        for (int i = 0; i < this.masters.size(); i++) {
            int master = i;
            AtomicInteger threads = new AtomicInteger();
            ThreadPoolExecutor executor = new ThreadPoolExecutor(
                    THREADS_PER_MASTER,
                    THREADS_PER_MASTER,
                    30,
                    TimeUnit.SECONDS,
                    new ArrayBlockingQueue<>(QUEUE_PER_MASTER),
                    task -> {
                        Thread thread =
                                new Thread(task, "turnstile-redlock-" + master + "-" + threads.incrementAndGet());
                        thread.setDaemon(true);
                        return thread;
                    });
            executor.allowCoreThreadTimeOut(true);
            this.executors.add(executor);
        }
        this.direct = new DirectCalls(this.masters, this.executors::get);
    }

    int size() {
        return this.masters.size();
    }

    /** Returns how many masters must agree: a majority. */
    int quorum() {
        return this.masters.size() / 2 + 1;
    }

    /** Returns a name for master {@code index} in messages. */
    String describe(int index) {
        return "master " + index + " (" + this.names.get(index) + ")";
    }

    /**
     * Sends {@code call} to every master in parallel and waits until {@code deadlineNanos} at most.
     * A call that has not started by then is never sent.
     *
     * @param dropIfLate whether a call that could not start before the deadline is skipped
     *     (acquire, renew); releases pass false, as a late release still frees a key
     * @return one answer per master, in the masters' order
     */
    <T> List<Answer<T>> callAll(Function<UnifiedJedis, T> call, long deadlineNanos, boolean dropIfLate) {
        return callAll(call, deadlineNanos, dropIfLate, Integer.MAX_VALUE);
    }

    /**
     * Like {@link #callAll(Function, long, boolean)}, but stops waiting once {@code enough} masters
     * answered; the others' answers are reported as not (yet) given.
     */
    <T> List<Answer<T>> callAll(Function<UnifiedJedis, T> call, long deadlineNanos, boolean dropIfLate, int enough) {
        List<CompletableFuture<T>> calls = new ArrayList<>();
        for (int i = 0; i < this.masters.size(); i++) {
            calls.add(submit(i, call, deadlineNanos, dropIfLate));
        }
        return await(calls, deadlineNanos, enough);
    }

    /**
     * Runs {@code script} on every master at once, each with its own arguments, and waits until
     * {@code deadlineNanos} at most, or until {@code enough} masters answered. Masters that can be
     * called on this thread ({@link DirectCalls}) are; the others through their pools, as {@link
     * #callAll(Function, long, boolean, int)} calls them.
     *
     * @return one answer per master, in the masters' order
     */
    List<Answer<Object>> runAll(
            LuaScript script,
            List<String> keys,
            IntFunction<List<String>> args,
            long deadlineNanos,
            boolean dropIfLate,
            int enough) {
        int count = this.masters.size();
        List<List<String>> argsByMaster = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            argsByMaster.add(args.apply(i));
        }
        DirectCalls.Sent[] sent = new DirectCalls.Sent[count];
        List<Answer<Object>> answers = new ArrayList<>(java.util.Collections.nCopies(count, null));
        List<Integer> pooled = new ArrayList<>();
        List<CompletableFuture<Object>> pooledCalls = new ArrayList<>();
        int answered = 0;
        try {
            // An interrupted thread calls through the pools: a read must not be cut short by the
            // interrupt. (A platform thread's socket read ignores interrupts; a virtual thread never
            // calls directly.)
            boolean direct = !Thread.currentThread().isInterrupted();
            for (int i = 0; i < count && direct; i++) {
                sent[i] = this.direct.send(i, script, keys, argsByMaster.get(i));
            }
            for (int i = 0; i < count; i++) {
                if (sent[i] == null) {
                    pooled.add(i);
                    pooledCalls.add(pooledScript(i, script, keys, argsByMaster.get(i), deadlineNanos, dropIfLate));
                }
            }
            for (int i = 0; i < count; i++) {
                if (sent[i] == null) {
                    continue;
                }
                DirectCalls.Sent call = sent[i];
                sent[i] = null;
                Answer<Object> answer = read(call, deadlineNanos);
                if (!answer.answered()
                        && !(answer.failure() instanceof TimeoutException)
                        && answer.failure() instanceof JedisConnectionException
                        && System.nanoTime() - deadlineNanos < 0) {
                    // The connection failed (a server restarted, an idle connection it closed), not
                    // the master's time: call it once more through its pool, within the same deadline.
                    // Every script run this way is safe to run twice.
                    pooled.add(i);
                    pooledCalls.add(pooledScript(i, script, keys, argsByMaster.get(i), deadlineNanos, dropIfLate));
                    continue;
                }
                answered += answer.answered() ? 1 : 0;
                answers.set(i, answer);
            }
        } finally {
            for (DirectCalls.Sent unread : sent) {
                if (unread != null) {
                    unread.abandon();
                }
            }
        }
        List<Answer<Object>> rest = await(pooledCalls, deadlineNanos, Math.max(0, enough - answered));
        for (int j = 0; j < pooled.size(); j++) {
            answers.set(pooled.get(j), rest.get(j));
        }
        return answers;
    }

    private CompletableFuture<Object> pooledScript(
            int index, LuaScript script, List<String> keys, List<String> args, long deadlineNanos, boolean dropIfLate) {
        this.pooledScripts.increment();
        return submit(index, master -> script.run(master, keys, args), deadlineNanos, dropIfLate);
    }

    private static Answer<Object> read(DirectCalls.Sent sent, long deadlineNanos) {
        CompletableFuture<Object> call = new CompletableFuture<>();
        try {
            Object value = sent.reply(deadlineNanos);
            call.complete(value);
            return new Answer<>(call, value, null);
        } catch (RuntimeException e) {
            Throwable failure = e instanceof JedisConnectionException && e.getCause() instanceof SocketTimeoutException
                    ? new TimeoutException("no answer within the node timeout")
                    : e;
            call.completeExceptionally(failure);
            return new Answer<>(call, null, failure);
        }
    }

    /**
     * Queues {@code call} on master {@code index}'s pool; a call that answers before the deadline
     * makes the master fit for direct calls again.
     */
    private <T> CompletableFuture<T> submit(
            int index, Function<UnifiedJedis, T> call, long deadlineNanos, boolean dropIfLate) {
        UnifiedJedis master = this.masters.get(index);
        CompletableFuture<T> future = new CompletableFuture<>();
        try {
            this.executors.get(index).execute(() -> {
                if (dropIfLate && System.nanoTime() > deadlineNanos) {
                    future.completeExceptionally(new TimeoutException("not sent: the caller gave up"));
                    return;
                }
                try {
                    T value = call.apply(master);
                    if (System.nanoTime() - deadlineNanos <= 0) {
                        this.direct.answered(index);
                    }
                    future.complete(value);
                } catch (RuntimeException e) {
                    future.completeExceptionally(e);
                }
            });
        } catch (RejectedExecutionException busy) {
            future.completeExceptionally(busy);
        }
        return future;
    }

    /**
     * Waits for {@code calls} until the deadline, or until {@code enough} of them answered.
     *
     * @return one answer per call, in order
     */
    private static <T> List<Answer<T>> await(List<CompletableFuture<T>> calls, long deadlineNanos, int enough) {
        boolean interrupted = false;
        if (enough < calls.size()) {
            interrupted = awaitEnough(calls, deadlineNanos, enough);
        }
        boolean enoughAnswered = calls.stream()
                        .filter(pending -> pending.isDone() && !pending.isCompletedExceptionally())
                        .count()
                >= enough;
        List<Answer<T>> answers = new ArrayList<>();
        for (CompletableFuture<T> pending : calls) {
            if (enoughAnswered && !pending.isDone()) {
                answers.add(new Answer<>(pending, null, new TimeoutException("not awaited: enough masters answered")));
                continue;
            }
            // Bounded by the deadline, so an interrupt is kept for the caller instead of cutting the
            // wait short: a release must not report masters as silent only because of it.
            while (true) {
                try {
                    long wait = Math.max(0, deadlineNanos - System.nanoTime());
                    answers.add(new Answer<>(pending, pending.get(wait, TimeUnit.NANOSECONDS), null));
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    answers.add(new Answer<>(pending, null, e.getCause()));
                    break;
                } catch (TimeoutException e) {
                    answers.add(new Answer<>(pending, null, new TimeoutException("no answer within the node timeout")));
                    break;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return answers;
    }

    /**
     * Waits until {@code enough} calls completed normally, or all completed, or the deadline.
     *
     * @return whether the thread was interrupted meanwhile (the flag is cleared)
     */
    private static <T> boolean awaitEnough(List<CompletableFuture<T>> calls, long deadlineNanos, int enough) {
        java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(enough);
        java.util.concurrent.atomic.AtomicInteger finished = new java.util.concurrent.atomic.AtomicInteger();
        for (CompletableFuture<T> pending : calls) {
            pending.whenComplete((value, failure) -> {
                if (failure == null) {
                    done.countDown();
                }
                if (finished.incrementAndGet() == calls.size()) {
                    while (done.getCount() > 0) {
                        done.countDown();
                    }
                }
            });
        }
        boolean interrupted = false;
        while (true) {
            try {
                done.await(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
                return interrupted;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
    }

    /**
     * Runs {@code action} on master {@code index}'s pool once {@code call} completes, normally or
     * not; dropped if the pool is full or closed.
     */
    void afterCall(int index, CompletableFuture<?> call, Runnable action) {
        try {
            call.whenCompleteAsync((value, failure) -> action.run(), this.executors.get(index));
        } catch (RejectedExecutionException closed) {
            // the call's grant, if any, expires by its TTL
        }
    }

    /** Returns whether every master has a connection ready for calls on the caller's thread (for tests). */
    boolean allReady() {
        for (int i = 0; i < this.masters.size(); i++) {
            if (this.direct.ready(i) == 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * Returns how many scripts were sent through the masters' pools so far (for tests): unlike
     * {@link #pooledCalls()}, no connection handed back through a pool is counted.
     */
    long pooledScripts() {
        return this.pooledScripts.sum();
    }

    /**
     * Returns how many tasks were handed to the masters' pools so far (for tests): calls, and
     * connections handed back.
     */
    long pooledCalls() {
        return this.executors.stream()
                .mapToLong(ThreadPoolExecutor::getTaskCount)
                .sum();
    }

    @Override
    public void close() {
        this.direct.close();
        this.executors.forEach(ThreadPoolExecutor::shutdownNow);
    }

    /**
     * One master's answer.
     *
     * @param call the call, still running if it timed out
     * @param value the reply, or null
     * @param failure why there is no reply (an error or a timeout), or null
     */
    record Answer<T>(
            CompletableFuture<T> call,
            @Nullable T value,
            @Nullable Throwable failure) {

        boolean answered() {
            return this.failure == null;
        }
    }
}
