package oracle;

import dev.perfls.Workload;
import java.util.ArrayDeque;

/**
 * Pair 4: a bounded producer/consumer buffer. Balanced (A): each call produces two items and
 * consumes two. Lagging (B): the producer makes three, the consumer still takes two, so the
 * buffer fills up to its bound and the oldest items are dropped; the buffer holds more memory
 * for longer.
 */
public final class Pipeline {
    private Pipeline() {}

    static final int CAPACITY = 50_000;
    private static final ArrayDeque<byte[]> balancedQueue = new ArrayDeque<>();
    private static final ArrayDeque<byte[]> laggingQueue = new ArrayDeque<>();

    @Workload("oracle.Calls#calls")
    public static int balanced(int i) {
        return step(balancedQueue, i, 2, 2);
    }

    @Workload("oracle.Calls#calls")
    public static int lagging(int i) {
        return step(laggingQueue, i, 3, 2);
    }

    private static int step(ArrayDeque<byte[]> q, int i, int produce, int consume) {
        for (int p = 0; p < produce; p++) {
            byte[] item = new byte[64];
            item[0] = (byte) (i + p);
            if (q.size() >= CAPACITY) {
                q.pollFirst(); // full: drop the oldest
            }
            q.addLast(item);
        }
        int sum = 0;
        for (int c = 0; c < consume && !q.isEmpty(); c++) {
            sum += q.pollFirst()[0];
        }
        return sum + q.size();
    }
}
