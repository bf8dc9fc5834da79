package oracle;

import dev.perfls.Generator;
import dev.perfls.Param;
import java.util.ArrayList;
import java.util.List;

/** The workload every validation pair shares: n calls with the arguments 0..n-1. */
public final class Calls {
    private Calls() {}

    @Generator("n calls, with the arguments 0, 1, ..., n-1")
    public static Iterable<Object[]> calls(@Param(value = "calls per pass", min = 1) int n) {
        List<Object[]> calls = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            calls.add(new Object[] {i});
        }
        return calls;
    }
}
