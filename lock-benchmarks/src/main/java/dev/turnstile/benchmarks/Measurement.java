package dev.turnstile.benchmarks;

import java.util.List;

/**
 * What one scenario measured: the median of its trials.
 *
 * @param scenario the scenario
 * @param acquisitionsPerSecond granted acquisitions per second
 * @param roundTripsPerAcquisition commands sent by clients per granted acquisition (NaN when the
 *     library's client is not counted)
 * @param commandsPerAcquisition Redis commands executed (INFO commandstats, which includes the
 *     commands run inside Lua scripts) per granted acquisition
 * @param acquireP50Micros median acquire latency, in microseconds
 * @param acquireP99Micros 99th percentile acquire latency, in microseconds
 * @param handoffP50Micros median time from a release to the next holder's acquisition (contended
 *     scenarios; NaN otherwise)
 * @param cpuMicrosPerAcquisition client (this JVM's) CPU time per acquisition, in microseconds
 * @param serverCpuMicrosPerAcquisition the Redis server's main-thread CPU time per acquisition, in
 *     microseconds: what each acquisition costs the one thread every client of that server shares
 * @param roundRates granted acquisitions per second of each timed trial, in the order of the rounds
 *     (round {@code i} of every scenario of a group ran back to back)
 */
record Measurement(
        Scenario scenario,
        double acquisitionsPerSecond,
        double roundTripsPerAcquisition,
        double commandsPerAcquisition,
        double acquireP50Micros,
        double acquireP99Micros,
        double handoffP50Micros,
        double cpuMicrosPerAcquisition,
        double serverCpuMicrosPerAcquisition,
        List<Double> roundRates) {

    /** This measurement, with the rates of every round it was the median of. */
    Measurement withRounds(List<Double> rates) {
        return new Measurement(
                this.scenario,
                this.acquisitionsPerSecond,
                this.roundTripsPerAcquisition,
                this.commandsPerAcquisition,
                this.acquireP50Micros,
                this.acquireP99Micros,
                this.handoffP50Micros,
                this.cpuMicrosPerAcquisition,
                this.serverCpuMicrosPerAcquisition,
                List.copyOf(rates));
    }
}
