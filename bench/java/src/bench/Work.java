package bench;

/** Methods measured by perfls's benchmarks (bench/). */
public final class Work {
    private Work() {
    }

    /** The harness floor: a call that does nothing. */
    public static void empty() {
    }

    /** The harness floor with a result: the blackhole must keep the addition. */
    public static int inc(int x) {
        return x + 1;
    }

    /**
     * A dependent arithmetic chain of n steps (a 64-bit linear congruential generator): every step
     * needs the previous one, so the cost is n times the latency of one multiply-add, with no
     * closed form the JIT could substitute.
     */
    public static long chain(long seed, int n) {
        long x = seed;
        for (int i = 0; i < n; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
        }
        return x;
    }

    /** One call of chain per tuple: (seed, n). */
    public static Iterable<Object[]> chainArgs(int n) {
        return java.util.Collections.singletonList(new Object[] {12345L, n});
    }

    /** The state serialChain carries from one call to the next. */
    private static long serialState = 12345L;

    /**
     * The chain of {@link #chain} continued from the previous call's result: consecutive calls
     * depend on each other, so the processor cannot overlap one call's chain with the next one's
     * (which makes short independent chains cheaper per step than long ones). The cost is the
     * call's fixed part plus n times the latency of one multiply-add, down to a few steps.
     */
    public static long serialChain(int n) {
        long x = serialState;
        for (int i = 0; i < n; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
        }
        serialState = x;
        return x;
    }

    /** One call of serialChain per tuple: (n). */
    public static Iterable<Object[]> serialArgs(int n) {
        return java.util.Collections.singletonList(new Object[] {n});
    }
}
