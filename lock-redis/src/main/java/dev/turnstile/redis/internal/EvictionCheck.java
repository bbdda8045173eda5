package dev.turnstile.redis.internal;

import dev.turnstile.redis.TurnstileDiagnostics.Eviction;
import dev.turnstile.redis.TurnstileDiagnostics.Eviction.Risk;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.exceptions.JedisDataException;
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
    /** How a failure to list the servers is reported. */
    private final String what;
    /** Lists the servers to read now. */
    private final Supplier<List<MemoryServer>> servers;

    /**
     * The servers and policies warned of. Guarded by itself, held while the WARN is logged: a read
     * that finds its server warned of returns only once the WARN is written, whichever thread wrote
     * it (the starter's read at startup relies on it to have the WARN out before the application is
     * ready, also when the background read got there first).
     */
    private final Set<String> warned = new HashSet<>();
    /**
     * Servers that could not be checked for good (INFO refused or unknown, no policy in its answer),
     * with what was reported: not asked again.
     */
    private final Map<String, Eviction> settled = new ConcurrentHashMap<>();

    private EvictionCheck(String what, Supplier<List<MemoryServer>> servers) {
        this.what = what;
        this.servers = servers;
    }

    /** The check of the deployment {@code topology}: a server, a Sentinel master or a cluster. */
    static EvictionCheck of(Topology topology) {
        String what = topology.describe();
        if (topology.clustered()) {
            return new EvictionCheck(what, () -> topology.memoryServers(what));
        }
        // One server (or the current master): the same entry each time, so it keeps the address it learnt.
        List<MemoryServer> one = topology.memoryServers(what);
        return new EvictionCheck(what, () -> one);
    }

    /** The check of Redlock's {@code masters}, named {@code names} (null: by their addresses). */
    static EvictionCheck ofMasters(List<Topology> masters, @Nullable List<String> names) {
        List<MemoryServer> servers = new ArrayList<>();
        for (int i = 0; i < masters.size(); i++) {
            for (MemoryServer server : masters.get(i).memoryServers("#" + i)) {
                servers.add(server.renamed("Redlock master ", names == null ? null : names.get(i)));
            }
        }
        List<MemoryServer> fixed = List.copyOf(servers);
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
        List<MemoryServer> servers;
        try {
            servers = this.servers.get();
        } catch (RuntimeException e) {
            Eviction failed = failed(this.what, e);
            return new Reading(List.of(failed), this.settled.containsKey(this.what));
        }
        Map<String, Eviction> seen = new LinkedHashMap<>();
        boolean answered = true;
        for (MemoryServer server : servers) {
            Eviction eviction = read(server);
            seen.putIfAbsent(eviction.server(), eviction);
            answered &= eviction.risk() != Risk.UNKNOWN || this.settled.containsKey(eviction.server());
        }
        return new Reading(List.copyOf(seen.values()), answered);
    }

    private Eviction read(MemoryServer server) {
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
        } else if (eviction.mayEvict()) {
            synchronized (this.warned) {
                if (this.warned.add(eviction.server() + " " + eviction.policy())) {
                    warn(eviction);
                }
            }
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
     * What to report of {@code server}, which failed with {@code e}: no answer (a connection or pool
     * failure, or a server loading or busy) is read again next time; an answer (a refusal, an unknown
     * command, a wrong password) or a reply that could not be understood is settled, noted once and
     * not asked again.
     */
    private Eviction failed(String server, RuntimeException e) {
        if (isTransient(e)) {
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

    /** Whether asking again may get an answer: Redis did not answer, rather than answered no. */
    private static boolean isTransient(RuntimeException e) {
        return e instanceof JedisException jedis
                && (!(jedis instanceof JedisDataException) || RedisErrors.isUnavailable(jedis));
    }

    private void note(Eviction unknown) {
        log.info(
                "Could not check whether {} may evict Turnstile's keys: {}. A lock store needs"
                        + " maxmemory-policy noeviction (or memory headroom): check it on the server (see"
                        + " \"Eviction\" in Turnstile's docs/operations.md).",
                display(unknown.server()),
                unknown.reason());
    }

    private static void warn(Eviction eviction) {
        log.warn(
                "{} may evict Turnstile's keys: maxmemory is {} bytes and maxmemory-policy is {}:"
                        + " once memory runs out, it {}. An evicted lock key (and its fencing counter)"
                        + " lets another client take the lock at once, and its holder learns of it only"
                        + " at its next renewal; an evicted semaphore frees all its permits. Set"
                        + " maxmemory-policy noeviction on this server, or keep used memory well below"
                        + " maxmemory (see \"Eviction\" in Turnstile's docs/operations.md).",
                display(eviction.server()),
                eviction.maxmemory(),
                eviction.policy(),
                meaning(String.valueOf(eviction.policy())));
    }

    /** How messages name {@code server}: "Redis 10.0.0.5:6379", "Redlock master 10.0.0.5:6379". */
    private static String display(String server) {
        return server.equals("Redis") || server.startsWith("Redlock master") ? server : "Redis " + server;
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
}
