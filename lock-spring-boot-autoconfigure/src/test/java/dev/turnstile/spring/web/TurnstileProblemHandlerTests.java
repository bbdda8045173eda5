package dev.turnstile.spring.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.redis.LeaseKind;
import dev.turnstile.redis.LeaseLostEvent;
import dev.turnstile.redis.LockAcquisitionException;
import dev.turnstile.redis.LockLostException;
import dev.turnstile.redis.RedisUnavailableException;
import dev.turnstile.redis.SemaphoreFullException;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;

/** The answer chosen for each failure; the integration tests show them on real servers. */
class TurnstileProblemHandlerTests {

    private final TurnstileProblemHandler handler = new TurnstileProblemHandler(Duration.ofSeconds(2));

    @Test
    void aLockHeldForTheWholeWaitIs409() {
        ResponseEntity<ProblemDetail> answer =
                this.handler.problemDetail(LockAcquisitionException.of("item:42", Duration.ofSeconds(5)));
        assertThat(answer.getStatusCode().value()).isEqualTo(409);
        assertThat(answer.getBody().getProperties()).containsEntry("lock", "item:42");
    }

    @Test
    void anInterruptedWaitIs503WithoutRetryAfter() {
        ResponseEntity<ProblemDetail> answer =
                this.handler.problemDetail(LockAcquisitionException.interrupted("item:42", Duration.ofMillis(30)));
        assertThat(answer.getStatusCode().value()).isEqualTo(503);
        assertThat(answer.getHeaders().containsHeader(HttpHeaders.RETRY_AFTER)).isFalse();
        assertThat(answer.getBody().getDetail())
                .startsWith("The request was interrupted while it waited for 'item:42'");
        assertThat(answer.getBody().getProperties()).containsEntry("lock", "item:42");
    }

    @Test
    void aLostLockIs409SayingTheWorkMayNotHaveBeenExclusive() {
        ResponseEntity<ProblemDetail> answer =
                this.handler.problemDetail(LockLostException.of(LeaseKind.LOCK, "item:42", "another owner holds it"));
        assertThat(answer.getStatusCode().value()).isEqualTo(409);
        assertThat(answer.getHeaders().containsHeader(HttpHeaders.RETRY_AFTER)).isFalse();
        assertThat(answer.getBody().getTitle()).isEqualTo("Lock lost");
        assertThat(answer.getBody().getDetail())
                .isEqualTo("The lock 'item:42' was lost before the request finished; its work may not have been"
                        + " exclusive. Check what it changed before sending it again.");
        assertThat(answer.getBody().getProperties()).containsEntry("lock", "item:42");
    }

    @Test
    void aLostPermitIs409NamingTheSemaphore() {
        ResponseEntity<ProblemDetail> answer = this.handler.problemDetail(
                LockLostException.of(LeaseKind.SEMAPHORE, "partner:acme", "it expired in Redis"));
        assertThat(answer.getStatusCode().value()).isEqualTo(409);
        assertThat(answer.getBody().getTitle()).isEqualTo("Permit lost");
        assertThat(answer.getBody().getDetail())
                .startsWith("A permit of 'partner:acme' was lost before the request finished; its work may have run"
                        + " beyond the semaphore's limit.");
        assertThat(answer.getBody().getProperties())
                .containsEntry("semaphore", "partner:acme")
                .doesNotContainKey("lock");
    }

    @Test
    void aFullSemaphoreIs429WithRetryAfterInWholeSeconds() {
        ResponseEntity<ProblemDetail> answer = new TurnstileProblemHandler(Duration.ofMillis(1500))
                .problemDetail(SemaphoreFullException.of("partner:acme", 5, Duration.ZERO));
        assertThat(answer.getStatusCode().value()).isEqualTo(429);
        assertThat(answer.getHeaders().getFirst(HttpHeaders.RETRY_AFTER)).isEqualTo("2");
        assertThat(answer.getBody().getTitle()).isEqualTo("Too many concurrent requests");
        assertThat(answer.getBody().getDetail())
                .isEqualTo("All 5 permits of 'partner:acme' are in use; retry after 2s.");
        assertThat(answer.getBody().getProperties())
                .containsEntry("semaphore", "partner:acme")
                .containsEntry("limit", 5);
    }

    @Test
    void aBusyLockCarriesRetryAfterOfAtLeastOneSecond() {
        ResponseEntity<ProblemDetail> answer = new TurnstileProblemHandler(Duration.ofMillis(10))
                .problemDetail(LockAcquisitionException.of("item:42", Duration.ofSeconds(5)));
        assertThat(answer.getHeaders().getFirst(HttpHeaders.RETRY_AFTER)).isEqualTo("1");
        assertThat(answer.getBody().getDetail())
                .isEqualTo("'item:42' is being changed by another request; retry after 1s.");
    }

    @Test
    void redisUnavailableIs503WithRetryAfterAndNoRedisError() {
        ResponseEntity<ProblemDetail> answer = this.handler.problemDetail(
                new RedisUnavailableException("Could not reach redis-7:6379", new IllegalStateException("refused")));
        assertThat(answer.getStatusCode().value()).isEqualTo(503);
        assertThat(answer.getHeaders().getFirst(HttpHeaders.RETRY_AFTER)).isEqualTo("2");
        assertThat(answer.getBody().getDetail()).isEqualTo("The lock service is unavailable; retry after 2s.");
        assertThat(answer.getBody().getProperties()).isNull();
    }

    @Test
    void aLeaseLostBeforeTheCommitSaysHowAndThatTheWorkWasRolledBack() {
        ResponseEntity<ProblemDetail> answer = this.handler.problemDetail(LockLostException.rolledBack(
                LeaseKind.LOCK, "item:42", LeaseLostEvent.Reason.FORCE_RELEASED, "it was released by an operator"));
        assertThat(answer.getStatusCode().value()).isEqualTo(409);
        assertThat(answer.getBody().getDetail())
                .isEqualTo("The lock 'item:42' was " + LeaseLostEvent.Reason.FORCE_RELEASED.description()
                        + " before the request finished; its changes were rolled back and did not take effect."
                        + " Send the request again.");
        assertThat(answer.getBody().getProperties())
                .containsEntry("lock", "item:42")
                .containsEntry("reason", "force_released")
                .containsEntry("rolledBack", true);
    }
}
