package dev.perfls.internal;

/**
 * Takes samples for a workload loop driven through {@link dev.perfls.SPLController}. A span is
 * one {@code start()}..{@code end()} interval, or, when an iteration calls neither, the interval
 * between two {@code needsMore()} calls. Spans are counted as warm-up until the warm-up time has
 * passed (and at least a few spans were seen); then consecutive spans are grouped so that one
 * sample lasts at least the minimum sample time, and each sample is reported with its span
 * count as the number of operations.
 *
 * <p>In a profiled fork every sample is an iteration of the recording ({@link ProfileMarks}),
 * from its first span's start to its last span's end, and the intervals between spans (the
 * loop's set-up, the harness's reporting) are kept in {@link SpanGaps} so that the profile
 * leaves them out. The recording covers every thread, so threads the loop starts are profiled.
 */
public final class Sampler {
    private static final int WARMUP = 0;
    private static final int MEASURE = 1;
    private static final int DONE = 2;

    private final Protocol out;
    private final Meters meters;
    private final Options opt;

    private int state = WARMUP;
    private boolean started;
    private long warmStart;
    private long warmSpans;
    private final long[] recentSpans = new long[63];
    private long batch = 1;
    private JitWatch jit;

    private long accNs;
    private long accCpu;
    private long accAlloc;
    private long accProc;
    // The processor the thread was on when the current sample began (Bench.sameProcessor).
    private int sampleProcessor = -1;
    private long accOps;
    private long gc0;
    private long gcMs0;
    private int emitted;

    private boolean explicit;
    private boolean open;
    private long spanWall;
    private long spanCpu;
    private long spanAlloc;
    private long spanProc;
    private long iterWall;
    private long iterCpu;
    private long iterAlloc;
    private long iterProc;

    // A profiled fork: the current sample's recording mark (null: none begun), the gaps between
    // spans, and where the current gap began (0: none open).
    private Object mark;
    private final SpanGaps gaps;
    private long gapFrom;

    Sampler(Protocol out, Meters meters, Options opt) {
        this.out = out;
        this.meters = meters;
        this.opt = opt;
        this.gaps = opt.profile ? new SpanGaps() : null;
    }

    public boolean needsMore() {
        long now = System.nanoTime();
        long cpuNow = meters.cpu();
        long allocNow = meters.allocated();
        long procNow = meters.processCpu();
        if (open) {
            throw new IllegalStateException("SPLController.start() was not followed by end()");
        }
        if (state == DONE) {
            return false;
        }
        if (!started) {
            begin(now);
        } else if (!explicit) {
            record(now - iterWall, cpuNow < 0 ? -1 : cpuNow - iterCpu, allocNow < 0 ? -1 : allocNow - iterAlloc,
                    procNow < 0 || iterProc < 0 ? -1 : procNow - iterProc);
        }
        explicit = false;
        if (state == DONE) {
            return false;
        }
        if (opt.count && state == MEASURE) {
            Counts.begin();
        }
        beginMark();
        iterProc = meters.processCpu();
        iterAlloc = meters.allocated();
        iterCpu = meters.cpu();
        iterWall = System.nanoTime();
        return true;
    }

    public void start() {
        if (open) {
            throw new IllegalStateException("SPLController.start() called twice without end()");
        }
        if (!started) {
            begin(System.nanoTime());
        }
        open = true;
        explicit = true;
        if (gaps != null && gapFrom != 0) {
            gaps.add(gapFrom, System.nanoTime());
            gapFrom = 0;
        }
        beginMark();
        if (opt.count && state == MEASURE) {
            Counts.begin();
        }
        spanProc = meters.processCpu();
        spanAlloc = meters.allocated();
        spanCpu = meters.cpu();
        spanWall = System.nanoTime();
    }

