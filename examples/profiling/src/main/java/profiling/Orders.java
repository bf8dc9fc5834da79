package profiling;

import dev.perfls.Generator;
import dev.perfls.Param;
import dev.perfls.Workload;
import java.util.Collections;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * Seeded cause: an extra remote-style round trip per element. value() fetches all prices in
 * one request, then asks the same service once more for every item's stock, one request per
 * item; every request pays the service's fixed cost (a thread hand-off and a short delay,
 * standing in for the network). Expected finding: empty-semi-trucks at the marked call.
 */
public final class Orders {
    private Orders() {}

    /** A stand-in for a remote service: requests go to a server thread and back. */
    static final class Service {
        private static final long LATENCY_NS = 20_000;

        private static final class Request {
            final String[] items;
            final CompletableFuture<long[]> reply = new CompletableFuture<>();

            Request(String[] items) {
                this.items = items;
            }
        }

        private final BlockingQueue<Request> requests = new LinkedBlockingQueue<>();

        Service() {
            Thread server = new Thread(this::serve, "orders-service");
            server.setDaemon(true);
            server.start();
        }

        long[] lookup(String... items) throws Exception {
            Request r = new Request(items);
            requests.put(r);
            return r.reply.get();
        }

        private void serve() {
            try {
                while (true) {
                    Request r = requests.take();
                    LockSupport.parkNanos(LATENCY_NS);
                    long[] out = new long[r.items.length];
                    for (int i = 0; i < out.length; i++) {
                        out[i] = r.items[i].hashCode() & 0xffff;
                    }
                    r.reply.complete(out);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static final Service SERVICE = new Service();

    @Workload("profiling.Orders#items")
    public static long value(String[] items) throws Exception {
        long[] prices = SERVICE.lookup(items);
        long sum = 0;
        for (int i = 0; i < items.length; i++) {
            long stock = SERVICE.lookup(items[i])[0]; // cause: empty-semi-trucks
            sum += prices[i] * stock;
        }
        return sum;
    }

    @Generator("one order of n items")
    public static Iterable<Object[]> items(@Param(value = "items per order", min = 1) int n) {
        String[] items = new String[n];
        for (int i = 0; i < n; i++) {
            items[i] = "item-" + i;
        }
        return Collections.singletonList(new Object[] {items});
    }
}
