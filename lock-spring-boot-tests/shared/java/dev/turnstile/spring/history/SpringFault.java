package dev.turnstile.spring.history;

/** What happens while a starter history run's nodes work. */
public enum SpringFault {
    NONE("no fault"),
    REDIS_PAUSED_SHORT("Redis paused, shorter than a lease"),
    REDIS_PAUSED_LONG("Redis paused, longer than a lease"),
    FORCE_RELEASE("forceRelease every 50 ms"),
    PARTITION("one node partitioned from Redis"),
    HOLDER_PAUSED("the running node paused past its lease (SIGSTOP)"),
    HOLDER_KILLED("the running node killed (kill -9)"),
    RUN_OUTLIVES_LEASE("a run outlives its lease");

    /** The fault in words, for the verdict line. */
    public final String label;

    SpringFault(String label) {
        this.label = label;
    }
}
