package dev.turnstile.benchmarks;

import java.nio.file.Path;
import java.time.Duration;

/**
 * The options every benchmark run takes: {@code --trial=2s}, {@code --warmup=1s}, {@code --trials=3},
 * {@code --out=docs/benchmarks} (where the pages are written) and {@code --only=text} (the groups
 * whose title contains it). Durations take {@code ms} or {@code s}; a bare number is milliseconds.
 */
record RunOptions(Duration trial, Duration warmUp, int trials, Path out, String only) {

    /**
     * Starts a benchmark run: the libraries measured log only warnings (their INFO lines would
     * interleave with the run's output), and the options are read from the run's arguments.
     */
    static RunOptions start(String[] args) {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        return parse(args);
    }

    /** Reads the options from a run's arguments; what is not given keeps its default. */
    private static RunOptions parse(String[] args) {
        Duration trial = Duration.ofSeconds(2);
        Duration warmUp = Duration.ofSeconds(1);
        int trials = 3;
        Path out = Path.of("docs", "benchmarks");
        String only = "";
        for (String arg : args) {
            String value = arg.substring(arg.indexOf('=') + 1);
            if (arg.startsWith("--trial=")) {
                trial = Duration.ofMillis(parseMillis(value));
            } else if (arg.startsWith("--warmup=")) {
                warmUp = Duration.ofMillis(parseMillis(value));
            } else if (arg.startsWith("--trials=")) {
                trials = Integer.parseInt(value);
            } else if (arg.startsWith("--out=")) {
                out = Path.of(value);
            } else if (arg.startsWith("--only=")) {
                only = value;
            } else {
                throw new IllegalArgumentException("Unknown benchmark option '" + arg
                        + "': use --trial=2s, --warmup=1s, --trials=3, --out=DIR or --only=TEXT");
            }
        }
        return new RunOptions(trial, warmUp, trials, out, only);
    }

    private static long parseMillis(String value) {
        if (value.endsWith("ms")) {
            return Long.parseLong(value.substring(0, value.length() - 2));
        }
        if (value.endsWith("s")) {
            return Long.parseLong(value.substring(0, value.length() - 1)) * 1000;
        }
        return Long.parseLong(value);
    }
}
