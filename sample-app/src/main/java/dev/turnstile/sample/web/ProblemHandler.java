package dev.turnstile.sample.web;

import dev.turnstile.sample.market.Outcome;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * The marketplace's own errors as RFC 9457 problem details: 400 for bad input, 409 or 400 for a
 * refused trade. A busy lock (409), a full semaphore (429) and Redis down (503) are answered by
 * the starter.
 */
@RestControllerAdvice
class ProblemHandler {

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
}
