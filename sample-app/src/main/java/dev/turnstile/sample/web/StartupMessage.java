package dev.turnstile.sample.web;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ApplicationListener;
import org.springframework.stereotype.Component;

/** Logs the address to open once the web application is ready to answer. */
@Component
class StartupMessage implements ApplicationListener<ApplicationReadyEvent> {

    private static final Log log = LogFactory.getLog(StartupMessage.class);

    @Override
    public void onApplicationEvent(ApplicationReadyEvent event) {
        if (event.getApplicationContext() instanceof WebServerApplicationContext web && web.getWebServer() != null) {
            int port = web.getWebServer().getPort();
            log.info("The marketplace is ready: open http://localhost:" + port + "/ (health: http://localhost:" + port
                    + "/actuator/health).");
        }
    }
}
