package dev.turnstile.sample.web;

import dev.turnstile.redis.LockAcquisitionException;
import dev.turnstile.redis.RedisUnavailableException;
import dev.turnstile.redis.SemaphoreFullException;
import dev.turnstile.sample.market.Outcome;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Errors as RFC 9457 problem details: 409 when a lock was not acquired in time, 429 with
 * {@code Retry-After} when a semaphore is full, 400 for bad input, 503 when Redis is down.
 */
@RestControllerAdvice
class ProblemHandler {

    @ExceptionHandler(LockAcquisitionException.class)
    ProblemDetail lockBusy(LockAcquisitionException e) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, e.getMessage());
        problem.setTitle("Busy");
        problem.setProperty("lock", e.lockName());
        return problem;
    }

    @ExceptionHandler(SemaphoreFullException.class)
    ResponseEntity<ProblemDetail> semaphoreFull(SemaphoreFullException e) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.TOO_MANY_REQUESTS, e.getMessage());
        problem.setTitle("Too many concurrent calls");
        problem.setProperty("limit", e.limit());
        return ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS)
                .header(HttpHeaders.RETRY_AFTER, "1")
                .body(problem);
    }

    @ExceptionHandler(IllegalArgumentException.class)
    ProblemDetail badInput(IllegalArgumentException e) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, e.getMessage());
        problem.setTitle("Bad request");
        return problem;
    }

    @ExceptionHandler(TradeRefusedException.class)
    ProblemDetail refused(TradeRefusedException e) {
        HttpStatus status = e.outcome() == Outcome.GAVE_UP ? HttpStatus.CONFLICT : HttpStatus.BAD_REQUEST;
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, e.getMessage());
        problem.setTitle("Trade refused");
        problem.setProperty("outcome", e.outcome().name());
        return problem;
    }

    @ExceptionHandler(RedisUnavailableException.class)
    ProblemDetail redisDown(RedisUnavailableException e) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, e.getMessage());
        problem.setTitle("Redis unavailable");
        return problem;
    }
}
