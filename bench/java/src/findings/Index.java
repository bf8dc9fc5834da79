package findings;

/**
 * Clean: Matches#countShared done right — one lookup per element in an open-addressing set of
 * the values seen so far. A call inside a loop that loops again (the probe), but a constant number
 * of probes per element.
 */
public final class Index {
    private Index() {}

    public static int countShared(int[] values) {
        int[] table = new int[Integer.highestOneBit(Math.max(values.length, 1)) * 4];
        java.util.Arrays.fill(table, -1);
        int shared = 0;
        for (int v : values) {
            if (!add(table, v)) {
                shared++;
            }
        }
        return shared;
    }

    /** Adds v (≥ 0); false when it was there already. */
    private static boolean add(int[] table, int v) {
        int mask = table.length - 1;
        for (int i = (v * 0x9E3779B1) & mask; ; i = (i + 1) & mask) {
            if (table[i] == v) {
                return false;
            }
            if (table[i] < 0) {
                table[i] = v;
                return true;
            }
        }
    }
}
