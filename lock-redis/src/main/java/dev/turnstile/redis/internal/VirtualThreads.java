package dev.turnstile.redis.internal;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import org.jspecify.annotations.Nullable;

/** Whether the calling thread is virtual (Java 21+; never on older runtimes). Thread-safe. */
final class VirtualThreads {

    /** {@code Thread.isVirtual()} on Java 21+, else null. */
    private static final @Nullable MethodHandle IS_VIRTUAL = isVirtualHandle();

    private VirtualThreads() {}

    /** Returns whether the calling thread is virtual; true when that cannot be told. */
    static boolean current() {
        try {
            return IS_VIRTUAL != null && (boolean) IS_VIRTUAL.invokeExact(Thread.currentThread());
        } catch (Throwable e) {
            return true;
        }
    }

    private static @Nullable MethodHandle isVirtualHandle() {
        try {
            return MethodHandles.publicLookup()
                    .findVirtual(Thread.class, "isVirtual", MethodType.methodType(boolean.class));
        } catch (ReflectiveOperationException before21) {
            return null;
        }
    }
}
