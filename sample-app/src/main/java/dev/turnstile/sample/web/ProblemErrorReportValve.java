package dev.turnstile.sample.web;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ErrorReportValve;
import org.springframework.http.HttpStatus;

/**
 * Tomcat's own error answers (a request it refused before any servlet saw it, such as a path with
 * an encoded {@code /} or {@code \}) as a problem detail rather than its HTML page. The body has the
 * status and a fixed text, nothing from the request.
 */
public class ProblemErrorReportValve extends ErrorReportValve {

    @Override
    protected void report(Request request, Response response, Throwable throwable) {
        int status = response.getStatus();
        if (status < 400 || response.getContentWritten() > 0 || !response.setErrorReported()) {
            return;
        }
        HttpStatus known = HttpStatus.resolve(status);
        String title = known == null ? "Error" : known.getReasonPhrase();
        String detail = status == 400
                ? "The request was refused before it reached the marketplace: check the path for characters such as"
                        + " an encoded / or \\\\."
                : "The request could not be completed.";
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
