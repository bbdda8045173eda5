package dev.turnstile.sample;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The sample's command line, checked before anything starts: no server, no Redis, no run begins
 * with an option that would fail later. Options of the sample itself ({@code --help}, {@code
 * --benchmark}, {@code --lab}, {@code --duration}, {@code --out}) are checked here; any option with a
 * dot in its name ({@code --server.port=8081}, {@code --spring.data.redis.host=…}) is a Spring
 * property and passed on.
 */
public final class CommandLine {

    /** What {@code --help} prints. */
    public static final String USAGE = String.join(
            "\n",
            "Turnstile's sample: the marketplace of Redis in Action 6.2.",
            "",
            "Usage:",
            "  java -jar sample-app.jar [--server.port=8080] [--spring.data.redis.host=H --spring.data.redis.port=P]",
            "      the web page at http://localhost:8080/ (with a redis-server of its own unless one is given)",
            "  java -jar sample-app.jar --benchmark [--duration=10s] [--out=DIR]",
            "      the book's Table 6.3, measured: 9 rows of --duration each",
            "  java -jar sample-app.jar --lab [--out=DIR]",
            "      the book's five lock stages and Turnstile's against the faults that break them (about 15 s)",
            "  java -jar sample-app.jar --help",
            "",
            "Options:",
            "  --duration=D  how long each row of --benchmark runs: seconds (60) or a number with a unit",
            "                (500ms, 10s, 2m); at least 1s, at most 10m. Default 10s; the book's is 60s.",
            "  --out=DIR     where --benchmark and --lab write their files (created if missing, files of the",
            "                same name replaced). Default: a new directory per run under "
                    + defaultOutRoot().toString().replace('\\', '/'),
            "  --help        this text",
            "",
            "The benchmark and the lab run on a redis-server of their own, which they flush.");

    /** The longest row {@code --duration} allows. */
    static final Duration MAX_DURATION = Duration.ofMinutes(10);

