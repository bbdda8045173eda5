package dev.turnstile.sample.web;

import java.net.URI;
import org.jspecify.annotations.Nullable;
import org.springframework.core.MethodParameter;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.http.server.ServerHttpRequest;
import org.springframework.http.server.ServerHttpResponse;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.servlet.mvc.method.annotation.ResponseBodyAdvice;

/**
 * A problem detail's {@code instance} (the request's path, which Spring fills in) is cut to its
 * first {@value ProblemHandler#ECHO} characters, whoever wrote the problem: an answer never repeats
 * a path of thousands of characters.
 */
@RestControllerAdvice
class ShortInstances implements ResponseBodyAdvice<Object> {

    @Override
    public boolean supports(MethodParameter returnType, Class<? extends HttpMessageConverter<?>> converterType) {
        return true;
    }

    @Override
    public @Nullable Object beforeBodyWrite(
            @Nullable Object body,
            MethodParameter returnType,
            MediaType selectedContentType,
            Class<? extends HttpMessageConverter<?>> selectedConverterType,
            ServerHttpRequest request,
            ServerHttpResponse response) {
        if (body instanceof ProblemDetail problem && problem.getInstance() != null) {
            String path = problem.getInstance().toString();
            if (path.length() > ProblemHandler.ECHO) {
                problem.setInstance(
                        URI.create(path.substring(0, ProblemHandler.ECHO).replaceAll("%[0-9A-Fa-f]?$", "") + "..."));
            }
        }
        return body;
    }
}
