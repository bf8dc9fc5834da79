package findings;

import java.util.Arrays;

/**
 * Clean: the rank of every element by sorting a copy and binary-searching it — n·log n, an index
 * used as it should be. The binary search is a call inside a loop that loops again, in the JDK.
 */
public final class Sorted {
    private Sorted() {}

    public static long ranks(int[] values) {
        int[] sorted = values.clone();
        Arrays.sort(sorted);
        long sum = 0;
        for (int v : values) {
            sum += Arrays.binarySearch(sorted, v);
        }
        return sum;
    }
}
