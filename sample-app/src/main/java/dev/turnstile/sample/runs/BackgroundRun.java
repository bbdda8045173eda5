package dev.turnstile.sample.runs;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * One kind of long run, at most one at a time: its state, its progress and what it found so far.
 * Thread-safe; a snapshot is taken under the lock.
 *
 * @param <R> one row of the run's result
 */
final class BackgroundRun<R> implements AutoCloseable {

    private static final Log log = LogFactory.getLog(BackgroundRun.class);

    /** Where a run is. */
    enum State {
        IDLE,
        RUNNING,
        DONE,
        FAILED
    }

    /**
     * What a run has done.
     *
     * @param state where it is
     * @param done steps done
     * @param total steps in all
     * @param rows the rows found so far, in order
     * @param chart an SVG chart of the finished run, or null
     * @param error why it failed, for people, or null
     */
    record Snapshot<R>(
            State state,
            int done,
            int total,
            List<R> rows,
            @Nullable String chart,
            @Nullable String error) {}

    /** The body of a run: reports rows as they come, and may return a chart at the end. */
    interface Body<R> {
        @Nullable
        String run(Sink<R> sink) throws Exception;
    }

    /** Where a run reports its rows. */
    interface Sink<R> {
        void row(R row);
    }

    private final String name;
    private final int total;
    private final ExecutorService executor;
    private State state = State.IDLE;
    private List<R> rows = new ArrayList<>();
    private @Nullable String chart;
    private @Nullable String error;

    BackgroundRun(String name, int total) {
        this.name = name;
        this.total = total;
        this.executor = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, name + "-run");
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Starts {@code body} unless a run is under way; returns whether it started. */
    synchronized boolean start(Body<R> body) {
        if (this.state == State.RUNNING) {
            return false;
        }
        this.state = State.RUNNING;
        this.rows = new ArrayList<>();
        this.chart = null;
        this.error = null;
        try {
            this.executor.execute(() -> {
                try {
                    String result = body.run(this::add);
                    finish(State.DONE, result, null);
                } catch (Throwable e) {
                    log.warn("The " + this.name + " run failed", e);
                    finish(State.FAILED, null, "The run failed; the server logged why.");
                }
            });
        } catch (RejectedExecutionException shuttingDown) {
            this.state = State.FAILED;
            this.error = "The application is shutting down.";
            return false;
        }
        return true;
    }

    synchronized Snapshot<R> snapshot() {
        return new Snapshot<>(this.state, this.rows.size(), this.total, List.copyOf(this.rows), this.chart, this.error);
    }

    private synchronized void add(R row) {
        this.rows.add(row);
    }

    private synchronized void finish(State state, @Nullable String chart, @Nullable String error) {
        this.state = state;
        this.chart = chart;
        this.error = error;
    }

    @Override
    public void close() {
        this.executor.shutdownNow();
    }
}
