package dev.turnstile.spring.aop;

/** Which annotation guards a method. */
public enum GuardKind {
    /** {@code @DistributedLock}. */
    LOCK("lock"),
    /** {@code @Semaphore}. */
    SEMAPHORE("semaphore");

    private final String label;

    GuardKind(String label) {
        this.label = label;
    }

    /** Returns {@code "lock"} or {@code "semaphore"}. */
    public String label() {
        return this.label;
    }
}
