package findings;

/**
 * Clean: a cache that fills during the first calls and is then only read — the cost per call
 * falls and stays flat; it does not grow with the calls made.
 */
public final class Memo {
    private Memo() {}

    private static final long[] cache = new long[4096];

    public static long cost(int key) {
        int k = key & 4095;
        long v = cache[k];
        if (v == 0) {
            v = 1;
            for (int i = 0; i < 100_000; i++) {
                v = v * 31 + i + k;
            }
            cache[k] = v | 1;
        }
        long x = v;
        for (int i = 0; i < 200; i++) {
            x = x * 0x9E3779B97F4A7C15L + i;
        }
        return x;
    }
}
