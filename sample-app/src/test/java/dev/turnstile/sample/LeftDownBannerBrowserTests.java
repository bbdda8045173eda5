package dev.turnstile.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;

/**
 * The sample's own redis-server dies more often than it is restarted, and is left down: the page's
 * banner says so ("restart the sample") and keeps saying it while the page goes on asking, rather
 * than turning into the generic "Redis does not answer" on the next failed read.
 */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "spring.application.name=left-down-banner")
@DirtiesContext
class LeftDownBannerBrowserTests {

    @BeforeAll
    static void browserInstalled() {
        MarketplacePageBrowserTests.assumeBrowser();
    }

    @LocalServerPort
    int port;

    @Autowired
    OwnRedisServer server;

    @Test
    void theLeftDownBannerStaysWhileItIsTrue() {
        WebDriver browser = MarketplacePageBrowserTests.launch(this.port);
        try {
            for (int death = 1; death <= OwnRedisServer.MAX_RESTARTS + 1; death++) {
                ProcessHandle.of(this.server.pid()).orElseThrow().destroyForcibly();
                int restarted = death;
                await().atMost(Duration.ofSeconds(15))
                        .until(() -> this.server.status().restarts() == restarted
                                || this.server.status().failure() != null);
            }
            assertThat(this.server.status().failure()).contains("it is left down. Restart the sample.");
            await().atMost(Duration.ofSeconds(10))
                    .ignoreExceptions()
                    .until(() -> banner(browser).contains("it is left down. Restart the sample."));
            // Over several rounds of the page's polls (every 1 s and 3 s), each failing with 503.
            await().during(Duration.ofSeconds(8))
                    .atMost(Duration.ofSeconds(12))
                    .until(() -> banner(browser).contains("it is left down. Restart the sample."));
            assertThat(browser.findElement(By.id("market-panel")).getDomAttribute("class"))
                    .contains("stale");
        } finally {
            browser.quit();
        }
    }

    private static String banner(WebDriver browser) {
        return String.valueOf(MarketplacePageBrowserTests.script(
                browser, "const b = document.getElementById('banner'); return b.hidden ? '' : b.textContent;"));
    }
}
