package dev.turnstile.redis.internal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.util.Pool;

/**
 * One Redis server whose memory settings an {@link EvictionCheck} reads: how messages name it
 * ({@code host:port} when the client tells it, read after each call) and how to read its {@code
 * INFO memory} (which may throw Jedis's exceptions).
 */
record MemoryServer(Supplier<String> name, Supplier<String> infoMemory) {

    /** {@code host:port} at the end of a Jedis connection's description. */
    private static final Pattern ADDRESS = Pattern.compile("([^{}\\s]+:\\d+)}*$");

    /** The server behind {@code redis}, named {@code name}: asked through the client. */
    static MemoryServer of(UnifiedJedis redis, String name) {
        return new MemoryServer(() -> name, () -> redis.info("memory"));
    }

    /**
     * The server behind {@code pool}, named by its {@code host:port} once a connection told it (else
     * {@code fallback}), read on a connection of the pool.
     */
    static MemoryServer pooled(Pool<Connection> pool, String fallback) {
        AtomicReference<String> name = new AtomicReference<>(fallback);
        return new MemoryServer(name::get, () -> {
            try (Connection connection = pool.getResource()) {
                name.set(address(connection, fallback));
                return new Jedis(connection).info("memory");
            }
        });
    }

    /** This server named {@code prefix} and {@code given}, or {@code prefix} and its own name. */
    MemoryServer renamed(String prefix, @Nullable String given) {
        Supplier<String> own = this.name;
        return new MemoryServer(() -> prefix + (given != null ? given : own.get()), this.infoMemory);
    }

    /** The {@code host:port} a Jedis connection describes itself with, or {@code fallback}. */
    private static String address(Connection connection, String fallback) {
        Matcher matcher = ADDRESS.matcher(String.valueOf(connection));
        return matcher.find() ? matcher.group(1) : fallback;
    }

    /**
     * The cluster's masters, from the first node that answers {@code CLUSTER SLOTS} (Redis 3 and
     * later, so 6.2 clusters too), each read through the connection the client uses for its slots.
     */
    static List<MemoryServer> clusterMasters(Topology.Cluster cluster) {
        RuntimeException last = null;
        for (ConnectionPool pool : cluster.nodes().values()) {
            List<Object> slots;
            try (Connection connection = pool.getResource()) {
                slots = new Jedis(connection).clusterSlots();
            } catch (RuntimeException e) {
                last = e;
                continue;
            }
            Map<String, Integer> firstSlots = new LinkedHashMap<>();
            for (Object entry : slots) {
                List<?> range = (List<?>) entry;
                List<?> master = (List<?>) range.get(2);
                String host = master.get(0) instanceof byte[] bytes
                        ? new String(bytes, StandardCharsets.UTF_8)
                        : String.valueOf(master.get(0));
                firstSlots.putIfAbsent(host + ":" + master.get(1), ((Long) range.get(0)).intValue());
            }
            List<MemoryServer> masters = new ArrayList<>();
            firstSlots.forEach((name, slot) -> masters.add(new MemoryServer(() -> name, () -> {
                try (Connection connection = cluster.connectionToSlot(slot)) {
                    return new Jedis(connection).info("memory");
                }
            })));
            return masters;
        }
        throw last != null ? last : new IllegalStateException("the cluster client knows no node");
    }
}
