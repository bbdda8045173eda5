package dev.turnstile.spring.internal.actuate;

import dev.turnstile.redis.TurnstileException;
import dev.turnstile.spring.actuate.TurnstileEndpoint;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;
import redis.clients.jedis.exceptions.JedisException;

/**
 * {@code /actuator/turnstile} over HTTP: the {@link TurnstileEndpoint}'s report, and 503 Service
 * Unavailable with a problem-details body ({@code type}, {@code title}, {@code status}, {@code
 * detail}) when Redis cannot be reached, logged as one WARN line without a stack trace. Read only:
 * {@link WithForceRelease} adds the write operation.
 */
@EndpointWebExtension(endpoint = TurnstileEndpoint.class)
public class TurnstileEndpointWebExtension {

    private static final Logger log =
            LoggerFactory.getLogger("dev.turnstile.spring.actuate.TurnstileEndpointWebExtension");

    /** The endpoint answered. */
    protected final TurnstileEndpoint endpoint;

    /** Answers {@code endpoint}'s operations over HTTP. */
    public TurnstileEndpointWebExtension(TurnstileEndpoint endpoint) {
        this.endpoint = endpoint;
    }

    /** 200 with the report, or 503 when Redis cannot be reached. */
    @ReadOperation
    public WebEndpointResponse<Object> report() {
        return answer("read what Redis holds", this.endpoint::report);
    }

    /** Runs {@code call}; a Redis failure becomes a 503 and one WARN line naming {@code what}. */
    protected final WebEndpointResponse<Object> answer(String what, Supplier<?> call) {
        try {
            return new WebEndpointResponse<>(call.get(), WebEndpointResponse.STATUS_OK);
        } catch (TurnstileException | JedisException e) {
            log.warn("The turnstile endpoint could not {}: Redis did not answer ({})", what, e.getMessage());
            Map<String, Object> problem = new LinkedHashMap<>();
            problem.put("type", "about:blank");
            problem.put("title", "Service Unavailable");
            problem.put("status", WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE);
            problem.put("detail", "Redis could not be reached, so Turnstile could not " + what + "; try again later.");
            return new WebEndpointResponse<>(problem, WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE);
        }
    }

    /**
     * The web extension with the write operation: {@code POST /actuator/turnstile} with {@code
     * {"name": "item:42"}} frees that lock whoever holds it (see {@link
     * TurnstileEndpoint#forceRelease}). Used only when {@code turnstile.endpoint.force-release=true};
     * expose and secure it deliberately.
     */
    @EndpointWebExtension(endpoint = TurnstileEndpoint.class)
    public static class WithForceRelease extends TurnstileEndpointWebExtension {

        /** Answers {@code endpoint}'s operations over HTTP, force-release included. */
        public WithForceRelease(TurnstileEndpoint endpoint) {
            super(endpoint);
        }

        /** 200 with {@code {"released": [names]}}, or 503 when Redis cannot be reached. */
        @WriteOperation
        public WebEndpointResponse<Object> forceRelease(String name) {
            return answer("force-release '" + name + "'", () -> {
                Map<String, List<String>> released = this.endpoint.forceRelease(name);
                return released;
            });
        }
    }
}
