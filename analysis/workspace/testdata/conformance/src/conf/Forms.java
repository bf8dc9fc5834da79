package conf;

import java.util.Arrays;
import dev.perfls.SPL;
import dev.perfls.SPLController;

/** Every annotation form perfls reads, all valid: the checker must stay silent. */
public class Forms {
    static final String SIZES = "for n in {10, 100} ";
    static final String OTHER = "conf.Forms#linear";

    // Thesis form, one string.
    @SPL("for n in {10, 100} SELF[gen](n) <= conf.Forms#linear[gen](n)")
    public static int single(int[] a, int k) { return 0; }

    // Several formulas in an array; an alias declared in one element, used in another.
    @SPL({"lin := conf.Forms.linear", "w := gen", "for n in {10} SELF[w](n) <= lin[w](n)"})
    public static int array(int[] a, int k) { return 0; }

    // Named element, concatenation and a constant of this type.
    @SPL(value = SIZES + "SELF[gen](n) <= " + OTHER + "[gen](n)")
    public static int concatenated(int[] a, int k) { return 0; }

    // Original tool form with methods={…} and generators={…}, zipped sequence, lambda.
    @SPL(methods = {"l=conf.Forms#linear"}, generators = {"g=conf.Forms#gen2"},
         formula = {"for ((i, j){(1, 2), (3, 4)}) l[g](i, j) <=(2, 1) SELF[g](i, j)"})
    public static int original(int[] a, int k) { return 0; }

    // Text block and escapes.
    @SPL("""
        for s in {"a\\tb", "c"} \
        SELF[words](s) <= conf.Forms#joined[words](s)""")
    public static String textBlock(String[] w) { return ""; }
    public static String joined(String[] w) { return ""; }

    // A JDK method, with an overload chosen by parameter types; a scale factor on the right.
    @SPL("for n in {1000} SELF[gen](n) <= 2 * java.util.Arrays#sort(int[])[gen](n)")
    public static int jdk(int[] a) { return 0; }

    // Workload loop: the method runs its own workload.
    @SPL("for n in {10} SELF(n) <= conf.Forms#loop(n)")
    public static void loop2(SPLController spl, int n) { }
    public static void loop(SPLController spl, int n) { }

    // Repeated annotation container.
    @SPLs({@SPL("SELF[gen](1) <= linear[gen](1)"), @SPL("SELF[gen](2) <= linear[gen](2)")})
    public static int repeated(int[] a, int k) { return 0; }

    @Workload("conf.Forms.gen(int)")
    @SeeAlso("conf.Forms.linear(int[], int)")
    public static int workload(int[] a, int k) { return 0; }

    public static int linear(int[] a, int k) { return 0; }

    @Generator(name = "sorted", description = "sorted arrays of n ints and a key")
    public static Iterable<Object[]> gen(@Param(value = "n", min = 1, max = 1000000) int n) { return null; }

    public static Iterable<Object[]> gen2(int i, int j) { return null; }

    @Generator("one array of the given words")
    public static Iterable<Object[]> words(String s) { return null; }
}
