package dev.turnstile.sample.web;

import dev.turnstile.redis.Turnstile;
import dev.turnstile.redis.semaphore.Permit;
import dev.turnstile.redis.semaphore.RedisSemaphore;
import dev.turnstile.sample.market.MarketKeys;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPool;

/**
 * A long-lived slot: each open Server-Sent Events stream of an account holds one permit of the
 * account's stream semaphore for as long as it stays open, refreshing the permit's lease every
 * third of it. A closed stream frees its slot at the next heartbeat (every 500 ms); a killed
 * application frees it when the lease runs out. A stream beyond the account's slots is refused with
 * 429 and no {@code Retry-After}: only closing a stream frees a slot.
 */
@RestController
public class StreamController {

    private static final Duration HEARTBEAT = Duration.ofMillis(500);

    private final Turnstile turnstile;
    private final JedisPool pool;
    private final TaskScheduler scheduler;
    private final Duration lease;
    private final int slots;

    public StreamController(
            Turnstile turnstile,
            JedisPool pool,
            TaskScheduler scheduler,
            @Value("${sample.stream.lease}") Duration lease,
            @Value("${sample.stream.slots-per-account}") int slots) {
        this.turnstile = turnstile;
        this.pool = pool;
        this.scheduler = scheduler;
        this.lease = lease;
        this.slots = slots;
    }

    /** The semaphore of {@code accountId}'s streams. */
    public RedisSemaphore slots(String accountId) {
        return this.turnstile.semaphore("stream:" + accountId, this.slots);
    }

    /** HEAD answers what GET would start, without taking a slot: nothing would ever close it. */
    @RequestMapping(path = "/accounts/{accountId}/stream", method = RequestMethod.HEAD)
    public ResponseEntity<Void> streamHead(@PathVariable String accountId) {
        Ids.require("accountId", accountId);
        return ResponseEntity.ok().contentType(MediaType.TEXT_EVENT_STREAM).build();
    }

    @GetMapping(path = "/accounts/{accountId}/stream", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
    public SseEmitter stream(@PathVariable String accountId) {
        Ids.require("accountId", accountId);
        Permit permit = slots(accountId)
                .tryAcquire(Duration.ZERO, this.lease)
                .orElseThrow(() -> new StreamSlotsFullException(accountId, this.slots));
        SseEmitter emitter = new SseEmitter(0L);
        Stream stream = new Stream(emitter, permit);
        emitter.onCompletion(stream::close);
        emitter.onTimeout(stream::close);
        emitter.onError(error -> stream.close());
        stream.heartbeat = this.scheduler.scheduleAtFixedRate(stream::beat, HEARTBEAT);
        return emitter;
    }

    /** One open stream and its permit. */
    private final class Stream {

        private final SseEmitter emitter;
        private final Permit permit;
        private final AtomicBoolean closed = new AtomicBoolean();
        private volatile ScheduledFuture<?> heartbeat;
        private long lastRefresh = System.nanoTime();

        Stream(SseEmitter emitter, Permit permit) {
            this.emitter = emitter;
            this.permit = permit;
        }

        void beat() {
            try {
                if (System.nanoTime() - this.lastRefresh >= lease.toNanos() / 3) {
                    this.permit.extend(lease);
                    this.lastRefresh = System.nanoTime();
                }
                this.emitter.send(SseEmitter.event().name("market").data(marketSize()));
            } catch (IOException | RuntimeException gone) {
                // The client left, or Redis did: end the stream (its body is already under way, so
                // there is no status to answer with) and free the slot.
                close();
                this.emitter.complete();
            }
        }

        void close() {
            if (this.closed.compareAndSet(false, true)) {
                if (this.heartbeat != null) {
                    this.heartbeat.cancel(false);
                }
                try {
                    this.permit.close();
                } catch (RuntimeException unreleased) {
                    // Redis is gone: the permit's lease frees the slot when it runs out.
                }
            }
        }

        private long marketSize() {
            try (Jedis conn = pool.getResource()) {
                return conn.zcard(MarketKeys.MARKET);
            }
        }
    }
}
