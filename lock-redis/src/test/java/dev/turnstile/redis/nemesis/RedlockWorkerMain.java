package dev.turnstile.redis.nemesis;

import dev.turnstile.redis.Lease;
import dev.turnstile.redis.LockAcquisitionException;
import dev.turnstile.redis.RedisUnavailableException;
import dev.turnstile.redis.lock.Redlock;
import dev.turnstile.test.history.History;
import dev.turnstile.test.redis.RedisClients;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.UnifiedJedis;

/**
 * A worker process of the Redlock nemesis: increments the fenced register under one Redlock lock
 * until its time is up, printing {@code ACK token} for each acknowledged increment, {@code STALE
 * token} when the register refused a stale holder, and {@code DONE acks stale unavailable} at the
 * end. Every acquisition is also recorded, as process {@code PROCESS}, in a {@link History}
 * appended to {@code HISTORY_FILE}: when it was asked for, the token it was granted and when, its
 * end and its reported loss, for the {@code HistoryChecker}.
 *
 * <pre>
 * MASTER_PORTS(comma separated) REGISTER_PORT LEASE_MS RUN_MS HISTORY_FILE PROCESS
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
            History history = History.appendingTo(Path.of(args[4]));
            String process = args[5];
            Duration wait = Duration.ofSeconds(2);
            while (System.nanoTime() < end) {
                History.Recording recording = history.begin(process, "redlock", "counter", 1, wait);
                Optional<Lease> held;
                try {
                    held = redlock.lock("counter").tryAcquire(wait, lease);
                } catch (RedisUnavailableException | LockAcquisitionException e) {
                    recording.failed();
                    unavailable++;
                    continue;
                }
                if (held.isEmpty()) {
                    recording.refused();
                    continue;
                }
                Lease granted = held.get();
                long token = granted.fencingToken();
                recording.granted(token);
                granted.onLost(event -> recording.lost(event.overdue()));
                try {
                    long value = register.read(token);
                    // The work between the read and the write: where a frozen holder is caught.
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
                    if (value >= 0 && register.write(token, value + 1)) {
                        acks++;
                        System.out.println("ACK " + token);
                    } else {
                        stale++;
                        System.out.println("STALE " + token);
                    }
                } finally {
                    try {
                        recording.release(granted::release);
                    } catch (RedisUnavailableException e) {
                        // Recorded as a reported loss; the grant expires by its lease.
                    }
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
