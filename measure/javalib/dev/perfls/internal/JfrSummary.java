package dev.perfls.internal;

import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import jdk.jfr.EventType;
import jdk.jfr.consumer.RecordedClass;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedMethod;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * Reduces a flight recording to perfls's profile summary: aggregated stacks of execution
 * samples, allocation samples and blocking events (monitor enter and wait, park, sleep, socket
 * and file I/O) of the workload's threads inside the measured region, the per-iteration
 * timings, GC and CPU load. Only this summary leaves the JVM; the recording itself is not kept.
 *
 * <p>The measured region is bounded by the {@link ProfileIteration} events the harness commits
 * (the whole recording when there are none). For a workload loop, the intervals between its
 * measured spans (its per-operation set-up: {@link SpanGaps}) are left out, in every thread. Threads are the measured ones (those that
 * committed iterations) or, by default, every Java thread except the JVM's own (thread groups
 * "system" and "InnocuousThreadGroup", JFR's threads), so that a workload's worker threads
 * count.
 *
 * <p>Output, the perfls line protocol (see {@link Protocol}; free text escaped), summary
 * version 1, one line each:
 *
 * <pre>
 * perfls-prof-begin &lt;version&gt;
 * perfls-prof-meta &lt;key&gt; &lt;value&gt;          period.ns, window.ns, segments, alloc (sample|tlab|none),
 *                                          threads (marked|all), truncated (stacks cut at the depth limit),
 *                                          java.version; for a workload loop also gaps (intervals left
 *                                          out), gaps.excluded (events in them), gaps.untracked.ns
 *                                          (set-up time too finely cut to be left out)
 * perfls-prof-iter &lt;index&gt; &lt;ns&gt; &lt;ops&gt; &lt;start&gt; &lt;cpu ns&gt; &lt;alloc bytes&gt;
 *                                          one measured iteration; start is ns after the window
 *                                          start; cpu ns and alloc bytes: the measuring thread's
 *                                          CPU time and allocation, -1 unknown
 * perfls-prof-thread &lt;id&gt; &lt;name&gt; &lt;samples&gt; &lt;marked&gt;
 * perfls-prof-method &lt;id&gt; &lt;class&gt; &lt;name&gt; &lt;descriptor&gt;   class is the binary name
 * perfls-prof-frame &lt;id&gt; &lt;method&gt; &lt;line&gt; &lt;bci&gt; &lt;loop&gt;   loop: 1 inside a loop of its method, 0 not, -1 unknown
 * perfls-prof-stack &lt;kind&gt; &lt;count&gt; &lt;weight&gt; &lt;w0,w1,…&gt; &lt;class&gt; &lt;thread&gt; &lt;frame,frame,…&gt;
 *                                          kind: cpu, native (samples; weight = count), alloc (bytes),
 *                                          enter, wait, park, sleep, io (ns); w0… the weight per segment
 *                                          of the iterations; class: allocated, monitor or parked class
 *                                          (\e when none); thread: the thread's id; frames innermost
 *                                          first (- when none)
 * perfls-prof-gc &lt;count&gt; &lt;pause ns&gt; &lt;heap after first GC&gt; &lt;heap after last GC&gt;   -1 when unknown
 * perfls-prof-cpu &lt;jvm user&gt; &lt;jvm system&gt; &lt;machine total&gt;   mean fractions, -1 when unknown
 * perfls-prof-ramp-stack &lt;copy&gt; &lt;count&gt; &lt;frame,frame,…&gt;   execution samples of the ramp
 *                                          control's windows ({@link RampWindow}, after the
 *                                          region) by copy (A, B) and stack; only when there are
 * perfls-prof-end &lt;number of prof lines before this one&gt;
 * perfls-prof-error &lt;message&gt;               instead of the rest, when the recording cannot be read
 * </pre>
 *
 * <p>As a program ({@code java -cp <library>:<project> dev.perfls.internal.JfrSummary
 * [--threads=all|marked] [--segments=N] FILE.jfr}) it writes the summary to standard output;
 * the project's classes on the class path let it tell which calls sit inside loops.
 */
public final class JfrSummary {
    public static final int VERSION = 1;
    static final int DEFAULT_SEGMENTS = 4;
    /** How much later than its recorded end a workload loop's gap is taken to end (recordingGaps). */
    static final long GAP_MARGIN_NS = 1_000;

