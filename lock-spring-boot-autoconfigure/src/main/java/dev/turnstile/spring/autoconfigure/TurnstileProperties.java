package dev.turnstile.spring.autoconfigure;

import dev.turnstile.redis.AwakeWaiting;
import dev.turnstile.spring.aop.OnLeaseLost;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.core.Ordered;

/** Configuration of Turnstile's locks and semaphores. */
@ConfigurationProperties("turnstile")
public class TurnstileProperties {

    /** Whether Turnstile is enabled. */
    private boolean enabled = true;

    /** Namespace of every Redis key Turnstile writes, without a trailing colon. */
    private String keyPrefix = "turnstile";

    /**
     * Lease of locks and permits whose annotation gives no lease time; such leases are renewed by
     * the watchdog at a third of it while the method runs. A crashed holder blocks others this long.
     */
    private Duration defaultLease = Duration.ofSeconds(30);

    /** How long a fencing counter is kept in Redis after the lease it was set with ends; then the name leaves nothing behind. */
    private Duration fenceRetention = Duration.ofSeconds(10);

    /**
     * Replicas that must have every grant (WAIT, on the grant's own connection) before it is handed
     * out; a grant fewer replicas confirm within the replica timeout is released and the acquire
     * fails as Redis unavailable (HTTP 503). For Sentinel: closes the window in which a failover to a
     * replica that never received the grant lets a second owner in. Not consensus. 0 (off) by default.
     */
    private int minReplicas = 0;

    /** How long a grant waits for the min-replicas replicas to confirm it. */
    private Duration replicaTimeout = Duration.ofMillis(100);

    /**
     * Order of the aspect of @DistributedLock and @Semaphore. Keep it below the transaction advice's order so the
     * lock is taken before a transaction begins and released after it ends.
     */
    private int aspectOrder = Ordered.LOWEST_PRECEDENCE - 1;

    /**
     * Whether @DistributedLock and @Semaphore refuse the calls they cannot admit: a lock busy past
     * its wait, a full semaphore, an unavailable Redis. False: they only observe. An observed guard
     * still takes its lock or permit when it can; when it would refuse, the method runs anyway and
     * the refusal is counted in turnstile.observed.refusals and logged at INFO at most once a minute
     * per guard. turnstile.enforced-names, turnstile.observed-names and an annotation's enforce
     * attribute override it for single guards.
     */
    private boolean enforce = true;

    /**
     * Guards that enforce whatever turnstile.enforce and their annotation say, by name: the key
     * template as written (account:#accountId), a multi-key lock's templates joined by commas or any
     * one of them, or the method's qualified name when it has no key; the name tag of the metrics.
     * A name that matches no guard is reported in a WARN line at startup.
     */
    private List<String> enforcedNames = new ArrayList<>();

    /**
     * Guards that only observe whatever turnstile.enforce and their annotation say, named as in
     * turnstile.enforced-names; a name may not be in both.
     */
    private List<String> observedNames = new ArrayList<>();

    private final Lock lock = new Lock();

    private final Semaphore semaphore = new Semaphore();

    private final Watchdog watchdog = new Watchdog();

    private final Redlock redlock = new Redlock();

    private final Web web = new Web();

    private final Endpoint endpoint = new Endpoint();

