package dev.turnstile.benchmarks;

import dev.turnstile.benchmarks.Scenario.Contender;
import dev.turnstile.test.redis.CommandRecorder;
import dev.turnstile.test.redis.RedisServer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import redis.clients.jedis.UnifiedJedis;

/**
 * What a Lua script's own work costs one server, apart from the commands it calls: a run, each key
 * or argument it is given, each command it calls, and an array reply instead of an integer.
 * Measured with probe scripts that do only that, from {@code INFO commandstats} (a script's µs less
 * the µs of the commands it called); {@link CycleCost} runs a trial of the probes in each round of
 * its contenders' trials, so they see the same machine, and prices each contender's scripts with
 * the medians, to show how much of their own µs these parts explain.
 */
final class ScriptCost {

    /** Script runs per probe and trial. */
    private static final int RUNS = 10_000;

    /** Arguments the argument probe is given, each as long as a lock's key or owner token. */
    private static final List<String> ARGUMENTS = IntStream.range(0, 12)
            .mapToObj(i -> "turnstile:probe:{argument-" + i + "}")
            .toList();

    /** Commands the call probe calls ({@code TIME}, whose own µs commandstats gives apart). */
    private static final int COMMANDS = 8;

    /** Cycles recorded to count the keys and arguments a contender's scripts are given. */
    private static final int RECORDED_CYCLES = 20;

    private final RedisServer server;
    private final UnifiedJedis client;
    private final String bare;
    private final String calling;
    private final String array;
    /** Per trial: a run, an argument, a command, an array reply. */
    private final List<double[]> trials = new ArrayList<>();

    /** Loads the probe scripts into {@code server}. */
    ScriptCost(RedisServer server, UnifiedJedis client) {
        this.server = server;
        this.client = client;
        this.bare = client.scriptLoad("return 1");
        this.calling = client.scriptLoad("local call = redis.call\n" + "call('TIME')\n".repeat(COMMANDS) + "return 1");
        this.array = client.scriptLoad("return {1, 2, 3}");
    }

    /**
     * What each part costs, in server µs.
     *
     * @param run a script that returns an integer and calls nothing
     * @param argument each key or argument given to it
     * @param command each command it calls, beyond that command's own µs
     * @param arrayReply returning a three-integer array instead of one integer
     */
    record Prices(double run, double argument, double command, double arrayReply) {

        /** The µs per cycle these prices explain of scripts run, keys and arguments, commands called. */
        double explain(double runs, double arguments, double commands) {
            return runs * this.run + arguments * this.argument + commands * this.command;
        }
    }

    /** Runs each probe once, on a server that nothing else loads meanwhile, and keeps the prices. */
    void trial() {
        double run = ownMicros(this.bare, List.of());
        this.trials.add(new double[] {
            run,
            (ownMicros(this.bare, ARGUMENTS) - run) / ARGUMENTS.size(),
            (ownMicros(this.calling, List.of()) - run) / COMMANDS,
            ownMicros(this.array, List.of()) - run
        });
    }

    /** The median of each price over the trials run. */
    Prices prices() {
        double[] medians = new double[4];
        for (int part = 0; part < medians.length; part++) {
            int at = part;
            medians[part] =
                    median(this.trials.stream().mapToDouble(trial -> trial[at]).toArray());
        }
        return new Prices(medians[0], medians[1], medians[2], medians[3]);
    }

    /**
     * The keys and arguments per cycle that {@code contender}'s scripts are given, read from what
     * its client sent ({@code MONITOR}) over a few cycles.
     */
    static double argumentsPerCycle(RedisServer server, Contender contender) throws Exception {
        try (CommandRecorder recorder = CommandRecorder.start(server)) {
            for (int cycle = 0; cycle < RECORDED_CYCLES; cycle++) {
                contender.release(contender.acquire());
            }
            long arguments = 0;
            for (List<String> call : recorder.clientCalls()) {
                if (call.get(0).equalsIgnoreCase("evalsha")) {
                    arguments += call.size() - 3; // less the command, the digest and the number of keys
                }
            }
            return arguments / (double) RECORDED_CYCLES;
        }
    }

    /** The server µs per run of script {@code sha} given {@code args}, less the commands it called. */
    private double ownMicros(String sha, List<String> args) {
        this.server.resetStats();
        for (int run = 0; run < RUNS; run++) {
            this.client.evalsha(sha, List.of(), args);
        }
        Map<String, double[]> stats = CycleCost.commandStats(this.server);
        double[] scripts = stats.get("evalsha");
        double called = 0;
        for (Map.Entry<String, double[]> command : stats.entrySet()) {
            if (!command.getKey().equals("evalsha")) {
                called += command.getValue()[1];
            }
        }
        return (scripts[1] - called) / scripts[0];
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    /** The prices as a table, for {@link CycleCost}'s page. */
    static String table(Prices prices) {
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"a run (a script that returns an integer and calls nothing)", format(prices.run())});
        rows.add(new String[] {"each key or argument it is given", format(prices.argument())});
        rows.add(new String[] {"each command it calls, beyond the command's own µs", format(prices.command())});
        rows.add(new String[] {"an array reply of three integers instead of one integer", format(prices.arrayReply())});
        StringBuilder out = new StringBuilder("| a script's own work | server µs |\n|---|---:|\n");
        rows.forEach(row ->
                out.append("| ").append(row[0]).append(" | ").append(row[1]).append(" |\n"));
        return out.toString();
    }

    private static String format(double micros) {
        return String.format(java.util.Locale.ROOT, "%.2f", micros);
    }
}
