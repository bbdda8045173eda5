package dev.turnstile.sample.web;

import dev.turnstile.redis.RedisUnavailableException;
import dev.turnstile.sample.market.Outcome;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.TypeMismatchException;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.validation.FieldError;
import org.springframework.web.bind.MethodArgumentNotValidException;
import org.springframework.web.bind.MissingServletRequestParameterException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;
import org.springframework.web.servlet.resource.NoResourceFoundException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisException;
import tools.jackson.core.JacksonException;
import tools.jackson.core.exc.InputCoercionException;
import tools.jackson.databind.exc.MismatchedInputException;

/**
 * The marketplace's errors as RFC 9457 problem details ({@code application/problem+json}):
 *
 * <ul>
 *   <li>400 for bad input, naming each field or parameter and its rule ({@code errors}: field and
 *       message), whether the body was malformed, incomplete or out of the rules;
 *   <li>404 for a user that does not exist, 409 for one created twice; 400 or 409 for a refused
 *       trade;
 *   <li>503 with {@code Retry-After} when Redis cannot be reached or is not ready, on every path
 *       that uses it;
 *   <li>Spring MVC's own errors (unknown path, wrong method or media type) as Spring words them.
 * </ul>
 *
 * <p>A client never sees an exception's own message, a Redis key or a key template: only the texts
 * written here. A busy lock (409) and a full semaphore (429) are answered by the starter; whatever
 * escapes every handler is answered by {@link ProblemErrorController}.
 */
@RestControllerAdvice
@Order(Ordered.HIGHEST_PRECEDENCE)
class ProblemHandler extends ResponseEntityExceptionHandler {

    private static final Log log = LogFactory.getLog(ProblemHandler.class);

    private static final java.util.regex.Pattern NOT_READY = java.util.regex.Pattern.compile(
            "READONLY|LOADING|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|BUSY|Could not get a resource from the pool");

    private final String retryAfterSeconds;

    ProblemHandler(@Value("${turnstile.web.retry-after:1s}") Duration retryAfter) {
        this.retryAfterSeconds = Long.toString(Math.max(1, (retryAfter.toMillis() + 999) / 1000));
    }

    @ExceptionHandler(InvalidInputException.class)
    ResponseEntity<ProblemDetail> invalidInput(InvalidInputException e) {
        return badRequest(e.getMessage(), List.of(fieldError(e.field(), e.getMessage())));
    }

    @ExceptionHandler(UnknownUserException.class)
    ResponseEntity<ProblemDetail> unknownUser(UnknownUserException e) {
        return answer(HttpStatus.NOT_FOUND, "Not found", e.getMessage());
    }

    /** 429 without Retry-After: a stream slot frees only when a stream closes. */
    @ExceptionHandler(StreamSlotsFullException.class)
    ResponseEntity<ProblemDetail> streamSlotsFull(StreamSlotsFullException e) {
        return answer(HttpStatus.TOO_MANY_REQUESTS, "No stream slot free", e.getMessage());
    }

    @ExceptionHandler(UserExistsException.class)
    ResponseEntity<ProblemDetail> userExists(UserExistsException e) {
        return answer(HttpStatus.CONFLICT, "Already exists", e.getMessage());
    }

    @ExceptionHandler(TradeRefusedException.class)
    ResponseEntity<ProblemDetail> refused(TradeRefusedException e) {
        HttpStatus status = e.outcome() == Outcome.GAVE_UP ? HttpStatus.CONFLICT : HttpStatus.BAD_REQUEST;
        ProblemDetail problem = problem(status, "Trade refused", e.getMessage());
        problem.setProperty("outcome", e.outcome().name());
        problem.setProperty("trade", e.trade());
        return ResponseEntity.status(status).body(problem);
    }

    /** Redis could not be reached or is not ready (or no connection was free in time): 503. */
    @ExceptionHandler(JedisException.class)
    ResponseEntity<ProblemDetail> redis(JedisException e) {
        if (!unavailable(e)) {
            log.error("A Redis command of the marketplace failed", e);
            return internalError();
        }
        return unavailable();
    }

    /**
     * A guard could not be taken because Redis is unavailable. The starter answers this too; it is
     * answered here because the handler above would otherwise claim it through its cause.
     */
    @ExceptionHandler(RedisUnavailableException.class)
    ResponseEntity<ProblemDetail> guardUnavailable(RedisUnavailableException e) {
        return unavailable();
    }

    private ResponseEntity<ProblemDetail> unavailable() {
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
                .header(HttpHeaders.RETRY_AFTER, this.retryAfterSeconds)
                .body(problem(
                        HttpStatus.SERVICE_UNAVAILABLE,
                        "Service unavailable",
                        "The data store is unavailable; retry after " + this.retryAfterSeconds + "s."));
    }

    /**
     * 404 for a path nothing answers, without echoing the path in the detail (a path can be
     * thousands of characters; {@link ShortInstances} shortens the instance).
     */
    @Override
    protected @Nullable ResponseEntity<Object> handleNoResourceFoundException(
            NoResourceFoundException e, HttpHeaders headers, HttpStatusCode status, WebRequest request) {
        return new ResponseEntity<>(
                problem(
                        HttpStatus.NOT_FOUND,
                        "Not found",
                        "Nothing is served at this path: the page is at /, the API under /users, /market, /trades,"
                                + " /held, /accounts and /runs (see the sample's README)."),
                HttpStatus.NOT_FOUND);
    }

