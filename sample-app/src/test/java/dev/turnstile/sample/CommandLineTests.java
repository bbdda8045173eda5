package dev.turnstile.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.turnstile.test.redis.ChildJvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command line is checked before anything starts, and a wrong option is one line naming it. */
class CommandLineTests {

    @Test
    void aDurationIsSecondsOrANumberWithAUnitOfAtLeastOneSecond(@TempDir Path temp) throws Exception {
        String out = "--out=" + temp;
        assertThat(CommandLine.parse("--benchmark", "--duration=60", out).duration())
                .isEqualTo(Duration.ofSeconds(60));
        assertThat(CommandLine.parse("--benchmark", "--duration=1500ms", out).duration())
                .isEqualTo(Duration.ofMillis(1500));
        assertThat(CommandLine.parse("--benchmark", "--duration=2m", out).duration())
                .isEqualTo(Duration.ofMinutes(2));
        assertThat(CommandLine.parse("--benchmark", out).duration()).isEqualTo(Duration.ofSeconds(10));
        for (String tooShort : new String[] {"0s", "0", "60ms", "0.5"}) {
            assertThatExceptionOfType(CommandLine.UsageException.class)
                    .isThrownBy(() -> CommandLine.parse("--benchmark", "--duration=" + tooShort))
                    .withMessage("--duration=" + tooShort + " is under 1 s: a row that short measures nothing;"
                            + " give at least 1s (the book's rows are 60s).");
        }
        assertThatExceptionOfType(CommandLine.UsageException.class)
                .isThrownBy(() -> CommandLine.parse("--benchmark", "--duration=abc"))
                .withMessageStartingWith("--duration=abc is not a duration: give seconds (60) or a number with a unit");
        assertThatExceptionOfType(CommandLine.UsageException.class)
                .isThrownBy(() -> CommandLine.parse("--benchmark", "--duration=11m"))
                .withMessageContaining("give at most 10m");
        assertThatExceptionOfType(CommandLine.UsageException.class)
                .isThrownBy(() -> CommandLine.parse("--lab", "--duration=5"))
                .withMessage("--duration is the length of a --benchmark row: give it with --benchmark.");
    }

    @Test
    void theOutputDirectoryIsCheckedBeforeTheRunAndEachRunGetsItsOwnByDefault(@TempDir Path temp)
            throws IOException, CommandLine.UsageException {
        Path file = Files.writeString(temp.resolve("a-file"), "");
        assertThatExceptionOfType(CommandLine.UsageException.class)
                .isThrownBy(() -> CommandLine.parse("--lab", "--out=" + file))
                .withMessage("--out=" + file + ": cannot write there (it is a file, not a directory); give a directory"
                        + " you can write to.");
        assertThatExceptionOfType(CommandLine.UsageException.class)
                .isThrownBy(() -> CommandLine.parse("--lab", "--out=" + file.resolve("below")))
                .withMessageStartingWith("--out=" + file.resolve("below") + ": cannot write there (");
        assertThatExceptionOfType(CommandLine.UsageException.class)
                .isThrownBy(() -> CommandLine.parse("--lab", "--out="))
                .withMessage("--out needs a value: write --out=DIR.");
        Path asked = temp.resolve("results/6.3");
        assertThat(CommandLine.parse("--benchmark", "--out=" + asked).out())
                .isEqualTo(asked)
                .isDirectory();

        Path first = CommandLine.parse("--lab").out();
        Path second = CommandLine.parse("--lab").out();
        assertThat(first).isDirectory().startsWith(CommandLine.defaultOutRoot().toAbsolutePath());
        assertThat(second)
                .as("a second run does not overwrite the first's files")
                .isNotEqualTo(first);
        Files.delete(first);
        Files.delete(second);
    }