    public void end() {
        long w = System.nanoTime();
        long c = meters.cpu();
        long a = meters.allocated();
        long pc = meters.processCpu();
        if (!open) {
            throw new IllegalStateException("SPLController.end() called without start()");
        }
        open = false;
        if (state != DONE) {
            record(w - spanWall, spanCpu < 0 ? -1 : c - spanCpu, spanAlloc < 0 || a < 0 ? -1 : a - spanAlloc,
                    spanProc < 0 || pc < 0 ? -1 : pc - spanProc);
        }
        if (gaps != null && state == MEASURE) {
            gapFrom = System.nanoTime();
        }
    }

    /** In a profiled fork, begins the recording's iteration for the sample about to take spans. */
    private void beginMark() {
        if (gaps != null && state == MEASURE && mark == null) {
            mark = ProfileMarks.begin();
        }
    }

    /** Fails when the workload returned before enough samples were taken. */
    void finish() {
        if (state != DONE) {
            throw new IllegalStateException("the workload returned after " + emitted + " of "
                    + opt.samples + " samples; loop with while (spl.needsMore()) { ... } until it returns false");
        }
        if (opt.count) {
            Counts.report(out, batch);
        }
        if (opt.profile) {
            Bench.finishProfile(out, gaps, null);
        }
    }

    private void begin(long now) {
        started = true;
        warmStart = now;
        jit = new JitWatch(opt, meters, now);
    }

    private void record(long ns, long cpu, long alloc, long proc) {
        if (opt.count) {
            Counts.end(); // nothing during warm-up: no span was begun
        }
        if (state == WARMUP) {
            recentSpans[(int) (warmSpans % recentSpans.length)] = ns;
            warmSpans++;
            long now = System.nanoTime();
            long elapsed = now - warmStart;
            if (jit.done(now, 1, ns, true)) {
                // The median of the last spans, robust to a garbage collection in one of them.
                int n = (int) Math.min(warmSpans, recentSpans.length);
                long[] last = java.util.Arrays.copyOf(recentSpans, n);
                java.util.Arrays.sort(last);
                double span = Math.max(last[n / 2], 1);
                batch = Bench.batchFor(opt.minSampleNs, span, Bench.maxOps(opt));
                out.line("warmup", Long.toString(warmSpans), Long.toString(elapsed), Integer.toString(jit.settled()),
                        Long.toString(jit.compileMs()), jit.open());
                state = MEASURE;
                resetSample();
                sampleProcessor = meters.processor();
            }
            return;
        }
        accNs += ns;
        accCpu = (accCpu < 0 || cpu < 0) ? -1 : accCpu + cpu;
        accAlloc = (accAlloc < 0 || alloc < 0) ? -1 : accAlloc + alloc;
        accProc = (accProc < 0 || proc < 0) ? -1 : accProc + proc;
        accOps++;
        if (accOps >= batch) {
            if (mark != null) {
                // The measuring thread's CPU time stands for the sample's only when it did most of
                // the process's work: a loop whose spans run other threads (and wait for them) is
                // judged by its wall time.
                long profCpu = accCpu >= 0 && accProc > 0 && 2 * accCpu < accProc ? -1 : accCpu;
                ProfileMarks.end(mark, accOps, accNs, profCpu, accAlloc);
                mark = null;
            }
            long gc = meters.gcCount();
            String[] st = meters.state(gcMs0);
            int cpuNow = meters.processor();
            out.line("sample", Long.toString(accNs), Long.toString(accCpu), Long.toString(accOps), Long.toString(accAlloc),
                    Long.toString(gc - gc0), st[0], st[1], st[2], st[3], Long.toString(accProc),
                    Integer.toString(Bench.sameProcessor(sampleProcessor, cpuNow)));
            sampleProcessor = cpuNow;
            emitted++;
            if (opt.count) {
                Counts.sample();
            }
            if (emitted >= opt.samples) {
                state = DONE;
            } else {
                resetSample();
            }
        }
    }

    private void resetSample() {
        accNs = 0;
        accCpu = 0;
        accAlloc = 0;
        accProc = 0;
        accOps = 0;
        gc0 = meters.gcCount();
        gcMs0 = meters.gcMillis();
    }
}
