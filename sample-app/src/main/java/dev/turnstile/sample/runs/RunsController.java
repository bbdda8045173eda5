package dev.turnstile.sample.runs;

import dev.turnstile.sample.benchmark.BenchmarkReport;
import dev.turnstile.sample.benchmark.RunResult;
import dev.turnstile.sample.benchmark.Table63;
import dev.turnstile.sample.lab.LockLab;
import dev.turnstile.sample.web.Params;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisPooled;

/**
 * Starts the book's Table 6.3 and the lock lab from the page and reports their progress. Both
 * flush the data they work on, so they run on databases of their own (1 and 2; their locks too) of
 * the Redis the sample started itself, and only there: on a Redis the sample was pointed at they answer 409
 * unless {@code sample.runs.enabled=true}, and they never run when the marketplace's own data is in
 * database 1 or 2.
 */
@RestController
public class RunsController implements DisposableBean {

    private static final int TABLE_DATABASE = 1;
    private static final int LAB_DATABASE = 2;

    private final DataRedisConnectionDetails redis;
    private final boolean enabled;
    private final BackgroundRun<TableRow> table = new BackgroundRun<>("table-6.3", Table63.ROWS);
    private final BackgroundRun<LabRow> lab = new BackgroundRun<>("lock-lab", LockLab.STAGES.size());

    public RunsController(
            DataRedisConnectionDetails redis,
            @Value("${sample.runs.enabled:#{null}}") @Nullable Boolean enabled,
            @Value("${sample.local-redis.port:0}") int startedPort) {
        this.redis = redis;
        this.enabled = allowed(redis.getStandalone(), enabled, startedPort);
    }

    /**
     * Runs flush databases 1 and 2: never where the application keeps its own data, and by
     * default only on the redis-server the sample started (not a container or server it was
     * pointed at, even one whose connection details come from elsewhere).
     */
    static boolean allowed(DataRedisConnectionDetails.Standalone app, @Nullable Boolean enabled, int startedPort) {
        if (app.getDatabase() == TABLE_DATABASE || app.getDatabase() == LAB_DATABASE) {
            return false;
        }
        if (enabled != null) {
            return enabled;
        }
        return startedPort != 0 && app.getPort() == startedPort;
    }

    /**
     * One measured row of Table 6.3, scaled to the book's 60 s, beside the book's.
     *
     * @param workers e.g. "5 listers, 1 buyer"
     * @param strategy watch, lock or fine
     * @param listed items listed per 60 s
     * @param bought items bought per 60 s
     * @param retries purchase retries per 60 s
     * @param averageWaitMillis average time of one purchase call
     * @param book the book's row: listed, bought, retries, wait, as printed
     */
    public record TableRow(
            String workers,
            String strategy,
            long listed,
            long bought,
            long retries,
            double averageWaitMillis,
            List<String> book) {

        static TableRow of(RunResult result) {
            return new TableRow(
                    BenchmarkReport.workers(result.listers(), result.buyers()),
                    BenchmarkReport.label(result.strategy()),
                    result.per60s(result.listed()),
                    result.per60s(result.bought()),
                    result.per60s(result.retries()),
                    result.averageWaitMillis(),
                    BenchmarkReport.bookRow(result));
        }
    }

    /**
     * One stage of the lock lab.
     *
     * @param stage the stage
     * @param outcomes fault → what happened
     * @param verdicts fault → {@code broken} (the fault broke the stage), {@code held} (it survived)
     *     or {@code n/a} (the fault does not apply), for the page's colours
     */
    public record LabRow(String stage, Map<String, String> outcomes, Map<String, String> verdicts) {

        static LabRow of(String stage, Map<String, String> outcomes) {
            Map<String, String> verdicts = new java.util.LinkedHashMap<>();
            outcomes.forEach((fault, outcome) -> verdicts.put(fault, LockLab.verdict(outcome)));
            return new LabRow(stage, outcomes, verdicts);
        }
    }

    /** Starts Table 6.3 with {@code secondsPerRow} (1 to 10) per row. */
    @PostMapping("/runs/table-6.3")
    public ResponseEntity<?> startTable(@RequestParam(defaultValue = "1") String secondsPerRow) {
        int seconds = Params.whole("secondsPerRow", secondsPerRow, 1, 10);
        return start(this.table, sink -> {
            List<RunResult> results = new Table63(
                            () -> connection(TABLE_DATABASE),
                            () -> Table63.workerClient(address(), config(TABLE_DATABASE)))
                    .run(Duration.ofSeconds(seconds), progress -> sink.row(TableRow.of(progress.row())));
            return new BenchmarkReport(results).svg();
        });
    }

    @GetMapping("/runs/table-6.3")
    public BackgroundRun.Snapshot<TableRow> table() {
        return this.table.snapshot();
    }

    /** Starts the lock lab (about 15 s). */
    @PostMapping("/runs/lock-lab")
    public ResponseEntity<?> startLab() {
        return start(this.lab, sink -> {
            try (JedisPooled shared = new JedisPooled(address(), config(LAB_DATABASE))) {
                new LockLab(() -> connection(LAB_DATABASE), shared)
                        .run(progress -> sink.row(LabRow.of(progress.stage(), progress.outcomes())));
            }
            return null;
        });
    }

    @GetMapping("/runs/lock-lab")
    public LabSnapshot lab() {
        return new LabSnapshot(LockLab.FAULTS, this.lab.snapshot());
    }

    /**
     * The lab's progress with its column names.
     *
     * @param faults the faults, in column order
     * @param run the run
     */
    public record LabSnapshot(List<String> faults, BackgroundRun.Snapshot<LabRow> run) {}

    private <R> ResponseEntity<?> start(BackgroundRun<R> run, BackgroundRun.Body<R> body) {
        if (!this.enabled) {
            return conflict("This run flushes databases 1 and 2, so it runs only on the redis-server the sample"
                    + " started itself (start it without spring.data.redis.*), or with sample.runs.enabled=true,"
                    + " and never when the marketplace's own data is in database 1 or 2.");
        }
        try (Jedis conn = connection(TABLE_DATABASE)) {
            conn.ping(); // Redis down: 503 now, not a run that fails a moment later
        }
        if (!run.start(body)) {
            return conflict("A run is under way; wait for it to finish.");
        }
        return ResponseEntity.accepted().body(run.snapshot());
    }

    private static ResponseEntity<?> conflict(String detail) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, detail);
        problem.setTitle("Not started");
        return ResponseEntity.status(HttpStatus.CONFLICT).body(problem);
    }

    private Jedis connection(int database) {
        return new Jedis(address(), config(database));
    }

    private HostAndPort address() {
        DataRedisConnectionDetails.Standalone server = this.redis.getStandalone();
        return new HostAndPort(server.getHost(), server.getPort());
    }

    private JedisClientConfig config(int database) {
        return DefaultJedisClientConfig.builder()
                .user(this.redis.getUsername())
                .password(this.redis.getPassword())
                .database(database)
                .build();
    }

    @Override
    public void destroy() {
        this.table.close();
        this.lab.close();
    }
}