    /** Iterations on each side of a gap whose clock offsets are compared (recordingGaps). */
    private static final int OFFSET_NEIGHBOURS = 16;

    /** Receives summary lines; {@code Protocol::line} is one. */
    public interface Sink {
        void line(String kind, String... fields);
    }

    private JfrSummary() {}

    public static void main(String[] args) {
        Protocol out = Protocol.stdout();
        boolean marked = false;
        int segments = DEFAULT_SEGMENTS;
        String file = null;
        for (String a : args) {
            if (a.equals("--threads=marked")) {
                marked = true;
            } else if (a.equals("--threads=all")) {
                marked = false;
            } else if (a.startsWith("--segments=")) {
                segments = Integer.parseInt(a.substring("--segments=".length()));
            } else if (file == null && !a.startsWith("--")) {
                file = a;
            } else {
                out.line("prof-error", Protocol.escape("unknown argument " + a));
                System.exit(2);
            }
        }
        if (file == null) {
            out.line("prof-error", Protocol.escape("usage: JfrSummary [--threads=all|marked] [--segments=N] FILE.jfr"));
            System.exit(2);
        }
        try {
            reduce(Paths.get(file), marked, segments, out::line);
        } catch (Throwable t) {
            out.line("prof-error", Protocol.escape("read " + file + ": " + t));
            System.exit(1);
        }
    }

    /** One measured iteration. */
    private static final class Iter {
        final long start, end, ns, ops, cpuNs, allocBytes, thread;
        long nanoStart = Long.MIN_VALUE; // System.nanoTime at its start; MIN_VALUE: not recorded

        Iter(long start, long end, long ns, long ops, long cpuNs, long allocBytes, long thread) {
            this.start = start;
            this.end = end;
            this.ns = ns;
            this.ops = ops;
            this.cpuNs = cpuNs;
            this.allocBytes = allocBytes;
            this.thread = thread;
        }
    }

    /** One aggregated stack of one kind and class. */
    private static final class Agg {
        final String kind, cls;
        final long thread;
        final int[] frames;
        long count, weight;
        final long[] seg;

        Agg(String kind, String cls, long thread, int[] frames, int segments) {
            this.kind = kind;
            this.cls = cls;
            this.thread = thread;
            this.frames = frames;
            this.seg = new long[segments];
        }
    }

    private static final class ThreadInfo {
        final long id;
        final String name;
        long samples;
        boolean marked;

        ThreadInfo(long id, String name) {
            this.id = id;
            this.name = name;
        }
    }

    private static long nanos(Instant t) {
        return t.getEpochSecond() * 1_000_000_000L + t.getNano();
    }

    /**
     * Reads the recording at {@code jfr} and writes its summary to {@code out}.
     *
     * @param markedOnly only the threads that committed iteration events, else all Java
     *     threads but the JVM's own
     * @param segments the iterations are cut into this many consecutive groups, and every stack
     *     carries its weight per group (time per operation of each frame over the run)
     */
    public static void reduce(Path jfr, boolean markedOnly, int segments, Sink out) throws IOException {
        reduce(jfr, markedOnly, segments, null, out);
    }

