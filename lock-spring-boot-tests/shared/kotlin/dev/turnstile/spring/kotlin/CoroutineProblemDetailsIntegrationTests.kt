package dev.turnstile.spring.kotlin

import dev.turnstile.annotation.DistributedLock
import dev.turnstile.annotation.Semaphore
import dev.turnstile.test.redis.RedisServerExtension
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.util.concurrent.CompletableFuture
import java.util.concurrent.TimeUnit
import kotlinx.coroutines.CompletableDeferred
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.RegisterExtension
import org.springframework.boot.WebApplicationType
import org.springframework.boot.autoconfigure.EnableAutoConfiguration
import org.springframework.boot.builder.SpringApplicationBuilder
import org.springframework.context.ConfigurableApplicationContext
import org.springframework.context.annotation.Configuration
import org.springframework.context.annotation.Import
import org.springframework.stereotype.Service
import org.springframework.web.bind.annotation.GetMapping
import org.springframework.web.bind.annotation.PathVariable
import org.springframework.web.bind.annotation.RequestParam
import org.springframework.web.bind.annotation.RestController

/**
 * A Kotlin controller with suspend handlers calling a guarded suspend service, in a real Netty
 * (WebFlux) and a real Tomcat (Spring MVC) server: a full semaphore answers 429, a busy lock 409,
 * as problem details, as a Java controller's refusals do.
 */
class CoroutineProblemDetailsIntegrationTests {

    companion object {
        @JvmField
        @RegisterExtension
        val redis = RedisServerExtension()

        @Volatile
        var gate = CompletableDeferred<Unit>()
        val http: HttpClient = HttpClient.newHttpClient()
    }

    private var app: ConfigurableApplicationContext? = null

    @AfterEach
    fun stop() {
        gate.complete(Unit)
        app?.close()
    }

    @Test
    fun refusalsOfSuspendFunctionsAreProblemDetailsInWebFlux() = refusalsAreProblemDetails(WebApplicationType.REACTIVE)

    @Test
    fun refusalsOfSuspendFunctionsAreProblemDetailsInSpringMvc() = refusalsAreProblemDetails(WebApplicationType.SERVLET)

    private fun refusalsAreProblemDetails(type: WebApplicationType) {
        app = SpringApplicationBuilder(WebApp::class.java)
            .web(type)
            .properties(
                "server.port=0",
                "spring.main.banner-mode=off",
                "spring.data.redis.host=127.0.0.1",
                "spring.data.redis.port=" + redis.server().port(),
                "management.health.redis.enabled=false",
            )
            .run()
        val port = app!!.environment.getProperty("local.server.port")
        fun get(path: String) = http.sendAsync(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:$port$path")).build(),
            HttpResponse.BodyHandlers.ofString(),
        )

        // A first call of each handler loads what it needs, outside the timed part.
        assertThat(get("/quote/warm").get(60, TimeUnit.SECONDS).statusCode()).isEqualTo(200)
        assertThat(get("/item/warm").get(60, TimeUnit.SECONDS).statusCode()).isEqualTo(200)

        gate = CompletableDeferred()
        CoroutineWebService.entered = CompletableFuture()
        var holder: CompletableFuture<HttpResponse<String>> = get("/quote/acme?hold=true")
        CoroutineWebService.entered.get(30, TimeUnit.SECONDS)
        val full = get("/quote/acme").get(30, TimeUnit.SECONDS)
        assertThat(full.statusCode()).isEqualTo(429)
        assertThat(full.headers().firstValue("Content-Type")).hasValue("application/problem+json")
        assertThat(full.headers().firstValue("Retry-After")).isPresent
        assertThat(full.body()).contains("\"semaphore\":\"quote:acme\"").contains("\"limit\":1")
        gate.complete(Unit)
        assertThat(holder.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200)

        gate = CompletableDeferred()
        CoroutineWebService.entered = CompletableFuture()
        holder = get("/item/42?hold=true")
        CoroutineWebService.entered.get(30, TimeUnit.SECONDS)
        val busy = get("/item/42").get(30, TimeUnit.SECONDS)
        assertThat(busy.statusCode()).isEqualTo(409)
        assertThat(busy.headers().firstValue("Content-Type")).hasValue("application/problem+json")
        assertThat(busy.body()).contains("\"lock\":\"item:42\"").doesNotContain("turnstile:")
        gate.complete(Unit)
        assertThat(holder.get(30, TimeUnit.SECONDS).body()).isEqualTo("item 42")
    }
}

@Service
class CoroutineWebService {
    companion object {
        @Volatile
        var entered = CompletableFuture<Unit>()
    }

    @Semaphore(key = "quote:#account", limit = 1)
    suspend fun quote(account: String, hold: Boolean): String {
        if (hold) {
            entered.complete(Unit)
            CoroutineProblemDetailsIntegrationTests.gate.await()
        }
        return "quote for $account"
    }

    @DistributedLock(key = ["item:#id"], waitTime = "0s")
    suspend fun item(id: String, hold: Boolean): String {
        if (hold) {
            entered.complete(Unit)
            CoroutineProblemDetailsIntegrationTests.gate.await()
        }
        return "item $id"
    }
}

@RestController
class CoroutineController(private val service: CoroutineWebService) {
    @GetMapping("/quote/{account}")
    suspend fun quote(@PathVariable account: String, @RequestParam(defaultValue = "false") hold: Boolean) =
        service.quote(account, hold)

    @GetMapping("/item/{id}")
    suspend fun item(@PathVariable id: String, @RequestParam(defaultValue = "false") hold: Boolean) =
        service.item(id, hold)
}

@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
@Import(CoroutineWebService::class, CoroutineController::class)
class WebApp
