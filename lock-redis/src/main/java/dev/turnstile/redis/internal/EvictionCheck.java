package dev.turnstile.redis.internal;

import dev.turnstile.redis.TurnstileDiagnostics.Eviction;
import dev.turnstile.redis.TurnstileDiagnostics.Eviction.Risk;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.JedisSentineled;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;

/**
 * Whether the Redis servers of one {@code Turnstile} or {@code Redlock} may evict keys, read from
 * {@code INFO memory} ({@code maxmemory}, {@code maxmemory_policy}): managed services often refuse
 * {@code CONFIG}, rarely {@code INFO}. Servers are the one server, the current Sentinel-managed
 * master, every master of a cluster, or every Redlock master.
 *
 * <p>Says each thing once: one WARN per server and policy that may evict, one INFO line per server
 * that could not be checked (a refused or unknown {@code INFO}, which is then not sent again, so a
 * health check does not fill the server's ACL log); a server that did not answer is a DEBUG line and
 * is read again next time. Never throws. Thread-safe.
 */
final class EvictionCheck {

    private static final Logger log = LoggerFactory.getLogger(EvictionCheck.class);

    private static final long FIRST_RETRY_MILLIS = 1_000;
    private static final long LAST_RETRY_MILLIS = 60_000;
    /** {@code host:port} at the end of a Jedis connection's description. */
    private static final Pattern ADDRESS = Pattern.compile("([^{}\\s]+:\\d+)}*$");

    /** One server: how messages name it and how to read its INFO memory. */
    private record Server(Supplier<String> name, Supplier<String> infoMemory) {}

    /** Reads the servers to check now; a failure to list them is reported under {@code what}. */
    private interface Topology {
        List<Server> servers();
    }

    private final String what;
    private final Topology topology;
    private final Set<String> warned = ConcurrentHashMap.newKeySet();
    /**
     * Servers that could not be checked for good (INFO refused or unknown, no policy in its answer),
     * with what was reported: not asked again.
     */
    private final Map<String, Eviction> settled = new ConcurrentHashMap<>();

    private EvictionCheck(String what, Topology topology) {
        this.what = what;
        this.topology = topology;
    }

    /** The check of the deployment behind {@code redis}: a server, a Sentinel master or a cluster. */
    static EvictionCheck of(UnifiedJedis redis) {
        if (redis instanceof JedisCluster cluster) {
            return new EvictionCheck("the cluster", () -> clusterMasters(cluster));
        }
        Server server = server(redis, "Redis");
        return new EvictionCheck("Redis", () -> List.of(server));
    }

    /** The check of Redlock's {@code masters}, named {@code names} (null: by their addresses). */
    static EvictionCheck ofMasters(List<UnifiedJedis> masters, @Nullable List<String> names) {
        List<Server> servers = new ArrayList<>();
        for (int i = 0; i < masters.size(); i++) {
            Server server = server(masters.get(i), "#" + i);
            String given = names == null ? null : names.get(i);
            servers.add(
                    given == null
                            ? new Server(() -> "Redlock master " + server.name().get(), server.infoMemory())
                            : new Server(() -> "Redlock master " + given, server.infoMemory()));
        }
        List<Server> fixed = List.copyOf(servers);
        return new EvictionCheck("the Redlock masters", () -> fixed);
    }

    /**
     * Reads every server now, then again in the background (after 1 s, doubling up to a minute)
     * while some did not answer and {@code open} holds, so that a process started before its Redis
     * still hears of eviction once Redis is up.
     *
     * @param executor runs the reads (an I/O thread; it drops work once its owner is closed)
     */
    void start(Executor executor, BooleanSupplier open) {
        executor.execute(() -> readUntilAnswered(executor, open, FIRST_RETRY_MILLIS));
    }

    private void readUntilAnswered(Executor executor, BooleanSupplier open, long retryMillis) {
        if (!open.getAsBoolean() || read().answered()) {
            return;
        }
        Executor later = CompletableFuture.delayedExecutor(retryMillis, TimeUnit.MILLISECONDS, executor);
        later.execute(() -> readUntilAnswered(executor, open, Math.min(retryMillis * 2, LAST_RETRY_MILLIS)));
    }

    /** Reads every server now; see {@code TurnstileDiagnostics.eviction()}. */
    List<Eviction> evictions() {
        return read().evictions();
    }

    /** @param answered whether every server answered (or refused for good): nothing to read again */
    private record Reading(List<Eviction> evictions, boolean answered) {}

    private Reading read() {
        Eviction settled = this.settled.get(this.what);
        if (settled != null) {
            return new Reading(List.of(settled), true);
        }
        List<Server> servers;
        try {
            servers = this.topology.servers();
        } catch (RuntimeException e) {
            Eviction failed = failed(this.what, e);
            return new Reading(List.of(failed), this.settled.containsKey(this.what));
        }
        Map<String, Eviction> seen = new LinkedHashMap<>();
        boolean answered = true;
        for (Server server : servers) {
            Eviction eviction = read(server);
            seen.putIfAbsent(eviction.server(), eviction);
            answered &= eviction.risk() != Risk.UNKNOWN || this.settled.containsKey(eviction.server());
        }
        return new Reading(List.copyOf(seen.values()), answered);
    }