    private static final Set<String> OWN = Set.of("help", "benchmark", "lab", "duration", "out");
    private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ms|s|m|h)?");

    /** What to do. */
    public enum Mode {
        /** The web application. */
        WEB,
        /** {@code --benchmark}. */
        BENCHMARK,
        /** {@code --lab}. */
        LAB,
        /** {@code --help}. */
        HELP
    }

    /**
     * A checked command line.
     *
     * @param mode what to do
     * @param duration each benchmark row's length
     * @param out the directory a command writes into, created and writable; null for the web application
     * @param outCreated whether checking the command line created {@code out} (it did not exist)
     * @param springArguments the arguments to pass to Spring Boot
     */
    public record Parsed(Mode mode, Duration duration, Path out, boolean outCreated, List<String> springArguments) {}

    /** A command line that cannot run: the message is one line that names the option. */
    public static final class UsageException extends Exception {

        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message, null, false, false);
        }
    }

    private CommandLine() {}

    /**
     * Checks {@code args}; for a command, creates its {@code --out} directory and makes sure it can
     * write there.
     *
     * @throws UsageException naming the first option that is wrong and what to give instead
     */
    public static Parsed parse(String... args) throws UsageException {
        boolean help = false;
        boolean benchmark = false;
        boolean lab = false;
        String duration = null;
        String out = null;
        List<String> spring = new ArrayList<>();
        for (String arg : args) {
            if (arg.equals("-h") || arg.equals("--help")) {
                help = true;
                continue;
            }
            if (!arg.startsWith("--")) {
                throw new UsageException(
                        "'" + arg + "' is not an option: options are written --name or --name=value;" + " see --help.");
            }
            int equals = arg.indexOf('=');
            String name = arg.substring(2, equals < 0 ? arg.length() : equals);
            String value = equals < 0 ? null : arg.substring(equals + 1);
            if (name.contains(".")) {
                spring.add(arg);
                continue;
            }
            if (!OWN.contains(name)) {
                throw new UsageException(
                        "--" + name + " is not an option of the sample; see --help (Spring properties have a dot,"
                                + " e.g. --server.port=8081).");
            }
            switch (name) {
                case "benchmark", "lab" -> {
                    if (value != null) {
                        throw new UsageException("--" + name + " takes no value; write --" + name + " alone.");
                    }
                    if (name.equals("benchmark")) {
                        benchmark = true;
                    } else {
                        lab = true;
                    }
                }
                case "duration" -> duration = required(name, value);
                case "out" -> out = required(name, value);
                default -> help = true;
            }
        }
        if (help) {
            return new Parsed(Mode.HELP, Duration.ZERO, null, false, List.of());
        }
        if (benchmark && lab) {
            throw new UsageException("--benchmark and --lab are two runs: give one of them.");
        }
        if (duration != null && !benchmark) {
            throw new UsageException("--duration is the length of a --benchmark row: give it with --benchmark.");
        }
        if (out != null && !benchmark && !lab) {
            throw new UsageException("--out is where --benchmark or --lab write: give it with one of them.");
        }
        if (!benchmark && !lab) {
            return new Parsed(Mode.WEB, Duration.ZERO, null, false, List.of(args));
        }
        Duration perRow = duration == null ? Duration.ofSeconds(10) : duration(duration);
        boolean created = out == null || !Files.isDirectory(absolute(out));
        Path directory = out == null ? defaultOut() : writable(out);
        return new Parsed(benchmark ? Mode.BENCHMARK : Mode.LAB, perRow, directory, created, spring);
    }

    /**
     * A row's length: seconds, or a number with {@code ms}, {@code s}, {@code m} or {@code h}; from
     * 1 s to {@link #MAX_DURATION}.
     *
     * @throws UsageException naming {@code --duration}
     */
    static Duration duration(String value) throws UsageException {
        Matcher matcher = DURATION.matcher(value.trim().toLowerCase(Locale.ROOT));
        if (!matcher.matches()) {
            throw new UsageException("--duration=" + value + " is not a duration: give seconds (60) or a number with"
                    + " a unit (500ms, 10s, 2m).");
        }
        double number = Double.parseDouble(matcher.group(1));
        String unit = matcher.group(2) == null ? "s" : matcher.group(2);
        double millis = switch (unit) {
            case "ms" -> number;
            case "m" -> number * 60_000;
            case "h" -> number * 3_600_000;
            default -> number * 1_000;
        };
        if (millis < 1_000) {
            throw new UsageException("--duration=" + value + " is under 1 s: a row that short measures nothing;"
                    + " give at least 1s (the book's rows are 60s).");
        }
        if (millis > MAX_DURATION.toMillis()) {
            throw new UsageException("--duration=" + value + " is over " + MAX_DURATION.toMinutes()
                    + " minutes per row (9 rows); give at most 10m (the book's rows are 60s).");
        }
        return Duration.ofMillis(Math.round(millis));
    }

    /** The directory the runs write into by default: {@code turnstile-marketplace} under the system's temporary directory. */
    public static Path defaultOutRoot() {
        return Path.of(System.getProperty("java.io.tmpdir"), "turnstile-marketplace");
    }

    /** A new directory under {@link #defaultOutRoot()}, named by the time: no run overwrites another's files. */
    private static Path defaultOut() throws UsageException {
        String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH-mm-ss"));
        Path root = writable(defaultOutRoot().toString());
        for (int n = 1; ; n++) {
            Path directory = root.resolve(n == 1 ? stamp : stamp + "-" + n);
            try {
                Files.createDirectory(directory);
                return writable(directory.toString());
            } catch (FileAlreadyExistsException taken) {
                // a run started in the same second: take the next name
            } catch (IOException e) {
                throw new UsageException("--out: cannot create " + directory + " (" + reason(e)
                        + "); give a directory you can write to with --out=DIR.");
            }
        }
    }

    private static Path absolute(String value) throws UsageException {
        try {
            return Path.of(value).toAbsolutePath().normalize();
        } catch (InvalidPathException e) {
            throw new UsageException("--out=" + value + " is not a path: " + e.getReason() + ".");
        }
    }

    private static Path writable(String value) throws UsageException {
        Path directory = absolute(value);
        try {
            Files.createDirectories(directory);
            Path probe = Files.createTempFile(directory, ".write-check", ".tmp");
            Files.delete(probe);
        } catch (IOException | SecurityException e) {
            throw new UsageException(
                    "--out=" + value + ": cannot write there (" + reason(e) + "); give a directory you can write to.");
        }
        return directory;
    }

    private static String required(String name, String value) throws UsageException {
        if (value == null || value.isBlank()) {
            throw new UsageException("--" + name + " needs a value: write --" + name + "=" + example(name) + ".");
        }
        return value;
    }

    private static String example(String name) {
        return name.equals("duration") ? "10s" : "DIR";
    }

    private static String reason(Exception e) {
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof FileAlreadyExistsException) {
            return "it is a file, not a directory";
        }
        if (e instanceof NoSuchFileException) {
            return "no directory can be created there";
        }
        if (e instanceof FileSystemException fileSystem && fileSystem.getReason() != null) {
            return fileSystem.getReason().toLowerCase(Locale.ROOT);
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }
}
