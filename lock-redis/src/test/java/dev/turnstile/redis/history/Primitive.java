package dev.turnstile.redis.history;

/** What a history run exercises. */
enum Primitive {
    /** One lock name; the cohort passes it between local threads. */
    LOCK("lock, cohort on", 1),
    /** One lock name, every hold granted in Redis ({@code lockCohort(1, …)}). */
    LOCK_WITHOUT_COHORT("lock, cohort off", 1),
    /** Two names, taken as {a}, {b} or {a, b} all-or-nothing. */
    MULTI_LOCK("multi-key lock", 1),
    /** A semaphore of 3. */
    SEMAPHORE("semaphore of 3", 3),
    /** A fair semaphore of 3. */
    FAIR_SEMAPHORE("fair semaphore of 3", 3),
    /** One lock name over five independent masters. */
    REDLOCK("Redlock, 5 masters", 1);

    final String label;
    final int limit;

    Primitive(String label, int limit) {
        this.label = label;
        this.limit = limit;
    }

    boolean isSemaphore() {
        return this.limit > 1;
    }
}
