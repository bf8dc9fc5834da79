package dev.perfls.internal;

import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;

/**
 * The ramp test's paired control, run in a profiled fork after its recorded samples (harness
 * option {@code ramp=N}; docs/profiling.md, "ramp").
 *
 * <p>A ramp is cost that grows with the calls already made. Within one run the calls made grow
 * with the time passed, so a machine whose speed changes during the run (another process
 * starting on the same cores) looks like a ramp in any series of one copy of the code. Here two
 * fresh copies A and B of the project's classes (each in its own class loader, so each with its
 * own static state) are warmed up with the same calls, then measured in rounds. A round is a run
 * of short windows back to back on this thread, A, B, A, A, B, A, …, each of A's windows twice as
 * many calls as B's: A makes four calls for each of B's one. So at every round both copies run at
 * the same time on the same processor, interleaved every few milliseconds (B's window sits between
 * two of A's), while A has made more calls than B, by a lead that grows each round. The machine's speed, and its changes down to a few milliseconds,
 * cancel in the ratio of A's time per call to B's; what is left grows with the lead only when the
 * cost grows with the calls made. After each step, a window of the profiled copy itself (M: warm,
 * long compiled, its state grown by the whole profile) runs as a reference: a fresh copy whose
 * compilation had not settled gets faster against M with its calls, which a ramp never does
 * (it makes the copy slower), so that a rise of A against B from B's late compilation can be told
 * from a ramp. The decision is made in Go (analysis/profile). Each timed
 * window of the rounds is a {@link RampWindow} event, so that the recording's execution samples of
 * the rounds can be told apart by copy ({@link JfrSummary}: the line that grows).
 *
 * <p>State outside the project's classes (the JDK's, files) is shared by the copies, so a cost
 * that grows with it is not seen here. JDK, javax, sun, com.sun and perfls's own classes are
 * shared with the fork's class loader; everything else on the class path is loaded again.
 *
 * <p>Output, inside the profile summary (before its end line), one line per round:
 * {@code prof-ramp <round> <ops A> <ops B> <calls A> <calls B> <A ns> <A cpu ns> <B ns> <B cpu ns>
 * <ops M> <M ns> <M cpu ns>} (the copies' calls in the round and before it, their wall and CPU
 * time in the round, and the profiled copy's; CPU -1 when unknown), then {@code prof-ramp-stopped <reason>} when the rounds ended before
 * {@code ramp=N} (a time limit, the heap filling up); or, when no round could be run, one
 * {@code prof-ramp-none <reason>}.
 */
final class RampControl {
    /** The rounds end after this long, with the rounds taken so far. */
    static final long MAX_ROUNDS_NS = 10_000_000_000L;

    private RampControl() {}

    /** Loads the class path again, child first, except the classes shared with the fork. */
    static final class CopyLoader extends URLClassLoader {
        CopyLoader(URL[] urls, ClassLoader parent) {
            super(urls, parent);
        }

