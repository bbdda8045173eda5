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
    FENCE_AHEAD("fencing counter ahead of the server clock"),
    MASTERS_CLOCKS_AHEAD("masters' clocks 5 s to 1 h ahead of the clients'"),
    MASTERS_CLOCKS_BEHIND("masters' clocks 5 s to 1 h behind the clients', stepping further back"),
    MASTER_DOWN_ANOTHER_AHEAD("one master down, another's clock 1 h ahead, a third's 5 s"),
    FAILOVER_CLOCK_BEHIND("the failover with minReplicas 1, to a replica whose clock is 5 s behind");

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
        return this == FAILOVER || this == FAILOVER_MIN_REPLICAS || this == FAILOVER_CLOCK_BEHIND;
    }

    /** Whether it shifts the clocks of Redlock's masters (and so applies to Redlock alone). */
    boolean shiftsMasterClocks() {
        return this == MASTERS_CLOCKS_AHEAD || this == MASTERS_CLOCKS_BEHIND || this == MASTER_DOWN_ANOTHER_AHEAD;
    }

    /** Whether it needs servers whose clocks can be shifted. */
    boolean shiftsClocks() {
        return shiftsMasterClocks() || this == FAILOVER_CLOCK_BEHIND;
    }
}