    /**
     * As {@link #reduce(Path, boolean, int, Sink)}, leaving out the events that start inside
     * {@code gaps} (nanoTime intervals between a workload loop's spans; null: none).
     */
    static void reduce(Path jfr, boolean markedOnly, int segments, SpanGaps gaps, Sink out) throws IOException {
        if (segments < 1) {
            segments = 1;
        }
        // Pass 1: the measured region, the sampling period, the allocation events present, the
        // ramp control's windows.
        List<Iter> iters = new ArrayList<>();
        List<long[]> rampWindows = new ArrayList<>(); // start, end, thread, copy (0 A, 1 B)
        long first = Long.MAX_VALUE, last = Long.MIN_VALUE;
        boolean allocSamples = false, allocTlab = false;
        long periodNs = -1;
        long executionSampleId = -1;
        try (RecordingFile rf = new RecordingFile(jfr)) {
            for (EventType t : rf.readEventTypes()) {
                if (t.getName().equals("jdk.ExecutionSample")) {
                    executionSampleId = t.getId();
                }
            }
            while (rf.hasMoreEvents()) {
                RecordedEvent e = rf.readEvent();
                String n = e.getEventType().getName();
                long s = nanos(e.getStartTime());
                first = Math.min(first, s);
                last = Math.max(last, nanos(e.getEndTime()));
                switch (n) {
                    case ProfileIteration.NAME:
                        RecordedThread th = e.getThread();
                        Iter it = new Iter(s, nanos(e.getEndTime()), e.getLong("ns"), e.getLong("ops"),
                                e.hasField("cpuNs") ? e.getLong("cpuNs") : -1,
                                e.hasField("allocBytes") ? e.getLong("allocBytes") : -1,
                                th == null ? -1 : th.getJavaThreadId());
                        if (e.hasField("nanoStart")) {
                            it.nanoStart = e.getLong("nanoStart");
                        }
                        iters.add(it);
                        break;
                    case RampWindow.NAME:
                        RecordedThread rt = e.getThread();
                        rampWindows.add(new long[] {s, nanos(e.getEndTime()), rt == null ? -1 : rt.getJavaThreadId(),
                                "A".equals(e.getString("copy")) ? 0 : 1});
                        break;
                    case "jdk.ObjectAllocationSample":
                        allocSamples = true;
                        break;
                    case "jdk.ObjectAllocationInNewTLAB":
                    case "jdk.ObjectAllocationOutsideTLAB":
                        allocTlab = true;
                        break;
                    case "jdk.ActiveSetting":
                        if (e.getLong("id") == executionSampleId && "period".equals(e.getString("name"))) {
                            long p = parseDuration(e.getString("value"));
                            if (p > 0) {
                                periodNs = p;
                            }
                        }
                        break;
                    default:
                }
            }
        }
        iters.sort((a, b) -> Long.compare(a.start, b.start));
        long winStart, winEnd;
        Set<Long> marked = new HashSet<>();
        if (iters.isEmpty()) {
            winStart = first == Long.MAX_VALUE ? 0 : first;
            winEnd = last == Long.MIN_VALUE ? 0 : last;
        } else {
            winStart = iters.get(0).start;
            winEnd = Long.MIN_VALUE;
            for (Iter it : iters) {
                winEnd = Math.max(winEnd, it.end);
                marked.add(it.thread);
            }
        }
        rampWindows.sort((a, b) -> Long.compare(a[0], b[0]));
        long[] rampStarts = new long[rampWindows.size()];
        for (int i = 0; i < rampStarts.length; i++) {
            rampStarts[i] = rampWindows.get(i)[0];
        }
        Map<String, long[]> rampStacks = new LinkedHashMap<>(); // copy and frames: {copy, count}
        Map<String, int[]> rampFrames = new HashMap<>();
        long[] starts = new long[iters.size()];
        for (int i = 0; i < starts.length; i++) {
            starts[i] = iters.get(i).start;
        }
        long[][] gap = recordingGaps(gaps, iters);
        long excluded = 0;

        // Pass 2: aggregate the events of the region's threads.
        Map<String, Integer> methodIds = new LinkedHashMap<>();
        List<String[]> methods = new ArrayList<>();
        Map<String, Integer> frameIds = new HashMap<>();
        List<long[]> frames = new ArrayList<>(); // method, line, bci
        Map<String, Agg> stacks = new LinkedHashMap<>();
        Map<Long, ThreadInfo> threads = new LinkedHashMap<>();
        long truncated = 0;
        long gcCount = 0, gcPauseNs = 0, heapFirst = -1, heapLast = -1, heapLastTime = Long.MIN_VALUE, heapFirstTime = Long.MAX_VALUE;
        double cpuUser = 0, cpuSystem = 0, cpuMachine = 0;
        int cpuN = 0;
        StringBuilder key = new StringBuilder(256);
        try (RecordingFile rf = new RecordingFile(jfr)) {
            while (rf.hasMoreEvents()) {
                RecordedEvent e = rf.readEvent();
                long t = nanos(e.getStartTime());
                if (t < winStart || t > winEnd) {
                    if (rampStarts.length > 0 && e.getEventType().getName().equals("jdk.ExecutionSample")) {
                        rampSample(e, t, rampWindows, rampStarts, rampStacks, rampFrames, methodIds, methods, frameIds, frames);
                    }
                    continue;
                }
                String n = e.getEventType().getName();
                String kind;
                String cls = "";
                long weight;
                String threadField = "eventThread";
                switch (n) {
                    case "jdk.ExecutionSample":
                        kind = "cpu";
                        weight = 1;
                        threadField = "sampledThread";
                        break;
                    case "jdk.NativeMethodSample":
                        kind = "native";
                        weight = 1;
                        threadField = "sampledThread";
                        break;
                    case "jdk.ObjectAllocationSample":
                        kind = "alloc";
                        weight = e.getLong("weight");
                        cls = className(e, "objectClass");
                        break;
                    case "jdk.ObjectAllocationInNewTLAB":
                        if (allocSamples) {
                            continue; // the sampled event is the better estimate where both exist
                        }
                        kind = "alloc";
                        weight = e.getLong("tlabSize");
                        cls = className(e, "objectClass");
                        break;
                    case "jdk.ObjectAllocationOutsideTLAB":
                        if (allocSamples) {
                            continue;
                        }
                        kind = "alloc";
                        weight = e.getLong("allocationSize");
                        cls = className(e, "objectClass");
                        break;
                    case "jdk.JavaMonitorEnter":
                        kind = "enter";
                        weight = e.getDuration().toNanos();
                        cls = className(e, "monitorClass");
                        break;
                    case "jdk.JavaMonitorWait":
                        kind = "wait";
                        weight = e.getDuration().toNanos();
                        cls = className(e, "monitorClass");
                        break;
                    case "jdk.ThreadPark":
                        kind = "park";
                        weight = e.getDuration().toNanos();
                        cls = className(e, "parkedClass");
                        break;
                    case "jdk.ThreadSleep":
                        kind = "sleep";
                        weight = e.getDuration().toNanos();
                        break;
                    case "jdk.SocketRead":
                    case "jdk.SocketWrite":
                    case "jdk.FileRead":
                    case "jdk.FileWrite":
                        kind = "io";
                        weight = e.getDuration().toNanos();
                        break;
                    case "jdk.GarbageCollection":
                        gcCount++;
                        gcPauseNs += durationField(e, "sumOfPauses");
                        continue;
                    case "jdk.GCHeapSummary":
                        if ("After GC".equals(e.getString("when"))) {
                            long used = e.getLong("heapUsed");
                            if (t < heapFirstTime) {
                                heapFirstTime = t;
                                heapFirst = used;
                            }
                            if (t >= heapLastTime) {
                                heapLastTime = t;
                                heapLast = used;
                            }
                        }
                        continue;
                    case "jdk.CPULoad":
                        cpuUser += e.getFloat("jvmUser");
                        cpuSystem += e.getFloat("jvmSystem");
                        cpuMachine += e.getFloat("machineTotal");
                        cpuN++;
                        continue;
                    default:
                        continue;
                }
                if (inGap(gap, t)) {
                    excluded++;
                    continue;
                }
                RecordedStackTrace st = e.getStackTrace();
                if (st == null || st.getFrames().isEmpty()) {
                    if (!kind.equals("cpu") && !kind.equals("native") && !kind.equals("alloc")) {
                        // Blocking without a Java frame is the JVM's thread life cycle (a thread that
                        // ends takes its own monitor to wake its joiners): no code of the workload's.
                        continue;
                    }
                }
                RecordedThread th = e.hasField(threadField) ? e.getThread(threadField) : e.getThread();
                if (th == null) {
                    continue;
                }
                long tid = th.getJavaThreadId();
                if (markedOnly && !marked.isEmpty() ? !marked.contains(tid) : isJvmThread(th)) {
                    continue;
                }
                ThreadInfo ti = threads.get(tid);
                if (ti == null) {
                    ti = new ThreadInfo(tid, String.valueOf(th.getJavaName()));
                    ti.marked = marked.contains(tid);
                    threads.put(tid, ti);
                }
                if (kind.equals("cpu")) {
                    ti.samples++;
                }
                int[] ids;
                if (st == null) {
                    ids = new int[0];
                } else {
                    if (st.isTruncated()) {
                        truncated++;
                    }
                    List<RecordedFrame> fs = st.getFrames();
                    ids = new int[fs.size()];
                    for (int i = 0; i < ids.length; i++) {
                        ids[i] = frameId(fs.get(i), methodIds, methods, frameIds, frames);
                    }
                }
                key.setLength(0);
                key.append(kind).append('\0').append(cls).append('\0').append(tid).append('\0');
                for (int id : ids) {
                    key.append(id).append(',');
                }
                String k = key.toString();
                Agg a = stacks.get(k);
                if (a == null) {
                    a = new Agg(kind, cls, tid, ids, segments);
                    stacks.put(k, a);
                }
                a.count++;
                a.weight += weight;
                a.seg[segment(t, starts, iters, winStart, winEnd, segments)] += weight;
            }
        }

        // Write.
        int[] lines = {0};
        Sink counted = (kind, fields) -> {
            lines[0]++;
            out.line(kind, fields);
        };
        counted.line("prof-begin", Integer.toString(VERSION));
        counted.line("prof-meta", "period.ns", Long.toString(periodNs));
        counted.line("prof-meta", "window.ns", Long.toString(Math.max(0, winEnd - winStart)));
        counted.line("prof-meta", "segments", Integer.toString(segments));
        counted.line("prof-meta", "alloc", allocSamples ? "sample" : allocTlab ? "tlab" : "none");
        counted.line("prof-meta", "threads", markedOnly && !marked.isEmpty() ? "marked" : "all");
        counted.line("prof-meta", "truncated", Long.toString(truncated));
        counted.line("prof-meta", "java.version", Protocol.escape(System.getProperty("java.version", "")));
        if (gaps != null) {
            counted.line("prof-meta", "gaps", Integer.toString(gap[0].length));
            counted.line("prof-meta", "gaps.excluded", Long.toString(excluded));
            counted.line("prof-meta", "gaps.untracked.ns", Long.toString(gaps.droppedNs()));
        }
        for (int i = 0; i < iters.size(); i++) {
            Iter it = iters.get(i);
            long ns = it.ns > 0 ? it.ns : it.end - it.start;
            counted.line("prof-iter", Integer.toString(i), Long.toString(ns), Long.toString(it.ops),
                    Long.toString(it.start - winStart), Long.toString(it.cpuNs), Long.toString(it.allocBytes));
        }
        for (ThreadInfo ti : threads.values()) {
            counted.line("prof-thread", Long.toString(ti.id), Protocol.escape(ti.name), Long.toString(ti.samples),
                    ti.marked ? "1" : "0");
        }
        for (int i = 0; i < methods.size(); i++) {
            String[] m = methods.get(i);
            counted.line("prof-method", Integer.toString(i), Protocol.escape(m[0]), Protocol.escape(m[1]),
                    Protocol.escape(m[2]));
        }
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        LoopRanges loops = new LoopRanges(context, ClassLoader.getSystemClassLoader(), null);
        for (int i = 0; i < frames.size(); i++) {
            long[] f = frames.get(i);
            String[] m = methods.get((int) f[0]);
            int loop = loops.inLoop(m[0], m[1], m[2], (int) f[2]);
            counted.line("prof-frame", Integer.toString(i), Long.toString(f[0]), Long.toString(f[1]),
                    Long.toString(f[2]), Integer.toString(loop));
        }
        StringBuilder sb = new StringBuilder();
        for (Agg a : stacks.values()) {
            sb.setLength(0);
            for (int i = 0; i < a.seg.length; i++) {
                if (i > 0) {
                    sb.append(',');
                }
                sb.append(a.seg[i]);
            }
            String seg = sb.toString();
            sb.setLength(0);
            for (int i = 0; i < a.frames.length; i++) {
                if (i > 0) {
                    sb.append(',');
                }
                sb.append(a.frames[i]);
            }
            counted.line("prof-stack", a.kind, Long.toString(a.count), Long.toString(a.weight), seg,
                    Protocol.escape(a.cls), Long.toString(a.thread), a.frames.length == 0 ? "-" : sb.toString());
        }
        counted.line("prof-gc", Long.toString(gcCount), Long.toString(gcPauseNs), Long.toString(heapFirst),
                Long.toString(heapLast));
        if (cpuN > 0) {
            counted.line("prof-cpu", Double.toString(cpuUser / cpuN), Double.toString(cpuSystem / cpuN),
                    Double.toString(cpuMachine / cpuN));
        } else {
            counted.line("prof-cpu", "-1", "-1", "-1");
        }
        for (Map.Entry<String, long[]> r : rampStacks.entrySet()) {
            int[] ids = rampFrames.get(r.getKey());
            sb.setLength(0);
            for (int i = 0; i < ids.length; i++) {
                if (i > 0) {
                    sb.append(',');
                }
                sb.append(ids[i]);
            }
            counted.line("prof-ramp-stack", r.getValue()[0] == 0 ? "A" : "B", Long.toString(r.getValue()[1]),
                    ids.length == 0 ? "-" : sb.toString());
        }
        out.line("prof-end", Integer.toString(lines[0]));
    }

