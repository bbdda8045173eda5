package dev.turnstile.spring.web;

import dev.turnstile.redis.LockAcquisitionException;
import dev.turnstile.redis.LockLostException;
import dev.turnstile.redis.RedisUnavailableException;
import dev.turnstile.redis.SemaphoreFullException;
import java.time.Duration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Turns a guarded method's refusal into an HTTP answer, as an RFC 9457 problem detail ({@code
 * application/problem+json}), in Spring MVC and WebFlux alike:
 *
 * <ul>
 *   <li>{@link SemaphoreFullException}: 429 Too Many Requests with {@code Retry-After};
 *   <li>{@link LockAcquisitionException}: 409 Conflict when another owner held the lock for the
 *       whole wait; 503 Service Unavailable, without {@code Retry-After}, when the wait was
 *       interrupted ({@link LockAcquisitionException#isInterrupted()}: the server is shutting down
 *       or the request was cancelled; the lock was not taken and the guarded method did not run);
 *   <li>{@link LockLostException} thrown by the guarded method (its lease was lost while it ran,
 *       for instance {@code lease.extend(...)} found the lock taken): 409 Conflict, saying that
 *       the work may not have been exclusive;
 *   <li>{@link RedisUnavailableException}: 503 Service Unavailable with {@code Retry-After}.
 * </ul>
 *
 * <p>The body names the lock or semaphore as the annotation resolved it; it never carries a Redis
 * key, a Redis error or a stack trace. Ordered last, so the application's own {@code
 * @ExceptionHandler} methods and {@code @ControllerAdvice} beans win. Switched off by {@code
 * turnstile.web.problem-details=false}.
 */
@RestControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public class TurnstileProblemHandler {

    private final String retryAfterSeconds;

    /** Answers with {@code Retry-After: retryAfter} (whole seconds, at least 1) on 429 and 503. */
    public TurnstileProblemHandler(Duration retryAfter) {
        this.retryAfterSeconds = Long.toString(Math.max(1, (retryAfter.toMillis() + 999) / 1000));
    }

    /** 429: the semaphore had no free permit within the method's wait. */
    @ExceptionHandler(SemaphoreFullException.class)
    public ResponseEntity<ProblemDetail> semaphoreFull(SemaphoreFullException e) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(
                HttpStatus.TOO_MANY_REQUESTS,
                "All " + e.limit() + " permits of '" + e.semaphoreName() + "' are in use; retry after "
                        + this.retryAfterSeconds + "s.");
        problem.setTitle("Too many concurrent requests");
        problem.setProperty("semaphore", e.semaphoreName());
        problem.setProperty("limit", e.limit());
        return answer(HttpStatus.TOO_MANY_REQUESTS, problem, true);
    }

    /**
     * 409: another owner held the lock for the whole wait. 503 without {@code Retry-After} when the
     * wait was interrupted instead: that is no contention, and nothing says when to come back.
     */
    @ExceptionHandler(LockAcquisitionException.class)
    public ResponseEntity<ProblemDetail> lockBusy(LockAcquisitionException e) {
        if (e.isInterrupted()) {
            ProblemDetail problem = ProblemDetail.forStatusAndDetail(
                    HttpStatus.SERVICE_UNAVAILABLE,
                    "The request was interrupted while it waited for '" + e.lockName()
                            + "' (the server may be shutting down); the lock was not taken and the work it"
                            + " guards did not run. Send the request again.");
            problem.setTitle("Interrupted");
            problem.setProperty("lock", e.lockName());
            return answer(HttpStatus.SERVICE_UNAVAILABLE, problem, false);
        }
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(
                HttpStatus.CONFLICT, "'" + e.lockName() + "' is being changed by another request; try again.");
        problem.setTitle("Busy");
        problem.setProperty("lock", e.lockName());
        return answer(HttpStatus.CONFLICT, problem, false);
    }

    /**
     * 409: the lease of the guarded method was lost while it ran (another owner may have held the
     * lock meanwhile), so its work may not have been exclusive. No {@code Retry-After}: the work may
     * have taken effect, and the client should check the resource before sending it again.
     */
    @ExceptionHandler(LockLostException.class)
    public ResponseEntity<ProblemDetail> leaseLost(LockLostException e) {
        boolean semaphore = "semaphore".equals(e.kind());
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(
                HttpStatus.CONFLICT,
                semaphore
                        ? "A permit of '" + e.name() + "' was lost before the request finished; its work may have"
                                + " run beyond the semaphore's limit. Check what it changed before sending it again."
                        : "The lock '" + e.name() + "' was lost before the request finished; its work may not have"
                                + " been exclusive. Check what it changed before sending it again.");
        problem.setTitle(semaphore ? "Permit lost" : "Lock lost");
        problem.setProperty(semaphore ? "semaphore" : "lock", e.name());
        return answer(HttpStatus.CONFLICT, problem, false);
    }

    /** 503: Redis could not be reached, so the guard could not be taken; the method did not run. */
    @ExceptionHandler(RedisUnavailableException.class)
    public ResponseEntity<ProblemDetail> redisUnavailable(RedisUnavailableException e) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(
                HttpStatus.SERVICE_UNAVAILABLE,
                "The lock service is unavailable; retry after " + this.retryAfterSeconds + "s.");
        problem.setTitle("Service unavailable");
        return answer(HttpStatus.SERVICE_UNAVAILABLE, problem, true);
    }

    private ResponseEntity<ProblemDetail> answer(HttpStatus status, ProblemDetail problem, boolean retryAfter) {
        ResponseEntity.BodyBuilder response = ResponseEntity.status(status);
        if (retryAfter) {
            response.header(HttpHeaders.RETRY_AFTER, this.retryAfterSeconds);
        }
        return response.body(problem);
    }
}