    public boolean isEnabled() {
        return this.enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getKeyPrefix() {
        return this.keyPrefix;
    }

    public void setKeyPrefix(String keyPrefix) {
        this.keyPrefix = keyPrefix;
    }

    public Duration getDefaultLease() {
        return this.defaultLease;
    }

    public void setDefaultLease(Duration defaultLease) {
        this.defaultLease = defaultLease;
    }

    public Duration getFenceRetention() {
        return this.fenceRetention;
    }

    public void setFenceRetention(Duration fenceRetention) {
        this.fenceRetention = fenceRetention;
    }

    public int getAspectOrder() {
        return this.aspectOrder;
    }

    public void setAspectOrder(int aspectOrder) {
        this.aspectOrder = aspectOrder;
    }

    public boolean isEnforce() {
        return this.enforce;
    }

    public void setEnforce(boolean enforce) {
        this.enforce = enforce;
    }

    public List<String> getEnforcedNames() {
        return this.enforcedNames;
    }

    public void setEnforcedNames(List<String> enforcedNames) {
        this.enforcedNames = enforcedNames;
    }

    public List<String> getObservedNames() {
        return this.observedNames;
    }

    public void setObservedNames(List<String> observedNames) {
        this.observedNames = observedNames;
    }

    public Lock getLock() {
        return this.lock;
    }

    public Semaphore getSemaphore() {
        return this.semaphore;
    }

    public Watchdog getWatchdog() {
        return this.watchdog;
    }

    public Redlock getRedlock() {
        return this.redlock;
    }

    public int getMinReplicas() {
        return this.minReplicas;
    }

    public void setMinReplicas(int minReplicas) {
        this.minReplicas = minReplicas;
    }

    public Duration getReplicaTimeout() {
        return this.replicaTimeout;
    }

    public void setReplicaTimeout(Duration replicaTimeout) {
        this.replicaTimeout = replicaTimeout;
    }

    public Web getWeb() {
        return this.web;
    }

    public Endpoint getEndpoint() {
        return this.endpoint;
    }

    /** The turnstile actuator endpoint. */
    public static class Endpoint {

        /**
         * Whether POST /actuator/turnstile may free a lock whoever holds it. Off by default: turn it
         * on only where the endpoint is exposed to operators and secured.
         */
        private boolean forceRelease = false;

        public boolean isForceRelease() {
            return this.forceRelease;
        }

        public void setForceRelease(boolean forceRelease) {
            this.forceRelease = forceRelease;
        }
    }

    /** HTTP answers for refused calls, in Spring MVC and WebFlux applications. */
    public static class Web {

        /**
         * Whether a full semaphore, a busy lock and an unreachable Redis are answered as problem
         * details (429, 409, 503) when the application's own exception handlers do not answer them.
         */
        private boolean problemDetails = true;

        /**
         * Retry-After of the 429 (semaphore full), 409 (lock busy for the whole wait) and 503 (Redis
         * unavailable) answers, in whole seconds (rounded up, at least 1). Not sent with the 409 of
         * a lost lease nor the 503 of an interrupted wait.
         */
        private Duration retryAfter = Duration.ofSeconds(1);

        public boolean isProblemDetails() {
            return this.problemDetails;
        }

        public void setProblemDetails(boolean problemDetails) {
            this.problemDetails = problemDetails;
        }

        public Duration getRetryAfter() {
            return this.retryAfter;
        }

        public void setRetryAfter(Duration retryAfter) {
            this.retryAfter = retryAfter;
        }
    }

    /** Defaults of @DistributedLock. */
    public static class Lock {

        /** How long a @DistributedLock method waits for its lock when the annotation gives no wait time. */
        private Duration waitTime = Duration.ofSeconds(5);

        /** What happens when a lease is lost while its method still runs. */
        private OnLeaseLost onLeaseLost = OnLeaseLost.LOG;

        private final Cohort cohort = new Cohort();

        public Cohort getCohort() {
            return this.cohort;
        }

        public Duration getWaitTime() {
            return this.waitTime;
        }

        public void setWaitTime(Duration waitTime) {
            this.waitTime = waitTime;
        }

        public OnLeaseLost getOnLeaseLost() {
            return this.onLeaseLost;
        }

        public void setOnLeaseLost(OnLeaseLost onLeaseLost) {
            this.onLeaseLost = onLeaseLost;
        }
    }

    /**
     * The lock cohort: a grant in Redis passed between threads of this application that queue for the
     * same name, without a Redis round trip, each holder with its own larger fencing token.
     */
    public static class Cohort {

        /** Most holders one grant is passed to in a row before the lock goes back to Redis; 1 turns local hand-off off. */
        private int holders = 32;

        /**
         * Longest time after the grant that it is still passed on locally; also how long a forced
         * release by this application keeps everyone out while the holder's hand-offs end. Use the
         * same value on every node.
         */
        private Duration maxAge = Duration.ofMillis(20);

        /**
         * Whether a thread queued for a lock behind another thread of this application waits awake
         * (yielding, at most 200 us) for a turn due soon instead of parking at once: auto (on unless
         * the process runs under a CPU quota, such as a container's CPU limit), always or never.
         */
        private AwakeWaiting awakeWaiting = AwakeWaiting.AUTO;

        public AwakeWaiting getAwakeWaiting() {
            return this.awakeWaiting;
        }

        public void setAwakeWaiting(AwakeWaiting awakeWaiting) {
            this.awakeWaiting = awakeWaiting;
        }

        public int getHolders() {
            return this.holders;
        }

        public void setHolders(int holders) {
            this.holders = holders;
        }

        public Duration getMaxAge() {
            return this.maxAge;
        }

        public void setMaxAge(Duration maxAge) {
            this.maxAge = maxAge;
        }
    }

    /** Defaults of @Semaphore. */
    public static class Semaphore {

        /** How long a @Semaphore method waits for a permit when the annotation gives no wait time; zero fails fast. */
        private Duration waitTime = Duration.ZERO;

        public Duration getWaitTime() {
            return this.waitTime;
        }

        public void setWaitTime(Duration waitTime) {
            this.waitTime = waitTime;
        }
    }

    /** Redlock for @DistributedLock, over independent masters. */
    public static class Redlock {

        /**
         * Independent Redis masters as URIs (redis://host:6379, rediss://host:6380 for TLS); with
         * three or more, @DistributedLock takes its locks by the Redlock algorithm over them.
         * Semaphores stay on spring.data.redis.
         */
        private java.util.List<String> nodes = new java.util.ArrayList<>();

        /** How long one master may take to answer each call, a new connection's TLS handshake included. */
        private Duration nodeTimeout = Duration.ofMillis(50);

        /** TLS to the masters. */
        private final Ssl ssl = new Ssl();

        public Ssl getSsl() {
            return this.ssl;
        }

        public java.util.List<String> getNodes() {
            return this.nodes;
        }

        public void setNodes(java.util.List<String> nodes) {
            this.nodes = nodes;
        }

        public Duration getNodeTimeout() {
            return this.nodeTimeout;
        }

        public void setNodeTimeout(Duration nodeTimeout) {
            this.nodeTimeout = nodeTimeout;
        }
    }

    /** TLS to the Redlock masters, named as spring.data.redis.ssl.* is. */
    public static class Ssl {

        /**
         * Whether to connect to every master with TLS; when unset, whether a bundle is named.
         * rediss:// nodes use TLS either way.
         */
        private @Nullable Boolean enabled;

        /** SSL bundle (spring.ssl.bundle.*) to connect to the masters with; else the JVM's trust store. */
        private @Nullable String bundle;

        /** Whether TLS is on: enabled when set, else whether a bundle is named (as Spring Boot reads it). */
        public boolean isEnabled() {
            return this.enabled != null ? this.enabled : this.bundle != null && !this.bundle.isBlank();
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public @Nullable String getBundle() {
            return this.bundle;
        }

        public void setBundle(@Nullable String bundle) {
            this.bundle = bundle;
        }
    }

    /** The lease renewal scheduler. */
    public static class Watchdog {

        /** Threads that time lease renewals; the renewals' Redis calls run on a pool that grows as needed. */
        private int threads = 1;

        public int getThreads() {
            return this.threads;
        }

        public void setThreads(int threads) {
            this.threads = threads;
        }
    }
}