    /**
     * The gaps on the recording's clock: starts and ends (epoch ns, sorted by start). Each gap is
     * moved by the offset between the two clocks at the iteration that began last before it (the
     * clocks may drift apart by microseconds per second; an iteration lasts a sample).
     */
    private static long[][] recordingGaps(SpanGaps gaps, List<Iter> iters) {
        List<Iter> known = new ArrayList<>();
        for (Iter it : iters) {
            if (it.nanoStart != Long.MIN_VALUE) {
                known.add(it);
            }
        }
        if (gaps == null || gaps.size() == 0 || known.isEmpty()) {
            return new long[][] {new long[0], new long[0]};
        }
        known.sort((a, b) -> Long.compare(a.nanoStart, b.nanoStart));
        // An iteration's offset errs only upwards: its thread can be descheduled between reading
        // nanoTime and the event's own clock, never before. On a loaded machine that delay reaches
        // milliseconds and would move a gap late, leaving the set-up at its start in the profile; the
        // smallest offset among the nearby iterations is the one least delayed (the clocks drift by
        // microseconds per second only).
        long[] offsets = new long[known.size()];
        for (int j = 0; j < offsets.length; j++) {
            offsets[j] = known.get(j).start - known.get(j).nanoStart;
        }
        long[] from = new long[gaps.size()], to = new long[gaps.size()];
        int k = 0;
        for (int i = 0; i < gaps.size(); i++) {
            while (k + 1 < known.size() && known.get(k + 1).nanoStart <= gaps.from(i)) {
                k++;
            }
            long offset = offsets[k];
            for (int j = Math.max(0, k - OFFSET_NEIGHBOURS); j <= Math.min(offsets.length - 1, k + OFFSET_NEIGHBOURS); j++) {
                offset = Math.min(offset, offsets[j]);
            }
            from[i] = gaps.from(i) + offset;
            to[i] = gaps.to(i) + offset;
        }
        // An event is stamped when it is done (an allocation once its memory is cleared), so the
        // set-up's last events can be stamped just after their gap: a gap is taken to end up to a
        // microsecond later, never more than a quarter of the span that follows it.
        for (int i = 0; i < to.length; i++) {
            long span = i + 1 < to.length ? from[i + 1] - to[i] : GAP_MARGIN_NS * 4;
            to[i] += Math.max(0, Math.min(GAP_MARGIN_NS, span / 4));
        }
        return new long[][] {from, to};
    }

