package quickstart;

import dev.perfls.Generator;
import dev.perfls.Param;
import dev.perfls.SPL;
import java.util.Collections;
import java.util.List;

/** Joining words: a builder copies each character once, repeated + copies the prefix again for every word. */
public final class Strings {
    private Strings() {}

    // Holds on any machine: O(total length) against O(words × total length);
    // the builder takes at most half the time of repeated +.
    @SPL("for n in {200, 2000} SELF[words](n) <= 0.5 * joinWithPlus[words](n)")
    public static String joinWithBuilder(String[] words) {
        StringBuilder sb = new StringBuilder();
        for (String w : words) {
            sb.append(w).append(' ');
        }
        return sb.toString();
    }

    public static String joinWithPlus(String[] words) {
        String s = "";
        for (String w : words) {
            s = s + w + " ";
        }
        return s;
    }

    @Generator("one array of n short words")
    public static Iterable<Object[]> words(@Param(value = "number of words", min = 1) int n) {
        String[] words = new String[n];
        for (int i = 0; i < n; i++) {
            words[i] = "word" + (i % 97);
        }
        return Collections.singletonList(new Object[] {words});
    }
}
