package dev.perfls.internal;

import dev.perfls.SPLController;
import java.io.ByteArrayInputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UnsupportedEncodingException;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Base class of the generated harnesses ({@code PerflsHarness_<key>}). A generated subclass
 * overrides either the generator hooks ({@link #generate}, {@link #prepare}, {@link #run}) or the
 * workload-loop hook ({@link #workload}); {@link #main} drives it and reports on the protocol
 * stream (see {@link Protocol}).
 */
public abstract class Bench {
    private static final int USER_OUTPUT_KEPT = 64 * 1024;
    private static final int USER_OUTPUT_REPORTED = 8 * 1024;
    /** Off-CPU time a sample may show beyond the fork's best wall/CPU ratio (timer ticks, clock reads). */
    private static final long RETAKE_SLACK_NS = 20_000;

    private static volatile boolean finished;

    /** The request's arguments (a Long or a String each), from the "arg.i" options. */
    private Object[] requestArgs = new Object[0];

    /** Calls the generator (directly) and returns what it returned. */
    protected Object generate() throws Throwable {
        throw new IllegalStateException("this harness has no generator");
    }

    /** Extracts the typed arguments of every call from the tuples; not timed. */
    protected void prepare(Object[][] tuples) throws Throwable {
    }

    /** Makes {@code passes} full passes over the prepared calls; the timed region. */
    protected void run(long passes, Blackhole bh) throws Throwable {
    }

    /** True when this harness drives a workload loop instead of a generator. */
    protected boolean workloadLoop() {
        return false;
    }

    /** Calls the workload-loop method once. */
    protected void workload(SPLController spl) throws Throwable {
    }

    // The request's arguments, converted to a parameter type by the generated generate() or
    // workload() before anything is timed. perfls has checked types and ranges before starting
    // the JVM; the checks here only guard against a harness run by hand with other options.

    private Object requestArg(int i) {
        if (i >= requestArgs.length || requestArgs[i] == null) {
            throw new IllegalArgumentException("request argument " + (i + 1) + " was not given to the harness");
        }
        return requestArgs[i];
    }

    private long integerArg(int i, long min, long max, String type) {
        Object v = requestArg(i);
        if (!(v instanceof Long)) {
            throw new IllegalArgumentException("request argument " + (i + 1) + " is a string, not " + type);
        }
        long n = (Long) v;
        if (n < min || n > max) {
            throw new IllegalArgumentException("request argument " + (i + 1) + ": " + n + " does not fit in " + type);
        }
        return n;
    }

    protected final int intArg(int i) {
        return (int) integerArg(i, Integer.MIN_VALUE, Integer.MAX_VALUE, "int");
    }

    protected final long longArg(int i) {
        return integerArg(i, Long.MIN_VALUE, Long.MAX_VALUE, "long");
    }

    protected final short shortArg(int i) {
        return (short) integerArg(i, Short.MIN_VALUE, Short.MAX_VALUE, "short");
    }

    protected final byte byteArg(int i) {
        return (byte) integerArg(i, Byte.MIN_VALUE, Byte.MAX_VALUE, "byte");
    }

    /** Integers that a double holds exactly, as a Java literal "n.0" would. */
    protected final double doubleArg(int i) {
        return (double) integerArg(i, -(1L << 53), 1L << 53, "double");
    }

    protected final float floatArg(int i) {
        return (float) integerArg(i, -(1L << 24), 1L << 24, "float");
    }

    protected final String stringArg(int i) {
        Object v = requestArg(i);
        if (!(v instanceof String)) {
            throw new IllegalArgumentException("request argument " + (i + 1) + " is an integer, not a string");
        }
        return (String) v;
    }

    /** For Object (and Number) parameters: a String, or an Integer when the value fits, else a Long. */
    protected final Object objectArg(int i) {
        Object v = requestArg(i);
        if (v instanceof Long) {
            long n = (Long) v;
            return n >= Integer.MIN_VALUE && n <= Integer.MAX_VALUE ? (Object) Integer.valueOf((int) n) : v;
        }
        return v;
    }

    public static void main(Bench bench, String[] args) {
        final Protocol out = Protocol.stdout();
        final TailSink sink = new TailSink(USER_OUTPUT_KEPT);
        PrintStream user;
        try {
            user = new PrintStream(sink, true, "UTF-8");
        } catch (UnsupportedEncodingException e) {
            user = new PrintStream(sink, true);
        }
        System.setOut(user);
        System.setErr(user);
        System.setIn(new ByteArrayInputStream(new byte[0]));

        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (!finished) {
                reportOutput(out, sink);
                out.line("exit", Protocol.escape(exitStack()));
            }
        }, "perfls-exit-hook"));

        out.line("hello", Integer.toString(Protocol.VERSION), Long.toString(ProcessHandle.current().pid()));
        Bench[] holder = {bench};
        bench = null;
        execute(holder, args, out, sink);
        finished = true;
        Runtime.getRuntime().halt(0);
    }

    /**
     * Runs one measurement and reports it ("env", "tuples", "warmup", "sample" lines, then
     * "output" and "end" or "error"). {@code holder[0]} is the harness; it is cleared so that
     * the harness (and the workload's data) can be collected after an OutOfMemoryError. Used by
     * {@link #main} in a fork and by {@link Worker} for each request.
     */
    static void execute(Bench[] holder, String[] args, Protocol out, TailSink sink) {
        Bench bench = holder[0];
        holder[0] = null;
        String phase = "harness";
        Meters meters = null;
        try {
            Options opt = Options.parse(args);
            if (opt.parentPipe) {
                ParentWatch.start(opt.deadlineNs);
            }
            bench.requestArgs = opt.args;
            environment(out);
            meters = new Meters();
            long tid = meters.bindThread();
            if (tid >= 0) {
                out.line("thread", Long.toString(tid));
            }
            if (bench.workloadLoop()) {
                phase = "workload";
                Sampler s = new Sampler(out, meters, opt);
                bench.workload(new SPLController(s));
                s.finish();
            } else {
                phase = "generator";
                Object[][] tuples = materialise(bench.generate());
                int k = tuples.length;
                out.line("tuples", Integer.toString(k));
                phase = "arguments";
                bench.prepare(tuples);
                tuples = null;
                phase = "method";
                measure(bench, out, meters, opt, k);
            }
            bench = null;
            reportOutput(out, sink);
            out.line("end");
        } catch (Throwable t) {
            bench = null; // let the garbage go, so that reporting works after OutOfMemoryError
            String trace;
            try {
                StringWriter w = new StringWriter();
                t.printStackTrace(new PrintWriter(w));
                trace = w.toString();
            } catch (Throwable again) {
                trace = t.getClass().getName();
            }
            reportOutput(out, sink);
            out.line("error", phase, Protocol.escape(trace));
        } finally {
            if (meters != null) {
                meters.close(); // a worker JVM runs many requests: no descriptor may leak
            }
        }
    }

    static void reportOutput(Protocol out, TailSink sink) {
        long total = sink.total();
        if (total > 0) {
            out.line("output", Long.toString(total), Protocol.escape(sink.tail(USER_OUTPUT_REPORTED)));
        }
    }

    private static void environment(Protocol out) {
        String[] keys = {"java.version", "java.vendor", "java.vm.name", "java.vm.version", "os.name", "os.arch"};
        for (String k : keys) {
            out.line("env", k, Protocol.escape(System.getProperty(k, "")));
        }
        out.line("env", "cores", Integer.toString(Runtime.getRuntime().availableProcessors()));
        out.line("env", "heap.max.mb", Long.toString(Runtime.getRuntime().maxMemory() >> 20));
        try {
            StringBuilder gcs = new StringBuilder();
            for (java.lang.management.GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
                gcs.append(gcs.length() > 0 ? ", " : "").append(gc.getName());
            }
            out.line("env", "gc", Protocol.escape(gcs.toString()));
        } catch (RuntimeException | LinkageError e) {
            // no management: no collector names
        }
        try {
            for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
                out.line("env", "jvm.arg", Protocol.escape(a));
            }
        } catch (RuntimeException | LinkageError e) {
            // no management: no JVM arguments
        }
    }

    /** Turns what a generator returned into the list of argument tuples. */
    static Object[][] materialise(Object g) {
        if (g == null) {
            throw new IllegalStateException("the generator returned null; it must return an Iterable<Object[]>");
        }
        Iterator<?> it;
        if (g instanceof Iterable) {
            it = ((Iterable<?>) g).iterator();
        } else if (g instanceof Iterator) {
            it = (Iterator<?>) g;
        } else if (g instanceof Object[]) {
            it = java.util.Arrays.asList((Object[]) g).iterator();
        } else if (g instanceof java.util.stream.BaseStream) {
            it = ((java.util.stream.BaseStream<?, ?>) g).iterator();
        } else {
            throw new IllegalStateException("the generator returned a " + g.getClass().getName()
                    + "; it must return an Iterable<Object[]>");
        }
        List<Object[]> list = new ArrayList<>();
        while (it.hasNext()) {
            Object e = it.next();
            if (!(e instanceof Object[])) {
                throw new IllegalStateException("element " + list.size() + " of the generator's result is "
                        + (e == null ? "null" : "a " + e.getClass().getName())
                        + "; each element must be an Object[] holding one call's arguments");
            }
            list.add((Object[]) e);
        }
        if (list.isEmpty()) {
            throw new IllegalStateException("the generator produced no argument tuples");
        }
        return list.toArray(new Object[0][]);
    }

    /**
     * The most operations one sample may hold: no call takes less than 0.1 ns, so a sample of
     * more than ten operations per nanosecond of the minimum sample time only arises when the
     * compiler removed the measured code; bounding it keeps a later deoptimisation from turning
     * one sample into hours.
     */
    static long maxOps(Options opt) {
        return Math.max(1_000L, Math.min(opt.minSampleNs, Long.MAX_VALUE / 40) * 10);
    }

    /**
     * The number of passes per sample so that a sample lasts at least {@code minNs}, with a 20 %
     * margin for passes that run slower than the estimate.
     */
    static long batchFor(long minNs, double perPassNs, long max) {
        double want = Math.ceil(1.2 * minNs / perPassNs);
        if (!(want >= 1)) {
            return 1;
        }
        return want >= max ? max : (long) want;
    }

    private static void measure(Bench b, Protocol out, Meters m, Options opt, int k) throws Throwable {
        Blackhole bh = new Blackhole();
        long maxBatch = Math.max(1, maxOps(opt) / Math.max(k, 1));
        long batch = 1;
        long passes = 0;
        int iters = 0;
        // Time per pass of the last three warm-up iterations; the smallest is the estimate (an
        // underestimate only makes samples longer, never shorter than the minimum).
        double[] recent = {Double.MAX_VALUE, Double.MAX_VALUE, Double.MAX_VALUE};
        long start = System.nanoTime();
        JitWatch jit = new JitWatch(opt, m, start);
        long elapsed;
        // The smallest wall/CPU ratio of warm-up iterations at least half a sample long: what an
        // undisturbed sample of this workload looks like (about 1 for CPU-bound code), so that
        // even the first sample can be recognised as preempted. Never below 1: a thread cannot run
        // longer than the time that passed, and a clock read's own cost (or a VM's CPU clock) can
        // make one iteration look like it did, which would then mark every sample as preempted.
        double bestRatio = Double.MAX_VALUE;
        while (true) {
            long wc0 = m.cpu();
            long t0 = System.nanoTime();
            b.run(batch, bh);
            long t1 = System.nanoTime();
            long wc1 = m.cpu();
            long dt = t1 - t0;
            if (wc0 >= 0 && wc1 > wc0 && dt >= opt.minSampleNs / 2) {
                bestRatio = Math.max(1, Math.min(bestRatio, dt / (double) (wc1 - wc0)));
            }
            passes += batch;
            recent[iters % recent.length] = Math.max(dt, 1) / (double) batch;
            iters++;
            elapsed = t1 - start;
            if (jit.done(t1, batch * k, dt, dt >= opt.minSampleNs / 2)) {
                break;
            }
            if (dt < opt.minSampleNs && batch < maxBatch) {
                batch = Math.min(batch * 2, maxBatch);
            }
        }
        double perPass = Math.min(recent[0], Math.min(recent[1], recent[2]));
        batch = batchFor(opt.minSampleNs, perPass, maxBatch);
        long ops = batch * k;
        out.line("warmup", Long.toString(passes * k), Long.toString(elapsed), Integer.toString(jit.settled()),
                Long.toString(jit.compileMs()), jit.open());
        // A sample during which the thread was off the CPU (preempted by another process: its wall
        // time exceeds its CPU time by more than the fork's usual ratio allows) and no GC ran is
        // reported as "retaken" and taken again, at most 2 × opt.samples times: preemption measures
        // the machine's load, not the method. Workloads that wait by design have a high ratio in
        // every sample and are unaffected.
        // In a profiled fork every sample is an iteration of the recording and none is retaken:
        // the profile's figures never feed a verdict, and a retaken sample would leave a gap.
        int retakes = 0;
        int maxRetakes = opt.profile || opt.count ? 0 : 2 * opt.samples;
        for (int s = 0; s < opt.samples; ) {
            Object mark = opt.profile ? ProfileMarks.begin() : null;
            int cpu0 = m.processor();
            long gcMs0 = m.gcMillis();
            long gc0 = m.gcCount();
            long p0 = m.processCpu();
            long a0 = m.allocated();
            long c0 = m.cpu();
            if (opt.count) {
                Counts.begin();
            }
            long t0 = System.nanoTime();
            b.run(batch, bh);
            long t1 = System.nanoTime();
            if (opt.count) {
                Counts.end();
                Counts.sample();
            }
            long c1 = m.cpu();
            long a1 = m.allocated();
            long p1 = m.processCpu();
            long gc1 = m.gcCount();
            long wall = t1 - t0;
            long cpu = c1 - c0;
            if (mark != null) {
                ProfileMarks.end(mark, ops, wall, c0 < 0 ? -1 : cpu, a0 < 0 ? -1 : a1 - a0);
            }
            if (c0 >= 0 && cpu > 0 && gc1 == gc0) {
                double ratio = wall / (double) cpu;
                if (wall > bestRatio * 1.02 * cpu + RETAKE_SLACK_NS && retakes < maxRetakes) {
                    retakes++;
                    out.line("retaken", Long.toString(wall), Long.toString(cpu));
                    continue;
                }
                bestRatio = Math.max(1, Math.min(bestRatio, ratio));
            }
            String[] st = m.state(gcMs0);
            out.line("sample", Long.toString(wall), Long.toString(c0 < 0 ? -1 : cpu), Long.toString(ops),
                    Long.toString(a0 < 0 ? -1 : a1 - a0), Long.toString(gc1 - gc0), st[0], st[1], st[2], st[3],
                    Long.toString(p0 < 0 || p1 < 0 ? -1 : p1 - p0), Integer.toString(sameProcessor(cpu0, m.processor())));
            s++;
        }
        List<String[]> ramp = null;
        if (opt.profile && opt.rampRounds > 0) {
            // Rounds of about a sample and three quarters: B's windows about a 24th of a sample,
            // A's twice that (a few milliseconds, so that the copies alternate faster than the
            // machine's load changes), seven steps A, B, A, M.
            long window = Math.max(1, batch / 24);
            ramp = RampControl.run(b, opt, m, window, Math.max(1, 3 * batch / (10 * window)), k);
        }
        if (opt.profile) {
            finishProfile(out, null, ramp);
        }
        if (opt.count) {
            Counts.report(out, ops);
        }
    }

    /**
     * A new instance of {@code b}'s harness class loaded by {@code loader}, with b's request
     * arguments, its generator called and its tuples prepared (the ramp test's control copies).
     */
    static Bench copyIn(Bench b, ClassLoader loader) throws Throwable {
        Bench c = (Bench) Class.forName(b.getClass().getName(), true, loader).getDeclaredConstructor().newInstance();
        c.requestArgs = b.requestArgs;
        c.prepare(materialise(c.generate()));
        return c;
    }

    /**
     * The processor field of a sample line: the processor the thread ran on at the sample's start
     * and end, -2 when those differ (it moved during the sample), -1 when unknown.
     */
    static int sameProcessor(int start, int end) {
        if (start < 0 || end < 0) {
            return -1;
        }
        return start == end ? start : -2;
    }

    /**
     * Reduces a profiled fork's recording to its summary (perfls-prof-* lines), leaving out a
     * workload loop's gaps between spans (null: none); a failure is reported as perfls-prof-error,
     * so that the samples still count.
     */
    static void finishProfile(Protocol out, SpanGaps gaps, List<String[]> extra) {
        try {
            if (extra == null || extra.isEmpty()) {
                ProfileMarks.finish(out::line, gaps);
                return;
            }
            // The extra lines go before the summary's end line, which counts them.
            ProfileMarks.finish((kind, fields) -> {
                if (kind.equals("prof-end") && fields.length == 1) {
                    for (String[] l : extra) {
                        out.line(l[0], java.util.Arrays.copyOfRange(l, 1, l.length));
                    }
                    fields = new String[] {Long.toString(Long.parseLong(fields[0]) + extra.size())};
                }
                out.line(kind, fields);
            }, gaps);
        } catch (Throwable t) {
            out.line("prof-error", Protocol.escape(t.toString()));
        }
    }

    /** The stack of the thread that called System.exit, from its caller on. */
    static String exitStack() {
        try {
            for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
                StackTraceElement[] st = e.getValue();
                int at = -1;
                for (int i = 0; i < st.length; i++) {
                    String c = st[i].getClassName();
                    if ((c.equals("java.lang.System") || c.equals("java.lang.Runtime"))
                            && st[i].getMethodName().equals("exit")) {
                        at = i;
                    }
                }
                if (at >= 0) {
                    StringBuilder sb = new StringBuilder();
                    sb.append("System.exit called in thread \"").append(e.getKey().getName()).append("\"\n");
                    for (int i = at + 1; i < st.length; i++) {
                        sb.append("\tat ").append(st[i]).append('\n');
                    }
                    return sb.toString();
                }
            }
        } catch (Throwable t) {
            // fall through
        }
        return "System.exit called\n";
    }
}
