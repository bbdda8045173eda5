package dev.turnstile.benchmarks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.concurrent.TimeUnit;

/**
 * The first line of every page a benchmark writes under {@code docs/}: the command that wrote it,
 * the commit it ran on and the date, so a reader can rerun it and the documentation tests can tell
 * a generated figure from a hand-written one.
 */
final class Provenance {

    /** What every generated page starts with; the documentation tests look for it. */
    static final String PREFIX = "Written by `";

    private Provenance() {}

    /**
     * Returns the command that runs the benchmark {@code main} with {@code arguments} (the run's own
     * arguments, so that rerunning the command repeats the run), as the pages it writes name it.
     */
    static String command(Class<?> main, String... arguments) {
        String command = "./mvnw -q -DskipTests install && ./mvnw -q -pl lock-benchmarks exec:java";
        if (main != BenchmarkMain.class) {
            command += " -Dexec.mainClass=" + main.getName();
        }
        if (arguments.length == 0) {
            return command;
        }
        // exec.args splits on spaces outside quotes: an argument with a space in it (--only=one key)
        // is quoted, as it had to be given.
        return command
                + " \"-Dexec.args="
                + java.util.Arrays.stream(arguments)
                        .map(argument -> argument.matches(".*\\s.*") ? "'" + argument + "'" : argument)
                        .collect(java.util.stream.Collectors.joining(" "))
                + "\"";
    }

    /** Returns the header line, a blank line included, for a page written by {@code command}. */
    static String header(String command) {
        return PREFIX + command + "` at commit " + commit() + " on " + LocalDate.now()
                + "; rerun it to refresh, never edit by hand.\n\n";
    }

    /** Writes {@code markdown} to {@code file} under the header of {@code command}. */
    static void write(Path file, String command, String markdown) throws IOException {
        Files.writeString(file, header(command) + markdown, StandardCharsets.UTF_8);
    }

    /** The short commit of the working tree, with {@code +changes} when it has uncommitted ones. */
    private static String commit() {
        String head = git("rev-parse", "--short", "HEAD");
        if (head.isEmpty()) {
            return "unknown";
        }
        return git("status", "--porcelain", "--untracked-files=no").isEmpty() ? head : head + "+changes";
    }

    private static String git(String... arguments) {
        String[] command = new String[arguments.length + 1];
        command[0] = "git";
        System.arraycopy(arguments, 0, command, 1, arguments.length);
        try {
            Process git = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            return git.waitFor(10, TimeUnit.SECONDS) && git.exitValue() == 0 ? output : "";
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }
}
