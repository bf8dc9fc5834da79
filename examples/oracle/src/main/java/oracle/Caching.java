package oracle;

import dev.perfls.Workload;
import java.lang.ref.SoftReference;
import java.util.ArrayList;

/**
 * Pair 1 (the seed's motivating example): a cache of recent values held by strong references
 * (A) or by soft references (B), each cleared when it reaches the same size, so both reach the
 * same peak. The soft variant allocates a reference object per entry and gives the collector
 * references to process.
 */
public final class Caching {
    private Caching() {}

    static final int LIMIT = 40_000; // entries of 1 KiB: about 41 MB at the peak
    private static final ArrayList<byte[]> strongCache = new ArrayList<>();
    private static final ArrayList<SoftReference<byte[]>> softCache = new ArrayList<>();

    @Workload("oracle.Calls#calls")
    public static int strong(int i) {
        byte[] value = new byte[1024];
        value[i & 1023] = (byte) i;
        strongCache.add(value);
        if (strongCache.size() >= LIMIT) {
            strongCache.clear();
        }
        return strongCache.size();
    }

    @Workload("oracle.Calls#calls")
    public static int soft(int i) {
        byte[] value = new byte[1024];
        value[i & 1023] = (byte) i;
        softCache.add(new SoftReference<>(value));
        if (softCache.size() >= LIMIT) {
            softCache.clear();
        }
        return softCache.size();
    }
}
