package dev.turnstile.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.turnstile.test.redis.RedisServer;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.logging.Level;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
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
 *
 * <p>The application loads the book's example at startup, and its Redis is not flushed between the
 * tests, which run in order: the first open sees the example as loaded.
 */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "sample.partner.latency=3s",
            "sample.runs.enabled=true",
            "turnstile.lock.wait-time=10s",
            "sample.example.load-on-start=true",
            "spring.data.redis.timeout=1s",
            "spring.data.redis.connect-timeout=1s"
        })
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MarketplacePageBrowserTests {

    static final RedisServer redis = RedisServer.start();

    @DynamicPropertySource
    static void redisProperties(DynamicPropertyRegistry registry) {
        TestRedis.use(registry, redis::port);
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    private static final List<WebDriver> browsers = new ArrayList<>();

    @LocalServerPort
    int port;

    @BeforeAll
    static void browserInstalled() {
        assumeBrowser();
    }

    /** Skips the calling test class, saying why, where Chromium and its driver are not installed. */
    static void assumeBrowser() {
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
    @Order(1)
    void theFirstOpenShowsTheBooksMarketplaceAndWhatToTryInEachPanel() {
        WebDriver browser = open();
        assertThat(browser.getTitle()).isEqualTo("Turnstile marketplace");
        assertThat(rows(browser, "#listings tbody tr"))
                .containsExactly(
                        "ItemA 4 Seller 4 35 Buy",
                        "ItemC 7 Seller 7 48 Buy",
                        "ItemE 2 Seller 2 60 Buy",
                        "ItemG 3 Seller 3 73 Buy");
        assertThat(browser.findElement(By.cssSelector("#users tr[data-user='17']"))
                        .getText())
                .isEqualTo("17 Frank 43 ItemL, ItemM, ItemN");
        assertThat(browser.findElement(By.cssSelector("#users tr[data-user='27']"))
                        .getText())
                .isEqualTo("27 Bill 125 ItemO, ItemP, ItemQ");
        Map<String, List<String>> named = new LinkedHashMap<>();
        named.put(
                "market-panel",
                List.of(
                        "@DistributedLock(key = {\"market:#itemId.#sellerId\", \"funds:#buyerId\"})",
                        "FineLockMarket.purchaseItem",
                        "CoarseLockMarket",
                        "WatchMarket"));
        named.put("users-panel", List.of("BookExample"));
        named.put("held-panel", List.of("TurnstileDiagnostics.heldLocks()", "HeldController"));
        named.put("partner-panel", List.of("@Semaphore(key = \"account:#accountId\", limit = 5)", "PartnerApi.quote"));
        named.put("stream-panel", List.of("RedisSemaphore.tryAcquire", "StreamController"));
        named.put("table-panel", List.of("Table63", "WorkerLockMarket"));
        named.put("lab-panel", List.of("LockLab", "BookLocks"));
        named.forEach((panel, names) -> {
            WebElement steps = browser.findElement(By.cssSelector("#" + panel + " ol.try"));
            assertThat(steps.findElements(By.tagName("li")))
                    .as(panel + ": numbered steps")
                    .isNotEmpty();
            assertThat(browser.findElement(By.id(panel)).getText()).as(panel).contains(names);
        });
        assertThat(browser.findElement(By.id("log-panel")).getText()).contains("TradeLog", "GuardObserver");
        assertThat(browser.findElement(By.id("held-panel")).getText())
                .as("the held panel says what its holder and time left mean, and its scope")
                .contains("holder", "time left", "lease", "databases 1 and 2");
        List<LogEntry> severe = browser.manage().logs().get(LogType.BROWSER).getAll().stream()
                .filter(entry -> entry.getLevel().intValue() >= Level.SEVERE.intValue())
                .toList();
        assertThat(severe).as("console errors").isEmpty();
    }

    @Test
    @Order(2)
    void theBooksFiguresListingAndPurchaseMadeInThePageUpdateFundsAndInventory() {
        WebDriver browser = open();
        select(browser, "list-seller", "17");
        select(browser, "list-item", "ItemM");
        browser.findElement(By.id("list-price")).clear();
        browser.findElement(By.id("list-price")).sendKeys("97");
        browser.findElement(By.id("list-button")).click();
        awaitText(browser, "#listings tr[data-item='ItemM'][data-seller='17']", "97");
        awaitText(browser, "#users tr[data-user='17'] .inventory", "ItemL, ItemN");

        select(browser, "buyer", "27");
        select(browser, "strategy", "fine");
        assertThat(click(browser, "#listings tr[data-item='ItemM'] .buy")).isTrue();
        awaitText(browser, "#trade-result", "Bought ItemM from 17 for 97 as 27 (fine): waited");
        awaitText(browser, "#users tr[data-user='27'] .funds", "28");
        awaitText(browser, "#users tr[data-user='27'] .inventory", "ItemM, ItemO, ItemP, ItemQ");
        awaitText(browser, "#users tr[data-user='17'] .funds", "140");
        assertThat(browser.findElements(By.cssSelector("#listings tr[data-item='ItemM']")))
                .isEmpty();
    }

    @Test
    @Order(3)
    void twoBrowsersBuyOneListingInASlowTradeOneBuysItAndTheOtherIsSeenWaitingForItsLock() throws Exception {
        WebDriver first = open();
        WebDriver second = open();
        first.findElement(By.id("load-example")).click();
        awaitText(first, "#users tr[data-user='17'] .funds", "43");
        awaitText(first, "#users tr[data-user='27'] .funds", "125");
        Map<WebDriver, String> buyers = Map.of(first, "27", second, "17");
        for (Map.Entry<WebDriver, String> browser : buyers.entrySet()) {
            select(browser.getKey(), "buyer", browser.getValue());
            select(browser.getKey(), "strategy", "fine");
            browser.getKey().findElement(By.id("slow")).click();
            assertThat(browser.getKey().findElement(By.id("slow")).isSelected()).isTrue();
            awaitText(browser.getKey(), "#listings tr[data-item='ItemA'][data-seller='4']", "35");
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
                assertThat(click(browser, "#listings tr[data-item='ItemA'] .buy"))
                        .as("the listing's Buy button was still on the page")
                        .isTrue();
            }));
        }
        clicks.forEach(CompletableFuture::join);
        // While the first holds the listing's lock for its 3 s, the page shows the lock held and the
        // other trade waiting for it.
        awaitText(first, "#held-locks", "market:ItemA.4");
        await().atMost(Duration.ofSeconds(5))
                .ignoreExceptions()
                .untilAsserted(
                        () -> assertThat(first.findElement(By.cssSelector("#trades tr[data-state='waiting'] .outcome"))
                                        .getText())
                                .isEqualTo("waiting for its locks…"));

        List<String> results = new ArrayList<>();
        for (WebDriver browser : List.of(first, second)) {
            await().atMost(Duration.ofSeconds(15))
                    .until(() -> !browser.findElement(By.id("trade-result"))
                            .getText()
                            .contains("is buying"));
            results.add(browser.findElement(By.id("trade-result")).getText());
        }
        assertThat(results).filteredOn(text -> text.startsWith("Bought ItemA")).hasSize(1);
        String lost = results.stream()
                .filter(text -> text.contains("could not buy ItemA"))
                .findFirst()
                .orElseThrow();
        assertThat(lost).contains("The item is not on the market at this price.", "market:ItemA.4", "fencing tokens");
        Matcher waited = Pattern.compile("It waited (\\d+\\.\\d) s for").matcher(lost);
        assertThat(waited.find()).as(lost).isTrue();
        assertThat(Double.parseDouble(waited.group(1)))
                .as("the loser waited for the winner's 3 s hold")
                .isGreaterThanOrEqualTo(2.0);

        // The lock log: one winner, one that waited, and the waiter's fencing token is the larger.
        await().atMost(Duration.ofSeconds(5))
                .until(() -> first.findElements(By.cssSelector("#trades tr.lost"))
                                        .size()
                                == 1
                        && first.findElements(By.cssSelector("#trades tr.won")).size() >= 2);
        // The log's table is redrawn on every poll: read it in one go, again if a redraw made a row stale.
        await().atMost(Duration.ofSeconds(5))
                .ignoreException(StaleElementReferenceException.class)
                .untilAsserted(() -> {
                    WebElement winner = first.findElement(By.cssSelector("#trades tr.won"));
                    WebElement waiter = first.findElement(By.cssSelector("#trades tr.lost"));
                    assertThat(winner.getText()).contains("buy ItemA of 4 at 35, slow");
                    assertThat(winner.findElement(By.cssSelector(".outcome")).getText())
                            .isEqualTo("bought it");
                    assertThat(waiter.findElement(By.cssSelector(".outcome")).getText())
                            .isEqualTo("not on the market at this price: sold");
                    assertThat(seconds(waiter.findElement(By.cssSelector(".waited"))
                                    .getText()))
                            .isGreaterThanOrEqualTo(2.0);
                    assertThat(seconds(winner.findElement(By.cssSelector(".waited"))
                                    .getText()))
                            .isLessThan(1.0);
                    assertThat(lastToken(waiter)).as("tokens of market:ItemA.4").isGreaterThan(lastToken(winner));
                    assertThat(List.of(who(winner), who(waiter))).containsExactlyInAnyOrder("27 Bill", "17 Frank");
                });
    }

    @Test
    @Order(4)
    void thePartnerPanelShowsFiveAcceptedAndThreeRefusedWithTheirRetryAdviceOnce() {
        WebDriver browser = open();
        browser.findElement(By.id("partner-account")).clear();
        browser.findElement(By.id("partner-account")).sendKeys("acct-page");
        browser.findElement(By.id("partner-fire")).click();
        awaitText(browser, "#held-permits", "account:acct-page");
        awaitText(browser, "#partner-summary", "5 accepted, 3 refused");
        List<String> refused = browser.findElements(By.cssSelector("#partner-results li.rejected")).stream()
                .map(item -> item.getText())
                .toList();
        assertThat(refused).hasSize(3).allSatisfy(text -> {
            assertThat(text).contains("429", "All 5 permits of 'account:acct-page' are in use");
            assertThat(text.split("retry after", -1))
                    .as("'retry after' once in: " + text)
                    .hasSize(2);
        });
        assertThat(browser.findElements(By.cssSelector("#partner-results li.accepted")))
                .hasSize(5);
    }

    @Test
    @Order(5)
    void theTableAndLabRunsShowTheirProgressAndRowsAndTheScreenshotIsTaken() throws Exception {
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
        assertThat(browser.findElements(By.cssSelector("#table-rows tbody tr:not(.book)")))
                .hasSize(9);
        assertThat(browser.findElements(By.cssSelector("#table-rows tbody tr.book")))
                .as("the book's row under each measured one")
                .hasSize(9);
        WebElement chart = browser.findElement(By.cssSelector("#table-chart svg"));
        assertThat(chart.getText())
                .contains("items bought per 60 s", "rows of 1 s", "book 110,000", "1 lister, 1 buyer");
        assertThat(chart.getSize().getWidth())
                .as("the chart spans the panel")
                .isGreaterThan(
                        browser.findElement(By.id("table-panel")).getSize().getWidth() * 3 / 4);
        // The lab's outcomes are LockLabTests' business; here, that the page starts it and shows
        // its progress and rows as they come (the first two stages take about 4 s), coloured.
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
        assertThat(browser.findElement(By.cssSelector("#lab-table td.verdict.broken"))
                        .getText())
                .startsWith("stuck forever");
        assertThat(browser.findElement(By.cssSelector("#lab-table td.verdict.held"))
                        .getText())
                .startsWith("recovered after");

        // For the picture: a slow trade holding its locks and a partner burst holding its permits.
        select(browser, "buyer", "27");
        browser.findElement(By.id("slow")).click();
        browser.findElement(By.id("partner-fire")).click();
        assertThat(click(browser, "#listings tr[data-item='ItemG'] .buy")).isTrue();
        awaitText(browser, "#held-locks", "market:ItemG.3");
        awaitText(browser, "#held-permits", "account:acct-7");
        ((JavascriptExecutor) browser).executeScript("window.scrollTo(0, 0)");
        long height = (Long) script(browser, "return document.documentElement.scrollHeight");
        browser.manage().window().setSize(new Dimension(1440, (int) Math.min(height + 40, 6000)));
        Path shot = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE).toPath();
        Path target = Path.of(System.getProperty("sample.screenshot", "target/screenshots/marketplace-page.png"));
        Files.createDirectories(target.toAbsolutePath().getParent());
        Files.copy(shot, target, StandardCopyOption.REPLACE_EXISTING);
        assertThat(Files.size(target)).isPositive();
        awaitText(browser, "#partner-summary", "5 accepted, 3 refused");
        awaitText(browser, "#trade-result", "Bought ItemG");
    }

    @Test
    @Order(6)
    void whenRedisStopsAnsweringTheBannerSaysSoOnceAndThePanelsGreyOutWithTheirAge() {
        WebDriver browser = open();
        redis.pause();
        try {
            await().atMost(Duration.ofSeconds(15))
                    .ignoreExceptions()
                    .untilAsserted(() -> assertThat(
                                    browser.findElement(By.id("banner")).getText())
                            .startsWith("Redis does not answer. Since ")
                            .contains("the panels show their last data, greyed")
                            .doesNotContain("retry after"));
            await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
                for (String panel : List.of("market-panel", "users-panel", "held-panel")) {
                    WebElement section = browser.findElement(By.id(panel));
                    assertThat(section.getDomAttribute("class")).as(panel).contains("stale");
                    assertThat(section.findElement(By.cssSelector(".stale-note"))
                                    .getText())
                            .as(panel)
                            .matches("last updated \\d+ s ago");
                }
            });
            assertThat(script(browser, "return document.querySelector('#listings .buy').closest('[inert]') !== null"))
                    .as("the stale listing's Buy buttons cannot be clicked")
                    .isEqualTo(Boolean.TRUE);
            assertThat(rows(browser, "#listings tbody tr"))
                    .as("the last listings stay on the page")
                    .isNotEmpty();
        } finally {
            redis.resume();
        }
        await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
            assertThat(browser.findElement(By.id("banner")).isDisplayed()).isFalse();
            assertThat(browser.findElement(By.id("market-panel")).getDomAttribute("class"))
                    .doesNotContain("stale");
        });
    }

    private static List<String> rows(WebDriver browser, String css) {
        return browser.findElements(By.cssSelector(css)).stream()
                .map(WebElement::getText)
                .toList();
    }

    /** "2.9 s" is 2.9. */
    private static double seconds(String text) {
        return Double.parseDouble(text.replace(" s", "").trim());
    }

    /** The last fencing token of a lock log row: the listing's lock, which sorts after the funds'. */
    private static long lastToken(WebElement row) {
        String[] tokens = row.findElement(By.cssSelector(".tokens")).getText().split(",\\s*");
        return Long.parseLong(tokens[tokens.length - 1].trim());
    }

    private static String who(WebElement row) {
        return row.findElement(By.cssSelector(".who")).getText();
    }

    private WebDriver open() {
        WebDriver browser = launch(this.port);
        synchronized (browsers) {
            browsers.add(browser);
        }
        return browser;
    }

    /** A headless Chromium with the page at {@code port} open and ready; the caller quits it. */
    static WebDriver launch(int port) {
        ChromeOptions options = new ChromeOptions();
        options.setBinary(chromium());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1440,2600");
        options.setCapability("goog:loggingPrefs", Map.of("browser", "ALL"));
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(chromedriver()))
                .usingAnyFreePort()
                .build();
        WebDriver browser = new ChromeDriver(service, options);
        try {
            browser.get("http://localhost:" + port + "/");
            await().atMost(Duration.ofSeconds(15))
                    .until(() -> "true".equals(script(browser, "return document.body.dataset.ready")));
        } catch (RuntimeException e) {
            browser.quit();
            throw e;
        }
        return browser;
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

    static Object script(WebDriver browser, String script, Object... arguments) {
        return ((JavascriptExecutor) browser).executeScript(script, arguments);
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
