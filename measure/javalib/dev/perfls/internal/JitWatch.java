package dev.perfls.internal;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;

/**
 * Decides when warm-up ends: on evidence of a steady state, with a cap.
 *
 * <p>Warm-up ends after the first iteration at which all of these hold: (1) at least the minimum
 * warm-up time and the minimum number of iterations have passed; (2) the measured code ran at
 * least {@link #MIN_CALLS} times, enough for HotSpot's last tier (C2 compiles a method after
 * about 5,000 invocations and 15,000 invocations plus loop iterations) — or half the cap has
 * passed, for slow calls whose loops are compiled on stack; (3) the JVM's total JIT compilation
 * time ({@link CompilationMXBean#getTotalCompilationTime()}) has not changed, and the JVM's other
 * threads used less than {@link #MAX_BACKGROUND} of a processor, during the last {@code quietNs} and
 * the last {@link #QUIET_ITERS} iterations (the total only moves when a compilation finishes: a
 * long C2 compilation in progress shows as compiler-thread CPU time); and (4) the time per call is no
 * longer falling: of the last {@link #TREND_WINDOW} iterations at least half a sample long, the
 * median of the newer half is not more than {@link #TREND_TOLERANCE} below the median of the
 * older half; and (5) code that allocates (more than {@link #ALLOC_FLOOR} bytes since warm-up began)
 * has allocated as much as the committed heap (at most {@link #ALLOC_CEILING}) since the heap last
 * grew, so that the heap pages it allocates in have been touched once, and the heap is not about to
 * grow again ({@link #GROWTH_GCS} collections since it last grew, or recent pauses too short for a
 * collector to grow it). A compilation can be queued while
 * the counters are quiet, so (2) and (4) look at the code's own speed, not only at the compiler. (5)
 * is the memory system's warm-up: the collector hands out regions of the committed heap that were
 * never touched, and each first touch is a page fault; on a virtual machine that made
 * joinWithBuilder(200) 15 times slower (18 µs instead of 1.3 µs) for its first ~0.9 s, while the
 * compiler was long done, and a collection of a small young generation does not end it (G1 then
 * grows eden into untouched regions). Warm-up ends anyway once {@code maxWarmupNs}
 * have passed (then {@link #settled()} is 0 and the figures may be high). Without compilation
 * monitoring, (3) is skipped.
 */
final class JitWatch {
    static final int QUIET_ITERS = 5;
    static final long MIN_CALLS = 20_000;
    static final int TREND_WINDOW = 10;
    static final double TREND_TOLERANCE = 0.02;
    static final double MAX_BACKGROUND = 0.25;
    static final long CHUNK_NS = 20_000_000L;
    static final long ALLOC_FLOOR = 1L << 20;
    static final long ALLOC_CEILING = 1L << 30;
    // G1 (and Parallel) grow the heap after several consecutive collections whose pauses took
    // more than a few percent of the time; G1 weighs its last 10 pauses. Allocating code is warm
    // only after GROWTH_GCS collections without growth, or once the last QUIET_GCS collections
    // show so little pause time (below QUIET_GC_SHARE) that no collector would grow for them.
    static final int GROWTH_GCS = 10;
    static final int QUIET_GCS = 3;
    static final double QUIET_GC_SHARE = 0.02;

    private final boolean compileOnly;
    private final long capNs;
    private final CompilationMXBean bean;
    private final Options opt;
    private final Meters meters;
    private final long allocAtStart;
    private long allocAtGrowth, committed, gcAtGrowth;
    // Bytes this watch allocated itself (MXBean results, the trend's arrays): in a workload loop
    // it runs after every span, and a few hundred bytes a span passed the allocation floor of
    // rule (5) within seconds, so that code allocating nothing never settled.
    private long own;
    private long lastGcCount = -1, lastGcMs, lastGcNs;
    private final double[] gcShares = new double[QUIET_GCS]; // pause share of recent GC intervals
    private int gcIntervals; // intervals recorded in gcShares since the heap last grew
    private boolean sawGrowth;
    private final long start;
    private long lastTotal = -1;
    private long lastChangeNs;
    private int itersSinceChange;
    private int iters;
    private int settled = -1;
    private String open = "-";
    private long compileMsAtStart;
    private long calls;
    private final double[] perCall = new double[TREND_WINDOW]; // ring of recent per-call times
    private int timed; // iterations recorded in perCall
    // Background CPU (process CPU minus this thread's) is measured over chunks of CHUNK_NS.
    private final java.lang.management.ThreadMXBean threads;
    private final com.sun.management.OperatingSystemMXBean os;
    private long chunkStart, chunkProc, chunkThread;

