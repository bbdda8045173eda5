package dev.turnstile.sample.web;

import dev.turnstile.redis.LockAcquisitionException;
import dev.turnstile.redis.RedisUnavailableException;
import dev.turnstile.sample.market.BookExample;
import dev.turnstile.sample.market.Market;
import dev.turnstile.sample.market.MarketData;
import dev.turnstile.sample.market.MarketData.Account;
import dev.turnstile.sample.market.MarketData.Listing;
import dev.turnstile.sample.market.Markets;
import dev.turnstile.sample.market.Outcome;
import dev.turnstile.sample.market.TradeResult;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Size;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The marketplace over HTTP: users, their inventories, the market, listing and buying with a
 * choice of strategy, and the book's example. Every trade is recorded in the {@link TradeLog}, and
 * its answer says which locks it took, how long it waited for them and their fencing tokens. Every
 * error is an RFC 9457 problem detail (see {@link ProblemHandler}).
 */
@RestController
public class MarketplaceController {

    /** The most money one user may be created with, and the highest price. */
    static final long MAX_FUNDS = 1_000_000_000L;

    private final JedisPool pool;
    private final Markets markets;
    private final TradeLog trades;
    private final Duration slowTrade;

    public MarketplaceController(
            JedisPool pool, Markets markets, TradeLog trades, @Value("${sample.trade.slow:3s}") Duration slowTrade) {
        this.pool = pool;
        this.markets = markets;
        this.trades = trades;
        this.slowTrade = slowTrade;
    }

    /** A new user: {@code id} follows the id rule, {@code name} defaults to the id. */
    public record NewUser(
            @MarketId String id,

            @Size(max = 100, message = "must be at most 100 characters")
            String name,

            @Amount(min = 0) BigDecimal funds) {}

    /** An item to put into a user's inventory. */
    public record NewItem(@MarketId String itemId) {}

    /** A listing request. */
    public record ListRequest(
            @MarketId String itemId,

            @MarketId String sellerId,

            @Amount(min = 1) BigDecimal price) {}

    /** A purchase request. */
    public record PurchaseRequest(
            @MarketId String buyerId,

            @MarketId String itemId,

            @MarketId String sellerId,

            @Amount(min = 1) BigDecimal price) {}

    /**
     * What a trade did.
     *
     * @param strategy the strategy
     * @param outcome {@code DONE}
     * @param retries WATCH transactions retried
     * @param trade the trade as the lock log has it: the locks, the wait, the fencing tokens
     */
    public record TradeResponse(String strategy, String outcome, int retries, TradeLog.Trade trade) {}

    /**
     * What loading the book's example put in place.
     *
     * @param users the example's users
     * @param listings the example's listings
     */
    public record ExampleLoaded(List<Account> users, List<Listing> listings) {}

    @PostMapping("/users")
    @ResponseStatus(HttpStatus.CREATED)
    public Account createUser(@Valid @RequestBody NewUser user) {
        try (Jedis conn = this.pool.getResource()) {
            String name = user.name() == null || user.name().isBlank() ? user.id() : user.name();
            if (!MarketData.createUserIfAbsent(
                    conn, user.id(), name, user.funds().longValueExact())) {
                throw new UserExistsException(user.id());
            }
            return MarketData.account(conn, user.id());
        }
    }

    /** Up to 200 users, by id. */
    @GetMapping("/users")
    public List<Account> users() {
        try (Jedis conn = this.pool.getResource()) {
            return MarketData.users(conn, 200);
        }
    }

    @GetMapping("/users/{id}")
    public Account account(@PathVariable String id) {
        Ids.require("id", id);
        try (Jedis conn = this.pool.getResource()) {
            Account account = MarketData.account(conn, id);
            if (account == null) {
                throw new UnknownUserException(id);
            }
            return account;
        }
    }

    @PostMapping("/users/{id}/inventory")
    @ResponseStatus(HttpStatus.CREATED)
    public Account addItem(@PathVariable String id, @Valid @RequestBody NewItem item) {
        Ids.require("id", id);
        try (Jedis conn = this.pool.getResource()) {
            if (!MarketData.userExists(conn, id)) {
                throw new UnknownUserException(id);
            }
            MarketData.addToInventory(conn, id, item.itemId());
            return MarketData.account(conn, id);
        }
    }

