package dev.turnstile.redis.internal;

import dev.turnstile.redis.LeaseKind;
import dev.turnstile.redis.LeaseListener;
import dev.turnstile.redis.LeaseLostEvent;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.UnifiedJedis;

/**
 * What every lock and semaphore of one {@code Turnstile} shares, each part focused on one thing:
 * the settings and key layout, the script runner, the release signals and their mode, the
 * watchdog, owner tokens, and the global lease listeners. Thread-safe.
 */
final class TurnstileRuntime implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(TurnstileRuntime.class);

    private final TurnstileSettings settings;
    private final RedisKeys keys;
    private final ScriptRunner scripts;
    private final SignalMode signalMode;
    private final ReleaseSignals signals;
    private final Watchdog watchdog;
    private final List<LeaseListener> listeners;
    private final String ownerPrefix = UUID.randomUUID().toString();
    private final AtomicLong ownerSequence = new AtomicLong();
    private volatile boolean closed;

    /** Creates the runtime; see {@code Turnstile.Builder} for what each option means. */
    public TurnstileRuntime(
            UnifiedJedis redis, TurnstileSettings settings, int watchdogThreads, List<LeaseListener> listeners) {
        this.settings = settings;
        this.keys = new RedisKeys(settings.keyPrefix());
        this.scripts = new ScriptRunner(redis, settings.minReplicas(), settings.replicaTimeout());
        this.signalMode = new SignalMode(redis);
        this.watchdog = new Watchdog(watchdogThreads);
        this.signals = new ReleaseSignals(redis, settings.keyPrefix(), this.watchdog, this.signalMode::sharded);
        this.listeners = List.copyOf(listeners);
    }

    /** Returns the options this runtime was built with. */
    public TurnstileSettings settings() {
        return this.settings;
    }

    /** Returns the key layout. */
    public RedisKeys keys() {
        return this.keys;
    }

    /** Returns the runner of scripts and commands. */
    public ScriptRunner scripts() {
        return this.scripts;
    }

    /** Returns whether release signals are sharded, and the publish command to use. */
    public SignalMode signalMode() {
        return this.signalMode;
    }

    /** Returns the shared release signals. */
    public ReleaseSignals signals() {
        return this.signals;
    }

    /** Returns the watchdog. */
    public Watchdog watchdog() {
        return this.watchdog;
    }

    /** Returns a token unique to one grant: this instance's random id and a sequence number. */
    public String newOwnerToken() {
        return this.ownerPrefix + ":" + this.ownerSequence.incrementAndGet();
    }

    /** Tells every global listener that a lease was lost; a failing listener is logged, not rethrown. */
    public void publishLoss(LeaseLostEvent event) {
        for (LeaseListener listener : this.listeners) {
            notifySafely(listener, event);
        }
    }

    /** Tells every global listener that the watchdog renewed a lease. */
    public void publishRenewal(LeaseKind kind, String name) {
        for (LeaseListener listener : this.listeners) {
            try {
                listener.leaseRenewed(kind, name);
            } catch (RuntimeException e) {
                log.error("Lease listener {} failed on a renewal of {} '{}'", listener, kind.label(), name, e);
            }
        }
    }

    /** Calls {@code listener}, logging instead of propagating what it throws. */
    public static void notifySafely(LeaseListener listener, LeaseLostEvent event) {
        try {
            listener.leaseLost(event);
        } catch (RuntimeException e) {
            log.error("Lease listener {} failed on {}", listener, event, e);
        }
    }

    /**
     * Fails if this runtime was closed: a lease granted now could be neither renewed nor watched.
     *
     * @throws IllegalStateException after {@link #close()}
     */
    public void requireOpen() {
        if (this.closed) {
            throw new IllegalStateException("This Turnstile is closed; build a new one to acquire locks or permits");
        }
    }

    @Override
    public void close() {
        this.closed = true;
        this.signals.close();
        this.watchdog.close();
    }
}