    JitWatch(Options opt, Meters meters, long startNs) {
        this(opt, meters, startNs, false, opt.maxWarmupNs);
    }

    /**
     * A watch for code whose heap is warm already and that runs beside other busy threads of its
     * own (the ramp control's copies, after the measured samples): with {@code compileOnly} the
     * memory condition (5) and the other threads' CPU are left out, so (3) is the compilation
     * time alone; warm-up is capped at {@code capNs}.
     */
    JitWatch(Options opt, Meters meters, long startNs, boolean compileOnly, long capNs) {
        this.compileOnly = compileOnly;
        this.capNs = capNs;
        CompilationMXBean b = null;
        try {
            b = ManagementFactory.getCompilationMXBean();
            if (b != null && !b.isCompilationTimeMonitoringSupported()) {
                b = null;
            }
        } catch (RuntimeException | LinkageError e) {
            b = null;
        }
        this.bean = b;
        java.lang.management.ThreadMXBean t = null;
        com.sun.management.OperatingSystemMXBean o = null;
        try {
            t = ManagementFactory.getThreadMXBean();
            if (!t.isCurrentThreadCpuTimeSupported()) {
                t = null;
            }
            java.lang.management.OperatingSystemMXBean any = ManagementFactory.getOperatingSystemMXBean();
            if (any instanceof com.sun.management.OperatingSystemMXBean) {
                o = (com.sun.management.OperatingSystemMXBean) any;
            }
        } catch (RuntimeException | LinkageError e) {
            t = null;
        }
        this.threads = o == null ? null : t;
        this.os = t == null ? null : o;
        this.chunkStart = startNs;
        if (this.os != null) {
            chunkProc = os.getProcessCpuTime();
            chunkThread = threads.getCurrentThreadCpuTime();
        }
        this.opt = opt;
        this.meters = meters;
        this.allocAtStart = meters.allocated();
        this.allocAtGrowth = allocAtStart;
        this.committed = meters.heapCommitted();
        this.gcAtGrowth = meters.gcCount();
        this.start = startNs;
        this.lastChangeNs = startNs;
        if (b != null) {
            lastTotal = b.getTotalCompilationTime();
            compileMsAtStart = lastTotal;
        }
    }

    /**
     * Records one finished warm-up iteration at {@code now} that made {@code n} calls in
     * {@code dtNs}; {@code long_} says whether it was long enough (half a sample) for its time
     * per call to count in the trend. True when warm-up should end.
     */
    boolean done(long now, long n, long dtNs, boolean long_) {
        long before = meters.allocated();
        try {
            return decide(now, n, dtNs, long_);
        } finally {
            long after = meters.allocated();
            if (before >= 0 && after >= before) {
                own += after - before;
            }
        }
    }

    private boolean decide(long now, long n, long dtNs, boolean long_) {
        iters++;
        calls += n;
        if (long_ && n > 0) {
            perCall[this.timed++ % TREND_WINDOW] = dtNs / (double) n;
        }
        long elapsed = now - start;
        boolean quiet = true;
        if (bean != null) {
            long total = bean.getTotalCompilationTime();
            if (total != lastTotal || !compileOnly && busy(now)) {
                lastTotal = total;
                lastChangeNs = now;
                itersSinceChange = 0;
            } else {
                itersSinceChange++;
            }
            quiet = now - lastChangeNs >= opt.quietNs && itersSinceChange >= QUIET_ITERS;
        }
        // The heap is watched on every iteration, so a growth is never missed
        // while another condition still holds warm-up open.
        boolean memoryWarm = compileOnly || memoryWarm(now);
        if (elapsed < opt.warmupNs || iters < opt.minWarmup) {
            return false;
        }
        boolean enoughCalls = calls >= MIN_CALLS || elapsed >= capNs / 2;
        if (enoughCalls && quiet && notFalling() && memoryWarm) {
            settled = bean == null ? -1 : 1;
            return true;
        }
        if (elapsed >= capNs) {
            settled = 0;
            StringBuilder why = new StringBuilder();
            if (!enoughCalls) {
                why.append(",calls");
            }
            if (!quiet) {
                why.append(",jit");
            }
            if (!notFalling()) {
                why.append(",trend");
            }
            if (!memoryWarm) {
                why.append(",heap");
            }
            open = why.length() == 0 ? "-" : why.substring(1);
            return true;
        }
        return false;
    }

