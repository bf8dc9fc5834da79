package dev.perfls;

import dev.perfls.internal.Sampler;

/**
 * Drives a workload loop. The workload owns set-up, perfls decides how many samples to take:
 *
 * <pre>{@code
 * void w(SPLController spl, int n) {
 *     int[] data = ...;                 // set-up, not measured
 *     while (spl.needsMore()) {
 *         int[] copy = data.clone();    // per-operation set-up, not measured
 *         spl.start();
 *         Arrays.sort(copy);            // measured
 *         spl.end();
 *     }
 * }
 * }</pre>
 *
 * <p>{@code start()} and {@code end()} may be omitted when the loop body holds only measured code;
 * the interval between successive {@code needsMore()} calls is measured then.
 *
 * <p>Outside perfls, {@code new SPLController(n)} runs the loop {@code n} times and measures
 * nothing, which is handy for debugging a workload.
 */
public final class SPLController {
    private final Sampler sampler;
    private long remaining;

    /** A controller that lets the loop run {@code iterations} times and measures nothing. */
    public SPLController(long iterations) {
        this.sampler = null;
        this.remaining = iterations;
    }

    /** Used by the perfls harness. */
    public SPLController(Sampler sampler) {
        if (sampler == null) {
            throw new NullPointerException("sampler");
        }
        this.sampler = sampler;
    }

    /** Whether the loop should run once more. */
    public boolean needsMore() {
        if (sampler != null) {
            return sampler.needsMore();
        }
        if (remaining > 0) {
            remaining--;
            return true;
        }
        return false;
    }

    /** Starts the measured span of this iteration. */
    public void start() {
        if (sampler != null) {
            sampler.start();
        }
    }

    /** Ends the measured span of this iteration. */
    public void end() {
        if (sampler != null) {
            sampler.end();
        }
    }
}
