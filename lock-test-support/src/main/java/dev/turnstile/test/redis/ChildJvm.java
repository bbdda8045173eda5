package dev.turnstile.test.redis;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

/**
 * A second JVM running a {@code main} class from the current classpath, for tests in which a lock
 * holder must really die ({@link #kill()} is SIGKILL) or freeze ({@link #pause()} is SIGSTOP).
 *
 * <p>The child's standard output and error are collected line by line; {@link #awaitLine} waits
 * for a line the child prints, e.g. {@code "ACQUIRED 17"}. The child is killed by {@link #close()}
 * and by a shutdown hook of this JVM.
 */
public final class ChildJvm implements AutoCloseable {

    private final Process process;
    private final List<String> lines = new ArrayList<>();
    private volatile boolean outputClosed;

    private ChildJvm(Process process) {
        this.process = process;
        Thread reader = new Thread(this::readOutput, "child-jvm-" + process.pid());
        reader.setDaemon(true);
        reader.start();
        Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly));
    }

    /** Starts {@code mainClass} with {@code arguments} in a new JVM on this JVM's classpath. */
    public static ChildJvm start(Class<?> mainClass, String... arguments) {
        return launch(classpath(), mainClass, arguments);
    }

    /**
     * Starts {@code mainClass} like {@link #start}, on this JVM's classpath without the jars whose
     * file name starts with one of {@code excludedJars} (e.g. {@code "spring-tx-"}): the classpath
     * of an application that does not have those libraries at all, which hiding their classes from
     * one class loader does not reproduce.
     */
    public static ChildJvm startWithout(List<String> excludedJars, Class<?> mainClass, String... arguments) {
        List<String> kept = new ArrayList<>();
        for (String entry : classpathEntries()) {
            String name = Path.of(entry).getFileName().toString();
            if (excludedJars.stream().noneMatch(name::startsWith)) {
                kept.add(entry);
            }
        }
        return launch(String.join(File.pathSeparator, kept), mainClass, arguments);
    }

    /**
     * Starts {@code mainClass} like {@link #start}, with the child's wall clock ({@code
     * System.currentTimeMillis()}, {@code Instant.now()}) {@code offset} away from this machine's:
     * a client whose clock disagrees with the others'. The child runs under {@link ClockShift}'s
     * library; its monotonic clock ({@code System.nanoTime()}) is not shifted.
     *
     * @throws org.opentest4j.TestAbortedException when the library cannot be built (no {@code
     *     gcc}): the calling test is skipped with the reason
     */
    public static ChildJvm startWithClockOffset(Duration offset, Class<?> mainClass, String... arguments) {
        Path library = ClockShift.library();
        Path file;
        try {
            file = Files.createTempFile(library.getParent(), "child-clock-", ".offset");
        } catch (IOException e) {
            throw new UncheckedIOException("Could not create a clock offset file next to " + library, e);
        }
        ClockShift.write(file, offset);
        return launch(
                classpath(),
                java.util.Map.of("LD_PRELOAD", library.toString(), ClockShift.FILE_VARIABLE, file.toString()),
                mainClass,
                arguments);
    }

    private static ChildJvm launch(String classpath, Class<?> mainClass, String... arguments) {
        return launch(classpath, java.util.Map.of(), mainClass, arguments);
    }

    private static ChildJvm launch(
            String classpath, java.util.Map<String, String> environment, Class<?> mainClass, String... arguments) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx256m");
        command.add("-XX:TieredStopAtLevel=1");
        // Histories recorded in the child are compared with this JVM's: one time base for both.
        command.add(dev.turnstile.test.history.HistoryClock.childOption());
        command.add("-cp");
        command.add(classpath);
        command.add(mainClass.getName());
        command.addAll(List.of(arguments));
        try {
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
            builder.environment().putAll(environment);
            return new ChildJvm(builder.start());
        } catch (IOException e) {
            throw new UncheckedIOException("Could not start a child JVM for " + mainClass.getName(), e);
        }
    }

    /**
     * The entries of this JVM's classpath; a classpath of one jar that only names the others in its
     * manifest (as Maven's test runner starts tests) is replaced by the entries it names.
     */
    private static List<String> classpathEntries() {
        String[] entries = classpath().split(File.pathSeparator);
        if (entries.length != 1 || !entries[0].endsWith(".jar") || !Files.isRegularFile(Path.of(entries[0]))) {
            return List.of(entries);
        }
        try (JarFile jar = new JarFile(entries[0])) {
            Manifest manifest = jar.getManifest();
            String named =
                    manifest == null ? null : manifest.getMainAttributes().getValue(Attributes.Name.CLASS_PATH);
            if (named == null || named.isBlank()) {
                return List.of(entries);
            }
            java.net.URI base = Path.of(entries[0]).toUri();
            List<String> expanded = new ArrayList<>();
            for (String reference : named.trim().split("\\s+")) {
                expanded.add(Path.of(base.resolve(reference)).toString());
            }
            return expanded;
        } catch (IOException e) {
            throw new UncheckedIOException("Could not read the classpath jar " + entries[0], e);
        }
    }

    /**
     * This JVM's application classpath: the context class loader's URLs when it is a URL class
     * loader (as under {@code mvn exec:java}), else {@code java.class.path}.
     */
    private static String classpath() {
        if (Thread.currentThread().getContextClassLoader() instanceof java.net.URLClassLoader loader
                && loader.getURLs().length > 0) {
            List<String> entries = new ArrayList<>();
            for (java.net.URL url : loader.getURLs()) {
                try {
                    entries.add(Path.of(url.toURI()).toString());
                } catch (java.net.URISyntaxException | IllegalArgumentException e) {
                    entries.add(url.getPath());
                }
            }
            return String.join(java.io.File.pathSeparator, entries);
        }
        return System.getProperty("java.class.path");
    }

    /** Returns the child's process id. */
    public long pid() {
        return this.process.pid();
    }

    /**
     * Waits until the child prints a line that matches, and returns it.
     *
     * @throws IllegalStateException if the child exits or the timeout passes first; the message
     *     holds everything the child printed
     */
    public String awaitLine(Predicate<String> matcher, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        int seen = 0;
        synchronized (this.lines) {
            while (true) {
                for (; seen < this.lines.size(); seen++) {
                    if (matcher.test(this.lines.get(seen))) {
                        return this.lines.get(seen);
                    }
                }
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0 || (!this.process.isAlive() && seen == this.lines.size() && outputClosed)) {
                    throw new IllegalStateException("Child JVM " + pid() + " printed no matching line within "
                            + timeout + (this.process.isAlive() ? "" : " (it exited)") + "; its output:\n"
                            + String.join("\n", this.lines));
                }
                try {
                    this.lines.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(remaining)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("Interrupted while waiting for child JVM output", e);
                }
            }
        }
    }

    /** Waits until the child prints a line starting with {@code prefix}, and returns it. */
    public String awaitLineStartingWith(String prefix, Duration timeout) {
        return awaitLine(line -> line.startsWith(prefix), timeout);
    }

    /** Writes {@code line} to the child's standard input. */
    public void send(String line) {
        try {
            this.process.getOutputStream().write((line + "\n").getBytes(StandardCharsets.UTF_8));
            this.process.getOutputStream().flush();
        } catch (IOException e) {
            throw new UncheckedIOException("Could not write to child JVM " + pid(), e);
        }
    }

    /** Returns every line printed so far. */
    public List<String> lines() {
        synchronized (this.lines) {
            return List.copyOf(this.lines);
        }
    }

    /** Kills the child with SIGKILL and waits for it to be gone. */
    public void kill() {
        this.process.destroyForcibly();
        awaitExit(Duration.ofSeconds(10));
    }

    /** Freezes the child with SIGSTOP. */
    public void pause() {
        Signals.send("STOP", pid());
    }

    /** Resumes a frozen child with SIGCONT. */
    public void resume() {
        Signals.send("CONT", pid());
    }

    /**
     * Waits for the child to exit and returns its exit code.
     *
     * @throws IllegalStateException if it is still running after the timeout
     */
    public int awaitExit(Duration timeout) {
        try {
            if (!this.process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("Child JVM " + pid() + " still runs after " + timeout);
            }
            return this.process.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for child JVM " + pid(), e);
        }
    }

    @Override
    public void close() {
        if (this.process.isAlive()) {
            Signals.sendQuietly("CONT", pid());
            kill();
        }
    }

    private void readOutput() {
        try (BufferedReader reader =
                new BufferedReader(new InputStreamReader(this.process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
                synchronized (this.lines) {
                    this.lines.add(line);
                    this.lines.notifyAll();
                }
            }
        } catch (IOException ignored) {
            // the child is gone
        } finally {
            this.outputClosed = true;
            synchronized (this.lines) {
                this.lines.notifyAll();
            }
        }
    }
}