    /** Whether time t lies inside one of the gaps (starts sorted, gaps disjoint). */
    private static boolean inGap(long[][] gap, long t) {
        int i = Arrays.binarySearch(gap[0], t);
        if (i < 0) {
            i = -i - 2;
        }
        return i >= 0 && t <= gap[1][i];
    }

    /**
     * Counts an execution sample taken in a window of the ramp control (by its copy and stack);
     * samples of other threads or outside every window are left out.
     */
    private static void rampSample(RecordedEvent e, long t, List<long[]> windows, long[] starts, Map<String, long[]> stacks,
            Map<String, int[]> stackFrames, Map<String, Integer> methodIds, List<String[]> methods,
            Map<String, Integer> frameIds, List<long[]> frames) {
        int i = java.util.Arrays.binarySearch(starts, t);
        if (i < 0) {
            i = -i - 2; // the last window that started before t
        }
        if (i < 0) {
            return;
        }
        long[] w = windows.get(i);
        RecordedThread th = e.hasField("sampledThread") ? e.getThread("sampledThread") : null;
        RecordedStackTrace st = e.getStackTrace();
        if (t > w[1] || th == null || th.getJavaThreadId() != w[2] || st == null) {
            return;
        }
        List<RecordedFrame> fs = st.getFrames();
        int[] ids = new int[fs.size()];
        StringBuilder key = new StringBuilder();
        key.append(w[3]).append(':');
        for (int k = 0; k < ids.length; k++) {
            ids[k] = frameId(fs.get(k), methodIds, methods, frameIds, frames);
            key.append(ids[k]).append(',');
        }
        String k = key.toString();
        long[] c = stacks.get(k);
        if (c == null) {
            c = new long[] {w[3], 0};
            stacks.put(k, c);
            stackFrames.put(k, ids);
        }
        c[1]++;
    }

