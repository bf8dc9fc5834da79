package dev.perfls.internal;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.management.ClassLoadingMXBean;
import java.lang.management.CompilationMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.ThreadMXBean;
import java.util.List;

/**
 * Cheap per-sample meters: thread CPU time, bytes allocated by the thread, GC count and time,
 * and the JVM state the bounds oracle follows from sample to sample (heap used, total JIT
 * compilation time, loaded classes), and the CPU time of the whole process (all threads: the
 * measuring thread plus JIT compiler and GC threads). Every meter answers -1 when the JVM does not
 * provide it.
 */
final class Meters {
    private final ThreadMXBean threads;
    private final boolean cpu;
    private final AllocMeter alloc;
    private final GarbageCollectorMXBean[] gcs;
    private final MemoryMXBean memory;
    private final CompilationMXBean compiler;
    private final ClassLoadingMXBean classes;
    private final ProcessCpuMeter process;
    // The measuring thread's own /proc stat file (Linux), opened by that thread: its id and the
    // processor it last ran on. Read into one buffer, so that a reading allocates nothing.
    private RandomAccessFile threadStat;
    private final byte[] statBuf = new byte[1024];

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
        process = ProcessCpuMeter.create();
        List<GarbageCollectorMXBean> list = ManagementFactory.getGarbageCollectorMXBeans();
        gcs = list.toArray(new GarbageCollectorMXBean[0]);
        MemoryMXBean mem = null;
        CompilationMXBean jit = null;
        ClassLoadingMXBean cl = null;
        try {
            mem = ManagementFactory.getMemoryMXBean();
            jit = ManagementFactory.getCompilationMXBean();
            if (jit != null && !jit.isCompilationTimeMonitoringSupported()) {
                jit = null;
            }
            cl = ManagementFactory.getClassLoadingMXBean();
        } catch (RuntimeException | LinkageError e) {
            // no management: those meters answer -1
        }
        memory = mem;
        compiler = jit;
        classes = cl;
        // The first calls allocate (lazy initialisation); make that happen before any sample.
        for (int i = 0; i < 3; i++) {
            cpu();
            allocated();
            processCpu();
            gcCount();
            gcMillis();
            heapUsed();
            compileMillis();
            loadedClasses();
        }
    }

    /** Total time of all garbage collections so far in ms, or -1. */
    long gcMillis() {
        long ms = 0;
        boolean any = false;
        for (GarbageCollectorMXBean b : gcs) {
            long t = b.getCollectionTime();
            if (t >= 0) {
                ms += t;
                any = true;
            }
        }
        return any ? ms : -1;
    }

    /** Heap in use now (live and not yet collected objects), bytes, or -1. */
    long heapUsed() {
        try {
            return memory == null ? -1 : memory.getHeapMemoryUsage().getUsed();
        } catch (RuntimeException e) {
            return -1;
        }
    }

    /** Heap committed now (memory the JVM holds from the OS), bytes, or -1. */
    long heapCommitted() {
        try {
            return memory == null ? -1 : memory.getHeapMemoryUsage().getCommitted();
        } catch (RuntimeException e) {
            return -1;
        }
    }

    /** Total JIT compilation time so far (all compiler threads), ms, or -1. */
    long compileMillis() {
        return compiler == null ? -1 : compiler.getTotalCompilationTime();
    }

    /** Classes currently loaded, or -1. */
    long loadedClasses() {
        return classes == null ? -1 : classes.getLoadedClassCount();
    }

    /**
     * The oracle fields of a sample line after the sample ended: GC time during the sample
     * (against {@code gcMs0}, the {@link #gcMillis()} at its start), heap used, total JIT
     * compilation time and loaded classes.
     */
    String[] state(long gcMs0) {
        long gcMs = gcMillis();
        return new String[] {Long.toString(gcMs < 0 || gcMs0 < 0 ? -1 : gcMs - gcMs0), Long.toString(heapUsed()),
            Long.toString(compileMillis()), Long.toString(loadedClasses())};
    }

    /**
     * Binds the processor meter to the calling thread, the one that measures, and returns its
     * operating-system thread id, or -1 where there is no /proc/thread-self (not Linux): perfls
     * pins that thread to the processors the user chose (measure/pin_linux.go).
     */
    long bindThread() {
        try {
            threadStat = new RandomAccessFile("/proc/thread-self/stat", "r");
        } catch (IOException | SecurityException e) {
            threadStat = null;
            return -1;
        }
        long tid = statField(1);
        if (tid < 0 || processor() < 0) {
            close();
            return -1;
        }
        return tid;
    }

    /** Closes the thread's stat file; the processor meter then answers -1. */
    void close() {
        RandomAccessFile f = threadStat;
        threadStat = null;
        if (f != null) {
            try {
                f.close();
            } catch (IOException e) {
                // closing a /proc file does not fail in practice; nothing to do if it does
            }
        }
    }

    /**
     * The processor the measuring thread last ran on (field 39 of its /proc stat), or -1. Processors
     * of one machine can differ in speed (hybrid cores, SMT siblings, a virtual machine's vCPUs on a
     * busy host), and a thread tends to stay on one for a fork's life: the samples say which.
     */
    int processor() {
        return (int) statField(39);
    }

    /** One numeric field of the thread's stat (1-based, as in proc(5)), or -1. */
    private long statField(int field) {
        RandomAccessFile f = threadStat;
        if (f == null) {
            return -1;
        }
        try {
            f.seek(0);
            int n = 0;
            for (int r; n < statBuf.length && (r = f.read(statBuf, n, statBuf.length - n)) > 0; ) {
                n += r;
            }
            int i = 0;
            if (field > 2) {
                // Field 2 is the command in parentheses, which may hold spaces and ')'.
                int close = n - 1;
                while (close >= 0 && statBuf[close] != ')') {
                    close--;
                }
                if (close < 0) {
                    return -1;
                }
                i = close + 2;
                for (int k = 3; k < field; k++) {
                    while (i < n && statBuf[i] != ' ') {
                        i++;
                    }
                    i++;
                }
            }
            long v = 0;
            int start = i;
            while (i < n && statBuf[i] >= '0' && statBuf[i] <= '9') {
                v = v * 10 + (statBuf[i] - '0');
                i++;
            }
            return i > start ? v : -1;
        } catch (IOException e) {
            return -1;
        }
    }

    /** Current thread CPU time in ns, or -1. */
    long cpu() {
        return cpu ? threads.getCurrentThreadCpuTime() : -1;
    }

    /**
     * CPU time of the whole process so far in ns, or -1. On Linux the JVM reads it with times(2),
     * in clock ticks (10 ms): one sample's difference is coarse, the sum over many samples is not.
     */
    long processCpu() {
        return process == null ? -1 : process.cpu();
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

    /** Isolates com.sun.management so that its absence only disables the process CPU meter. */
    private static final class ProcessCpuMeter {
        private final com.sun.management.OperatingSystemMXBean bean;

        private ProcessCpuMeter(com.sun.management.OperatingSystemMXBean bean) {
            this.bean = bean;
        }

        static ProcessCpuMeter create() {
            try {
                java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
                if (os instanceof com.sun.management.OperatingSystemMXBean) {
                    ProcessCpuMeter m = new ProcessCpuMeter((com.sun.management.OperatingSystemMXBean) os);
                    if (m.cpu() >= 0) {
                        return m;
                    }
                }
            } catch (LinkageError | RuntimeException e) {
                // not HotSpot-compatible: no process CPU meter
            }
            return null;
        }

        long cpu() {
            try {
                return bean.getProcessCpuTime();
            } catch (RuntimeException e) {
                return -1;
            }
        }
    }
}
