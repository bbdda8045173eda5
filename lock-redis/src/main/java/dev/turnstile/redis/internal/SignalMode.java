package dev.turnstile.redis.internal;

import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.Jedis;

/**
 * Whether release signals use sharded pub/sub ({@code SPUBLISH}/{@code SSUBSCRIBE}): on a Redis
 * Cluster of version 7 or later. Decided once the cluster's version could be read; while no node
 * answers, plain pub/sub is used and the version is probed again (at most once a second), so one
 * unlucky start never leaves a process publishing where the others do not listen. Thread-safe.
 */
final class SignalMode {

    private static final Logger log = LoggerFactory.getLogger(SignalMode.class);
    /** How long after a failed version probe the next one may run. */
    private static final long PROBE_RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final Topology topology;
    private volatile @Nullable Boolean sharded;
    private volatile long nextProbeNanos = System.nanoTime();

    /** The mode for the deployment {@code topology}. */
    public SignalMode(Topology topology) {
        this.topology = topology;
    }

    /** Returns whether release signals use sharded pub/sub. */
    public boolean sharded() {
        Boolean decided = this.sharded;
        if (decided != null) {
            return decided;
        }
        if (!(this.topology instanceof Topology.Cluster cluster)) {
            this.sharded = false;
            return false;
        }
        long now = System.nanoTime();
        if (now - this.nextProbeNanos < 0) {
            return false;
        }
        OptionalInt version = majorVersion(cluster);
        if (version.isEmpty()) {
            this.nextProbeNanos = now + PROBE_RETRY_NANOS;
            return false;
        }
        decided = version.getAsInt() >= 7;
        this.sharded = decided;
        return decided;
    }

    /** Returns the command a release script publishes with: {@code SPUBLISH} or {@code PUBLISH}. */
    public String publishCommand() {
        return sharded() ? "SPUBLISH" : "PUBLISH";
    }

    /** The cluster's major version, from the first node that answers; empty if none does. */
    private static OptionalInt majorVersion(Topology.Cluster cluster) {
        for (ConnectionPool pool : cluster.nodes().values()) {
            try (Connection connection = pool.getResource()) {
                String info = new Jedis(connection).info("server");
                return info.lines()
                        .filter(line -> line.startsWith("redis_version:"))
                        .mapToInt(line -> Integer.parseInt(
                                line.substring("redis_version:".length()).split("\\.")[0]))
                        .findFirst();
            } catch (RuntimeException e) {
                log.debug("Could not read a cluster node's version: {}", e.getMessage());
            }
        }
        return OptionalInt.empty();
    }
}
