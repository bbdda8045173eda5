package dev.turnstile.sample.market;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.springframework.stereotype.Component;

/** The three strategies by name. */
@Component
public class Markets {

    private final Map<String, Market> byName = new LinkedHashMap<>();

    public Markets(WatchMarket watch, CoarseLockMarket lock, FineLockMarket fine) {
        for (Market market : List.of(watch, lock, fine)) {
            this.byName.put(market.name(), market);
        }
    }

    /**
     * Returns the strategy called {@code name}.
     *
     * @throws IllegalArgumentException naming the known strategies
     */
    public Market get(String name) {
        Market market = this.byName.get(name);
        if (market == null) {
            throw new IllegalArgumentException("Unknown strategy '" + name + "': use one of " + this.byName.keySet());
        }
        return market;
    }

    /** Returns the strategy called {@code name}, if there is one. */
    public Optional<Market> find(String name) {
        return Optional.ofNullable(this.byName.get(name));
    }

    /** Returns the strategies' names, in the book's order. */
    public Set<String> names() {
        return Collections.unmodifiableSet(this.byName.keySet());
    }

    /** Returns every strategy, in the book's order: watch, lock, fine. */
    public List<Market> all() {
        return List.copyOf(this.byName.values());
    }
}
