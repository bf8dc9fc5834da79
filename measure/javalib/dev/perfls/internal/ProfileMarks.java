package dev.perfls.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.text.ParseException;
import java.util.List;
import jdk.jfr.Configuration;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Recording;
import jdk.jfr.RecordingState;

/**
 * What a harness calls in a profiled fork (one started with {@code -XX:StartFlightRecording}
 * and perfls's settings): {@link #begin} and {@link #end} around every measured iteration, and
 * {@link #finish} once after the measured region, which reduces the recording to its summary
 * (see {@link JfrSummary}) on the harness's protocol stream. A JVM that is already running (the
 * warm worker) starts the recording itself with {@link #startRecording}. Only profiled forks
 * load this class, so unprofiled forks never touch the jdk.jfr module.
 */
public final class ProfileMarks {
    private ProfileMarks() {}

    /**
     * Starts a recording named "perfls" with the settings file at {@code settingsPath} (perfls's
     * .jfc), in a JVM that was not started with -XX:StartFlightRecording. {@link #finish} stops it.
     */
    public static void startRecording(String settingsPath) throws IOException, ParseException {
        Recording r = new Recording(Configuration.create(Paths.get(settingsPath)));
        r.setName("perfls");
        r.start();
    }

    /** Starts one measured iteration; pass the result to {@link #end}. */
    public static Object begin() {
        ProfileIteration e = new ProfileIteration();
        // Read just before the event's own clock: events are stamped when they are done, so a
        // clock offset that errs makes the gaps of a workload loop (SpanGaps) end late, not early.
        long now = System.nanoTime();
        e.begin();
        e.nanoStart = now;
        return e;
    }

    /**
     * Ends the iteration begun with {@code mark}: {@code ops} operations in {@code ns} wall
     * nanoseconds, of which the measuring thread ran {@code cpuNs} on a CPU and during which it
     * allocated {@code allocBytes} (each -1 when unknown; the harness measures both per sample
     * already). The allocated bytes calibrate the recording's allocation samples.
     */
    public static void end(Object mark, long ops, long ns, long cpuNs, long allocBytes) {
        ProfileIteration e = (ProfileIteration) mark;
        e.end();
        e.ops = ops;
        e.ns = ns;
        e.cpuNs = cpuNs;
        e.allocBytes = allocBytes;
        e.commit();
    }

    /**
     * Dumps this JVM's running flight recording to a temporary file, stops it, writes the
     * summary of the marked region to {@code out} (all the workload's threads) and deletes the
     * file. A recording named "perfls" is preferred when several run.
     *
     * @throws IllegalStateException when no recording is running
     */
    public static void finish(JfrSummary.Sink out) throws IOException {
        finish(out, null);
    }

    /**
     * As {@link #finish(JfrSummary.Sink)}, leaving out what happened during {@code gaps}: the set-up
     * a workload loop runs between its measured spans (see {@link SpanGaps}); null: none.
     */
    public static void finish(JfrSummary.Sink out, SpanGaps gaps) throws IOException {
        Recording chosen = null;
        List<Recording> all = FlightRecorder.getFlightRecorder().getRecordings();
        for (Recording r : all) {
            if (r.getState() != RecordingState.RUNNING) {
                continue;
            }
            if (chosen == null || "perfls".equals(r.getName())) {
                chosen = r;
            }
        }
        if (chosen == null) {
            throw new IllegalStateException("no flight recording is running; start the JVM with -XX:StartFlightRecording");
        }
        Path tmp = Files.createTempFile("perfls-profile-", ".jfr");
        try {
            chosen.dump(tmp);
            chosen.stop();
            chosen.close(); // a JVM that lives on (the warm worker) keeps no stopped recordings
            JfrSummary.reduce(tmp, false, JfrSummary.DEFAULT_SEGMENTS, gaps, out);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** Closes every recording named "perfls" still open in this JVM (a request that failed). */
    public static void closeRecordings() {
        for (Recording r : FlightRecorder.getFlightRecorder().getRecordings()) {
            if ("perfls".equals(r.getName())) {
                r.close();
            }
        }
    }
}
