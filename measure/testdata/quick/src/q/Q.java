package q;

import java.util.ArrayList;
import java.util.List;

/** Methods for the quick-phase worker tests. */
public class Q {
    static int generated;

    /** Fails when called twice in one class loader: the worker must give every request fresh classes. */
    public static Iterable<Object[]> once(int n) {
        generated++;
        if (generated > 1) {
            throw new IllegalStateException("static state leaked between requests: " + generated);
        }
        List<Object[]> l = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            l.add(new Object[] {i});
        }
        return l;
    }

    public static int inc(int x) {
        return x + 1;
    }

    static int hidden(int x) {
        return x * 3;
    }

    public static int boom(int x) {
        throw new IllegalArgumentException("boom " + x); // BOOM
    }

    public static int quit(int x) {
        System.exit(3);
        return x;
    }

    public static int spin(int x) {
        while (x >= 0) { x = (x * 31) & 0xffff; } // SPIN
        return x;
    }

    static boolean started;

    /** Leaves a thread of the request's class loader running. */
    public static int stray(int x) {
        if (!started) {
            started = true;
            Thread t = new Thread(() -> {
                try {
                    Thread.sleep(600_000);
                } catch (InterruptedException e) {
                    // ends
                }
            });
            t.setDaemon(true);
            t.start();
        }
        return x;
    }
}
