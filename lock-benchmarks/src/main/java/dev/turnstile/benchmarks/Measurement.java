package dev.turnstile.benchmarks;

/**
 * What one scenario measured: the median of its trials.
 *
 * @param scenario the scenario
 * @param acquisitionsPerSecond granted acquisitions per second
 * @param roundTripsPerAcquisition commands sent by clients per granted acquisition
 * @param commandsPerAcquisition Redis commands executed (INFO commandstats, which includes the
 *     commands run inside Lua scripts) per granted acquisition
 * @param p50Micros median latency of one operation, in microseconds
 * @param p99Micros 99th percentile latency of one operation, in microseconds
 */
record Measurement(
        Scenario scenario,
        double acquisitionsPerSecond,
        double roundTripsPerAcquisition,
        double commandsPerAcquisition,
        double p50Micros,
        double p99Micros) {}
