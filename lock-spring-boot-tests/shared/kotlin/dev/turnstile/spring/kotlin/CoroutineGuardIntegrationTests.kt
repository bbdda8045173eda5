package dev.turnstile.spring.kotlin

import dev.turnstile.redis.LockAcquisitionException
import dev.turnstile.redis.Turnstile
import dev.turnstile.spring.LockContext
import dev.turnstile.test.redis.RedisServerExtension
import java.time.Duration
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatThrownBy
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.RegisterExtension
import org.springframework.context.ApplicationContext
import org.springframework.context.annotation.Bean
import org.springframework.context.annotation.Configuration
import org.springframework.context.annotation.Import
import org.springframework.core.env.Environment

/**
 * Guarded Kotlin suspend functions and flows on two application nodes sharing one Redis: many
 * coroutines on both, their bodies' intervals recorded; no two overlap, the semaphore never has
 * more than its limit inside, and cancellation or a failure after a suspension frees the lock at
 * once.
 */
class CoroutineGuardIntegrationTests {

    companion object {
        @JvmField
        @RegisterExtension
        val redis = RedisServerExtension()
    }

    @BeforeEach
    fun reset() = Shared.reset()

    private fun node(name: String) = node(redis, CoroutineApp::class.java, name)

    private fun twoNodes(test: (CoroutineServices, CoroutineServices, ApplicationContext) -> Unit) {
        node("a").run { a ->
            assertThat(a).hasNotFailed()
            node("b").run { b ->
                assertThat(b).hasNotFailed()
                test(a.getBean(CoroutineServices::class.java), b.getBean(CoroutineServices::class.java), b)
            }
        }
    }

    @Test
    fun manyCoroutinesOnTwoNodesNeverOverlapAcrossSuspensionsAndThreadSwitches() = twoNodes { a, b, _ ->
        val calls = 120
        val results = runBlocking(Dispatchers.Default) {
            (0 until calls).map { i -> async { (if (i % 2 == 0) a else b).increment("42") } }.awaitAll()
        }
        assertThat(results).containsExactlyInAnyOrderElementsOf((1L..calls).toList())
        assertThat(Shared.counter).isEqualTo(calls.toLong())
        assertNoOverlap(calls)
    }

    @Test
    fun semaphoreNeverHasMoreThanItsLimitInsideAcrossTwoNodes() = twoNodes { a, b, _ ->
        runBlocking(Dispatchers.Default) {
            (0 until 60).map { i -> async { (if (i % 2 == 0) a else b).limited("p") } }.awaitAll()
        }
        assertThat(Shared.maxInFlight.get()).isBetween(1, 2)
        assertThat(Shared.inFlight.get()).isZero()
    }

    @Test
    fun flowIsGuardedWhileItIsCollected() = twoNodes { a, b, _ ->
        val tokens = runBlocking(Dispatchers.Default) {
            (0 until 20).map { i -> async { (if (i % 2 == 0) a else b).counted("f", 5).toList() } }.awaitAll()
        }
        assertThat(Shared.counter).isEqualTo(100)
        assertNoOverlap(20)
        // One lease per collection: every item of it saw the same fencing token, a new one each time.
        assertThat(tokens).allSatisfy { assertThat(it.toSet()).hasSize(1) }
        assertThat(tokens.map { it.first() }.toSet()).hasSize(20)
    }

    @Test
    fun cancellingTheCallerReleasesTheLockAtOnceNotAtLeaseExpiry() = twoNodes { a, b, _ ->
        var cancelledAt = 0L
        runBlocking {
            val holder = launch(Dispatchers.Default) { a.holdUntilCancelled("c") }
            Shared.entered("c").await()
            assertThatThrownBy { runBlocking { b.tryHeld("c") } }.isInstanceOf(LockAcquisitionException::class.java)
            holder.cancelAndJoin()
            cancelledAt = System.nanoTime()
            Shared.stopped("c").await()
        }
        // The lease is the 30 s default, renewed by the watchdog every 10 s: only the release
        // frees it within a second of the cancellation. A refusal is tried again until then.
        var acquiredAt = 0L
        await().atMost(Duration.ofSeconds(5))
            .pollInterval(Duration.ofMillis(20))
            .ignoreExceptionsInstanceOf(LockAcquisitionException::class.java)
            .untilAsserted {
                assertThat(runBlocking { b.tryHeld("c") }).isEqualTo("ran on b")
                acquiredAt = System.nanoTime()
            }
        assertThat(Duration.ofNanos(acquiredAt - cancelledAt))
            .`as`("from cancelAndJoin to the other node's grant")
            .isLessThanOrEqualTo(Duration.ofSeconds(1))
    }

    @Test
    fun failureAfterASuspensionReleasesTheLockBeforeTheCallerSeesIt() = twoNodes { a, _, b ->
        assertThatThrownBy { runBlocking(Dispatchers.Default) { a.failAfterSuspension("x") } }
            .isInstanceOf(IllegalStateException::class.java)
            .hasMessage("failed after suspending, with x locked")
        val lease = b.getBean(Turnstile::class.java).lock("fail:x").tryAcquire(Duration.ZERO, Duration.ofSeconds(5))
        assertThat(lease).isPresent
        lease.get().close()
    }

    @Test
    fun lockContextIsTheCoroutinesOnEveryThreadAndANestedCallJoinsIt() = twoNodes { a, _, _ ->
        val tokens = runBlocking(Dispatchers.Default) { a.fencingTokens("t") }
        assertThat(tokens).hasSize(3)
        assertThat(tokens.toSet()).hasSize(1)
        assertThat(tokens[0]).isPositive()
        assertThat(LockContext.find()).isEmpty
        assertThat(runBlocking { a.unlockedWhenFree("free") }).isFalse()
        assertThat(runBlocking { a.unlockedWhenFree("locked") }).isTrue()
    }

    @Test
    fun refusedCallsGetTheirFallbacksOrSkip() = twoNodes { a, b, _ ->
        runBlocking {
            val holder = launch(Dispatchers.Default) { a.holdUntilCancelled("h") }
            Shared.entered("h").await()
            assertThat(b.withSuspendFallback("h")).isEqualTo("fallback for h: LockAcquisitionException")
            assertThat(b.withPlainFallback("h")).isEqualTo("plain fallback for h")
            assertThat(b.skipped("h")).isNull()
            holder.cancelAndJoin()
        }
        await().atMost(Duration.ofSeconds(5)).untilAsserted {
            assertThat(runBlocking { b.withSuspendFallback("h") }).isEqualTo("ran")
        }
    }

    private fun assertNoOverlap(expected: Int) {
        val runs = Shared.intervals.sortedBy { it.start }
        assertThat(runs).hasSize(expected)
        assertThat(runs.map { it.node }.toSet()).containsExactlyInAnyOrder("a", "b")
        val overlaps = runs.zipWithNext().filter { (earlier, later) -> later.start < earlier.end }
        assertThat(overlaps).`as`("bodies that ran while another was inside").isEmpty()
    }
}

@Configuration(proxyBeanMethods = false)
@Import(CoroutineServices::class, InnerCoroutines::class)
class CoroutineApp {
    @Bean
    fun nodeName(environment: Environment) = NodeName(environment.getProperty("node", "?"))
}