    @Test
    void optionsOfTheSampleAreCheckedAndSpringPropertiesPassedOn() throws Exception {
        CommandLine.Parsed web = CommandLine.parse("--server.port=18080");
        assertThat(web.mode()).isEqualTo(CommandLine.Mode.WEB);
        assertThat(web.springArguments()).containsExactly("--server.port=18080");
        assertThat(CommandLine.parse("--benchmark", "--help").mode()).isEqualTo(CommandLine.Mode.HELP);
        assertThatExceptionOfType(CommandLine.UsageException.class)
                .isThrownBy(() -> CommandLine.parse("--durtion=5", "--benchmark"))
                .withMessageStartingWith("--durtion is not an option of the sample; see --help");
        assertThatExceptionOfType(CommandLine.UsageException.class)
                .isThrownBy(() -> CommandLine.parse("--benchmark", "--lab"))
                .withMessage("--benchmark and --lab are two runs: give one of them.");
        assertThatExceptionOfType(CommandLine.UsageException.class)
                .isThrownBy(() -> CommandLine.parse("benchmark"))
                .withMessageStartingWith("'benchmark' is not an option");
    }

    @Test
    void helpPrintsTheUsageAndAWrongOptionOneLineBothWithoutStartingAnything() {
        try (ChildJvm help = ChildJvm.start(SampleApplication.class, "--help")) {
            help.awaitLineStartingWith("The benchmark and the lab run on a redis-server", Duration.ofSeconds(30));
            assertThat(help.awaitExit(Duration.ofSeconds(10))).isZero();
            assertThat(help.lines()).first().isEqualTo("Turnstile's sample: the marketplace of Redis in Action 6.2.");
            assertThat(String.join("\n", help.lines()))
                    .contains("--duration=D", "--out=DIR")
                    .doesNotContain("Tomcat");
        }
        try (ChildJvm wrong = ChildJvm.start(SampleApplication.class, "--benchmark", "--duration=abc")) {
            assertThat(wrong.awaitExit(Duration.ofSeconds(30))).isEqualTo(SampleApplication.USAGE_ERROR);
            String line = wrong.awaitLineStartingWith("sample-app: ", Duration.ofSeconds(5));
            assertThat(line).startsWith("sample-app: --duration=abc is not a duration");
            assertThat(wrong.lines()).as("one line, no stack trace").containsExactly(line);
        }
    }

    /**
     * A command prints only its own lines (no banner, no framework INFO), and SIGTERM in the middle
     * of it says what was written: here nothing yet, so the empty --out it created is removed, while
     * a directory that was there before is kept.
     */
    @Test
    void aBenchmarkPrintsOnlyItsOwnLinesAndSigtermSaysWhatItLeft(@TempDir Path temp) throws Exception {
        Path fresh = temp.resolve("fresh");
        try (ChildJvm benchmark =
                ChildJvm.start(SampleApplication.class, "--benchmark", "--duration=5s", "--out=" + fresh)) {
            benchmark.awaitLineStartingWith("Table 6.3: 9 rows of 5 s each", Duration.ofSeconds(90));
            ProcessHandle.of(benchmark.pid()).orElseThrow().destroy(); // SIGTERM
            benchmark.awaitExit(Duration.ofSeconds(30));
            String left = benchmark.awaitLineStartingWith("sample-app: stopped", Duration.ofSeconds(5));
            assertThat(left)
                    .isEqualTo("sample-app: stopped before the run finished; nothing was written, and the empty "
                            + fresh + " it had created was removed.");
            assertThat(fresh).doesNotExist();
            assertThat(benchmark.lines())
                    .as("only the command's own lines")
                    .first()
                    .asString()
                    .startsWith("Table 6.3: 9 rows of 5 s each");
            assertThat(String.join("\n", benchmark.lines())).doesNotContain(" INFO ", "Spring Boot ::", "WARN");
        }
        Path existing = Files.createDirectories(temp.resolve("existing"));
        try (ChildJvm benchmark =
                ChildJvm.start(SampleApplication.class, "--benchmark", "--duration=5s", "--out=" + existing)) {
            benchmark.awaitLineStartingWith("Table 6.3: 9 rows of 5 s each", Duration.ofSeconds(90));
            ProcessHandle.of(benchmark.pid()).orElseThrow().destroy();
            benchmark.awaitExit(Duration.ofSeconds(30));
            assertThat(benchmark.awaitLineStartingWith("sample-app: stopped", Duration.ofSeconds(5)))
                    .isEqualTo("sample-app: stopped before the run finished; nothing was written to " + existing + ".");
            assertThat(existing).isDirectory();
        }
    }
}
