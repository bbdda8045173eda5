package dev.turnstile.sample.web;

import dev.turnstile.sample.market.MarketData;
import dev.turnstile.sample.market.MarketData.Account;
import dev.turnstile.sample.market.MarketData.Listing;
import dev.turnstile.sample.market.Scene;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Size;
import java.math.BigDecimal;
import java.util.List;
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

/**
 * The marketplace over HTTP: users, their inventories, the market, listing and buying with a
 * choice of strategy (run by the {@link TradeDesk}), and the scenes to load. Every trade is recorded in the {@link TradeLog}, and
 * its answer says which locks it took, how long it waited for them and their fencing tokens. Every
 * error is an RFC 9457 problem detail (see {@link ProblemHandler}).
 */
@RestController
public class MarketplaceController {

    /** The most money one user may be created with, and the highest price. */
    static final long MAX_FUNDS = 1_000_000_000L;

    private final JedisPool pool;
    private final TradeDesk desk;
    private final TradeLog trades;

    MarketplaceController(JedisPool pool, TradeDesk desk, TradeLog trades) {
        this.pool = pool;
        this.desk = desk;
        this.trades = trades;
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
     * What loading a scene put in place.
     *
     * @param scene the scene's name
     * @param title how the page names it
     * @param users the scene's users
     * @param listings the scene's listings
     */
    public record ExampleLoaded(String scene, String title, List<Account> users, List<Listing> listings) {}

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
     * Puts a scene back as it starts (see {@link Scene#load}): {@code street} (the default, the
     * page's first open) or {@code book} (the book's figures 6.2 to 6.5); its users, their funds and
     * inventories, and its listings. Other users and their listings stay as they are.
     */
    @PostMapping("/example")
    public ExampleLoaded loadExample(@RequestParam(defaultValue = "street") String scene) {
        Scene chosen = Scene.find(scene)
                .orElseThrow(() -> new InvalidInputException("scene", "'scene' must be " + Scene.names() + "."));
        try (Jedis conn = this.pool.getResource()) {
            chosen.load(conn);
            List<Account> users = chosen.users().stream()
                    .map(user -> MarketData.account(conn, user.id()))
                    .toList();
            return new ExampleLoaded(chosen.name(), chosen.title(), users, chosen.listings());
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
        return this.desk.list(
                strategy, request.itemId(), request.sellerId(), request.price().longValueExact());
    }

    /**
     * Buys a listing. With {@code slow=true} the trade takes {@code sample.trade.slow} (3 s) between
     * its reads and its writes, holding its strategy's locks that long, so that a second buyer of the
     * same listing can be seen waiting for them. A connection to Redis is taken only once the locks
     * are held (see {@link TradeDesk}).
     */
    @PostMapping("/market/purchases")
    @ResponseStatus(HttpStatus.CREATED)
    public TradeResponse buy(
            @Valid @RequestBody PurchaseRequest request,
            @RequestParam(defaultValue = "fine") String strategy,
            @RequestParam(defaultValue = "false") boolean slow) {
        return this.desk.buy(
                strategy,
                request.buyerId(),
                request.itemId(),
                request.sellerId(),
                request.price().longValueExact(),
                slow,
                trade -> {});
    }

    /** This instance's last {@value TradeLog#KEEP} trades and the locks they took, newest first. */
    @GetMapping("/trades")
    public List<TradeLog.Trade> trades() {
        return this.trades.recent();
    }
}
