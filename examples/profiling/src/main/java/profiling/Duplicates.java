package profiling;

import dev.perfls.Generator;
import dev.perfls.Param;
import dev.perfls.Workload;
import java.util.Collections;
import java.util.Random;

/**
 * Seeded cause: a quadratic helper inside a method. countRepeats looks every value up again
 * with a linear search, once per element: n searches of up to n steps each. A set of the values
 * seen so far would make it linear. Expected finding: circuitous-treasure-hunt at the marked call.
 */
public final class Duplicates {
    private Duplicates() {}

    @Workload("profiling.Duplicates#values")
    public static int countRepeats(int[] values) {
        int repeats = 0;
        for (int i = 0; i < values.length; i++) {
            if (firstIndexOf(values, values[i]) != i) { // cause: circuitous-treasure-hunt
                repeats++;
            }
        }
        return repeats;
    }

    private static int firstIndexOf(int[] values, int v) {
        for (int j = 0; j < values.length; j++) {
            if (values[j] == v) {
                return j;
            }
        }
        return -1;
    }

    @Generator("one array of n random ints below n, so that about a third repeat")
    public static Iterable<Object[]> values(@Param(value = "array length", min = 1) int n) {
        Random random = new Random(7);
        int[] values = new int[n];
        for (int i = 0; i < n; i++) {
            values[i] = random.nextInt(n);
        }
        return Collections.singletonList(new Object[] {values});
    }
}
