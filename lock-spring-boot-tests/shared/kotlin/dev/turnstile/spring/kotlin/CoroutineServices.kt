package dev.turnstile.spring.kotlin

import dev.turnstile.annotation.DistributedLock
import dev.turnstile.annotation.OnFailure
import dev.turnstile.annotation.Semaphore
import dev.turnstile.spring.BootLine
import dev.turnstile.spring.LockContext
import dev.turnstile.test.redis.RedisServerExtension
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.atomic.AtomicInteger
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.withContext
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import org.springframework.stereotype.Service

/** When a guarded body ran: from its first line to its last, in System.nanoTime(). */
data class Interval(val node: String, val start: Long, val end: Long)

/** What the guarded coroutines of both nodes record; reset before each test. */
object Shared {
    /** A counter that two bodies inside at once would lose updates of: read, suspend, write. */
    @Volatile var counter = 0L
    val intervals = CopyOnWriteArrayList<Interval>()
    val inFlight = AtomicInteger()
    val maxInFlight = AtomicInteger()
    val entered = ConcurrentHashMap<String, CompletableDeferred<Unit>>()
    val stopped = ConcurrentHashMap<String, CompletableDeferred<Unit>>()

    fun reset() {
        counter = 0
        intervals.clear()
        inFlight.set(0)
        maxInFlight.set(0)
        entered.clear()
        stopped.clear()
    }

    fun entered(key: String) = entered.computeIfAbsent(key) { CompletableDeferred() }

    fun stopped(key: String) = stopped.computeIfAbsent(key) { CompletableDeferred() }
}

/**
 * Guarded suspend functions and a flow, as a Kotlin application writes them: an open class
 * through the spring compiler plugin, keys naming parameters, compiled with -java-parameters (so
 * the compiler emits the static name$suspendImpl twins the starter must not validate).
 */
@Service
class CoroutineServices(private val node: NodeName, private val inner: InnerCoroutines) {

    @DistributedLock(key = ["counter:#id"], waitTime = "30s")
    suspend fun increment(id: String): Long {
        val start = System.nanoTime()
        val read = Shared.counter
        delay(2)
        // On another dispatcher's thread: the guard must hold across the switch.
        val written = withContext(Dispatchers.IO) {
            delay(1)
            read + 1
        }
        Shared.counter = written
        Shared.intervals.add(Interval(node.name, start, System.nanoTime()))
        return written
    }

    @Semaphore(key = "pool:#pool", limit = 2, waitTime = "30s")
    suspend fun limited(pool: String) {
        val now = Shared.inFlight.incrementAndGet()
        Shared.maxInFlight.accumulateAndGet(now, ::maxOf)
        try {
            delay(3)
            withContext(Dispatchers.Default) { delay(1) }
        } finally {
            Shared.inFlight.decrementAndGet()
        }
    }

    @DistributedLock(key = ["held:#id"], waitTime = "0s")
    suspend fun holdUntilCancelled(id: String) {
        Shared.entered(id).complete(Unit)
        try {
            awaitCancellation()
        } finally {
            Shared.stopped(id).complete(Unit)
        }
    }

    @DistributedLock(key = ["held:#id"], waitTime = "0s")
    suspend fun tryHeld(id: String): String = "ran on ${node.name}"

    @DistributedLock(key = ["held:#id"], waitTime = "0s", fallback = "busy")
    suspend fun withSuspendFallback(id: String): String = "ran"

    suspend fun busy(id: String, failure: Throwable): String {
        delay(1)
        return "fallback for $id: ${failure.javaClass.simpleName}"
    }

    @DistributedLock(key = ["held:#id"], waitTime = "0s", fallback = "plainBusy")
    suspend fun withPlainFallback(id: String): String = "ran"

    fun plainBusy(id: String): String = "plain fallback for $id"

    @DistributedLock(key = ["held:#id"], waitTime = "0s", onFailure = OnFailure.SKIP)
    suspend fun skipped(id: String): String? = "ran"

    @DistributedLock(key = ["fail:#id"], waitTime = "0s")
    suspend fun failAfterSuspension(id: String): String {
        delay(5)
        withContext(Dispatchers.IO) { delay(1) }
        throw IllegalStateException("failed after suspending, with $id locked")
    }

    @DistributedLock(key = ["context:#id"], condition = "#id != 'free'")
    suspend fun fencingTokens(id: String): List<Long> {
        val first = LockContext.current().fencingToken()
        delay(1)
        val onIo = withContext(Dispatchers.IO) { LockContext.current().fencingToken() }
        return listOf(first, onIo, inner.sameKey(id))
    }

    @DistributedLock(key = ["context:#id"], condition = "#id != 'free'")
    suspend fun unlockedWhenFree(id: String): Boolean = LockContext.find().isPresent

    @DistributedLock(key = ["flow:#id"], waitTime = "30s")
    fun counted(id: String, items: Int): Flow<Long> = flow {
        val start = System.nanoTime()
        repeat(items) {
            val read = Shared.counter
            delay(1)
            Shared.counter = read + 1
            emit(LockContext.current().fencingToken())
        }
        Shared.intervals.add(Interval(node.name, start, System.nanoTime()))
    }
}

/** Another bean, so that calls to it go through its proxy: nested guarded calls. */
@Service
class InnerCoroutines {

    /** Called inside the coroutine that holds context:#id: joins its lease instead of waiting (waitTime 0). */
    @DistributedLock(key = ["context:#id"], waitTime = "0s")
    suspend fun sameKey(id: String): Long {
        delay(1)
        return LockContext.current().fencingToken()
    }
}

/** Which application context a bean is in. */
data class NodeName(val name: String)

/** An application node: Boot's Redis and Turnstile, `configuration`, on `redis`, named by the property node. */
fun node(redis: RedisServerExtension, configuration: Class<*>, name: String): ApplicationContextRunner =
    ApplicationContextRunner()
        .withConfiguration(BootLine.turnstile())
        .withUserConfiguration(configuration)
        .withPropertyValues(
            "spring.data.redis.host=127.0.0.1",
            "spring.data.redis.port=" + redis.server().port(),
            "node=$name",
        )
