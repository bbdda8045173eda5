package dev.turnstile.sample.web;

import dev.turnstile.sample.market.Market;
import dev.turnstile.sample.market.MarketData;
import dev.turnstile.sample.market.MarketData.Account;
import dev.turnstile.sample.market.MarketData.Listing;
import dev.turnstile.sample.market.Markets;
import dev.turnstile.sample.market.Outcome;
import dev.turnstile.sample.market.TradeResult;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.PositiveOrZero;
import jakarta.validation.constraints.Size;
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
 * choice of strategy. Every error is an RFC 9457 problem detail (see {@link ProblemHandler}).
 */
@RestController
public class MarketplaceController {

    /** The most money one user may be created with. */
    static final long MAX_FUNDS = 1_000_000_000L;

    private final JedisPool pool;
    private final Markets markets;

    public MarketplaceController(JedisPool pool, Markets markets) {
        this.pool = pool;
        this.markets = markets;
    }

    /** A new user: {@code id} follows the id rule, {@code name} defaults to the id. */
    public record NewUser(
            @MarketId String id,

            @Size(max = 100, message = "must be at most 100 characters")
            String name,

            @NotNull(message = "is required")
            @PositiveOrZero(message = "must not be negative")
            @Max(value = MAX_FUNDS, message = "must be at most " + MAX_FUNDS)
            Long funds) {}

    /** An item to put into a user's inventory. */
    public record NewItem(@MarketId String itemId) {}

    /** A listing request. */
    public record ListRequest(
            @MarketId String itemId,

            @MarketId String sellerId,

            @Price Long price) {}

    /** A purchase request. */
    public record PurchaseRequest(
            @MarketId String buyerId,

            @MarketId String itemId,

            @MarketId String sellerId,

            @Price Long price) {}

    /** What a trade did. */
    public record TradeResponse(String strategy, String outcome, int retries) {}

    @PostMapping("/users")
    @ResponseStatus(HttpStatus.CREATED)
    public Account createUser(@Valid @RequestBody NewUser user) {
        try (Jedis conn = this.pool.getResource()) {
            String name = user.name() == null || user.name().isBlank() ? user.id() : user.name();
            if (!MarketData.createUserIfAbsent(conn, user.id(), name, user.funds())) {
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
        try (Jedis conn = this.pool.getResource()) {
            if (!MarketData.userExists(conn, id)) {
                throw new UnknownUserException(id);
            }
            MarketData.addToInventory(conn, id, item.itemId());
            return MarketData.account(conn, id);
        }
    }

    @GetMapping("/market")
    public List<Listing> browse(@RequestParam(defaultValue = "20") int limit) {
        if (limit < 1 || limit > 1000) {
            throw new InvalidInputException("limit", "'limit' must be between 1 and 1000.");
        }
        try (Jedis conn = this.pool.getResource()) {
            return MarketData.cheapest(conn, limit);
        }
    }

    @PostMapping("/market/listings")
    @ResponseStatus(HttpStatus.CREATED)
    public TradeResponse list(
            @Valid @RequestBody ListRequest request, @RequestParam(defaultValue = "fine") String strategy) {
        Market market = market(strategy);
        try (Jedis conn = this.pool.getResource()) {
            requireUser(conn, "sellerId", request.sellerId());
            return respond(market, market.listItem(conn, request.itemId(), request.sellerId(), request.price()));
        }
    }

    @PostMapping("/market/purchases")
    @ResponseStatus(HttpStatus.CREATED)
    public TradeResponse buy(
            @Valid @RequestBody PurchaseRequest request, @RequestParam(defaultValue = "fine") String strategy) {
        Market market = market(strategy);
        try (Jedis conn = this.pool.getResource()) {
            requireUser(conn, "buyerId", request.buyerId());
            return respond(
                    market,
                    market.purchaseItem(
                            conn, request.buyerId(), request.itemId(), request.sellerId(), request.price()));
        }
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

    private static TradeResponse respond(Market market, TradeResult result) {
        if (result.outcome() != Outcome.DONE) {
            throw new TradeRefusedException(result.outcome());
        }
        return new TradeResponse(market.name(), result.outcome().name(), result.retries());
    }
}
