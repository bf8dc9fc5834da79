package dev.perfls.internal;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;

/** Cheap per-sample meters: thread CPU time, bytes allocated by the thread, GC count. */
final class Meters {
    private final ThreadMXBean threads;
    private final boolean cpu;
    private final AllocMeter alloc;
    private final GarbageCollectorMXBean[] gcs;

    Meters() {
        threads = ManagementFactory.getThreadMXBean();
        boolean ok = false;
        try {
            ok = threads.isCurrentThreadCpuTimeSupported();
            if (ok && !threads.isThreadCpuTimeEnabled()) {
                threads.setThreadCpuTimeEnabled(true);
            }
        } catch (RuntimeException e) {
            ok = false;
        }
        cpu = ok;
        alloc = AllocMeter.create(threads);
        List<GarbageCollectorMXBean> list = ManagementFactory.getGarbageCollectorMXBeans();
        gcs = list.toArray(new GarbageCollectorMXBean[0]);
        // The first calls allocate (lazy initialisation); make that happen before any sample.
        for (int i = 0; i < 3; i++) {
            cpu();
            allocated();
            gcCount();
        }
    }

    /** Current thread CPU time in ns, or -1. */
    long cpu() {
        return cpu ? threads.getCurrentThreadCpuTime() : -1;
    }

    /** Bytes allocated by the current thread so far, or -1. */
    long allocated() {
        return alloc == null ? -1 : alloc.allocated();
    }

    /** Garbage collections so far, all collectors. */
    long gcCount() {
        long n = 0;
        for (GarbageCollectorMXBean b : gcs) {
            long c = b.getCollectionCount();
            if (c > 0) {
                n += c;
            }
        }
        return n;
    }

    /** Isolates the HotSpot-specific interface so that its absence only disables the meter. */
    private static final class AllocMeter {
        private final com.sun.management.ThreadMXBean bean;
        private final long tid;

        private AllocMeter(com.sun.management.ThreadMXBean bean) {
            this.bean = bean;
            this.tid = Thread.currentThread().getId();
        }

        static AllocMeter create(ThreadMXBean threads) {
            try {
                if (threads instanceof com.sun.management.ThreadMXBean) {
                    com.sun.management.ThreadMXBean b = (com.sun.management.ThreadMXBean) threads;
                    if (b.isThreadAllocatedMemorySupported()) {
                        if (!b.isThreadAllocatedMemoryEnabled()) {
                            b.setThreadAllocatedMemoryEnabled(true);
                        }
                        AllocMeter m = new AllocMeter(b);
                        if (m.allocated() >= 0) {
                            return m;
                        }
                    }
                }
            } catch (LinkageError | RuntimeException e) {
                // not HotSpot-compatible: no allocation meter
            }
            return null;
        }

        long allocated() {
            return bean.getThreadAllocatedBytes(tid);
        }
    }
}
