package dev.perfls.internal;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * One measured iteration of a profiled fork, as a flight-recorder event: its start and end
 * bound the measured region, its thread names a measured thread, and {@link JfrSummary} turns
 * the series into per-iteration timings. Committed by {@link ProfileMarks}; loaded only when a
 * fork is profiled, so that a JVM without the jdk.jfr module can still run unprofiled forks.
 */
@Name(ProfileIteration.NAME)
@Label("perfls iteration")
@Category("perfls")
@Description("One measured iteration (a timed sample) of a perfls harness")
@StackTrace(false)
final class ProfileIteration extends jdk.jfr.Event {
    static final String NAME = "dev.perfls.Iteration";

    @Label("Operations")
    long ops;

    @Label("Wall time (ns)")
    @Description("System.nanoTime difference measured by the harness; 0 when not measured")
    long ns;

    @Label("Thread CPU time (ns)")
    @Description("CPU time of the measuring thread during the iteration; -1 when not measured")
    long cpuNs;

    @Label("Allocated bytes")
    @Description("Bytes the measuring thread allocated during the iteration; -1 when not measured")
    long allocBytes;

    @Label("Start (System.nanoTime)")
    @Description("System.nanoTime when the iteration began: maps the harness's clock onto the recording's")
    long nanoStart;
}
