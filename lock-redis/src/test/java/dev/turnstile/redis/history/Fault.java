package dev.turnstile.redis.history;

/** What the nemesis of a history run does while the workload runs. */
enum Fault {
    NONE("no fault"),
    REDIS_PAUSED_SHORT("Redis paused, shorter than a lease"),
    REDIS_PAUSED_LONG("Redis paused, longer than a lease"),
    HOLDER_PAUSED("holder paused past its lease (SIGSTOP)"),
    HOLDER_KILLED("holder killed (kill -9)"),
    PARTITION("holder partitioned from Redis"),
    FORCE_RELEASE("forceRelease every 50 ms"),
    FAILOVER("Sentinel failover losing the last 300 ms of writes"),
    FAILOVER_MIN_REPLICAS("the same failover, minReplicas 1"),
    FENCE_AHEAD("fencing counter ahead of the server clock");

    final String label;

    Fault(String label) {
        this.label = label;
    }

    /** Whether the run's holders must be separate JVMs (the fault stops or kills one). */
    boolean needsChildJvms() {
        return this == HOLDER_PAUSED || this == HOLDER_KILLED;
    }

    /** Whether the run needs a master with a replica under Sentinel. */
    boolean needsSentinel() {
        return this == FAILOVER || this == FAILOVER_MIN_REPLICAS;
    }
}