    /** The segment of the iteration that contains (or last started before) time t. */
    private static int segment(long t, long[] starts, List<Iter> iters, long winStart, long winEnd, int segments) {
        if (starts.length == 0) {
            long span = Math.max(1, winEnd - winStart + 1);
            return (int) Math.min(segments - 1, (t - winStart) * (double) segments / span);
        }
        int i = Arrays.binarySearch(starts, t);
        if (i < 0) {
            i = Math.max(0, -i - 2);
        }
        return (int) ((long) i * segments / starts.length);
    }

    private static int frameId(RecordedFrame f, Map<String, Integer> methodIds, List<String[]> methods,
            Map<String, Integer> frameIds, List<long[]> frames) {
        RecordedMethod m = f.getMethod();
        String cls = m == null || m.getType() == null ? "?" : m.getType().getName();
        String name = m == null ? "?" : m.getName();
        String desc = m == null ? "" : m.getDescriptor();
        String mk = cls + '\0' + name + '\0' + desc;
        Integer mid = methodIds.get(mk);
        if (mid == null) {
            mid = methods.size();
            methodIds.put(mk, mid);
            methods.add(new String[] {cls, name, desc});
        }
        int line = f.getLineNumber();
        int bci = f.getBytecodeIndex();
        String fk = mid + ":" + line + ":" + bci;
        Integer fid = frameIds.get(fk);
        if (fid == null) {
            fid = frames.size();
            frameIds.put(fk, fid);
            frames.add(new long[] {mid, line, bci});
        }
        return fid;
    }

