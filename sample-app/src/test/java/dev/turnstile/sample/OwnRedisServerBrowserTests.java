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
 * The sample as it starts by default, on a redis-server of its own with the book's example, in a
 * real browser: when that server dies, the page says once that it was started again and shows the
 * example again, and trades go on.
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
    void whenTheSamplesOwnServerDiesThePageSaysSoOnceAndShowsTheBooksExampleAgain() {
        WebDriver browser = MarketplacePageBrowserTests.launch(this.port);
        try {
            await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(
                                    browser.findElement(By.id("where")).getText())
                            .startsWith("Data: the sample's own redis-server at 127.0.0.1:" + this.server.port()));
            buyItemAAsBill(browser);
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> browser.findElements(By.cssSelector("#listings tr[data-item='ItemA']"))
                            .isEmpty());

            ProcessHandle.of(this.server.pid()).orElseThrow().destroyForcibly();

            await().atMost(Duration.ofSeconds(20))
                    .until(() -> browser.findElement(By.id("notice")).isDisplayed());
            assertThat(browser.findElement(By.id("notice-text")).getText())
                    .matches("The sample's redis-server died at \\d\\d:\\d\\d:\\d\\d and was started again on the"
                            + " same port\\. Its data died with it, so the book's example was loaded again\\.");
            await().atMost(Duration.ofSeconds(10))
                    .ignoreExceptions()
                    .untilAsserted(
                            () -> assertThat(browser.findElement(By.cssSelector("#users tr[data-user='27'] .funds"))
                                            .getText())
                                    .isEqualTo("125"));
            assertThat(browser.findElements(By.cssSelector("#listings tbody tr")))
                    .hasSize(4);
            buyItemAAsBill(browser);
            assertThat(browser.findElement(By.id("banner")).isDisplayed())
                    .as("nothing is left unavailable")
                    .isFalse();
        } finally {
            browser.quit();
        }
    }

    private static void buyItemAAsBill(WebDriver browser) {
        await().atMost(Duration.ofSeconds(10)).ignoreExceptions().untilAsserted(() -> {
            new Select(browser.findElement(By.id("buyer"))).selectByValue("27");
            assertThat(browser.findElements(By.cssSelector("#listings tr[data-item='ItemA'] .buy")))
                    .isNotEmpty();
        });
        MarketplacePageBrowserTests.script(
                browser, "document.querySelector(\"#listings tr[data-item='ItemA'] .buy\").click()");
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(
                                browser.findElement(By.id("trade-result")).getText())
                        .startsWith("Bought ItemA from 4 for 35 as 27 (fine): waited"));
    }
}
