package dev.turnstile.redis.internal;

import redis.clients.jedis.UnifiedJedis;

/**
 * One Redis deployment (a server, a Sentinel-managed master or a cluster) and what the locks and
 * semaphores of one {@code Turnstile} use of it: the script runner, the release signals and their
 * mode, beside what every {@link Deployment} has. Thread-safe.
 */
final class RedisDeployment extends Deployment implements AutoCloseable {

    private final Topology topology;
    private final ScriptRunner scripts;
    private final SignalMode signalMode;
    private final ReleaseSignals signals;

    /** @throws IllegalArgumentException if Turnstile cannot use {@code redis} (see {@link Topology#of}) */
    RedisDeployment(UnifiedJedis redis, TurnstileOptions options) {
        super(options);
        this.topology = Topology.of(redis);
        this.scripts = new ScriptRunner(redis, options.minReplicas(), options.replicaTimeout());
        this.signalMode = new SignalMode(this.topology);
        this.signals = new ReleaseSignals(
                redis, this.topology, options.keyPrefix(), leases().watchdog(), this.signalMode::sharded);
    }

    /** The deployment behind the client. */
    Topology topology() {
        return this.topology;
    }

    ScriptRunner scripts() {
        return this.scripts;
    }

    /** Returns whether release signals are sharded, and the publish command to use. */
    SignalMode signalMode() {
        return this.signalMode;
    }

    ReleaseSignals signals() {
        return this.signals;
    }

    @Override
    public void close() {
        leases().refuseNew();
        this.signals.close();
        leases().close();
    }
}
