package dev.turnstile.redis.nemesis;

import dev.turnstile.redis.Lease;
import dev.turnstile.redis.LockAcquisitionException;
import dev.turnstile.redis.RedisUnavailableException;
import dev.turnstile.redis.lock.Redlock;
import dev.turnstile.test.redis.RedisClients;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.UnifiedJedis;

/**
 * A worker process of the Redlock nemesis: increments the fenced register under one Redlock lock
 * until its time is up, printing {@code ACK token} for each acknowledged increment, {@code STALE
 * token} when the register refused a stale holder, and {@code DONE acks stale unavailable} at the
 * end.
 *
 * <pre>
 * MASTER_PORTS(comma separated) REGISTER_PORT LEASE_MS RUN_MS
 * </pre>
 */
public final class RedlockWorkerMain {

    private RedlockWorkerMain() {}

    public static void main(String[] args) throws Exception {
        List<UnifiedJedis> masters = new ArrayList<>();
        for (String port : args[0].split(",")) {
            masters.add(RedisClients.standalone(
                    new HostAndPort("127.0.0.1", Integer.parseInt(port)),
                    DefaultJedisClientConfig.builder().timeoutMillis(300).build()));
        }
        Duration lease = Duration.ofMillis(Long.parseLong(args[2]));
        long end =
                System.nanoTime() + Duration.ofMillis(Long.parseLong(args[3])).toNanos();
        int acks = 0;
        int stale = 0;
        int unavailable = 0;
        try (UnifiedJedis registerClient = RedisClients.standalone(
                        new HostAndPort("127.0.0.1", Integer.parseInt(args[1])),
                        DefaultJedisClientConfig.builder().build());
                Redlock redlock = Redlock.builder(masters)
                        .nodeTimeout(Duration.ofMillis(100))
                        .retryDelay(Duration.ofMillis(30))
                        .build()) {
            FencedRegister register = new FencedRegister(registerClient);
            while (System.nanoTime() < end) {
                try {
                    Optional<Lease> held = redlock.lock("counter").tryAcquire(Duration.ofSeconds(2), lease);
                    if (held.isEmpty()) {
                        continue;
                    }
                    try (Lease granted = held.get()) {
                        long token = granted.fencingToken();
                        long value = register.read(token);
                        // The work between the read and the write: where a frozen holder is caught.
                        java.util.concurrent.locks.LockSupport.parkNanos(
                                java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(100));
                        if (value >= 0 && register.write(token, value + 1)) {
                            acks++;
                            System.out.println("ACK " + token);
                        } else {
                            stale++;
                            System.out.println("STALE " + token);
                        }
                    }
                } catch (RedisUnavailableException | LockAcquisitionException e) {
                    unavailable++;
                }
            }
        } finally {
            masters.forEach(UnifiedJedis::close);
        }
        System.out.println("DONE " + acks + " " + stale + " " + unavailable);
        System.out.flush();
        System.exit(0);
    }
}
