package dev.perfls.internal;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UnsupportedEncodingException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The quick-phase worker: a JVM that stays up and runs one measurement per request, each in a
 * fresh class loader (so that the project's classes, and their static state, are new every
 * time). Requests arrive on standard input, one per line:
 *
 * <pre>
 *   run &lt;id&gt; &lt;escaped harness class&gt; &lt;escaped class path&gt; &lt;key=value&gt;...
 *   prof &lt;id&gt; &lt;escaped settings file&gt; &lt;escaped harness class&gt; &lt;escaped class path&gt; &lt;key=value&gt;...
 *   quit
 * </pre>
 *
 * Each request is answered on the protocol stream like a fork ("hello", "env", ..., "end" or
 * "error") followed by {@code perfls-done <id> <clean>}, where clean is 0 when the request left
 * threads running (the parent then restarts the worker). The worker exits when its standard
 * input ends or its parent process goes away.
 *
 * <p>A {@code prof} request (worker protocol 2) is a quick profile: the worker starts a flight
 * recording with the settings file (perfls's .jfc) before the harness runs, and the harness,
 * given {@code profile=1}, marks its samples and reduces the recording to its summary
 * (perfls-prof-* lines) as in a profiled fork. A recording the harness did not finish is closed
 * before {@code perfls-done}. The first line, {@code perfls-ready <pid> <worker protocol>},
 * says which requests the worker understands.
 */
public final class Worker {
    /** The worker's request protocol: 2 adds {@code prof}. */
    static final int PROTOCOL = 2;

    private static volatile TailSink current;

    public static void main(String[] args) throws Exception {
        final Protocol out = Protocol.stdout();
        BufferedReader in = new BufferedReader(new InputStreamReader(new FileInputStream(FileDescriptor.in),
                StandardCharsets.UTF_8));
        System.setIn(new ByteArrayInputStream(new byte[0]));
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            TailSink s = current;
            if (s != null) {
                Bench.reportOutput(out, s);
                out.line("exit", Protocol.escape(Bench.exitStack()));
            }
        }, "perfls-exit-hook"));
        watchParent();
        out.line("ready", Long.toString(ProcessHandle.current().pid()), Integer.toString(PROTOCOL));
        ClassLoader own = Worker.class.getClassLoader();
        String line;
        while ((line = in.readLine()) != null) {
            String[] f = line.split(" ");
            if (f[0].equals("quit")) {
                break;
            }
            boolean prof = f[0].equals("prof");
            int at = prof ? 3 : 2; // the harness class's field
            if (!(prof || f[0].equals("run")) || f.length < at + 2) {
                out.line("error", "harness", Protocol.escape("bad worker request " + line));
                continue;
            }
            String id = f[1];
            boolean clean;
            if (prof) {
                clean = profile(out, unescape(f[2]), unescape(f[at]), unescape(f[at + 1]),
                        Arrays.copyOfRange(f, at + 2, f.length));
            } else {
                clean = request(out, unescape(f[at]), unescape(f[at + 1]), Arrays.copyOfRange(f, at + 2, f.length));
            }
            Thread.currentThread().setContextClassLoader(own);
            out.line("done", id, clean ? "1" : "0");
        }
        Runtime.getRuntime().halt(0);
    }

    /**
     * Runs one request with a flight recording: started here, before the request's class loader
     * exists (so that the recorder's threads, started with the first recording, belong to the
     * worker and not to the request), reduced by the harness, closed here when the harness did
     * not get that far. A recording that cannot start is the request's error.
     */
    private static boolean profile(Protocol out, String settings, String main, String classpath, String[] opts) {
        try {
            ProfileMarks.startRecording(settings);
        } catch (Throwable t) {
            out.line("hello", Integer.toString(Protocol.VERSION), Long.toString(ProcessHandle.current().pid()));
            out.line("error", "harness", Protocol.escape("start the flight recording: " + t));
            return true;
        }
        try {
            return request(out, main, classpath, opts);
        } finally {
            ProfileMarks.closeRecordings();
        }
    }

    /** Runs one request; false when it left threads of its class loader running. */
    private static boolean request(Protocol out, String main, String classpath, String[] opts) {
        TailSink sink = new TailSink(64 * 1024);
        PrintStream user;
        try {
            user = new PrintStream(sink, true, "UTF-8");
        } catch (UnsupportedEncodingException e) {
            user = new PrintStream(sink, true);
        }
        System.setOut(user);
        System.setErr(user);
        out.line("hello", Integer.toString(Protocol.VERSION), Long.toString(ProcessHandle.current().pid()));
        URLClassLoader cl = null;
        current = sink;
        try {
            List<URL> urls = new ArrayList<>();
            for (String p : classpath.split(File.pathSeparator)) {
                if (!p.isEmpty()) {
                    urls.add(new File(p).toURI().toURL());
                }
            }
            cl = new URLClassLoader(urls.toArray(new URL[0]), Worker.class.getClassLoader());
            Thread.currentThread().setContextClassLoader(cl);
            Bench b = (Bench) Class.forName(main, true, cl).getDeclaredConstructor().newInstance();
            Bench.execute(new Bench[] {b}, opts, out, sink);
        } catch (Throwable t) {
            StringWriter w = new StringWriter();
            t.printStackTrace(new PrintWriter(w));
            out.line("error", "harness", Protocol.escape(w.toString()));
        } finally {
            current = null;
        }
        boolean clean = true;
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t != Thread.currentThread() && t.isAlive() && cl != null && t.getContextClassLoader() == cl) {
                clean = false;
            }
        }
        if (cl != null) {
            try {
                cl.close();
            } catch (Exception e) {
                // nothing to do: the loader is dropped anyway
            }
        }
        return clean;
    }

    /** Halts the worker when the process that started it is gone (then this JVM is reparented). */
    private static void watchParent() {
        final long parent = ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(-1L);
        Thread t = new Thread(() -> {
            while (true) {
                try {
                    Thread.sleep(500);
                } catch (InterruptedException e) {
                    return;
                }
                long now = ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(-1L);
                if (now != parent) {
                    Runtime.getRuntime().halt(3);
                }
            }
        }, "perfls-parent-watch");
        t.setDaemon(true);
        t.start();
    }

    /** Reverses {@link Protocol#escape}. */
    static String unescape(String s) {
        if (s.equals("\\e")) {
            return "";
        }
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c != '\\' || i + 1 >= s.length()) {
                b.append(c);
                continue;
            }
            char n = s.charAt(++i);
            switch (n) {
                case 's':
                    b.append(' ');
                    break;
                case 'n':
                    b.append('\n');
                    break;
                case 'r':
                    b.append('\r');
                    break;
                case 't':
                    b.append('\t');
                    break;
                case 'e':
                    break;
                case 'x':
                    if (i + 2 < s.length()) {
                        b.append((char) Integer.parseInt(s.substring(i + 1, i + 3), 16));
                        i += 2;
                    }
                    break;
                default:
                    b.append(n);
            }
        }
        return b.toString();
    }
}
