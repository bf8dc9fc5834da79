package bench;

/**
 * The hand-written baseline of bench/: for each n given, calls Work.chain(seed, n) in a plain loop
 * timed with System.nanoTime, after a warm-up of at least a second (and 20,000 calls, within 3 s), and prints
 * "n ns-per-op" with the median of 15 batches of at least 50 ms each. Results go into a
 * volatile field so that the calls are not removed.
 */
public final class NanoLoop {
    static volatile long sink;

    public static void main(String[] args) {
        for (String a : args) {
            if (a.startsWith("serial:")) {
                serial(Integer.parseInt(a.substring("serial:".length())));
                continue;
            }
            int n = Integer.parseInt(a);
            long seed = 12345L;
            long s = 0;
            long t0 = System.nanoTime();
            long calls = 0;
            // At least 1 s and, for short calls, 20,000 calls (past the C2 threshold), at most 3 s.
            long el;
            while ((el = System.nanoTime() - t0) < 1_000_000_000L || (calls < 20_000 && el < 3_000_000_000L)) {
                s += Work.chain(seed + calls, n);
                calls++;
            }
            double perCall = (System.nanoTime() - t0) / (double) calls;
            long reps = Math.max(1, (long) (50_000_000L / perCall));
            double[] batch = new double[15];
            for (int b = 0; b < batch.length; b++) {
                long start = System.nanoTime();
                for (long r = 0; r < reps; r++) {
                    s += Work.chain(seed + r, n);
                }
                batch[b] = (System.nanoTime() - start) / (double) reps;
            }
            sink = s;
            java.util.Arrays.sort(batch);
            System.out.println(n + " " + batch[batch.length / 2]);
        }
    }

    /**
     * As main's loop, for Work.serialChain; prints "serial:n ns-per-op". A copy on purpose: one
     * timing loop taking the method as a lambda would make its call site megamorphic once several
     * methods went through it, adding a virtual call to every timed call of the baseline.
     */
    private static void serial(int n) {
        long s = 0;
        long t0 = System.nanoTime();
        long calls = 0;
        long el;
        while ((el = System.nanoTime() - t0) < 1_000_000_000L || (calls < 20_000 && el < 3_000_000_000L)) {
            s += Work.serialChain(n);
            calls++;
        }
        double perCall = (System.nanoTime() - t0) / (double) calls;
        long reps = Math.max(1, (long) (50_000_000L / perCall));
        double[] batch = new double[15];
        for (int b = 0; b < batch.length; b++) {
            long start = System.nanoTime();
            for (long r = 0; r < reps; r++) {
                s += Work.serialChain(n);
            }
            batch[b] = (System.nanoTime() - start) / (double) reps;
        }
        sink = s;
        java.util.Arrays.sort(batch);
        System.out.println("serial:" + n + " " + batch[batch.length / 2]);
    }
}
