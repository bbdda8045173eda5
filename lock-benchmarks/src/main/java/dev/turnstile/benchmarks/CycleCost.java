package dev.turnstile.benchmarks;

import dev.turnstile.benchmarks.Scenario.Contender;
import dev.turnstile.redis.Turnstile;
import dev.turnstile.test.redis.RedisServer;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;

/**
 * Where one uncontended acquire + release spends its time, per Redis command, for the raw fenced
 * floor and for Turnstile's lock side by side on one server: calls per cycle and the server's
 * microseconds per call from {@code INFO commandstats} (a script's own line includes the commands
 * it runs), the server's main-thread CPU and this process's CPU per cycle. Trials interleave; each
 * contender's trial of median throughput is reported. Then what a script's own work costs the
 * server ({@link ScriptCost}), and how much of each contender's scripts' own µs those prices
 * explain. Writes {@code docs/benchmarks/cycle-cost.md}.
 */
public final class CycleCost {

    private static final Duration RUN = Duration.ofSeconds(2);
    private static final int TRIALS = 5;

    private CycleCost() {}

    /**
     * One trial's numbers: cycles, elapsed ns, process CPU ns, server CPU s, per-command stats, and
     * the keys and arguments per cycle the contender's scripts are given.
     */
    private record Trial(
            long cycles,
            long nanos,
            long clientCpuNanos,
            double serverCpuSeconds,
            Map<String, double[]> commands,
            double arguments) {}

    public static void main(String[] args) throws Exception {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        try (RedisServer server = RedisServer.start();
                UnifiedJedis client = server.newClient(Duration.ofSeconds(2));
                Turnstile turnstile = Turnstile.builder(client).build()) {
            Map<String, Contender> contenders = new LinkedHashMap<>();
            contenders.put("raw fenced", Contenders.rawFenced(client, "cost:fenced"));
            contenders.put(
                    "Turnstile", Contenders.turnstile(turnstile, "cost", Duration.ofSeconds(Contenders.LEASE_SECONDS)));
            Map<String, List<Trial>> trials = new LinkedHashMap<>();
            Map<String, Double> arguments = new LinkedHashMap<>();
            ScriptCost scriptCost = new ScriptCost(server, client);
            for (Map.Entry<String, Contender> entry : contenders.entrySet()) {
                run(server, entry.getValue(), Duration.ofSeconds(1), 0);
                arguments.put(entry.getKey(), ScriptCost.argumentsPerCycle(server, entry.getValue()));
            }
            for (int trial = 0; trial < TRIALS; trial++) {
                for (Map.Entry<String, Contender> entry : contenders.entrySet()) {
                    trials.computeIfAbsent(entry.getKey(), name -> new ArrayList<>())
                            .add(run(server, entry.getValue(), RUN, arguments.get(entry.getKey())));
                }
                scriptCost.trial();
            }
            ScriptCost.Prices prices = scriptCost.prices();
            Map<String, Trial> median = new LinkedHashMap<>();
            trials.forEach((name, each) -> {
                List<Trial> sorted = new ArrayList<>(each);
                sorted.sort(java.util.Comparator.comparingDouble(trial -> trial.cycles() / (double) trial.nanos()));
                median.put(name, sorted.get(sorted.size() / 2));
            });
            String table = table(median, prices);
            System.out.println(table);
            Path out = Path.of(args.length > 0 ? args[0] : "docs/benchmarks");
            Files.createDirectories(out);
            Provenance.write(out.resolve("cycle-cost.md"), Provenance.command(CycleCost.class), table);
        }
    }

    private static Trial run(RedisServer server, Contender contender, Duration duration, double arguments)
            throws Exception {
        server.resetStats();
        long cpuBefore = processCpuNanos();
        double serverBefore = server.mainThreadCpuSeconds();
        long cycles = 0;
        long start = System.nanoTime();
        long end = start + duration.toNanos();
        while (System.nanoTime() < end) {
            contender.release(contender.acquire());
            cycles++;
        }
        long nanos = System.nanoTime() - start;
        long cpu = processCpuNanos() - cpuBefore;
        double serverCpu = server.mainThreadCpuSeconds() - serverBefore;
        return new Trial(cycles, nanos, cpu, serverCpu, commandStats(server), arguments);
    }

    /** {@code INFO commandstats}: per command, {calls, usec}; the harness's own INFO and CONFIG left out. */
    static Map<String, double[]> commandStats(RedisServer server) {
        Map<String, double[]> stats = new LinkedHashMap<>();
        try (Jedis jedis = server.connect()) {
            for (String line : jedis.info("commandstats").split("\r?\n")) {
                if (!line.startsWith("cmdstat_")) {
                    continue;
                }
                String command = line.substring("cmdstat_".length(), line.indexOf(':'));
                if (command.startsWith("info") || command.startsWith("config")) {
                    continue;
                }
                double calls = field(line, "calls=");
                double usec = field(line, "usec=");
                stats.put(command, new double[] {calls, usec});
            }
        }
        return stats;
    }

    private static double field(String line, String name) {
        int from = line.indexOf(name) + name.length();
        int to = line.indexOf(',', from);
        return Double.parseDouble(line.substring(from, to < 0 ? line.length() : to));
    }

