package dev.turnstile.sample.web;

import dev.turnstile.redis.Turnstile;
import dev.turnstile.redis.TurnstileDiagnostics;
import dev.turnstile.redis.TurnstileDiagnostics.SemaphoreState;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.resps.Tuple;

/**
 * What is held in Redis right now, by every instance of the application: the locks with their
 * holder and time left, and each semaphore's permits with theirs. Read with {@code SCAN} (through
 * {@link TurnstileDiagnostics}), so it is a snapshot for people, not for decisions.
 */
@RestController
public class HeldController {

    private final Turnstile turnstile;
    private final JedisPool pool;

    public HeldController(Turnstile turnstile, JedisPool pool) {
        this.turnstile = turnstile;
        this.pool = pool;
    }

    /**
     * A held lock.
     *
     * @param name the lock's name, as the annotation resolved it
     * @param holder the grant's owner token: the holding instance's id and a grant number
     * @param leftMillis time to live, by the Redis server's clock
     */
    public record HeldLock(String name, String holder, long leftMillis) {}

    /**
     * A live semaphore permit.
     *
     * @param holder the permit's owner token
     * @param leftMillis time left of its lease, by the Redis server's clock
     */
    public record HeldPermit(String holder, long leftMillis) {}

    /**
     * A semaphore with live permits.
     *
     * @param name the semaphore's name
     * @param permits its live permits, the soonest to expire first
     */
    public record HeldSemaphore(String name, List<HeldPermit> permits) {}

    /** Everything held now. */
    public record Held(List<HeldLock> locks, List<HeldSemaphore> semaphores) {}

    @GetMapping("/held")
    public Held held() {
        TurnstileDiagnostics diagnostics = this.turnstile.diagnostics();
        List<HeldLock> locks = new ArrayList<>();
        for (TurnstileDiagnostics.HeldLock lock : diagnostics.heldLocks()) {
            locks.add(new HeldLock(lock.name(), lock.owner(), lock.remaining().toMillis()));
        }
        locks.sort(Comparator.comparing(HeldLock::name));
        List<HeldSemaphore> semaphores = new ArrayList<>();
        try (Jedis conn = this.pool.getResource()) {
            List<String> time = conn.time();
            long now = Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
            for (SemaphoreState semaphore : diagnostics.semaphores()) {
                List<HeldPermit> permits = new ArrayList<>();
                for (Tuple permit : conn.zrangeByScoreWithScores(semaphore.key(), now, Double.POSITIVE_INFINITY)) {
                    permits.add(new HeldPermit(permit.getElement(), (long) permit.getScore() - now));
                }
                if (!permits.isEmpty()) {
                    semaphores.add(new HeldSemaphore(semaphore.name(), permits));
                }
            }
        }
        semaphores.sort(Comparator.comparing(HeldSemaphore::name));
        return new Held(locks, semaphores);
    }
}
