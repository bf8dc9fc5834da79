package oracle;

import dev.perfls.Workload;
import java.lang.reflect.Proxy;

/**
 * Pair 3: a call through a fixed handler (A), and the same with extra class loading (B): every
 * 2,000th call creates a proxy class in a new class loader, as a plug-in system that reloads its
 * plug-ins would. Loaded classes (and metaspace) grow.
 */
public final class Plugins {
    private Plugins() {}

    private static final Runnable fixed = () -> { };
    private static Runnable current = fixed;

    @Workload("oracle.Calls#calls")
    public static int reuse(int i) {
        current.run();
        return work(i);
    }

    @Workload("oracle.Calls#calls")
    public static int reload(int i) {
        if (i % 2000 == 0) {
            ClassLoader fresh = new ClassLoader(Plugins.class.getClassLoader()) { };
            current = (Runnable) Proxy.newProxyInstance(fresh, new Class<?>[] {Runnable.class}, (p, m, a) -> null);
        }
        current.run();
        return work(i);
    }

    private static int work(int i) {
        int h = i;
        for (int k = 0; k < 32; k++) {
            h = h * 31 + k;
        }
        return h;
    }
}
