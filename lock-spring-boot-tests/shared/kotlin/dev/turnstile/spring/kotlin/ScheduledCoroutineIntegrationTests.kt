package dev.turnstile.spring.kotlin

import dev.turnstile.annotation.DistributedLock
import dev.turnstile.test.redis.RedisServerExtension
import java.time.Duration
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.TimeUnit
import kotlinx.coroutines.delay
import org.assertj.core.api.Assertions.assertThat
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.RegisterExtension
import org.springframework.context.annotation.Bean
import org.springframework.context.annotation.Configuration
import org.springframework.context.annotation.Import
import org.springframework.core.env.Environment
import org.springframework.scheduling.annotation.EnableScheduling
import org.springframework.scheduling.annotation.Scheduled
import org.springframework.stereotype.Component

/**
 * A Kotlin suspend job under @Scheduled (Spring Framework 6.1+) on two nodes that fire it at the
 * same moments: with holdAtLeast, one node runs it per period, never both, never at once.
 */
class ScheduledCoroutineIntegrationTests {

    companion object {
        @JvmField
        @RegisterExtension
        val redis = RedisServerExtension()

        val runs = CopyOnWriteArrayList<Interval>()
    }

    private fun node(name: String) = node(redis, ScheduledApp::class.java, name)

    @Test
    fun suspendJobWithHoldAtLeastRunsOncePerPeriodAcrossTwoNodes() {
        runs.clear()
        node("a").run { a ->
            assertThat(a).hasNotFailed()
            node("b").run { b ->
                assertThat(b).hasNotFailed()
                await().atMost(Duration.ofSeconds(30)).until { runs.size >= 8 }
            }
        }
        val sorted = runs.sortedBy { it.start }
        println("RUNS " + sorted.map { "${it.node}@${TimeUnit.NANOSECONDS.toMillis(it.start - sorted[0].start)}" })
        sorted.zipWithNext().forEach { (earlier, later) ->
            assertThat(later.start).`as`("a run starts after the one before ended").isGreaterThanOrEqualTo(earlier.end)
            // Both nodes fire every 300 ms; the lock is held 250 ms from each start: a second run in
            // the same period would start within a few milliseconds of the first.
            assertThat(TimeUnit.NANOSECONDS.toMillis(later.start - earlier.start))
                .`as`("milliseconds between two runs")
                .isGreaterThan(150)
        }
    }
}

@Component
class ReportCoroutine(private val node: NodeName) {

    @Scheduled(fixedRate = 300)
    @DistributedLock(key = ["report"], holdAtLeast = "250ms")
    suspend fun report() {
        val start = System.nanoTime()
        delay(20)
        ScheduledCoroutineIntegrationTests.runs.add(Interval(node.name, start, System.nanoTime()))
    }
}

@Configuration(proxyBeanMethods = false)
@EnableScheduling
@Import(ReportCoroutine::class)
class ScheduledApp {
    @Bean
    fun nodeName(environment: Environment) = NodeName(environment.getProperty("node", "?"))
}
