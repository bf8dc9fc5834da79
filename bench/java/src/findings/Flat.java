package findings;

/** Clean: a fixed amount of arithmetic per call, whatever was called before. */
public final class Flat {
    private Flat() {}

    public static long mix(long seed) {
        long x = seed;
        for (int i = 0; i < 2000; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
        }
        return x;
    }

    /** n calls per pass with seeds 1 … n. */
    public static Iterable<Object[]> seeds(int n) {
        java.util.List<Object[]> calls = new java.util.ArrayList<>(n);
        for (long i = 1; i <= n; i++) {
            calls.add(new Object[] {i});
        }
        return calls;
    }
}
