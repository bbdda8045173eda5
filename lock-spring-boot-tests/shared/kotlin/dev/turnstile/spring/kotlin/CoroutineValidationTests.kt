package dev.turnstile.spring.kotlin

import dev.turnstile.annotation.DistributedLock
import dev.turnstile.annotation.OnFailure
import dev.turnstile.annotation.Semaphore
import dev.turnstile.spring.BootLine
import dev.turnstile.spring.autoconfigure.TurnstileConfigurationException
import dev.turnstile.test.redis.RedisServerExtension
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flowOf
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.RegisterExtension
import org.springframework.boot.test.context.FilteredClassLoader
import org.springframework.boot.test.context.assertj.AssertableApplicationContext
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import org.springframework.context.annotation.Configuration
import org.springframework.context.annotation.Import
import org.springframework.stereotype.Service

/**
 * Startup validation of Kotlin classes: the compiler's static name$suspendImpl twins (annotated,
 * without parameter names) are not validated; a suspend function's own mistakes are reported with
 * its Kotlin signature; a guard the aspect could not hold for the whole coroutine fails the start.
 */
class CoroutineValidationTests {

    companion object {
        @JvmField
        @RegisterExtension
        val redis = RedisServerExtension()
    }

    private val runner = ApplicationContextRunner()
        .withConfiguration(BootLine.turnstile())
        .withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.server().port())

    @Test
    fun suspendFunctionsNamingTheirParametersStart() {
        runner.withUserConfiguration(CoroutineApp::class.java)
            .withPropertyValues("node=a")
            .run { context -> assertThat(context).hasNotFailed() }
    }

    @Test
    fun aSuspendFunctionsMistakesAreReportedOnceWithItsKotlinSignature() {
        runner.withUserConfiguration(BadCoroutinesApp::class.java).run { context ->
            val problems = problems(context)
            assertThat(problems).hasSize(2)
            assertThat(problems.joinToString("\n"))
                .contains(
                    "BadCoroutines.increment(String): key template 'counter:#idd' reads #idd, which is not a" +
                        " parameter; did you mean #id? Its parameters are #id (#p0)",
                )
                .contains("BadCoroutines.name(String): onFailure = SKIP makes this suspend fun return null, but it" +
                    " returns the non-null String: declare String? or Unit, or name a fallback")
                .doesNotContain("suspendImpl")
                .doesNotContain("-parameters")
        }
    }

    @Test
    fun guardsThatCannotHoldTheCoroutineFailTheStartWithoutTheBridge() {
        runner.withClassLoader(FilteredClassLoader("kotlinx.coroutines.reactor."))
            .withUserConfiguration(UnbridgedApp::class.java)
            .run { context ->
                val problems = problems(context).joinToString("\n")
                assertThat(problems)
                    .contains(
                        "Unbridged.increment(String): is a Kotlin suspend function, and" +
                            " org.jetbrains.kotlinx:kotlinx-coroutines-reactor is not on the class path",
                    )
                    .contains("add org.jetbrains.kotlinx:kotlinx-coroutines-reactor to the application's dependencies")
                    .contains("Unbridged.items(String): returns a Kotlin Flow, and")
            }
    }

    private fun problems(context: AssertableApplicationContext): List<String> {
        assertThat(context).hasFailed()
        var failure: Throwable? = context.startupFailure
        while (failure !is TurnstileConfigurationException && failure?.cause != null) {
            failure = failure.cause
        }
        assertThat(failure).isInstanceOf(TurnstileConfigurationException::class.java)
        return (failure as TurnstileConfigurationException).problems()
    }
}

@Service
class BadCoroutines {
    @DistributedLock(key = ["counter:#idd"])
    suspend fun increment(id: String): Long = id.length.toLong()

    @Semaphore(key = "name:#id", limit = 1, onFailure = OnFailure.SKIP)
    suspend fun name(id: String): String = id

    @Semaphore(key = "name:#id", limit = 1, onFailure = OnFailure.SKIP)
    suspend fun nullableName(id: String): String? = id

    @DistributedLock(key = ["unit:#id"], onFailure = OnFailure.SKIP)
    suspend fun nothing(id: String) = Unit
}

@Configuration(proxyBeanMethods = false)
@Import(BadCoroutines::class)
class BadCoroutinesApp

@Service
class Unbridged {
    @DistributedLock(key = ["counter:#id"])
    suspend fun increment(id: String): Long = id.length.toLong()

    @DistributedLock(key = ["items:#id"])
    fun items(id: String): Flow<String> = flowOf(id)
}

@Configuration(proxyBeanMethods = false)
@Import(Unbridged::class)
class UnbridgedApp
