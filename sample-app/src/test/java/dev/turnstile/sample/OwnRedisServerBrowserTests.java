package dev.turnstile.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.support.ui.Select;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * The sample as it starts by default, on a redis-server of its own with the market street, in a real
 * browser: when that server dies, the page says once that it was started again and shows the street
 * again, and trades go on.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class OwnRedisServerBrowserTests {

    @BeforeAll
    static void browserInstalled() {
        MarketplacePageBrowserTests.assumeBrowser();
    }

    @LocalServerPort
    int port;

    @Autowired
    OwnRedisServer server;

    @Test
    void whenTheSamplesOwnServerDiesThePageSaysSoOnceAndShowsTheMarketStreetAgain() {
        WebDriver browser = MarketplacePageBrowserTests.launch(this.port);
        try {
            await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(
                                    browser.findElement(By.id("where")).getText())
                            .startsWith("Data: the sample's own redis-server at 127.0.0.1:" + this.server.port()));
            buyTheLampAsBen(browser);
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> browser.findElements(By.cssSelector("#listings tr[data-item='lamp']"))
                            .isEmpty());

            ProcessHandle.of(this.server.pid()).orElseThrow().destroyForcibly();

            await().atMost(Duration.ofSeconds(20))
                    .until(() -> browser.findElement(By.id("notice")).isDisplayed());
            assertThat(browser.findElement(By.id("notice-text")).getText())
                    .matches("The sample's redis-server died at \\d\\d:\\d\\d:\\d\\d and was started again on the"
                            + " same port\\. Its data died with it, so the market street was loaded again\\.");
            await().atMost(Duration.ofSeconds(10))
                    .ignoreExceptions()
                    .untilAsserted(
                            () -> assertThat(browser.findElement(By.cssSelector("#users tr[data-user='ben'] .funds"))
                                            .getText())
                                    .isEqualTo("150"));
            assertThat(browser.findElements(By.cssSelector("#listings tbody tr")))
                    .hasSize(4);
            buyTheLampAsBen(browser);
            assertThat(browser.findElement(By.id("banner")).isDisplayed())
                    .as("nothing is left unavailable")
                    .isFalse();
        } finally {
            browser.quit();
        }
    }

    private static void buyTheLampAsBen(WebDriver browser) {
        await().atMost(Duration.ofSeconds(10)).ignoreExceptions().untilAsserted(() -> {
            new Select(browser.findElement(By.id("buyer"))).selectByValue("ben");
            assertThat(browser.findElements(By.cssSelector("#listings tr[data-item='lamp'] .buy")))
                    .isNotEmpty();
        });
        MarketplacePageBrowserTests.script(
                browser, "document.querySelector(\"#listings tr[data-item='lamp'] .buy\").click()");
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(
                                browser.findElement(By.id("trade-result")).getText())
                        .startsWith("Ben bought the lamp from Cara for 25 (fine): got market:lamp.cara, funds:ben"));
    }
}
