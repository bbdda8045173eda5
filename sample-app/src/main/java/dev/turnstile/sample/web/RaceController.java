package dev.turnstile.sample.web;

import dev.turnstile.redis.LockAcquisitionException;
import dev.turnstile.redis.RedisUnavailableException;
import jakarta.validation.Valid;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import redis.clients.jedis.exceptions.JedisException;

/**
 * Two buyers race for one listing, fired by the server so that one window shows the whole race.
 * Both make a slow trade (it holds its locks {@code sample.trade.slow}, 3 s); the second is fired
 * once the first holds its locks (under WATCH, which takes none, 300 ms after it), so the first
 * always buys and the second always shows the lock at work: it waits for the first's locks, then
 * finds the listing sold. One race runs at a time (another is answered 429).
 */
@RestController
class RaceController implements DisposableBean {

    private static final Duration WATCH_HEAD_START = Duration.ofMillis(300);
    private static final Duration HOLD_TIMEOUT = Duration.ofSeconds(15);

    private final TradeDesk desk;
    private final Duration lockWait;
    private final Semaphore oneRace = new Semaphore(1);
    private final ExecutorService buyers = Executors.newFixedThreadPool(2, runnable -> {
        Thread thread = new Thread(runnable, "race-buyer");
        thread.setDaemon(true);
        return thread;
    });

    RaceController(TradeDesk desk, @Value("${turnstile.lock.wait-time:10s}") Duration lockWait) {
        this.desk = desk;
        this.lockWait = lockWait;
    }

    /**
     * A race: who buys first, who second, and the listing.
     *
     * @param first the buyer fired first, who buys the listing
     * @param second the buyer fired once the first holds its locks
     */
    record RaceRequest(
            @MarketId String itemId,

            @MarketId String sellerId,

            @Amount(min = 1) BigDecimal price,

            @MarketId String first,

            @MarketId String second) {}

    /**
     * One buyer's part in a race.
     *
     * @param buyerId the buyer
     * @param status the HTTP status its purchase would have been answered with (201, 400, 409, 503)
     * @param detail what happened, in a sentence
     * @param trade the trade as the lock log has it: its locks by name, whose locks it waited for
     *     and how long, its fencing tokens
     */
    record Runner(String buyerId, int status, String detail, TradeLog.@Nullable Trade trade) {}

    /**
     * How a race went.
     *
     * @param strategy the strategy both buyers used
     * @param slowMillis how long each held its locks between its reads and its writes
     * @param runners the first buyer, then the second
     */
    record Race(String strategy, long slowMillis, List<Runner> runners) {}

    @PostMapping("/market/races")
    ResponseEntity<?> race(
            @Valid @RequestBody RaceRequest request, @RequestParam(defaultValue = "fine") String strategy) {
        boolean takesLocks = !this.desk
                .market(strategy)
                .purchaseLocks(request.first(), request.itemId(), request.sellerId())
                .isEmpty();
        if (request.first().equals(request.second())) {
            throw new InvalidInputException(
                    "second", "'second' must be another buyer than 'first': a buyer does not race themselves.");
        }
        this.desk.requireUser("first", request.first());
        this.desk.requireUser("second", request.second());
        if (!this.oneRace.tryAcquire()) {
            ProblemDetail busy = ProblemDetail.forStatusAndDetail(
                    HttpStatus.TOO_MANY_REQUESTS, "A race is under way; start another when it is done.");
            busy.setTitle("Too many requests");
            long seconds = Math.max(1, this.desk.slowTrade().toSeconds());
            return ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS)
                    .header(HttpHeaders.RETRY_AFTER, Long.toString(seconds))
                    .body(busy);
        }
        try {
            AtomicReference<TradeLog.Entry> firstTrade = new AtomicReference<>();
            CompletableFuture<TradeLog.Entry> begun = new CompletableFuture<>();
            CompletableFuture<Runner> first = run(strategy, request, request.first(), entry -> {
                firstTrade.set(entry);
                begun.complete(entry);
            });
            awaitHeadStart(begun, takesLocks);
            CompletableFuture<Runner> second = run(strategy, request, request.second(), entry -> {});
            long slow = this.desk.slowTrade().toMillis();
            Duration longest = this.lockWait.plus(this.desk.slowTrade()).plus(HOLD_TIMEOUT);
            return ResponseEntity.ok(new Race(
                    strategy,
                    slow,
                    List.of(
                            first.get(longest.toMillis(), TimeUnit.MILLISECONDS),
                            second.get(longest.toMillis(), TimeUnit.MILLISECONDS))));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while the race ran", e);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("The race did not finish in time", e);
        } finally {
            this.oneRace.release();
        }
    }

    /** Waits until the first buyer holds its locks (or, under WATCH, for a head start). */
    private static void awaitHeadStart(CompletableFuture<TradeLog.Entry> begun, boolean takesLocks)
            throws InterruptedException {
        try {
            TradeLog.Entry entry = begun.get(HOLD_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            if (takesLocks) {
                entry.holding().get(HOLD_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            } else {
                Thread.sleep(WATCH_HEAD_START.toMillis());
            }
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            // the first buyer failed or is slow to get its locks: fire the second anyway
        }
    }

    private CompletableFuture<Runner> run(
            String strategy, RaceRequest request, String buyer, java.util.function.Consumer<TradeLog.Entry> begun) {
        long price = request.price().longValueExact();
        AtomicReference<TradeLog.Entry> entry = new AtomicReference<>();
        return CompletableFuture.supplyAsync(
                () -> {
                    try {
                        MarketplaceController.TradeResponse bought = this.desk.buy(
                                strategy, buyer, request.itemId(), request.sellerId(), price, true, trade -> {
                                    entry.set(trade);
                                    begun.accept(trade);
                                });
                        return new Runner(buyer, 201, "bought it", bought.trade());
                    } catch (TradeRefusedException e) {
                        return new Runner(buyer, 400, e.getMessage(), e.trade());
                    } catch (LockAcquisitionException e) {
                        return new Runner(buyer, 409, "the locks stayed taken for the whole wait", snapshot(entry));
                    } catch (JedisException | RedisUnavailableException e) {
                        return new Runner(buyer, 503, "Redis did not answer", snapshot(entry));
                    }
                },
                this.buyers);
    }

    private static TradeLog.@Nullable Trade snapshot(AtomicReference<TradeLog.Entry> entry) {
        TradeLog.Entry trade = entry.get();
        return trade == null ? null : trade.snapshot();
    }

    @Override
    public void destroy() {
        this.buyers.shutdownNow();
    }
}
