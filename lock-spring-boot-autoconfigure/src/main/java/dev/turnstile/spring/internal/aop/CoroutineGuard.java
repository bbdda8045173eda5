package dev.turnstile.spring.internal.aop;

import dev.turnstile.spring.LockContext;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicReference;
import kotlin.Unit;
import kotlin.coroutines.CoroutineContext;
import kotlin.jvm.functions.Function2;
import kotlinx.coroutines.Job;
import kotlinx.coroutines.ThreadContextElement;
import org.jspecify.annotations.Nullable;

/**
 * The guard of one run of a Kotlin coroutine, carried in its coroutine context: wherever and
 * whenever the coroutine (or a child of it) runs, {@link LockContext#current()} on that thread is
 * this guard's context (with those of the guarded calls it runs inside); it learns the
 * coroutine's {@link Job} when the coroutine first runs, so that a release waits until the
 * coroutine has stopped, and a lost lease can cancel it.
 */
final class CoroutineGuard implements ThreadContextElement<Integer> {

    static final CoroutineContext.Key<CoroutineGuard> KEY = new CoroutineContext.Key<>() {};

    /** The coroutine never started: it will not, and its lease can go at once. */
    private static final Object ABANDONED = new Object();

    private final @Nullable CoroutineGuard outer;
    private final LockContext context;
    /** null before the coroutine first runs, then its {@link Job}, or {@link #ABANDONED}. */
    private final AtomicReference<@Nullable Object> job = new AtomicReference<>();

    CoroutineGuard(@Nullable CoroutineGuard outer, LockContext context) {
        this.outer = outer;
        this.context = context;
    }

    /** Returns the guard that {@code coroutineContext} carries, if any. */
    static @Nullable CoroutineGuard of(CoroutineContext coroutineContext) {
        return coroutineContext.get(KEY);
    }

    /**
     * Runs {@code then} once the coroutine has stopped (completed, failed, or finished cancelling,
     * its children included), at once if it never started; {@code then} must not block: it may run
     * on the coroutine's thread.
     */
    void whenStopped(Runnable then) {
        if (this.job.compareAndSet(null, ABANDONED) || this.job.get() == ABANDONED) {
            then.run();
            return;
        }
        ((Job) this.job.get()).invokeOnCompletion(cause -> {
            then.run();
            return Unit.INSTANCE;
        });
    }

    /** Cancels the coroutine (when its lease was lost), if it runs. */
    void cancel(String why) {
        if (this.job.get() instanceof Job running) {
            running.cancel(new CancellationException(why));
        }
    }

    @Override
    public Integer updateThreadContext(CoroutineContext coroutineContext) {
        Job running = coroutineContext.get(Job.Key);
        if (running != null) {
            for (CoroutineGuard guard = this; guard != null; guard = guard.outer) {
                guard.job.compareAndSet(null, running);
            }
        }
        List<LockContext> contexts = new ArrayList<>();
        for (CoroutineGuard guard = this; guard != null; guard = guard.outer) {
            contexts.add(0, guard.context);
        }
        contexts.forEach(LockContexts::push);
        return contexts.size();
    }

    @Override
    public void restoreThreadContext(CoroutineContext coroutineContext, Integer pushed) {
        for (int i = 0; i < pushed; i++) {
            LockContexts.pop();
        }
    }

    @Override
    public CoroutineContext.Key<?> getKey() {
        return KEY;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <E extends CoroutineContext.Element> @Nullable E get(CoroutineContext.Key<E> key) {
        return key == KEY ? (E) this : null;
    }

    @Override
    public <R> R fold(R initial, Function2<? super R, ? super CoroutineContext.Element, ? extends R> operation) {
        return operation.invoke(initial, this);
    }

    @Override
    public CoroutineContext minusKey(CoroutineContext.Key<?> key) {
        return CoroutineContext.Element.DefaultImpls.minusKey(this, key);
    }

    @Override
    public CoroutineContext plus(CoroutineContext other) {
        return CoroutineContext.Element.DefaultImpls.plus(this, other);
    }

    @Override
    public String toString() {
        return "CoroutineGuard(" + this.context + ")";
    }
}