    private Eviction read(Server server) {
        Eviction settled = this.settled.get(server.name().get());
        if (settled != null) {
            return settled;
        }
        String info;
        try {
            info = server.infoMemory().get();
        } catch (RuntimeException e) {
            return failed(server.name().get(), e);
        }
        Eviction eviction = parse(server.name().get(), info);
        if (eviction.risk() == Risk.UNKNOWN) {
            this.settled.put(eviction.server(), eviction);
            note(eviction);
        } else if (eviction.mayEvict() && this.warned.add(eviction.server() + " " + eviction.policy())) {
            warn(eviction);
        }
        return eviction;
    }

    /** What INFO memory says of {@code server}. */
    static Eviction parse(String server, String info) {
        String policy = field(info, "maxmemory_policy");
        String maxmemory = field(info, "maxmemory");
        if (policy == null || maxmemory == null) {
            return new Eviction(server, Risk.UNKNOWN, null, 0, "its INFO memory does not report maxmemory_policy");
        }
        long bytes = Long.parseLong(maxmemory);
        Risk risk = bytes > 0 && !"noeviction".equals(policy) ? Risk.MAY_EVICT : Risk.NONE;
        return new Eviction(server, risk, policy, bytes, null);
    }

    private static @Nullable String field(String info, String name) {
        return info.lines()
                .filter(line -> line.startsWith(name + ":"))
                .map(line -> line.substring(name.length() + 1).strip())
                .findFirst()
                .orElse(null);
    }

    /**
     * What to report of {@code server}, which failed with {@code e}: no answer is read again next
     * time; anything else (a refusal, an unknown command, a wrong password) is settled, noted once
     * and not asked again.
     */
    private Eviction failed(String server, RuntimeException e) {
        if (e instanceof JedisException jedis && RedisErrors.isUnavailable(jedis)) {
            log.debug("Could not read INFO memory of {}: {}", server, e.getMessage());
            return new Eviction(server, Risk.UNKNOWN, null, 0, "no answer (" + e.getMessage() + ")");
        }
        String reason = e instanceof JedisException jedis && RedisErrors.isRefusedToUser(jedis)
                ? "the user Turnstile connects as may not run INFO (" + e.getMessage() + ")"
                : "INFO memory failed (" + e.getMessage() + ")";
        Eviction unknown = new Eviction(server, Risk.UNKNOWN, null, 0, reason);
        if (this.settled.putIfAbsent(server, unknown) == null) {
            note(unknown);
        }
        return unknown;
    }

    private void note(Eviction unknown) {
        log.info(
                "Could not check whether Redis {} may evict Turnstile's keys: {}. A lock store needs"
                        + " maxmemory-policy noeviction (or memory headroom): check it on the server (see"
                        + " \"Eviction\" in Turnstile's docs/operations.md).",
                unknown.server(),
                unknown.reason());
    }

    private static void warn(Eviction eviction) {
        log.warn(
                "Redis {} may evict Turnstile's keys: maxmemory is {} bytes and maxmemory-policy is {}:"
                        + " once memory runs out, it {}. An evicted lock key (and its fencing counter)"
                        + " lets another client take the lock at once, and its holder learns of it only"
                        + " at its next renewal; an evicted semaphore frees all its permits. Set"
                        + " maxmemory-policy noeviction on this server, or keep used memory well below"
                        + " maxmemory (see \"Eviction\" in Turnstile's docs/operations.md).",
                eviction.server(),
                eviction.maxmemory(),
                eviction.policy(),
                meaning(String.valueOf(eviction.policy())));
    }

    private static String meaning(String policy) {
        if (policy.equals("volatile-ttl")) {
            return "evicts the keys nearest to their expiry first, and every Turnstile key has a TTL";
        }
        if (policy.startsWith("volatile-")) {
            return "evicts keys that have a TTL, and every Turnstile key has one";
        }
        if (policy.startsWith("allkeys-")) {
            return "evicts any key";
        }
        return "evicts keys";
    }

    /** One server behind {@code redis}, named by its address when the client tells it. */
    private static Server server(UnifiedJedis redis, String fallback) {
        if (redis instanceof JedisPooled pooled) {
            AtomicReference<String> name = new AtomicReference<>(fallback);
            return new Server(name::get, () -> {
                try (Connection connection = pooled.getPool().getResource()) {
                    name.set(address(connection, fallback));
                    return new Jedis(connection).info("memory");
                }
            });
        }
        if (redis instanceof JedisSentineled sentineled) {
            return new Server(() -> String.valueOf(sentineled.getCurrentMaster()), () -> redis.info("memory"));
        }
        return new Server(() -> fallback, () -> redis.info("memory"));
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
    private static List<Server> clusterMasters(JedisCluster cluster) {
        RuntimeException last = null;
        for (ConnectionPool pool : cluster.getClusterNodes().values()) {
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
            List<Server> masters = new ArrayList<>();
            firstSlots.forEach((name, slot) -> masters.add(new Server(() -> name, () -> {
                try (Connection connection = cluster.getConnectionFromSlot(slot)) {
                    return new Jedis(connection).info("memory");
                }
            })));
            return masters;
        }
        throw last != null ? last : new IllegalStateException("the cluster client knows no node");
    }
}
