package profiling;

import dev.perfls.Generator;
import dev.perfls.Param;
import dev.perfls.Workload;
import java.util.Collections;

/**
 * Seeded cause: boxing in a loop. The running total is a Long, so every addition unboxes it,
 * adds and boxes a new Long: one short-lived object per element. A long total allocates
 * nothing. Expected finding: excessive-allocation at the marked line.
 */
public final class Totals {
    private Totals() {}

    @Workload("profiling.Totals#values")
    public static long sum(int[] values) {
        Long total = 0L;
        for (int v : values) {
            total += v; // cause: excessive-allocation
        }
        return total;
    }

    @Generator("one array of n ints from 1000 on (outside Long's cache of small values)")
    public static Iterable<Object[]> values(@Param(value = "array length", min = 1) int n) {
        int[] values = new int[n];
        for (int i = 0; i < n; i++) {
            values[i] = 1000 + i;
        }
        return Collections.singletonList(new Object[] {values});
    }
}