    /**
     * The conditions that still held warm-up open when the cap ended it, comma-separated
     * ({@code calls}, {@code jit}, {@code trend}, {@code heap}); "-" when none or not capped.
     */
    String open() {
        return open;
    }

    /**
     * Whether the JVM's other threads (compilers, above all) used more than MAX_BACKGROUND of a
     * processor during the chunk that ends at {@code now}; false until a chunk is complete.
     */
    private boolean busy(long now) {
        if (os == null || now - chunkStart < CHUNK_NS) {
            return false;
        }
        long proc = os.getProcessCpuTime();
        long thread = threads.getCurrentThreadCpuTime();
        boolean busy = proc >= 0 && chunkProc >= 0
                && (proc - chunkProc) - (thread - chunkThread) > MAX_BACKGROUND * (now - chunkStart);
        chunkStart = now;
        chunkProc = proc;
        chunkThread = thread;
        return busy;
    }

    /**
     * Whether allocation runs on heap pages touched before, on a heap that will not grow soon:
     * true when the code allocated little since warm-up began, or when, since the heap last grew,
     * it has allocated as much as the committed heap (up to ALLOC_CEILING) and the collector has
     * had GROWTH_GCS collections or a quiet recent pause share; true when a meter is missing. A
     * heap that grows hands out untouched pages again: on a VM, G1 doubled the heap of
     * String#toCharArray(500) every five collections for 6 s, and each first fill of the new
     * eden ran 40–60 times slower than the next (1.3 s instead of 30 ms for 460 MB).
     */
    private boolean memoryWarm(long now) {
        long alloc = meters.allocated();
        if (alloc >= 0) {
            alloc -= own; // the code's allocation, not this watch's
        }
        long heap = meters.heapCommitted();
        if (alloc < 0 || allocAtGrowth < 0 || heap <= 0) {
            return true;
        }
        long gcs = meters.gcCount();
        observeCollections(now, gcs, meters.gcMillis());
        if (heap != committed) {
            committed = heap;
            allocAtGrowth = alloc;
            gcAtGrowth = gcs;
            gcIntervals = 0;
            sawGrowth = true;
        }
        if (alloc - allocAtStart < ALLOC_FLOOR) {
            // Code that hardly allocates touches no new pages, whatever the heap does: G1 also
            // resizes the committed heap on its own (startup allocations, uncommitting), and a
            // workload loop allocating nothing then waited for an allocation that never came.
            return true;
        }
        if (alloc - allocAtGrowth < Math.min(ALLOC_CEILING, committed)) {
            return false;
        }
        return gcs - gcAtGrowth >= GROWTH_GCS || (gcIntervals >= QUIET_GCS && maxGcShare() < QUIET_GC_SHARE);
    }

    /** Records the pause share of the interval since the last iteration that saw a collection. */
    private void observeCollections(long now, long gcs, long gcMs) {
        if (gcMs < 0) {
            return;
        }
        if (lastGcCount >= 0 && gcs > lastGcCount && now > lastGcNs) {
            gcShares[gcIntervals++ % QUIET_GCS] = (gcMs - lastGcMs) * 1e6 / (now - lastGcNs);
        }
        if (lastGcCount < 0 || gcs > lastGcCount) {
            lastGcCount = gcs;
            lastGcMs = gcMs;
            lastGcNs = now;
        }
    }

    private double maxGcShare() {
        double max = 0;
        for (int i = 0; i < Math.min(gcIntervals, QUIET_GCS); i++) {
            max = Math.max(max, gcShares[i]);
        }
        return max;
    }

    /** Whether the time per call has stopped falling over the last TREND_WINDOW timed iterations. */
    private boolean notFalling() {
        if (timed < TREND_WINDOW) {
            return false;
        }
        int half = TREND_WINDOW / 2;
        double[] older = new double[half];
        double[] newer = new double[half];
        for (int i = 0; i < TREND_WINDOW; i++) {
            double v = perCall[(timed + i) % TREND_WINDOW]; // oldest first
            if (i < half) {
                older[i] = v;
            } else {
                newer[i - half] = v;
            }
        }
        return median(newer) >= (1 - TREND_TOLERANCE) * median(older);
    }

    private static double median(double[] xs) {
        double[] c = xs.clone();
        java.util.Arrays.sort(c);
        return c[(c.length - 1) / 2];
    }

    /** 1 when compilation settled, 0 when the cap ended warm-up, -1 when unknown. */
    int settled() {
        return settled;
    }

    /** JIT compilation time (ms, all compiler threads) during warm-up; -1 when unknown. */
    long compileMs() {
        return bean == null ? -1 : lastTotal - compileMsAtStart;
    }
}
