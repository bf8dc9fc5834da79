package dev.perfls.internal;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * One timed window of the ramp control's copy A or B (see {@link RampControl}), as a
 * flight-recorder event: {@link JfrSummary} splits the execution samples of the control's rounds
 * by copy, so that the line whose share is larger in the copy that made more calls — the line
 * whose cost grows — shows, at the same moments for both. Loaded only in profiled forks.
 */
@Name(RampWindow.NAME)
@Label("perfls ramp-control window")
@Category("perfls")
@Description("A window of calls of one copy of the ramp control of a perfls profiled fork")
@StackTrace(false)
final class RampWindow extends jdk.jfr.Event {
    static final String NAME = "dev.perfls.RampWindow";

    @Label("Copy")
    @Description("A (the copy that makes more calls) or B")
    String copy;
}
