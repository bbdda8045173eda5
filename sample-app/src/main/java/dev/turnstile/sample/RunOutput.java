package dev.turnstile.sample;

import java.nio.file.Path;

/** Where a run of the sample writes its pages, as the page's first line names it. */
public final class RunOutput {

    private RunOutput() {}

    /**
     * Returns {@code out} as the command line gave it: relative to the working directory when it lies
     * below it (the property binding makes it absolute), so a page never names this machine's paths.
     */
    public static String shown(Path out) {
        Path here = Path.of("").toAbsolutePath();
        Path absolute = out.toAbsolutePath().normalize();
        return absolute.startsWith(here) ? here.relativize(absolute).toString() : out.toString();
    }
}
