package findings;

import java.util.ArrayList;
import java.util.List;

/**
 * Seeded ramp of about 20 % over a profile: every call does a fixed amount of arithmetic and then
 * scans a static table that grows by one entry every 4,096 calls and is never trimmed, so each
 * call costs a little more than the ones before it. Expected finding: ramp at the marked scan.
 */
public final class Growing {
    private Growing() {}

    private static int[] seen = new int[1024];
    private static int size;
    private static long calls;

    public static int record(int key) {
        if ((++calls & 4095) == 0) {
            if (size == seen.length) {
                seen = java.util.Arrays.copyOf(seen, 2 * size);
            }
            seen[size++] = key;
        }
        int h = key;
        for (int k = 0; k < 400; k++) {
            h = h * 0x9E3779B1 + k;
        }
        int c = 0;
        for (int k = 0; k < size; k++) { c += seen[k] == key ? 1 : 0; } // cause: ramp
        return h + c;
    }

    /** n calls per pass, with keys 0 … n−1. */
    public static Iterable<Object[]> keys(int n) {
        List<Object[]> calls = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            calls.add(new Object[] {i});
        }
        return calls;
    }
}
