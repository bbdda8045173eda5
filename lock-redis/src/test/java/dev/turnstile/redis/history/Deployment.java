package dev.turnstile.redis.history;

import dev.turnstile.redis.LockFactory;
import dev.turnstile.redis.Turnstile;
import dev.turnstile.redis.lock.Redlock;
import dev.turnstile.test.redis.RedisClients;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.UnifiedJedis;

/** Connects one holder process of a history run to its Redis deployment. */
final class Deployment {

    /** Socket timeout of every client: a paused server fails calls after this. */
    static final Duration TIMEOUT = Duration.ofSeconds(1);

    private Deployment() {}

    /** A process's clients and the lock factory on them. */
    record Clients(LockFactory locks, List<? extends UnifiedJedis> redis) implements AutoCloseable {

        @Override
        public void close() {
            try {
                ((AutoCloseable) this.locks).close();
            } catch (Exception e) {
                throw new IllegalStateException("Could not close " + this.locks, e);
            } finally {
                this.redis.forEach(UnifiedJedis::close);
            }
        }
    }

    /** Connects to the servers on {@code ports} (one, or Redlock's masters) as {@code primitive} needs. */
    static Clients connect(Primitive primitive, String ports, Duration lease) {
        List<UnifiedJedis> clients = new ArrayList<>();
        for (String port : ports.split(",")) {
            clients.add(client(new HostAndPort("127.0.0.1", Integer.parseInt(port))));
        }
        return on(primitive, clients, lease, 0);
    }

    /** The lock factory {@code primitive} needs on {@code clients} (one, or Redlock's masters). */
    static Clients on(Primitive primitive, List<? extends UnifiedJedis> clients, Duration lease, int minReplicas) {
        if (primitive == Primitive.REDLOCK) {
            return new Clients(
                    Redlock.builder(clients)
                            .defaultLease(lease)
                            .nodeTimeout(Duration.ofMillis(100))
                            .build(),
                    clients);
        }
        Turnstile.Builder builder = Turnstile.builder(clients.get(0)).defaultLease(lease);
        if (primitive == Primitive.LOCK_WITHOUT_COHORT) {
            builder.lockCohort(1, Duration.ofMillis(20));
        }
        if (minReplicas > 0) {
            builder.minReplicas(minReplicas, Duration.ofMillis(200));
        }
        return new Clients(builder.build(), clients);
    }

    static UnifiedJedis client(HostAndPort address) {
        return RedisClients.standalone(
                address,
                DefaultJedisClientConfig.builder()
                        .timeoutMillis((int) TIMEOUT.toMillis())
                        .build());
    }
}
