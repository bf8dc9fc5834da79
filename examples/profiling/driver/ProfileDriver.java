import dev.perfls.internal.ProfileMarks;
import dev.perfls.internal.Protocol;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

/**
 * A stand-in for perfls's harness in the profiling tests: calls a method directly (through a
 * generated Body class, as the harness's timed loop does) on its generator's argument lists,
 * warms up, then runs timed iterations marked with ProfileMarks in a JVM started with
 * -XX:StartFlightRecording, and writes the profile summary on standard output.
 *
 * Arguments: bodyClass generatorClass generatorMethod generatorArg warmupMs iterations
 * iterationMs mode, where mode is "summary" (marks and summary), "mark" (marks only), "plain"
 * (neither: for timing without profiling) or "self=SETTINGS.jfc" (the JVM was started without
 * recording options: start the recording after warm-up, as the warm worker would, and print the
 * time from there to the summary as perfls-driver-profilems).
 */
public final class ProfileDriver {
    /** The generated direct call of the measured method on one argument list. */
    public interface Body {
        long run(Object[] args) throws Throwable;
    }

    static volatile long sink;

    public static void main(String[] a) throws Throwable {
        Body body = (Body) Class.forName(a[0]).getDeclaredConstructor().newInstance();
        Method g = Class.forName(a[1]).getDeclaredMethod(a[2], int.class);
        List<Object[]> tuples = new ArrayList<>();
        for (Object t : (Iterable<?>) g.invoke(null, Integer.parseInt(a[3]))) {
            tuples.add((Object[]) t);
        }
        Object[][] calls = tuples.toArray(new Object[0][]);
        long warmupNs = Long.parseLong(a[4]) * 1_000_000L;
        int iterations = Integer.parseInt(a[5]);
        long iterationNs = Long.parseLong(a[6]) * 1_000_000L;
        String mode = a[7];
        boolean mark = !mode.equals("plain");
        String selfSettings = mode.startsWith("self=") ? mode.substring("self=".length()) : null;

        long start = System.nanoTime();
        long passes = 0;
        while (System.nanoTime() - start < warmupNs) {
            sink += pass(body, calls, 1);
            passes++;
        }
        double perPass = (System.nanoTime() - start) / (double) Math.max(1, passes);
        long profileStart = System.nanoTime();
        if (selfSettings != null) {
            ProfileMarks.startRecording(selfSettings);
        }
        long batch = Math.max(1, (long) Math.ceil(iterationNs / perPass));
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        com.sun.management.ThreadMXBean allocs = (com.sun.management.ThreadMXBean) threads;
        long me = Thread.currentThread().getId();
        long total = 0, totalOps = 0;
        for (int i = 0; i < iterations; i++) {
            Object mk = mark ? ProfileMarks.begin() : null;
            long a0 = allocs.getThreadAllocatedBytes(me);
            long c0 = threads.getCurrentThreadCpuTime();
            long t0 = System.nanoTime();
            sink += pass(body, calls, batch);
            long t1 = System.nanoTime();
            long c1 = threads.getCurrentThreadCpuTime();
            long a1 = allocs.getThreadAllocatedBytes(me);
            long ops = batch * calls.length;
            if (mark) {
                ProfileMarks.end(mk, ops, t1 - t0, c0 < 0 ? -1 : c1 - c0, a0 < 0 ? -1 : a1 - a0);
            }
            total += t1 - t0;
            totalOps += ops;
        }
        Protocol out = Protocol.stdout();
        out.line("driver-nsperop", Double.toString(total / (double) totalOps));
        if (mode.equals("summary") || selfSettings != null) {
            long r0 = System.nanoTime();
            ProfileMarks.finish(out::line);
            long r1 = System.nanoTime();
            out.line("driver-reducems", Long.toString((r1 - r0) / 1_000_000));
            out.line("driver-profilems", Long.toString((r1 - profileStart) / 1_000_000));
        }
        out.line("driver-end");
        System.exit(0); // the examples' pool and service threads are daemons, but do not wait for them
    }

    private static long pass(Body body, Object[][] calls, long passes) throws Throwable {
        long acc = 0;
        for (long p = 0; p < passes; p++) {
            for (Object[] t : calls) {
                acc += body.run(t);
            }
        }
        return acc;
    }
}
