package findings;

import java.util.Collections;
import java.util.Random;

/**
 * Seeded circuitous treasure hunt whose calls per element grow with n: for every element,
 * occursBefore compares it with every earlier one through same, so same is called about n²/2
 * times per operation, n/2 times per element. A set of the values seen so far would make it one
 * lookup per element. Expected finding: circuitous-treasure-hunt at the marked call.
 */
public final class Matches {
    private Matches() {}

    public static int countShared(int[] values) {
        int shared = 0;
        for (int i = 0; i < values.length; i++) {
            if (occursBefore(values, i)) { // cause: circuitous-treasure-hunt
                shared++;
            }
        }
        return shared;
    }

    private static boolean occursBefore(int[] values, int i) {
        boolean found = false;
        for (int j = 0; j < i; j++) {
            found |= same(values[j], values[i]);
        }
        return found;
    }

    private static boolean same(int a, int b) {
        return a == b;
    }

    /** One array of n random ints below n. */
    public static Iterable<Object[]> values(int n) {
        Random random = new Random(11);
        int[] values = new int[n];
        for (int i = 0; i < n; i++) {
            values[i] = random.nextInt(n);
        }
        return Collections.singletonList(new Object[] {values});
    }
}
