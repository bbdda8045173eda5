package dev.turnstile.sample;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * What a command ({@code --benchmark}, {@code --lab}) leaves in its {@code --out} directory when it
 * is stopped before it finished (SIGTERM, Ctrl-C): it says so on standard error, names the files
 * the run had written, and removes the directory only if the run created it and it is still empty.
 * Nothing that was there before the run, and nothing the run wrote, is removed.
 */
final class CommandOutput {

    private final Path out;
    private final boolean created;
    private final PrintStream err;
    private volatile boolean finished;

    private CommandOutput(Path out, boolean created, PrintStream err) {
        this.out = out;
        this.created = created;
        this.err = err;
    }

    /**
     * Watches {@code out} until {@link #finished()}: a JVM shutdown before then reports what the
     * run wrote there.
     *
     * @param created whether the command line created {@code out} for this run
     */
    static CommandOutput watch(Path out, boolean created) {
        CommandOutput output = new CommandOutput(out, created, System.err);
        Runtime.getRuntime().addShutdownHook(new Thread(output::stoppedEarly, "command-output"));
        return output;
    }

    /** The run is over: a shutdown from now on says nothing. */
    void finished() {
        this.finished = true;
    }

    /** Says what a run stopped before its end left behind; called by the shutdown hook. */
    void stoppedEarly() {
        if (this.finished) {
            return;
        }
        List<String> written = files();
        if (!written.isEmpty()) {
            this.err.println("sample-app: stopped before the run finished; it had written " + String.join(", ", written)
                    + " in " + this.out + " (kept).");
        } else if (this.created && removeIfEmpty()) {
            this.err.println("sample-app: stopped before the run finished; nothing was written, and the empty "
                    + this.out + " it had created was removed.");
        } else {
            this.err.println("sample-app: stopped before the run finished; nothing was written to " + this.out + ".");
        }
    }

    private List<String> files() {
        if (!Files.isDirectory(this.out)) {
            return List.of();
        }
        try (Stream<Path> entries = Files.list(this.out)) {
            return entries.map(path -> path.getFileName().toString()).sorted().toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    private boolean removeIfEmpty() {
        try {
            return Files.deleteIfExists(this.out);
        } catch (IOException e) {
            return false; // not empty after all, or not ours to remove: keep it
        }
    }
}
