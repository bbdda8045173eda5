package dev.turnstile.sample.web;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ErrorReportValve;
import org.springframework.http.HttpStatus;

/**
 * Tomcat's own error answers (a request it refused before any servlet saw it: a path with an
 * encoded {@code /} or {@code \}, or a request line and headers over the server's 64 KB) as a problem
 * detail rather than its HTML page, saying which of the two it was. The body has the status and a
 * fixed text, nothing from the request.
 */
public class ProblemErrorReportValve extends ErrorReportValve {

    /** Tomcat's own words for a request line or headers over its limit (there is no status of its own for it). */
    private static boolean tooLarge(Throwable throwable) {
        for (Throwable cause = throwable; cause != null; cause = cause.getCause()) {
            String message = String.valueOf(cause.getMessage()).toLowerCase(java.util.Locale.ROOT);
            if (message.contains("too large") || message.contains("header") && message.contains("size")) {
                return true;
            }
        }
        return false;
    }

    @Override
    protected void report(Request request, Response response, Throwable throwable) {
        int status = response.getStatus();
        if (status < 400 || response.getContentWritten() > 0 || !response.setErrorReported()) {
            return;
        }
        HttpStatus known = HttpStatus.resolve(status);
        String title = known == null ? "Error" : known.getReasonPhrase();
        String detail;
        if (status == 431 || (status == 400 && tooLarge(throwable))) {
            detail = "The request was refused before it reached the marketplace: its path and headers are over"
                    + " the 64 KB the server reads. Ids in a path are 1 to 64 characters, each a letter, a digit, '-'"
                    + " or '_'.";
        } else if (status == 400) {
            detail = "The request was refused before it reached the marketplace: its path holds a character the"
                    + " server does not accept there, such as an encoded / or \\\\.";
        } else {
            detail = "The request could not be completed.";
        }
        try {
            response.setContentType("application/problem+json");
            response.setCharacterEncoding(StandardCharsets.UTF_8.name());
            Writer writer = response.getReporter();
            if (writer != null) {
                writer.write("{\"title\":\"" + title + "\",\"status\":" + status + ",\"detail\":\"" + detail + "\"}");
                response.finishResponse();
            }
        } catch (IOException | IllegalStateException e) {
            // the client is gone, or the response was taken: nothing more to say
        }
    }
}
