package dev.turnstile.test.history;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Records the holds of one process as they happen. {@link #inMemory()} keeps them in this JVM;
 * {@link #appendingTo(Path)} also appends every change to a file, flushed at once, so that a child
 * JVM killed with SIGKILL leaves the holds it had, and the test reads them with {@link #read(Path)}.
 *
 * <pre>{@code
 * History.Recording r = history.begin("node-1", "lock", "item:42", 1, wait);
 * Optional<Lease> lease = lock.tryAcquire(wait, null);
 * if (lease.isEmpty()) { r.refused(); return; }
 * r.granted(lease.get().fencingToken());
 * lease.get().onLost(event -> r.lost(event.overdue()));
 * work();
 * r.release(lease.get()::release);
 * }</pre>
 *
 * <p>Thread-safe.
 */
public final class History {

    private final AtomicLong ids = new AtomicLong();
    private final Map<Long, Hold> holds = new LinkedHashMap<>();
    private final @Nullable Writer file;

    private History(@Nullable Writer file) {
        this.file = file;
    }

    /** A history kept in this JVM. */
    public static History inMemory() {
        return new History(null);
    }

    /** A history that also appends every change to {@code file} (created or appended to). */
    public static History appendingTo(Path file) {
        try {
            return new History(Files.newBufferedWriter(
                    file, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND));
        } catch (IOException e) {
            throw new UncheckedIOException("Could not open the history file " + file, e);
        }
    }

    /** Reads the holds a history appended to {@code file}, each in its last recorded state. */
    public static List<Hold> read(Path file) {
        Map<String, Hold> last = new LinkedHashMap<>();
        try {
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                int tab = line.indexOf('\t');
                if (tab > 0 && isComplete(line)) {
                    last.put(line.substring(0, tab), Hold.parse(line.substring(tab + 1)));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Could not read the history file " + file, e);
        }
        return new ArrayList<>(last.values());
    }

    /** A line cut short by a kill is ignored: only lines that end with an outcome count. */
    private static boolean isComplete(String line) {
        for (Hold.Outcome outcome : Hold.Outcome.values()) {
            if (line.endsWith("\t" + outcome.name())) {
                return true;
            }
        }
        return false;
    }

    /** Returns every acquisition recorded so far, each in its current state. */
    public synchronized List<Hold> holds() {
        return new ArrayList<>(this.holds.values());
    }

    /**
     * Starts recording an acquisition that is about to be asked for.
     *
     * @param process the process asking (a JVM, or one client instance standing for one)
     * @param primitive what is asked for, e.g. {@code lock}
     * @param name the name
     * @param limit 1 for a lock, N for a semaphore
     * @param wait the wait given to the acquisition
     */
    public Recording begin(String process, String primitive, String name, int limit, Duration wait) {
        long id = this.ids.incrementAndGet();
        Hold hold = new Hold(
                process,
                Thread.currentThread().getName(),
                primitive,
                name,
                limit,
                -1,
                wait.toNanos() / 1_000,
                HistoryClock.nowMicros(),
                -1,
                -1,
                -1,
                -1,
                Hold.Outcome.PENDING);
        put(id, hold);
        return new Recording(id);
    }

    private synchronized Hold get(long id) {
        return this.holds.get(id);
    }

    private synchronized void put(long id, Hold hold) {
        this.holds.put(id, hold);
        if (this.file != null) {
            try {
                this.file.write(id + "\t" + hold.line() + "\n");
                this.file.flush();
            } catch (IOException e) {
                throw new UncheckedIOException("Could not append to the history file", e);
            }
        }
    }

    /** One acquisition being recorded; each method records the moment it is called. */
    public final class Recording {

        private final long id;

        private Recording(long id) {
            this.id = id;
        }

        /** The acquisition returned a hold with {@code token}. */
        public void granted(long token) {
            update(h -> with(
                    h,
                    token,
                    HistoryClock.nowMicros(),
                    h.ended(),
                    h.lossReported(),
                    h.lossOverdueMicros(),
                    Hold.Outcome.GRANTED));
        }

        /** The acquisition returned without a hold: its wait ran out. */
        public void refused() {
            update(h -> with(h, -1, HistoryClock.nowMicros(), -1, -1, -1, Hold.Outcome.REFUSED));
        }

        /** The acquisition failed with an error. */
        public void failed() {
            update(h -> with(h, -1, HistoryClock.nowMicros(), -1, -1, -1, Hold.Outcome.FAILED));
        }

        /** The hold's loss was reported (by a listener), {@code overdue} after its deadline; the first report counts. */
        public void lost(Duration overdue) {
            long now = HistoryClock.nowMicros();
            update(h -> h.lossWasReported()
                    ? h
                    : with(h, h.token(), h.returned(), h.ended(), now, overdue.toNanos() / 1_000, h.outcome()));
        }

        /**
         * The holder ends the hold now by calling {@code release}; a release that answers false (the
         * hold was not kept until now) or throws reports a loss at this moment, if none was reported
         * before.
         *
         * @return what {@code release} answered
         */
        public boolean release(BooleanSupplier release) {
            return releaseAll(List.of(this), release);
        }

        private void ended(long now) {
            update(h -> with(h, h.token(), h.returned(), now, h.lossReported(), h.lossOverdueMicros(), h.outcome()));
        }

        private void lostAtRelease(long now) {
            update(h -> h.lossWasReported() ? h : with(h, h.token(), h.returned(), h.ended(), now, -1, h.outcome()));
        }

        private void update(java.util.function.UnaryOperator<Hold> change) {
            synchronized (History.this) {
                put(this.id, change.apply(get(this.id)));
            }
        }
    }

    /**
     * Ends the holds of one acquisition of several names (a multi-key lock) at once: every one ends
     * now, before {@code release} is called once; as {@link Recording#release} otherwise.
     *
     * @return what {@code release} answered
     */
    public static boolean releaseAll(List<Recording> recordings, BooleanSupplier release) {
        long now = HistoryClock.nowMicros();
        recordings.forEach(r -> r.ended(now));
        boolean kept;
        try {
            kept = release.getAsBoolean();
        } catch (RuntimeException e) {
            recordings.forEach(r -> r.lostAtRelease(now));
            throw e;
        }
        if (!kept) {
            recordings.forEach(r -> r.lostAtRelease(now));
        }
        return kept;
    }

    private static Hold with(
            Hold h, long token, long returned, long ended, long lossReported, long overdue, Hold.Outcome outcome) {
        return new Hold(
                h.process(),
                h.thread(),
                h.primitive(),
                h.name(),
                h.limit(),
                token,
                h.waitMicros(),
                h.requested(),
                returned,
                ended,
                lossReported,
                overdue,
                outcome);
    }
}
