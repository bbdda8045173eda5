package dev.turnstile.sample.benchmark;

import dev.turnstile.sample.market.MarketData;
import dev.turnstile.sample.market.MarketData.Listing;
import dev.turnstile.sample.market.Outcome;
import dev.turnstile.sample.market.TradeResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Supplier;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;

/**
 * The book's simulation (section 6.2.4): listers keep putting new items into their inventory and
 * listing them; buyers keep buying among the cheapest items on the market. Every worker is a
 * {@link Worker}: its own connection and, under a lock, its own Turnstile, as each of the book's
 * workers was a process of its own.
 */
final class MarketSimulation {

    private static final long FUNDS = 1_000_000_000_000L;

    private final Supplier<Jedis> connections;
    private final Supplier<UnifiedJedis> lockClients;

    MarketSimulation(Supplier<Jedis> connections, Supplier<UnifiedJedis> lockClients) {
        this.connections = connections;
        this.lockClients = lockClients;
    }

    RunResult run(String strategy, int listers, int buyers, Duration duration) throws InterruptedException {
        try (Jedis setup = this.connections.get()) {
            setup.flushDB(); // the benchmark's own redis-server: nothing else lives there
            for (int i = 0; i < listers; i++) {
                MarketData.createUser(setup, "seller" + i, "Seller " + i, 0);
            }
            for (int i = 0; i < buyers; i++) {
                MarketData.createUser(setup, "buyer" + i, "Buyer " + i, FUNDS);
            }
        }
        LongAdder listed = new LongAdder();
        LongAdder bought = new LongAdder();
        LongAdder retries = new LongAdder();
        LongAdder purchaseNanos = new LongAdder();
        LongAdder purchases = new LongAdder();
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> workers = new ArrayList<>();
        for (int i = 0; i < listers; i++) {
            String seller = "seller" + i;
            workers.add(worker(strategy, failure, worker -> {
                long n = 0;
                while (running.get()) {
                    String item = "item" + seller + "-" + n++;
                    MarketData.addToInventory(worker.conn, seller, item);
                    long price = 1 + ThreadLocalRandom.current().nextLong(100);
                    if (worker.market
                                    .listItem(worker.redis, item, seller, price)
                                    .outcome()
                            == Outcome.DONE) {
                        listed.increment();
                    }
                }
            }));
        }
        for (int i = 0; i < buyers; i++) {
            String buyer = "buyer" + i;
            workers.add(worker(strategy, failure, worker -> {
                while (running.get()) {
                    List<Listing> cheapest = MarketData.cheapest(worker.conn, 10);
                    if (cheapest.isEmpty()) {
                        Thread.onSpinWait();
                        continue;
                    }
                    Listing pick = cheapest.get(ThreadLocalRandom.current().nextInt(cheapest.size()));
                    long start = System.nanoTime();
                    TradeResult result = worker.market.purchaseItem(
                            worker.redis, buyer, pick.itemId(), pick.sellerId(), pick.price(), Duration.ZERO);
                    purchaseNanos.add(System.nanoTime() - start);
                    purchases.increment();
                    retries.add(result.retries());
                    if (result.outcome() == Outcome.DONE) {
                        bought.increment();
                    }
                }
            }));
        }
        long start = System.nanoTime();
        workers.forEach(Thread::start);
        try {
            Thread.sleep(duration.toMillis());
        } finally {
            running.set(false);
            for (Thread worker : workers) {
                worker.join();
            }
        }
        if (failure.get() != null) {
            throw new IllegalStateException(
                    "A worker of the " + strategy + " row failed, so the row would be wrong", failure.get());
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        double averageWait = purchases.sum() == 0 ? 0 : purchaseNanos.sum() / 1e6 / purchases.sum();
        return new RunResult(
                listers, buyers, strategy, seconds, listed.sum(), bought.sum(), retries.sum(), averageWait);
    }

    /**
     * A worker thread that runs {@code body} on a {@link Worker} of its own for {@code strategy};
     * what kills it is kept in {@code failure}, which fails the row.
     */
    private Thread worker(String strategy, AtomicReference<Throwable> failure, Consumer<Worker> body) {
        Thread thread = new Thread(
                () -> {
                    try (Worker worker = Worker.start(strategy, this.connections, this.lockClients)) {
                        body.accept(worker);
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                },
                "market-worker");
        thread.setDaemon(true);
        return thread;
    }
}
