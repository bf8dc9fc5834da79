package dev.perfls.internal;

import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * Ends a fork whose perfls process is gone. The fork's standard input is a pipe whose write end
 * only perfls holds; when perfls exits, however it exits (kill -9 included), the kernel closes that
 * end and the read here sees end-of-file. The deadline is a second line of defence for a perfls
 * that hangs rather than dies: perfls's own timeout comes first and asks for a thread dump.
 */
final class ParentWatch {
    private ParentWatch() {}

    /** Exit status of a fork ended by the watch; nobody is left to read it. */
    static final int ORPHANED = 4;

    static void start(long deadlineNs) {
        final InputStream in = new FileInputStream(FileDescriptor.in);
        daemon("perfls-parent-watch", () -> {
            byte[] buf = new byte[64];
            try {
                while (in.read(buf) >= 0) {
                    // perfls writes nothing; bytes would only be noise
                }
            } catch (IOException e) {
                // a broken pipe is as good as end-of-file
            }
            Runtime.getRuntime().halt(ORPHANED);
        });
        if (deadlineNs > 0) {
            daemon("perfls-deadline", () -> {
                long end = System.nanoTime() + deadlineNs;
                for (long left = deadlineNs; left > 0; left = end - System.nanoTime()) {
                    try {
                        Thread.sleep(Math.max(1, left / 1_000_000));
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                Runtime.getRuntime().halt(ORPHANED);
            });
        }
    }

    private static void daemon(String name, Runnable r) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
    }
}
