package dev.turnstile.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.turnstile.test.redis.RedisServer;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.logging.Level;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
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
 * <p>The application loads the market street at startup, and its Redis is not flushed between the
 * tests, which run in order: the first open sees the street as loaded, and the guided steps and the
 * race follow one another as a person following the page would.
 */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "sample.partner.latency=3s",
            "sample.runs.enabled=true",
            "turnstile.lock.wait-time=10s",
            "sample.example.load-on-start=true",
            "spring.data.redis.timeout=5s",
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
    void theFirstOpenShowsTheMarketStreetWhatEachPanelShowsAndTheCodeOneClickAway() throws Exception {
        WebDriver browser = open();
        assertThat(browser.getTitle()).isEqualTo("Turnstile marketplace");
        assertThat(rows(browser, "#listings tbody tr"))
                .containsExactly(
                        "lamp Cara 25 Buy Race",
                        "teapot Dev 30 Buy Race",
                        "chess-set Cara 45 Buy Race",
                        "bicycle Dev 80 Buy Race");
        assertThat(rows(browser, "#users tbody tr"))
                .containsExactly("ann Ann 120 guitar, typewriter", "ben Ben 150 camera", "cara Cara 40", "dev Dev 60");
        Map<String, List<String>> code = new LinkedHashMap<>();
        code.put(
                "market-panel",
                List.of(
                        "@DistributedLock(key = {\"market:#itemId.#sellerId\", \"funds:#buyerId\"})",
                        "FineLockMarket.purchaseItem",
                        "CoarseLockMarket",
                        "WatchMarket"));
        code.put("log-panel", List.of("TradeLog", "GuardObserver"));
        code.put("users-panel", List.of("Scene.STREET", "Scene.BOOK"));
        code.put("held-panel", List.of("TurnstileDiagnostics.heldLocks()", "HeldController"));
        code.put("partner-panel", List.of("@Semaphore(key = \"account:#accountId\", limit = 5)", "PartnerApi.quote"));
        code.put("stream-panel", List.of("RedisSemaphore.tryAcquire", "StreamController"));
        code.put("table-panel", List.of("Table63", "WorkerLockMarket"));
        code.put("lab-panel", List.of("LockLab", "BookLocks"));
        code.forEach((panel, names) -> {
            WebElement section = browser.findElement(By.id(panel));
            assertThat(section.findElement(By.cssSelector(".explain")).getText())
                    .as(panel + ": a line on what it shows")
                    .isNotBlank();
            assertThat(section.getText())
                    .as(panel + ": no class names until asked for")
                    .doesNotContain(names);
            section.findElement(By.cssSelector("details.how summary")).click();
            assertThat(section.findElement(By.cssSelector("details.how")).getText())
                    .as(panel + ": the code, one click away")
                    .contains(names);
        });
        assertThat(browser.findElement(By.id("table-machine")).getText())
                .startsWith("Why the numbers differ from the book's: they are measured on this machine ("
                        + Runtime.getRuntime().availableProcessors() + " processor");
        List<LogEntry> severe = browser.manage().logs().get(LogType.BROWSER).getAll().stream()
                .filter(entry -> entry.getLevel().intValue() >= Level.SEVERE.intValue())
                .toList();
        assertThat(severe).as("console errors").isEmpty();

        // The README's picture: the page as it first opens.
        WebDriver first = open();
        screenshot(first, 1440);
    }

    @Test
    @Order(2)
    void theGuidedStepsWorkInOrderAndSayWhichLocksEachTradeTook() {
        WebDriver browser = open();
        select(browser, "buyer", "ben");
        select(browser, "strategy", "fine");
        assertThat(click(browser, "#listings tr[data-item='lamp'] .buy")).isTrue();
        awaitText(
                browser,
                "#trade-result",
                "Ben bought the lamp from Cara for 25 (fine): got market:lamp.cara, funds:ben at once (fencing"
                        + " tokens ");
        awaitText(browser, "#users tr[data-user='ben'] .funds", "125");

        select(browser, "list-seller", "ann");
        select(browser, "list-item", "guitar");
        browser.findElement(By.id("list-price")).clear();
        browser.findElement(By.id("list-price")).sendKeys("90");
        browser.findElement(By.id("list-button")).click();
        awaitText(browser, "#listings tr[data-item='guitar'][data-seller='ann']", "90");
        assertThat(click(browser, "#listings tr[data-item='guitar'] .buy")).isTrue();
        awaitText(browser, "#trade-result", "Ben bought the guitar from Ann for 90 (fine): got market:guitar.ann");
        awaitText(browser, "#users tr[data-user='ben'] .funds", "35");
        awaitText(browser, "#users tr[data-user='ann'] .funds", "210");
        awaitText(browser, "#users tr[data-user='ben'] .inventory", "camera, guitar, lamp");
        assertThat(browser.findElements(By.cssSelector("#listings tr[data-item='guitar']")))
                .isEmpty();
    }

    @Test
    @Order(3)
    void raceTwoBuyersShowsWhoWaitedForWhichLockByNameHowLongAndTheirTokensInOrder() {
        WebDriver browser = open();
        select(browser, "strategy", "fine");
        select(browser, "race-first", "ann");
        select(browser, "race-second", "ben");
        assertThat(click(browser, "#listings tr[data-item='teapot'] .race")).isTrue();
        // While Ann holds her locks for 3 s, the log shows Ben waiting for locks by name, not a template.
        // (Read in one script: the log is redrawn every second.)
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(200))
                .until(
                        () -> script(
                                browser,
                                "const row = document.querySelector(\"#trades tr[data-state='waiting']\");"
                                        + " return row ? row.querySelector('.locks').textContent + ' | '"
                                        + " + row.querySelector('.outcome').textContent : '';"),
                        "market:teapot.dev, funds:ben | waiting for its locks…"::equals);

        await().atMost(Duration.ofSeconds(30))
                .until(() -> browser.findElement(By.id("race-result"))
                        .getDomAttribute("class")
                        .contains("done"));
        List<String> story = rows(browser, "#race-result p");
        assertThat(story.get(0)).isEqualTo("1. Ann got market:teapot.dev, funds:ann at once, then bought the teapot.");
        Matcher second = Pattern.compile("2\\. Ben waited (\\d+\\.\\d) s for #(\\d+)'s lock on market:teapot\\.dev,"
                        + " then did not get it: The item is not on the market at this price\\.")
                .matcher(story.get(1));
        assertThat(second.matches()).as(story.get(1)).isTrue();
        assertThat(Double.parseDouble(second.group(1)))
                .as("Ben waited for Ann's 3 s hold")
                .isGreaterThanOrEqualTo(2.0);
        assertThat(story.get(2))
                .matches("Fencing tokens: on market:teapot\\.dev, Ann got …\\d{6} and Ben …\\d{6}, larger by"
                        + " [\\d,]+: granted after Ann's, .*");

        String winner = second.group(2);
        await().atMost(Duration.ofSeconds(5))
                .ignoreException(StaleElementReferenceException.class)
                .untilAsserted(() -> {
                    WebElement won = browser.findElement(By.cssSelector("#trades tr[data-trade='" + winner + "']"));
                    WebElement lost = browser.findElement(By.cssSelector("#trades tr.lost"));
                    assertThat(who(won)).isEqualTo("Ann");
                    assertThat(who(lost)).isEqualTo("Ben");
                    assertThat(won.findElement(By.cssSelector(".waited")).getText())
                            .isEqualTo("at once");
                    assertThat(lost.findElement(By.cssSelector(".waited")).getText())
                            .matches("\\d+\\.\\d s for #" + winner + " on market:teapot\\.dev");
                    assertThat(lost.findElement(By.cssSelector(".tokens [data-lock='market:teapot.dev']"))
                                    .getText())
                            .as("the loser's token on the listing's lock, over the winner's")
                            .matches("market:teapot\\.dev \\+[\\d,]+ over #" + winner);
                    assertThat(lost.findElement(By.cssSelector(".outcome")).getText())
                            .isEqualTo("not on the market at this price: sold");
                });
    }

    /**
     * Fifty buyers of one listing at once, each a slow trade: Redis stays up, and so does the page:
     * no banner and no greyed panel while they wait for the listing's lock, and every buyer gets an
     * answer about the listing, none a 503.
     */
    @Test
    @Order(4)
    void fiftyBuyersOfOneListingAtOnceLeaveTheDataStoreHealthyOnThePage() throws Exception {
        WebDriver browser = open();
        HttpClient http =
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        assertThat(send(http, "/users", "{\"id\":\"kiosk\",\"name\":\"Kiosk\",\"funds\":0}"))
                .isEqualTo(201);
        assertThat(send(http, "/users/kiosk/inventory", "{\"itemId\":\"ticket\"}"))
                .isEqualTo(201);
        assertThat(send(http, "/market/listings", "{\"itemId\":\"ticket\",\"sellerId\":\"kiosk\",\"price\":5}"))
                .isEqualTo(201);
        for (int i = 0; i < 50; i++) {
            assertThat(send(http, "/users", "{\"id\":\"fan-" + i + "\",\"funds\":10}"))
                    .isEqualTo(201);
        }
        CyclicBarrier together = new CyclicBarrier(50);
        List<CompletableFuture<Integer>> buyers = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            String body = "{\"buyerId\":\"fan-" + i + "\",\"itemId\":\"ticket\",\"sellerId\":\"kiosk\",\"price\":5}";
            buyers.add(CompletableFuture.supplyAsync(() -> {
                try {
                    together.await();
                    return send(http, "/market/purchases?strategy=fine&slow=true", body);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        awaitText(browser, "#held-locks", "market:ticket.kiosk");
        await().during(Duration.ofSeconds(4))
                .atMost(Duration.ofSeconds(8))
                .until(() -> !browser.findElement(By.id("banner")).isDisplayed()
                        && browser.findElements(By.cssSelector(".panel.stale")).isEmpty());
        Map<Integer, Long> statuses = buyers.stream()
                .map(CompletableFuture::join)
                .collect(Collectors.groupingBy(status -> status, TreeMap::new, Collectors.counting()));
        assertThat(statuses).containsExactlyEntriesOf(new TreeMap<>(Map.of(201, 1L, 400, 49L)));
        assertThat(browser.findElement(By.id("banner")).isDisplayed()).isFalse();
    }

    @Test
    @Order(5)
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
    @Order(6)
    void theTableAndLabRunsShowTheirProgressAndRows() {
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
                .contains("items bought per 60 s", "book 110,000", "1 lister, 1 buyer")
                .as("the rows' length as measured: 1 s, or a little more on a busy machine")
                .containsPattern("rows of 1(\\.\\d)? s");
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
        // Read in one script each: the table is redrawn every 500 ms while the lab runs.
        assertThat(text(browser, "#lab-table"))
                .contains("holder crash", "naive SETNX lock (6.8)", "stuck forever", "SETNX + EXPIRE lock (6.11)");
        assertThat(text(browser, "#lab-table td.verdict.broken")).startsWith("stuck forever");
        assertThat(text(browser, "#lab-table td.verdict.held")).startsWith("recovered after");
    }

    @Test
    @Order(7)
    void whenRedisStopsAnsweringTheBannerSaysSoAndThePanelsGreyOutWithinSecondsWithTheirAge() {
        WebDriver browser = open();
        redis.pause();
        try {
            // The server gives Redis 5 s before it answers 503; the page polls every second and gives
            // a read 2 s, so banner and grey panels come before any 503 could.
            long paused = System.nanoTime();
            await().atMost(Duration.ofMillis(4500)).ignoreExceptions().untilAsserted(() -> {
                assertThat(browser.findElement(By.id("banner")).getText())
                        .startsWith("Redis does not answer")
                        .contains("the panels show their last data, greyed")
                        .doesNotContain("retry after");
                for (String panel : List.of("market-panel", "users-panel", "held-panel")) {
                    assertThat(browser.findElement(By.id(panel)).getDomAttribute("class"))
                            .as(panel)
                            .contains("stale");
                }
            });
            System.out.printf(
                    "Banner and three grey panels %d ms after Redis was paused%n",
                    Duration.ofNanos(System.nanoTime() - paused).toMillis());
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
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

    /** Saves what {@code browser} shows, the whole page {@code width} wide, for the README. */
    private static void screenshot(WebDriver browser, int width) throws Exception {
        ((JavascriptExecutor) browser).executeScript("window.scrollTo(0, 0)");
        long height = (Long) script(browser, "return document.documentElement.scrollHeight");
        browser.manage().window().setSize(new Dimension(width, (int) Math.min(height + 40, 6000)));
        Path shot = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE).toPath();
        Path target = Path.of(System.getProperty("sample.screenshot", "target/screenshots/marketplace-page.png"));
        Files.createDirectories(target.toAbsolutePath().getParent());
        Files.copy(shot, target, StandardCopyOption.REPLACE_EXISTING);
        assertThat(Files.size(target)).isPositive();
    }

    /** POSTs {@code json} to the sample and returns the status. */
    private int send(HttpClient http, String path, String json) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
                .header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.ofString(json))
                .build();
        return http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    /** The text of what {@code css} finds, read in one script (empty when nothing is found). */
    private static String text(WebDriver browser, String css) {
        return String.valueOf(script(
                browser,
                "const found = document.querySelector(arguments[0]); return found ? found.textContent : '';",
                css));
    }

    private static List<String> rows(WebDriver browser, String css) {
        return browser.findElements(By.cssSelector(css)).stream()
                .map(WebElement::getText)
                .toList();
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
