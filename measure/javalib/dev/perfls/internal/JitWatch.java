package dev.perfls.internal;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;

/**
 * Decides when warm-up ends: on evidence that JIT compilation has settled, with a cap.
 *
 * <p>The rule: warm-up ends after the first iteration at which (1) at least the minimum warm-up
 * time and the minimum number of iterations have passed, and (2) the JVM's total JIT compilation
 * time ({@link CompilationMXBean#getTotalCompilationTime()}, summed over all compiler threads) has
 * not changed during the last {@code quietNs} of wall time and the last {@link #QUIET_ITERS}
 * iterations. It ends anyway once {@code maxWarmupNs} have passed (then {@link #settled()} is
 * false). When the JVM does not monitor compilation time, warm-up ends after the minimum time and
 * {@link #settled()} reports -1.
 */
final class JitWatch {
    static final int QUIET_ITERS = 5;

    private final CompilationMXBean bean;
    private final Options opt;
    private final long start;
    private long lastTotal = -1;
    private long lastChangeNs;
    private int itersSinceChange;
    private int iters;
    private int settled = -1;
    private long compileMsAtStart;

    JitWatch(Options opt, long startNs) {
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
        this.opt = opt;
        this.start = startNs;
        this.lastChangeNs = startNs;
        if (b != null) {
            lastTotal = b.getTotalCompilationTime();
            compileMsAtStart = lastTotal;
        }
    }

    /** Records one finished warm-up iteration at {@code now}; true when warm-up should end. */
    boolean done(long now) {
        iters++;
        long elapsed = now - start;
        if (bean != null) {
            long total = bean.getTotalCompilationTime();
            if (total != lastTotal) {
                lastTotal = total;
                lastChangeNs = now;
                itersSinceChange = 0;
            } else {
                itersSinceChange++;
            }
        }
        if (elapsed < opt.warmupNs || iters < opt.minWarmup) {
            return false;
        }
        if (bean == null) {
            settled = -1;
            return true;
        }
        if (now - lastChangeNs >= opt.quietNs && itersSinceChange >= QUIET_ITERS) {
            settled = 1;
            return true;
        }
        if (elapsed >= opt.maxWarmupNs) {
            settled = 0;
            return true;
        }
        return false;
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