    /** How many characters of a path an answer repeats. */
    static final int ECHO = 80;

    @Override
    protected @Nullable ResponseEntity<Object> handleMethodArgumentNotValid(
            MethodArgumentNotValidException e, HttpHeaders headers, HttpStatusCode status, WebRequest request) {
        List<Map<String, String>> errors = new ArrayList<>();
        for (FieldError error : e.getBindingResult().getFieldErrors()) {
            errors.add(fieldError(error.getField(), "'" + error.getField() + "' " + error.getDefaultMessage() + "."));
        }
        errors.sort((a, b) -> a.get("field").compareTo(b.get("field")));
        String detail = errors.stream().map(error -> error.get("message")).collect(Collectors.joining(" "));
        return new ResponseEntity<>(badRequest(detail, errors).getBody(), HttpStatus.BAD_REQUEST);
    }

    @Override
    protected @Nullable ResponseEntity<Object> handleTypeMismatch(
            TypeMismatchException e, HttpHeaders headers, HttpStatusCode status, WebRequest request) {
        String name =
                e instanceof MethodArgumentTypeMismatchException argument ? argument.getName() : e.getPropertyName();
        String message = "'" + name + "' must be " + expected(e.getRequiredType()) + ".";
        return new ResponseEntity<>(
                badRequest(message, List.of(fieldError(String.valueOf(name), message)))
                        .getBody(),
                HttpStatus.BAD_REQUEST);
    }

    @Override
    protected @Nullable ResponseEntity<Object> handleMissingServletRequestParameter(
            MissingServletRequestParameterException e, HttpHeaders headers, HttpStatusCode status, WebRequest request) {
        String message = "'" + e.getParameterName() + "' is required.";
        return new ResponseEntity<>(
                badRequest(message, List.of(fieldError(e.getParameterName(), message)))
                        .getBody(),
                HttpStatus.BAD_REQUEST);
    }

    @Override
    protected @Nullable ResponseEntity<Object> handleHttpMessageNotReadable(
            HttpMessageNotReadableException e, HttpHeaders headers, HttpStatusCode status, WebRequest request) {
        JacksonException json = find(e, JacksonException.class);
        String field = json == null ? "" : path(json);
        ResponseEntity<ProblemDetail> answer;
        if (json == null) {
            answer = badRequest("The request needs a JSON body.", List.of());
        } else if (json instanceof MismatchedInputException mismatch && !field.isEmpty()) {
            String message = "'" + field + "' must be " + expected(mismatch.getTargetType()) + ".";
            answer = badRequest(message, List.of(fieldError(field, message)));
        } else if (json instanceof InputCoercionException && !field.isEmpty()) {
            String message = "'" + field + "' is out of range.";
            answer = badRequest(message, List.of(fieldError(field, message)));
        } else {
            answer = badRequest("The request body is not valid JSON.", List.of());
        }
        return new ResponseEntity<>(answer.getBody(), HttpStatus.BAD_REQUEST);
    }

    private static ResponseEntity<ProblemDetail> badRequest(String detail, List<Map<String, String>> errors) {
        ProblemDetail problem = problem(HttpStatus.BAD_REQUEST, "Bad request", detail);
        if (!errors.isEmpty()) {
            problem.setProperty("errors", errors);
        }
        return ResponseEntity.badRequest().body(problem);
    }

    static ResponseEntity<ProblemDetail> internalError() {
        return answer(
                HttpStatus.INTERNAL_SERVER_ERROR,
                "Internal error",
                "The request could not be completed; the server logged why.");
    }

    private static ResponseEntity<ProblemDetail> answer(HttpStatus status, String title, String detail) {
        return ResponseEntity.status(status).body(problem(status, title, detail));
    }

    private static ProblemDetail problem(HttpStatus status, String title, String detail) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
        problem.setTitle(title);
        return problem;
    }

    private static Map<String, String> fieldError(String field, String message) {
        Map<String, String> error = new LinkedHashMap<>();
        error.put("field", field);
        error.put("message", message);
        return error;
    }

    /** Not there, not ready (loading, a replica, a failover, a busy script), or no connection free. */
    private static boolean unavailable(JedisException e) {
        return find(e, JedisConnectionException.class) != null
                || NOT_READY.matcher(String.valueOf(e.getMessage())).lookingAt();
    }

    private static String path(JacksonException json) {
        return json.getPath().stream()
                .map(reference -> reference.getPropertyName() != null
                        ? reference.getPropertyName()
                        : "[" + reference.getIndex() + "]")
                .collect(Collectors.joining("."));
    }

    private static String expected(@Nullable Class<?> type) {
        if (type == null) {
            return "of another type";
        }
        if (type == Long.class
                || type == long.class
                || type == Integer.class
                || type == int.class
                || type == BigDecimal.class) {
            return "a whole number";
        }
        if (type == Boolean.class || type == boolean.class) {
            return "true or false";
        }
        if (type == String.class) {
            return "a string";
        }
        return "of another type";
    }

    private static <T extends Throwable> @Nullable T find(Throwable e, Class<T> type) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (type.isInstance(cause)) {
                return type.cast(cause);
            }
        }
        return null;
    }
}
