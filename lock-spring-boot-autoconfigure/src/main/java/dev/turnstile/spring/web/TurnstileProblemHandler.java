package dev.turnstile.spring.web;

import dev.turnstile.redis.LeaseKind;
import dev.turnstile.redis.LockAcquisitionException;
import dev.turnstile.redis.LockLostException;
import dev.turnstile.redis.RedisUnavailableException;
import dev.turnstile.redis.SemaphoreFullException;
import dev.turnstile.redis.TurnstileException;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Duration;
import java.util.Locale;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.server.ResponseStatusException;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebExceptionHandler;
import reactor.core.publisher.Mono;

/**
 * Turns a guarded method's refusal into an HTTP answer, in Spring MVC and WebFlux alike:
 *
 * <ul>
 *   <li>{@link SemaphoreFullException}: 429 Too Many Requests with {@code Retry-After};
 *   <li>{@link LockAcquisitionException}: 409 Conflict with {@code Retry-After} when another owner
 *       held the lock for the whole wait; 503 Service Unavailable, without {@code Retry-After}, when
 *       the wait was interrupted ({@link LockAcquisitionException#isInterrupted()}: the server is
 *       shutting down or the request was cancelled; the lock was not taken and the guarded method
 *       did not run);
 *   <li>{@link LockLostException} thrown by the guarded method (its lease was lost while it ran,
 *       for instance {@code lease.extend(...)} found the lock taken, or found at the release): 409
 *       Conflict without {@code Retry-After}, saying how it was lost when known ({@code "released
 *       by an operator"}, property {@code reason}) and whether the work was rolled back (property
 *       {@code rolledBack}: a transaction refused at its commit) or may not have been exclusive;
 *   <li>{@link RedisUnavailableException}: 503 Service Unavailable with {@code Retry-After}.
 * </ul>
 *
 * <p>The answer is negotiated like Spring's own errors: a client that asks for {@code text/html}
 * first (a browser) gets the application's error page with that status and headers (in Spring MVC
 * through {@code sendError}, so Spring Boot's error controller renders {@code error/429.html},
 * {@code error/4xx.html} or its default page; in WebFlux through Spring Boot's error web exception
 * handler, given a {@link ResponseStatusException}); every other client gets an RFC 9457 problem
 * detail ({@code application/problem+json}).
 *
 * <p>The body names the lock or semaphore as the annotation resolved it; it never carries a Redis
 * key, a Redis error or a stack trace. Ordered last, so the application's own {@code
 * @ExceptionHandler} methods and {@code @ControllerAdvice} beans win. Switched off by {@code
 * turnstile.web.problem-details=false}. Use {@link Servlet} in a Spring MVC application and {@link
 * Reactive} in a WebFlux one: they add the HTML answers.
 */
@RestControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public class TurnstileProblemHandler {

    private final String retryAfterSeconds;

    /** Answers with {@code Retry-After: retryAfter} (whole seconds, at least 1) on 429, 409 (busy) and 503. */
    public TurnstileProblemHandler(Duration retryAfter) {
        this.retryAfterSeconds = Long.toString(Math.max(1, (retryAfter.toMillis() + 999) / 1000));
    }

    /**
     * The problem detail for a client that does not prefer {@code text/html}: 429 for a full
     * semaphore; 409 with {@code Retry-After} for a busy lock, 503 without it for an interrupted
     * wait (that is no contention, and nothing says when to come back); 409 without {@code
     * Retry-After} for a lost lease (the work may have taken effect, and the client should check the
     * resource before sending it again); 503 when Redis could not be reached. See {@link #answer}.
     */
    @ExceptionHandler({
        SemaphoreFullException.class,
        LockAcquisitionException.class,
        LockLostException.class,
        RedisUnavailableException.class
    })
    public ResponseEntity<ProblemDetail> problemDetail(TurnstileException e) {
        return answer(e).entity();
    }

    /** Returns the answer to {@code e}, one of the four exceptions this handler answers. */
    protected final Answer answer(TurnstileException e) {
        if (e instanceof SemaphoreFullException full) {
            return new Answer(
                            problem(
                                    HttpStatus.TOO_MANY_REQUESTS,
                                    "Too many concurrent requests",
                                    "All " + full.limit() + " permits of '" + full.semaphoreName()
                                            + "' are in use; retry after " + this.retryAfterSeconds + "s."),
                            this.retryAfterSeconds)
                    .with(LeaseKind.SEMAPHORE.label(), full.semaphoreName())
                    .with("limit", full.limit());
        }
        if (e instanceof LockAcquisitionException busy && busy.isInterrupted()) {
            return new Answer(
                            problem(
                                    HttpStatus.SERVICE_UNAVAILABLE,
                                    "Interrupted",
                                    "The request was interrupted while it waited for '" + busy.lockName()
                                            + "' (the server may be shutting down); the lock was not taken and the"
                                            + " work it guards did not run. Send the request again."),
                            null)
                    .with(LeaseKind.LOCK.label(), busy.lockName());
        }
        if (e instanceof LockAcquisitionException busy) {
            return new Answer(
                            problem(
                                    HttpStatus.CONFLICT,
                                    "Busy",
                                    "'" + busy.lockName() + "' is being changed by another request; retry after "
                                            + this.retryAfterSeconds + "s."),
                            this.retryAfterSeconds)
                    .with(LeaseKind.LOCK.label(), busy.lockName());
        }
        if (e instanceof LockLostException lost) {
            return lost(lost);
        }
        return new Answer(
                problem(
                        HttpStatus.SERVICE_UNAVAILABLE,
                        "Service Unavailable",
                        "The lock service is unavailable; retry after " + this.retryAfterSeconds + "s."),
                this.retryAfterSeconds);
    }

    private static ProblemDetail problem(HttpStatus status, String title, String detail) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
        problem.setTitle(title);
        return problem;
    }

    /**
     * 409 for a lease lost while its request ran: how it was lost, when known ("released by an
     * operator"), and what became of the work: rolled back, or done but perhaps not exclusively.
     */
    private static Answer lost(LockLostException lost) {
        boolean semaphore = lost.kind() == LeaseKind.SEMAPHORE;
        String what = semaphore ? "A permit of '" + lost.name() + "'" : "The lock '" + lost.name() + "'";
        String how = lost.reason() == null ? "was lost" : "was " + lost.reason().description();
        String work;
        if (lost.isRolledBack()) {
            work = "its changes were rolled back and did not take effect. Send the request again.";
        } else if (semaphore) {
            work = "its work may have run beyond the semaphore's limit. Check what it changed before sending it again.";
        } else {
            work = "its work may not have been exclusive. Check what it changed before sending it again.";
        }
        Answer answer = new Answer(
                        problem(
                                HttpStatus.CONFLICT,
                                semaphore ? "Permit lost" : "Lock lost",
                                what + " " + how + " before the request finished; " + work),
                        null)
                .with(lost.kind().label(), lost.name());
        if (lost.reason() != null) {
            answer.with("reason", lost.reason().name().toLowerCase(Locale.ROOT));
        }
        return answer.with("rolledBack", lost.isRolledBack());
    }

    /**
     * One answer: its problem detail (status, title, detail, properties) and {@code Retry-After}.
     *
     * @param problem the problem detail, whose status is the answer's
     * @param retryAfter the {@code Retry-After} value in seconds, or null for none
     */
    protected record Answer(ProblemDetail problem, @Nullable String retryAfter) {

        private Answer with(String property, Object value) {
            this.problem.setProperty(property, value);
            return this;
        }

        /** Returns the HTTP status. */
        public HttpStatus status() {
            return HttpStatus.valueOf(this.problem.getStatus());
        }

        /** Returns the problem-details answer. */
        public ResponseEntity<ProblemDetail> entity() {
            ResponseEntity.BodyBuilder response = ResponseEntity.status(status());
            if (this.retryAfter != null) {
                response.header(HttpHeaders.RETRY_AFTER, this.retryAfter);
            }
            return response.body(this.problem);
        }
    }

    /**
     * The error page for a client that prefers {@code text/html}, in one web stack: the same four
     * exceptions as {@link #problemDetail}, each subclass rendering the page its stack's way.
     *
     * @param <T> what the stack's handler method writes the page to: the servlet response, or the
     *     reactive exchange
     */
    @RestControllerAdvice
    @Order(Ordered.LOWEST_PRECEDENCE)
    public abstract static class ErrorPages<T> extends TurnstileProblemHandler {

        ErrorPages(Duration retryAfter) {
            super(retryAfter);
        }

        /**
         * Renders the error page for {@code e} into {@code target}. The four exceptions are named
         * here once; Spring finds this annotation on each stack's override.
         */
        @ExceptionHandler(
                value = {
                    SemaphoreFullException.class,
                    LockAcquisitionException.class,
                    LockLostException.class,
                    RedisUnavailableException.class
                },
                produces = MediaType.TEXT_HTML_VALUE)
        public abstract @Nullable Object errorPage(TurnstileException e, T target) throws IOException;
    }

    /**
     * In a Spring MVC application: a browser's refusal is sent as an error ({@code
     * HttpServletResponse.sendError}) with the status and {@code Retry-After}, so the application's
     * error page renders it, as Spring answers its own {@code ResponseStatusException}.
     */
    @RestControllerAdvice
    @Order(Ordered.LOWEST_PRECEDENCE)
    public static class Servlet extends ErrorPages<HttpServletResponse> {

        /** See {@link TurnstileProblemHandler#TurnstileProblemHandler(Duration)}. */
        public Servlet(Duration retryAfter) {
            super(retryAfter);
        }

        /** Sends the error; the response is handled, so nothing is returned. */
        @Override
        public @Nullable Void errorPage(TurnstileException e, HttpServletResponse response) throws IOException {
            Answer answer = answer(e);
            if (answer.retryAfter() != null) {
                response.setHeader(HttpHeaders.RETRY_AFTER, answer.retryAfter());
            }
            response.sendError(answer.status().value(), answer.problem().getDetail());
            return null;
        }
    }

    /**
     * In a WebFlux application: a browser's refusal becomes a {@link ResponseStatusException} with
     * the status (and {@code Retry-After} on the response), handed to the application's {@link
     * WebExceptionHandler}s in their order, as an error that escaped the handler would be: Spring
     * Boot's error web exception handler renders the application's error page.
     */
    @RestControllerAdvice
    @Order(Ordered.LOWEST_PRECEDENCE)
    public static class Reactive extends ErrorPages<ServerWebExchange> {

        private final ObjectProvider<WebExceptionHandler> errorHandlers;

        /**
         * See {@link TurnstileProblemHandler#TurnstileProblemHandler(Duration)}; {@code
         * errorHandlers} render the error pages.
         */
        public Reactive(Duration retryAfter, ObjectProvider<WebExceptionHandler> errorHandlers) {
            super(retryAfter);
            this.errorHandlers = errorHandlers;
        }

        /** Hands the error to the application's error handlers; completes when the page is written. */
        @Override
        public Mono<Void> errorPage(TurnstileException e, ServerWebExchange exchange) {
            Answer answer = answer(e);
            if (answer.retryAfter() != null) {
                exchange.getResponse().getHeaders().set(HttpHeaders.RETRY_AFTER, answer.retryAfter());
            }
            Mono<Void> page = Mono.error(new ResponseStatusException(
                    answer.status(), answer.problem().getDetail(), e));
            for (WebExceptionHandler handler :
                    this.errorHandlers.orderedStream().toList()) {
                page = page.onErrorResume(error -> handler.handle(exchange, error));
            }
            return page;
        }
    }
}
