package dev.turnstile.spring.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.redis.LockAcquisitionException;
import dev.turnstile.redis.LockLostException;
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
                this.handler.lockBusy(LockAcquisitionException.of("item:42", Duration.ofSeconds(5)));
        assertThat(answer.getStatusCode().value()).isEqualTo(409);
        assertThat(answer.getBody().getProperties()).containsEntry("lock", "item:42");
    }

    @Test
    void anInterruptedWaitIs503WithoutRetryAfter() {
        ResponseEntity<ProblemDetail> answer =
                this.handler.lockBusy(LockAcquisitionException.interrupted("item:42", Duration.ofMillis(30)));
        assertThat(answer.getStatusCode().value()).isEqualTo(503);
        assertThat(answer.getHeaders().containsHeader(HttpHeaders.RETRY_AFTER)).isFalse();
        assertThat(answer.getBody().getDetail())
                .startsWith("The request was interrupted while it waited for 'item:42'");
        assertThat(answer.getBody().getProperties()).containsEntry("lock", "item:42");
    }

    @Test
    void aLostLockIs409SayingTheWorkMayNotHaveBeenExclusive() {
        ResponseEntity<ProblemDetail> answer =
                this.handler.leaseLost(LockLostException.of("lock", "item:42", "another owner holds it"));
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
        ResponseEntity<ProblemDetail> answer =
                this.handler.leaseLost(LockLostException.of("semaphore", "partner:acme", "it expired in Redis"));
        assertThat(answer.getStatusCode().value()).isEqualTo(409);
        assertThat(answer.getBody().getTitle()).isEqualTo("Permit lost");
        assertThat(answer.getBody().getDetail())
                .startsWith("A permit of 'partner:acme' was lost before the request finished; its work may have run"
                        + " beyond the semaphore's limit.");
        assertThat(answer.getBody().getProperties())
                .containsEntry("semaphore", "partner:acme")
                .doesNotContainKey("lock");
    }
}
