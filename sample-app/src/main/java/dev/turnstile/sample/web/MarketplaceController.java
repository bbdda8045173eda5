package dev.turnstile.sample.web;

import dev.turnstile.sample.market.Market;
import dev.turnstile.sample.market.MarketData;
import dev.turnstile.sample.market.MarketData.Account;
import dev.turnstile.sample.market.MarketData.Listing;
import dev.turnstile.sample.market.Markets;
import dev.turnstile.sample.market.Outcome;
import dev.turnstile.sample.market.TradeResult;
import dev.turnstile.sample.partner.PartnerApi;
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

/** The marketplace over HTTP. Errors are RFC 9457 problem details (see {@link ProblemHandler}). */
@RestController
public class MarketplaceController {

    private final JedisPool pool;
    private final Markets markets;
    private final PartnerApi partner;

    public MarketplaceController(JedisPool pool, Markets markets, PartnerApi partner) {
        this.pool = pool;
        this.markets = markets;
        this.partner = partner;
    }

    /** A new user. */
    public record NewUser(String id, String name, long funds) {}

    /** An item to put into a user's inventory. */
    public record NewItem(String itemId) {}

    /** A listing request. */
    public record ListRequest(String itemId, String sellerId, long price) {}

    /** A purchase request. */
    public record PurchaseRequest(String buyerId, String itemId, String sellerId, long price) {}

    /** What a trade did. */
    public record TradeResponse(String strategy, String outcome, int retries) {}

    @PostMapping("/users")
    @ResponseStatus(HttpStatus.CREATED)
    public Account createUser(@RequestBody NewUser user) {
        require(user.id() != null && !user.id().isBlank(), "'id' must not be blank");
        require(user.funds() >= 0, "'funds' must not be negative but was " + user.funds());
        try (Jedis conn = this.pool.getResource()) {
            MarketData.createUser(conn, user.id(), user.name() == null ? user.id() : user.name(), user.funds());
            return MarketData.account(conn, user.id());
        }
    }

    @GetMapping("/users/{id}")
    public Account account(@PathVariable String id) {
        try (Jedis conn = this.pool.getResource()) {
            Account account = MarketData.account(conn, id);
            require(account != null, "Unknown user '" + id + "'");
            return account;
        }
    }

    @PostMapping("/users/{id}/inventory")
    @ResponseStatus(HttpStatus.CREATED)
    public Account addItem(@PathVariable String id, @RequestBody NewItem item) {
        try (Jedis conn = this.pool.getResource()) {
            require(MarketData.userExists(conn, id), "Unknown user '" + id + "'");
            require(
                    item.itemId() != null
                            && !item.itemId().isBlank()
                            && !item.itemId().contains("."),
                    "'itemId' must be non-blank and contain no '.'");
            MarketData.addToInventory(conn, id, item.itemId());
            return MarketData.account(conn, id);
        }
    }

    @GetMapping("/market")
    public List<Listing> browse(@RequestParam(defaultValue = "20") int limit) {
        require(limit > 0 && limit <= 1000, "'limit' must be between 1 and 1000 but was " + limit);
        try (Jedis conn = this.pool.getResource()) {
            return MarketData.cheapest(conn, limit);
        }
    }

    @PostMapping("/market/listings")
    @ResponseStatus(HttpStatus.CREATED)
    public TradeResponse list(@RequestBody ListRequest request, @RequestParam(defaultValue = "fine") String strategy) {
        require(request.price() > 0, "'price' must be positive but was " + request.price());
        Market market = this.markets.get(strategy);
        try (Jedis conn = this.pool.getResource()) {
            require(MarketData.userExists(conn, request.sellerId()), "Unknown user '" + request.sellerId() + "'");
            return respond(market, market.listItem(conn, request.itemId(), request.sellerId(), request.price()));
        }
    }

    @PostMapping("/market/purchases")
    @ResponseStatus(HttpStatus.CREATED)
    public TradeResponse buy(
            @RequestBody PurchaseRequest request, @RequestParam(defaultValue = "fine") String strategy) {
        require(request.price() > 0, "'price' must be positive but was " + request.price());
        Market market = this.markets.get(strategy);
        try (Jedis conn = this.pool.getResource()) {
            require(MarketData.userExists(conn, request.buyerId()), "Unknown user '" + request.buyerId() + "'");
            return respond(
                    market,
                    market.purchaseItem(
                            conn, request.buyerId(), request.itemId(), request.sellerId(), request.price()));
        }
    }

    @GetMapping("/accounts/{accountId}/partner-quote")
    public PartnerApi.Quote partnerQuote(@PathVariable String accountId, @RequestParam String item) {
        return this.partner.quote(accountId, item);
    }

    private static TradeResponse respond(Market market, TradeResult result) {
        if (result.outcome() != Outcome.DONE) {
            throw new TradeRefusedException(result.outcome());
        }
        return new TradeResponse(market.name(), result.outcome().name(), result.retries());
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }
}
