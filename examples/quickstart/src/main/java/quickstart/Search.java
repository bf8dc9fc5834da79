package quickstart;

import dev.perfls.Generator;
import dev.perfls.Param;
import dev.perfls.SPL;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/** Two ways to find a key in a sorted array. */
public final class Search {
    private Search() {}

    // Holds on any machine: O(log n) beats O(n) by orders of magnitude at these sizes.
    @SPL("for n in {10000, 100000} SELF[lookups](n) <= quickstart.Search#linearSearch[lookups](n)")
    public static int binarySearch(int[] sorted, int key) {
        int lo = 0, hi = sorted.length - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (sorted[mid] < key) {
                lo = mid + 1;
            } else if (sorted[mid] > key) {
                hi = mid - 1;
            } else {
                return mid;
            }
        }
        return -(lo + 1);
    }

    // Fails on any machine, on purpose: a linear scan is not as fast as a binary search.
    @SPL("for n in {10000, 100000} SELF[lookups](n) <= quickstart.Search#binarySearch[lookups](n)")
    public static int linearSearch(int[] sorted, int key) {
        for (int i = 0; i < sorted.length; i++) {
            if (sorted[i] >= key) {
                return sorted[i] == key ? i : -(i + 1);
            }
        }
        return -(sorted.length + 1);
    }

    // The keys are spread evenly over the array's range, so that a linear scan goes through half
    // of it on average at every n (64 random keys made that share 0.44 to 0.53 of n, depending on
    // n, and a cost model over n followed the draw); they are shuffled, so that the branches of
    // successive binary searches do not repeat a pattern.
    @Generator("64 look-ups of keys spread evenly over one sorted array of n distinct ints, in random order")
    public static Iterable<Object[]> lookups(@Param(value = "array length", min = 1) int n) {
        Random random = new Random(42); // fixed seed: every fork measures the same inputs
        int[] sorted = new int[n];
        for (int i = 0; i < n; i++) {
            sorted[i] = 2 * i;
        }
        List<Object[]> calls = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            calls.add(new Object[] {sorted, (int) (2L * n * (2 * i + 1) / 128)});
        }
        Collections.shuffle(calls, random);
        return calls;
    }
}