    private static String table(Map<String, Trial> trials, ScriptCost.Prices prices) {
        List<String> names = new ArrayList<>(trials.keySet());
        StringBuilder out = new StringBuilder();
        out.append("Uncontended acquire + release on one thread, one server, ")
                .append(RUN.toSeconds())
                .append(" s trials interleaved, each contender's median of ")
                .append(TRIALS)
                .append(" (by throughput) shown, ")
                .append(Runtime.getRuntime().availableProcessors())
                .append(" cores. Per command: calls per cycle, server µs per call (a script's line includes")
                .append(" the commands it runs inside).\n\n| command |");
        names.forEach(name -> out.append(' ').append(name).append(" calls | µs/call | µs/cycle |"));
        out.append("\n|---|");
        names.forEach(name -> out.append("---:|---:|---:|"));
        out.append('\n');
        TreeSet<String> commands = new TreeSet<>();
        trials.values().forEach(trial -> commands.addAll(trial.commands().keySet()));
        for (String command : commands) {
            out.append("| ").append(command).append(" |");
            for (String name : names) {
                Trial trial = trials.get(name);
                double[] stat = trial.commands().get(command);
                if (stat == null) {
                    out.append(" – | – | – |");
                } else {
                    out.append(String.format(
                            Locale.ROOT,
                            " %.2f | %.2f | %.2f |",
                            stat[0] / trial.cycles(),
                            stat[1] / stat[0],
                            stat[1] / trial.cycles()));
                }
            }
            out.append('\n');
        }
        out.append("\n| per cycle |");
        names.forEach(name -> out.append(' ').append(name).append(" |"));
        out.append("\n|---|");
        names.forEach(name -> out.append("---:|"));
        appendRow(out, "cycles / s", names, trials, trial -> trial.cycles() / (trial.nanos() / 1e9));
        appendRow(out, "µs per cycle", names, trials, trial -> trial.nanos() / 1e3 / trial.cycles());
        appendRow(out, "server main-thread CPU µs", names, trials, CycleCost::serverMicros);
        // The server's CPU split in two: the time INFO commandstats gives the commands the clients
        // sent (the scripts, whose time holds the commands they call), and the rest of the main
        // thread's time, where the server reads, parses and answers requests and the kernel moves
        // their bytes: the same two round trips for both contenders.
        appendRow(
                out,
                "of which in the scripts (commandstats)",
                names,
                trials,
                trial -> scripts(trial)[1] / trial.cycles());
        appendRow(
                out,
                "of which outside them (reading, parsing, replying, the kernel)",
                names,
                trials,
                trial -> serverMicros(trial) - scripts(trial)[1] / trial.cycles());
        appendRow(out, "client process CPU µs", names, trials, trial -> trial.clientCpuNanos() / 1e3 / trial.cycles());
        // Every command of both contenders runs inside a script, so what a script's line holds beyond
        // the commands it calls is the scripts' own cost: Lua, and handing each call over to Redis.
        appendRow(out, "scripts run", names, trials, trial -> inScripts(trial)[0]);
        appendRow(out, "commands called from the scripts", names, trials, trial -> inScripts(trial)[1]);
        appendRow(out, "keys and arguments given to the scripts", names, trials, Trial::arguments);
        appendRow(out, "scripts' µs outside the commands they call", names, trials, trial -> inScripts(trial)[2]);
        appendRow(
                out,
                "of which the parts priced below explain",
                names,
                trials,
                trial -> prices.explain(inScripts(trial)[0], trial.arguments(), inScripts(trial)[1]));
        out.append("\n\nWhat a script's own work costs this server, measured with probe scripts that do only")
                .append(
                        " that, a trial of them in each round of the contenders' trials (medians): the row above is each contender's")
                .append(" scripts run, keys and arguments, and commands called, at these prices; what it leaves")
                .append(" is the scripts' Lua (arithmetic, comparisons, formatting numbers).\n\n")
                .append(ScriptCost.table(prices));
        return out.toString();
    }

    /** Per cycle: the server main thread's CPU µs. */
    private static double serverMicros(Trial trial) {
        return trial.serverCpuSeconds() * 1e6 / trial.cycles();
    }

    /**
     * The scripts' {calls, µs} of a whole trial, as {@code INFO commandstats} gives them: their µs
     * include the commands they call.
     */
    private static double[] scripts(Trial trial) {
        return trial.commands().getOrDefault("evalsha", new double[2]);
    }

    /** Per cycle: scripts run, commands they called, and the scripts' µs beyond those commands' own. */
    private static double[] inScripts(Trial trial) {
        double[] scripts = scripts(trial);
        double calls = 0;
        double usec = 0;
        for (Map.Entry<String, double[]> command : trial.commands().entrySet()) {
            if (!command.getKey().equals("evalsha")) {
                calls += command.getValue()[0];
                usec += command.getValue()[1];
            }
        }
        return new double[] {scripts[0] / trial.cycles(), calls / trial.cycles(), (scripts[1] - usec) / trial.cycles()};
    }

    private static void appendRow(
            StringBuilder out,
            String label,
            List<String> names,
            Map<String, Trial> trials,
            java.util.function.ToDoubleFunction<Trial> value) {
        out.append("\n| ").append(label).append(" |");
        for (String name : names) {
            out.append(String.format(Locale.ROOT, " %,.1f |", value.applyAsDouble(trials.get(name))));
        }
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }
}
