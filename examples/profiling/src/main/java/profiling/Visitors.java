package profiling;

import dev.perfls.Generator;
import dev.perfls.Param;
import dev.perfls.Workload;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Seeded cause: a growing list scanned per call. Every visit is appended to a list that is
 * never trimmed, and every visit then counts the visitor's earlier visits by scanning the whole
 * list, so each call is slower than the one before. Expected finding: ramp at the marked scan.
 */
public final class Visitors {
    private Visitors() {}

    private static final List<String> visits = new ArrayList<>();

    @Workload("profiling.Visitors#names")
    public static int visit(String name) {
        visits.add(name);
        return Collections.frequency(visits, name); // cause: ramp
    }

    @Generator("n visitor names")
    public static Iterable<Object[]> names(@Param(value = "visitors per pass", min = 1) int n) {
        List<Object[]> calls = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            calls.add(new Object[] {"guest-" + i});
        }
        return calls;
    }
}
