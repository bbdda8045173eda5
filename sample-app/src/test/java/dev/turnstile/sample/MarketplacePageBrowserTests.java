package dev.turnstile.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.turnstile.test.redis.RedisServerExtension;
import java.io.File;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.support.ui.Select;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The page at {@code /} in a real browser: headless Chromium from the distribution ({@code
 * chromium}, {@code chromium-driver}) driven by Selenium. Skipped, saying why, where neither is
 * installed; {@code .ci/run} installs both.
 */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"sample.partner.latency=3s", "sample.runs.enabled=true", "turnstile.lock.wait-time=5s"})
class MarketplacePageBrowserTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @DynamicPropertySource
    static void redisProperties(DynamicPropertyRegistry registry) {
        TestRedis.use(registry, () -> redis.server().port());
    }

    private static final List<WebDriver> browsers = new ArrayList<>();

    @LocalServerPort
    int port;

    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeAll
    static void browserInstalled() {
        Assumptions.assumeTrue(
                executable(chromium()) && executable(chromedriver()),
                "Browser tests skipped: no Chromium here (looked for " + chromium() + " and " + chromedriver()
                        + "); install Debian's chromium and chromium-driver, or set CHROME_BIN and CHROMEDRIVER");
    }

    /** Each test's browsers are closed after it, so none keeps polling through the next. */
    @AfterEach
    void closeBrowsers() {
        synchronized (browsers) {
            browsers.forEach(WebDriver::quit);
            browsers.clear();
        }
    }

    @Test
    void thePageLoadsWithNoConsoleErrors() {
        WebDriver browser = open();
        assertThat(browser.getTitle()).isEqualTo("Turnstile marketplace");
        for (String panel : List.of("Market", "Users", "Held right now", "Partner cap", "Stream slots", "Table 6.3")) {
            assertThat(browser.findElement(By.tagName("main")).getText()).contains(panel);
        }
        List<LogEntry> severe = browser.manage().logs().get(LogType.BROWSER).getAll().stream()
                .filter(entry -> entry.getLevel().intValue() >= Level.SEVERE.intValue())
                .toList();
        assertThat(severe).as("console errors").isEmpty();
    }

    @Test
    void aPurchaseMadeInThePageUpdatesFundsAndInventory() {
        WebDriver browser = open();
        createUser(browser, "ann", 100);
        createUser(browser, "bob", 50);
        browser.findElement(By.id("item-id")).sendKeys("sword");
        select(browser, "item-user", "ann");
        browser.findElement(By.id("add-item")).click();
        awaitText(browser, "#users tr[data-user='ann'] .inventory", "sword");

        select(browser, "list-seller", "ann");
        await().atMost(Duration.ofSeconds(5))
                .until(() -> new Select(browser.findElement(By.id("list-item")))
                                .getOptions()
                                .size()
                        == 1);
        browser.findElement(By.id("list-price")).clear();
        browser.findElement(By.id("list-price")).sendKeys("40");
        browser.findElement(By.id("list-button")).click();
        awaitText(browser, "#listings tr[data-item='sword'][data-seller='ann']", "40");

        select(browser, "buyer", "bob");
        select(browser, "strategy", "fine");
        assertThat(click(browser, "#listings tr[data-item='sword'] .buy")).isTrue();
        awaitText(browser, "#trade-result", "Bought sword from ann for 40 as bob");
        awaitText(browser, "#users tr[data-user='bob'] .funds", "10");
        awaitText(browser, "#users tr[data-user='bob'] .inventory", "sword");
        awaitText(browser, "#users tr[data-user='ann'] .funds", "140");
        assertThat(browser.findElements(By.cssSelector("#listings tr[data-item='sword']")))
                .isEmpty();
    }

    @Test
    void twoBrowsersBuyTheSameListingAtOnceOneWinsAndTheOtherSeesWhy() throws Exception {
        api("/users", "{\"id\":\"eve\",\"funds\":0}");
        api("/users", "{\"id\":\"bob\",\"funds\":100}");
        api("/users", "{\"id\":\"cat\",\"funds\":100}");
        api("/users/eve/inventory", "{\"itemId\":\"crown\"}");
        api("/market/listings?strategy=fine", "{\"itemId\":\"crown\",\"sellerId\":\"eve\",\"price\":30}");
        WebDriver first = open();
        WebDriver second = open();
        Map<WebDriver, String> buyers = Map.of(first, "bob", second, "cat");
        for (Map.Entry<WebDriver, String> browser : buyers.entrySet()) {
            select(browser.getKey(), "buyer", browser.getValue());
            awaitText(browser.getKey(), "#listings tr[data-item='crown']", "30");
        }
        CyclicBarrier together = new CyclicBarrier(2);
        List<CompletableFuture<Void>> clicks = new ArrayList<>();
        for (WebDriver browser : List.of(first, second)) {
            clicks.add(CompletableFuture.runAsync(() -> {
                try {
                    together.await();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                assertThat(click(browser, "#listings tr[data-item='crown'] .buy"))
                        .as("the listing's Buy button was still on the page")
                        .isTrue();
            }));
        }
        clicks.forEach(CompletableFuture::join);
        List<String> results = new ArrayList<>();
        for (WebDriver browser : List.of(first, second)) {
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> !browser.findElement(By.id("trade-result"))
                            .getText()
                            .isEmpty());
            results.add(browser.findElement(By.id("trade-result")).getText());
        }
        assertThat(results).filteredOn(text -> text.startsWith("Bought crown")).hasSize(1);
        assertThat(results)
                .filteredOn(text -> text.contains("could not buy crown"))
                .singleElement()
                .satisfies(lost -> assertThat(lost)
                        .containsAnyOf(
                                "The item is not on the market at this price", "is being changed by another request"));
    }

    @Test
    void thePartnerPanelShowsFiveAcceptedAndThreeRefusedWithTheirRetryAfter() {
        WebDriver browser = open();
        browser.findElement(By.id("partner-account")).clear();
        browser.findElement(By.id("partner-account")).sendKeys("acct-page");
        browser.findElement(By.id("partner-fire")).click();
        awaitText(browser, "#held-permits", "account:acct-page");
        awaitText(browser, "#partner-summary", "5 accepted, 3 refused");
        List<String> refused = browser.findElements(By.cssSelector("#partner-results li.rejected")).stream()
                .map(item -> item.getText())
                .toList();
        assertThat(refused)
                .hasSize(3)
                .allSatisfy(text -> assertThat(text)
                        .contains("429", "retry after 1 s", "All 5 permits of 'account:acct-page' are in use"));
        assertThat(browser.findElements(By.cssSelector("#partner-results li.accepted")))
                .hasSize(5);
    }

    @Test
    void theTableAndLabRunsShowTheirProgressAndRowsAndTheScreenshotIsTaken() throws Exception {
        api("/users", "{\"id\":\"ann\",\"name\":\"Ann\",\"funds\":100}");
        api("/users", "{\"id\":\"bob\",\"name\":\"Bob\",\"funds\":50}");
        for (String item : List.of("sword", "shield", "lute")) {
            api("/users/ann/inventory", "{\"itemId\":\"" + item + "\"}");
        }
        api("/market/listings", "{\"itemId\":\"shield\",\"sellerId\":\"ann\",\"price\":25}");
        api("/market/listings", "{\"itemId\":\"lute\",\"sellerId\":\"ann\",\"price\":12}");
        WebDriver browser = open();
        select(browser, "table-seconds", "1");
        browser.findElement(By.id("table-run")).click();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> Integer.parseInt(
                                browser.findElement(By.id("table-progress")).getDomProperty("value"))
                        > 0);
        await().atMost(Duration.ofSeconds(60))
                .until(() ->
                        browser.findElement(By.id("table-status")).getText().equals("done"));
        assertThat(browser.findElement(By.id("table-progress")).getDomProperty("value"))
                .isEqualTo("9");
        assertThat(browser.findElements(By.cssSelector("#table-rows tbody tr"))).hasSize(9);
        assertThat(browser.findElement(By.cssSelector("#table-chart svg")).getText())
                .contains("items bought per 60 s", "1 lister, 1 buyer", "fine-grained lock");
        // The lab's outcomes are LockLabTests' business; here, that the page starts it and shows
        // its progress and rows as they come (the first two stages take about 4 s).
        browser.findElement(By.id("lab-run")).click();
        awaitText(browser, "#lab-status", "of 7");
        await().atMost(Duration.ofSeconds(30))
                .until(() -> browser.findElements(By.cssSelector("#lab-table tbody tr"))
                                .size()
                        >= 2);
        assertThat(Integer.parseInt(browser.findElement(By.id("lab-progress")).getDomProperty("value")))
                .isGreaterThanOrEqualTo(2);
        assertThat(browser.findElement(By.id("lab-table")).getText())
                .contains("holder crash", "naive SETNX lock (6.8)", "stuck forever", "SETNX + EXPIRE lock (6.11)");
        browser.findElement(By.id("partner-fire")).click();
        awaitText(browser, "#partner-summary", "5 accepted, 3 refused");

        Path shot = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE).toPath();
        Path target = Path.of(System.getProperty("sample.screenshot", "target/screenshots/marketplace-page.png"));
        Files.createDirectories(target.getParent());
        Files.copy(shot, target, StandardCopyOption.REPLACE_EXISTING);
        assertThat(Files.size(target)).isPositive();
    }

    private WebDriver open() {
        ChromeOptions options = new ChromeOptions();
        options.setBinary(chromium());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1440,2600");
        options.setCapability("goog:loggingPrefs", Map.of("browser", "ALL"));
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(chromedriver()))
                .usingAnyFreePort()
                .build();
        WebDriver browser = new ChromeDriver(service, options);
        synchronized (browsers) {
            browsers.add(browser);
        }
        browser.get("http://localhost:" + this.port + "/");
        await().atMost(Duration.ofSeconds(15))
                .until(() -> "true".equals(script(browser, "return document.body.dataset.ready")));
        return browser;
    }

    private static void createUser(WebDriver browser, String id, long funds) {
        browser.findElement(By.id("new-user-id")).sendKeys(id);
        browser.findElement(By.id("new-user-funds")).clear();
        browser.findElement(By.id("new-user-funds")).sendKeys(Long.toString(funds));
        browser.findElement(By.id("create-user")).click();
        awaitText(browser, "#users tr[data-user='" + id + "'] .funds", Long.toString(funds));
    }

    private static void select(WebDriver browser, String id, String value) {
        await().atMost(Duration.ofSeconds(5)).ignoreExceptions().untilAsserted(() -> {
            new Select(browser.findElement(By.id(id))).selectByValue(value);
            assertThat(new Select(browser.findElement(By.id(id)))
                            .getFirstSelectedOption()
                            .getDomProperty("value"))
                    .isEqualTo(value);
        });
    }

    private static void awaitText(WebDriver browser, String css, String text) {
        await().atMost(Duration.ofSeconds(10))
                .ignoreExceptions()
                .untilAsserted(() -> assertThat(
                                browser.findElement(By.cssSelector(css)).getText())
                        .contains(text));
    }

    /** Clicks what {@code css} finds in one script, so a table refreshed meanwhile cannot go stale. */
    private static boolean click(WebDriver browser, String css) {
        return Boolean.TRUE.equals(script(
                browser,
                "const target = document.querySelector(arguments[0]); if (target) { target.click(); } return !!target;",
                css));
    }

    private static Object script(WebDriver browser, String script, Object... arguments) {
        return ((JavascriptExecutor) browser).executeScript(script, arguments);
    }

    private void api(String path, String json) throws Exception {
        HttpResponse<String> answer = this.http.send(
                HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(json))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).as(path + " " + answer.body()).isEqualTo(201);
    }

    /** {@code $CHROME_BIN}, else {@code chromium} on the PATH (where {@code .ci/run} looks too). */
    private static String chromium() {
        return System.getenv().getOrDefault("CHROME_BIN", onPath("chromium"));
    }

    /** {@code $CHROMEDRIVER}, else {@code chromedriver} on the PATH. */
    private static String chromedriver() {
        return System.getenv().getOrDefault("CHROMEDRIVER", onPath("chromedriver"));
    }

    private static String onPath(String command) {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(File.pathSeparator)) {
            Path candidate = Path.of(dir, command);
            if (Files.isExecutable(candidate)) {
                return candidate.toString();
            }
        }
        return command + " (not on the PATH)";
    }

    private static boolean executable(String path) {
        return Files.isExecutable(Path.of(path));
    }
}