    /**
     * Puts the book's example back (see {@link BookExample#load}): its six users, their funds and
     * inventories, and its four listings; other users and their listings stay as they are.
     */
    @PostMapping("/example")
    public ExampleLoaded loadExample() {
        try (Jedis conn = this.pool.getResource()) {
            BookExample.load(conn);
            List<Account> users = BookExample.USERS.stream()
                    .map(user -> MarketData.account(conn, user.id()))
                    .toList();
            return new ExampleLoaded(users, BookExample.LISTINGS);
        }
    }

    /** The cheapest {@code limit} listings (1 to 1000, 20 unless given). */
    @GetMapping("/market")
    public List<Listing> browse(@RequestParam(defaultValue = "20") String limit) {
        int count = Params.whole("limit", limit, 1, 1000);
        try (Jedis conn = this.pool.getResource()) {
            return MarketData.cheapest(conn, count);
        }
    }

    @PostMapping("/market/listings")
    @ResponseStatus(HttpStatus.CREATED)
    public TradeResponse list(
            @Valid @RequestBody ListRequest request, @RequestParam(defaultValue = "fine") String strategy) {
        Market market = market(strategy);
        long price = request.price().longValueExact();
        try (Jedis conn = this.pool.getResource()) {
            requireUser(conn, "sellerId", request.sellerId());
            try (TradeLog.Entry trade = this.trades.begin(
                    "list", request.sellerId(), request.itemId(), request.sellerId(), price, strategy, false)) {
                return respond(market, trade, () -> market.listItem(conn, request.itemId(), request.sellerId(), price));
            }
        }
    }

    /**
     * Buys a listing. With {@code slow=true} the trade takes {@code sample.trade.slow} (3 s) between
     * its reads and its writes, holding its strategy's locks that long, so that a second buyer of the
     * same listing can be seen waiting for them.
     */
    @PostMapping("/market/purchases")
    @ResponseStatus(HttpStatus.CREATED)
    public TradeResponse buy(
            @Valid @RequestBody PurchaseRequest request,
            @RequestParam(defaultValue = "fine") String strategy,
            @RequestParam(defaultValue = "false") boolean slow) {
        Market market = market(strategy);
        long price = request.price().longValueExact();
        Duration pause = slow ? this.slowTrade : Duration.ZERO;
        try (Jedis conn = this.pool.getResource()) {
            requireUser(conn, "buyerId", request.buyerId());
            try (TradeLog.Entry trade = this.trades.begin(
                    "buy", request.buyerId(), request.itemId(), request.sellerId(), price, strategy, slow)) {
                return respond(
                        market,
                        trade,
                        () -> market.purchaseItem(
                                conn, request.buyerId(), request.itemId(), request.sellerId(), price, pause));
            }
        }
    }

    /** This instance's last {@value TradeLog#KEEP} trades and the locks they took, newest first. */
    @GetMapping("/trades")
    public List<TradeLog.Trade> trades() {
        return this.trades.recent();
    }

    private Market market(String strategy) {
        return this.markets
                .find(strategy)
                .orElseThrow(() -> new InvalidInputException(
                        "strategy", "'strategy' must be one of " + this.markets.names() + "."));
    }

    private static void requireUser(Jedis conn, String field, String id) {
        if (!MarketData.userExists(conn, id)) {
            throw new InvalidInputException(field, "'" + field + "' names no user: there is no user '" + id + "'.");
        }
    }

    /** Runs the trade, records how it ended, and answers it or throws its refusal. */
    private static TradeResponse respond(Market market, TradeLog.Entry trade, Supplier<TradeResult> run) {
        TradeResult result;
        try {
            result = run.get();
        } catch (LockAcquisitionException e) {
            trade.end("BUSY", 0);
            throw e;
        } catch (JedisException | RedisUnavailableException e) {
            trade.end("UNAVAILABLE", 0);
            throw e;
        }
        trade.end(result.outcome().name(), result.retries());
        if (result.outcome() != Outcome.DONE) {
            throw new TradeRefusedException(result.outcome(), trade.snapshot());
        }
        return new TradeResponse(market.name(), result.outcome().name(), result.retries(), trade.snapshot());
    }
}