        static boolean shared(String name) {
            return name.startsWith("java.") || name.startsWith("javax.") || name.startsWith("jdk.")
                    || name.startsWith("sun.") || name.startsWith("com.sun.") || name.startsWith("dev.perfls.");
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c == null && !shared(name)) {
                    try {
                        c = findClass(name);
                    } catch (ClassNotFoundException e) {
                        // not on the class path (a platform class such as org.w3c.dom): the parent's
                    }
                }
                if (c == null) {
                    return super.loadClass(name, resolve);
                }
                if (resolve) {
                    resolveClass(c);
                }
                return c;
            }
        }
    }

    private static final String FULL = "the heap is more than half full (the workload keeps what it allocates): copies of it would fill it";

    /** Ends the control before its first round, for the reason given. */
    private static final class Stop extends Exception {
        private static final long serialVersionUID = 1L;

        Stop(String why) {
            super(why, null, false, false);
        }
    }

    /** One copy: its harness instance and its loader. */
    private static final class Copy {
        final String name;
        final CopyLoader loader;
        final Bench bench;
        long calls;
        /** Whether its windows are marked in the recording (the rounds', not the warm-up's). */
        boolean marked;

        /** loader null: the fork's own classes (the profiled copy). */
        Copy(String name, CopyLoader loader, Bench bench) {
            this.name = name;
            this.loader = loader;
            this.bench = bench;
        }

        /** Runs {@code passes} passes; returns {wall ns, cpu ns}. */
        long[] window(long passes, int tuples, Blackhole bh, Meters m) throws Throwable {
            Thread t = Thread.currentThread();
            ClassLoader before = t.getContextClassLoader();
            if (loader != null) {
                t.setContextClassLoader(loader);
            }
            RampWindow e = null;
            if (marked) {
                e = new RampWindow();
                e.copy = name;
                e.begin();
            }
            try {
                long c0 = m.cpu();
                long t0 = System.nanoTime();
                bench.run(passes, bh);
                long t1 = System.nanoTime();
                long c1 = m.cpu();
                calls += passes * tuples;
                return new long[] {t1 - t0, c0 < 0 || c1 < 0 ? -1 : c1 - c0};
            } finally {
                if (e != null) {
                    e.commit();
                }
                t.setContextClassLoader(before);
            }
        }
    }

    /**
     * Runs the control for {@code main}'s harness: up to {@code opt.rampRounds} rounds of
     * {@code steps} steps A, B, A, B's window {@code passes} passes over {@code tuples} argument
     * tuples and each of A's twice that. Returns the summary lines (kind first); never throws.
     */
    static List<String[]> run(Bench main, Options opt, Meters m, long passes, long steps, int tuples) {
        List<String[]> out = new ArrayList<>();
        Copy a = null;
        Copy b = null;
        try {
            if (heapFilling()) {
                throw new Stop(FULL);
            }
            URL[] urls = classPath();
            a = copy("A", main, urls);
            b = copy("B", main, urls);
            Blackhole bh = new Blackhole();
            long start = System.nanoTime();
            // Warm until the copies' compilation is over: a copy still being compiled gets faster
            // with its calls, and A, making more calls, would get there first. Without that the
            // rounds cannot be read (up to three times the fork's warm-up cap).
            JitWatch jit = new JitWatch(opt, m, start, true, 2 * opt.maxWarmupNs);
            // Warm-up: the same calls for both.
            while (true) {
                if (heapFilling()) {
                    throw new Stop(FULL);
                }
                long t0 = System.nanoTime();
                for (long w = 0; w < steps; w++) {
                    a.window(2 * passes, tuples, bh, m);
                    b.window(2 * passes, tuples, bh, m);
                }
                long t1 = System.nanoTime();
                if (jit.done(t1, 4 * steps * passes * tuples, t1 - t0, t1 - t0 >= opt.minSampleNs / 2)) {
                    break;
                }
            }
            // A cap reached with compilation still going is no reason to stop: M's windows show
            // whether B was still getting faster.
            Copy ref = new Copy("M", (CopyLoader) null, main);
            a.marked = b.marked = true;
            long roundsStart = System.nanoTime();
            String stopped = null;
            for (int r = 0; r < opt.rampRounds; r++) {
                if (System.nanoTime() - roundsStart >= MAX_ROUNDS_NS) {
                    stopped = "its time limit of " + MAX_ROUNDS_NS / 1_000_000_000L + " s";
                    break;
                }
                if (heapFilling()) {
                    stopped = "the heap filling up (the copies keep what they allocate)";
                    break;
                }
                long callsA = a.calls;
                long callsB = b.calls;
                long callsM = ref.calls;
                long[] ta = {0, 0};
                long[] tb = {0, 0};
                long[] tm = {0, 0};
                for (long w = 0; w < steps; w++) {
                    add(ta, a.window(2 * passes, tuples, bh, m));
                    add(tb, b.window(passes, tuples, bh, m));
                    add(ta, a.window(2 * passes, tuples, bh, m));
                    add(tm, ref.window(passes, tuples, bh, m));
                }
                out.add(new String[] {"prof-ramp", Integer.toString(r), Long.toString(a.calls - callsA),
                        Long.toString(b.calls - callsB), Long.toString(callsA), Long.toString(callsB),
                        Long.toString(ta[0]), Long.toString(ta[1]), Long.toString(tb[0]), Long.toString(tb[1]),
                        Long.toString(ref.calls - callsM), Long.toString(tm[0]), Long.toString(tm[1])});
            }
            if (stopped != null) {
                out.add(new String[] {"prof-ramp-stopped", Protocol.escape(stopped)});
            }
        } catch (Stop t) {
            out.clear();
            out.add(new String[] {"prof-ramp-none", Protocol.escape(t.getMessage())});
        } catch (Throwable t) {
            out.clear();
            out.add(new String[] {"prof-ramp-none", Protocol.escape("the control copy of the code failed: " + t)});
        } finally {
            close(a);
            close(b);
        }
        if (out.isEmpty() || out.get(0)[0].equals("prof-ramp-stopped")) {
            String why = out.isEmpty() ? "no round fitted in its time" : "it stopped before its first round at " + Worker.unescape(out.get(0)[1]);
            out.clear();
            out.add(new String[] {"prof-ramp-none", Protocol.escape("the control: " + why)});
        }
        return out;
    }

    /** Adds a window's {wall, cpu} to a round's; cpu stays -1 once unknown. */
    private static void add(long[] sum, long[] w) {
        sum[0] += w[0];
        sum[1] = sum[1] < 0 || w[1] < 0 ? -1 : sum[1] + w[1];
    }

    /**
     * True when the old generation (or, without one, the heap) holds more than half the maximum
     * heap: copies that keep what they allocate (a leak, a growing cache) would fill it, and the
     * control must never make the profile fail.
     */
    static boolean heapFilling() {
        long max = Runtime.getRuntime().maxMemory();
        if (max <= 0 || max == Long.MAX_VALUE) {
            return false;
        }
        long used = 0;
        try {
            for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
                if (p.getType() != MemoryType.HEAP) {
                    continue;
                }
                String n = p.getName();
                MemoryUsage u = n.contains("Old") || n.contains("Tenured") ? p.getUsage() : p.getCollectionUsage();
                if (u != null) {
                    used += u.getUsed();
                }
            }
        } catch (RuntimeException | LinkageError e) {
            used = Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory();
        }
        return used > max / 2;
    }

    private static URL[] classPath() throws IOException {
        List<URL> urls = new ArrayList<>();
        for (String p : System.getProperty("java.class.path", "").split(File.pathSeparator)) {
            if (!p.isEmpty()) {
                urls.add(new File(p).toURI().toURL());
            }
        }
        return urls.toArray(new URL[0]);
    }

    private static Copy copy(String name, Bench main, URL[] urls) throws Throwable {
        CopyLoader l = new CopyLoader(urls, RampControl.class.getClassLoader());
        Thread t = Thread.currentThread();
        ClassLoader before = t.getContextClassLoader();
        t.setContextClassLoader(l);
        try {
            return new Copy(name, l, Bench.copyIn(main, l));
        } catch (Throwable e) {
            l.close();
            throw e;
        } finally {
            t.setContextClassLoader(before);
        }
    }

    private static void close(Copy c) {
        if (c == null || c.loader == null) {
            return;
        }
        try {
            c.loader.close();
        } catch (IOException e) {
            // nothing to do: the loader is dropped anyway
        }
    }
}
