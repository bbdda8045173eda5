package dev.turnstile.sample.web;

import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.boot.webmvc.error.ErrorController;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code /error}: what escaped every handler (and what the servlet container refused) answered as
 * a problem detail with the status and a generic text, never the exception's message. Replaces
 * Spring Boot's whitelabel error page and JSON.
 */
@RestController
class ProblemErrorController implements ErrorController {

    @RequestMapping("/error")
    ResponseEntity<ProblemDetail> error(HttpServletRequest request) {
        Object code = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE);
        HttpStatus status =
                code instanceof Integer value ? HttpStatus.resolve(value) : HttpStatus.INTERNAL_SERVER_ERROR;
        if (status == null || status == HttpStatus.INTERNAL_SERVER_ERROR) {
            return ProblemHandler.internalError();
        }
        ProblemDetail problem = ProblemDetail.forStatus(status);
        problem.setTitle(status.getReasonPhrase());
        problem.setDetail(
                status.is4xxClientError()
                        ? "The request was refused: " + status.getReasonPhrase() + "."
                        : "The request could not be completed.");
        return ResponseEntity.status(status).body(problem);
    }
}