    private static String className(RecordedEvent e, String field) {
        if (!e.hasField(field)) {
            return "";
        }
        RecordedClass c = e.getClass(field);
        return c == null ? "" : c.getName();
    }

    private static long durationField(RecordedEvent e, String field) {
        if (!e.hasField(field)) {
            return 0;
        }
        Duration d = e.getDuration(field);
        return d == null ? 0 : d.toNanos();
    }

    /**
     * The JVM's own threads (reference handling, finalizer, signal dispatch, cleaners, JFR) and
     * perfls's (named perfls-…: the parent watch of a fork or of the warm worker, which sleeps).
     */
    private static boolean isJvmThread(RecordedThread th) {
        String name = th.getJavaName();
        if (name != null && (name.startsWith("JFR ") || name.startsWith("perfls-"))) {
            return true;
        }
        if (th.getThreadGroup() == null) {
            return false;
        }
        String g = th.getThreadGroup().getName();
        return "system".equals(g) || "InnocuousThreadGroup".equals(g);
    }

    /** Parses a JFR duration setting ("10 ms", "20 ms", "1 s", "500 us") to ns; -1 when unreadable. */
    static long parseDuration(String v) {
        if (v == null) {
            return -1;
        }
        String[] p = v.trim().split("\\s+");
        if (p.length != 2) {
            return -1;
        }
        long n;
        try {
            n = Long.parseLong(p[0]);
        } catch (NumberFormatException ex) {
            return -1;
        }
        switch (p[1]) {
            case "ns":
                return n;
            case "us":
                return n * 1_000L;
            case "ms":
                return n * 1_000_000L;
            case "s":
                return n * 1_000_000_000L;
            case "m":
                return n * 60_000_000_000L;
            default:
                return -1;
        }
    }
}
