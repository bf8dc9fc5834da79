package a;

import dev.perfls.SPLController;
import java.util.ArrayList;
import java.util.List;

/** Methods that print the arguments they receive, for args_test.go. */
public final class A {
    private A() {
    }

    /** Each argument's class and value; strings as UTF-16 code units in hex, ended by '.'. */
    static String describe(Object... args) {
        StringBuilder b = new StringBuilder("args:");
        for (Object o : args) {
            b.append(' ');
            if (o == null) {
                b.append("null");
                continue;
            }
            b.append(o.getClass().getSimpleName()).append('=');
            if (o instanceof CharSequence) {
                CharSequence s = (CharSequence) o;
                for (int i = 0; i < s.length(); i++) {
                    b.append(String.format("%04x", (int) s.charAt(i)));
                }
                b.append('.');
            } else {
                b.append(o);
            }
        }
        return b.toString();
    }

    static List<Object[]> tuples() {
        List<Object[]> t = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            t.add(new Object[] {i});
        }
        return t;
    }

    public static Iterable<Object[]> gen(String s, int n, long l, Object o, Integer boxed, short sh, double d,
            CharSequence cs, Object os) {
        System.out.println(describe(s, n, l, o, boxed, sh, d, cs, os));
        return tuples();
    }

    /** Overloads: the harness must call the one that was resolved. */
    public static Iterable<Object[]> over(Object o) {
        System.out.println("over(Object) " + describe(o));
        return tuples();
    }

    public static Iterable<Object[]> over(Integer o) {
        System.out.println("over(Integer) " + describe(o));
        return tuples();
    }

    public static int id(int x) {
        return x + 1;
    }

    public static void loop(SPLController spl, String s, long n) {
        System.out.println(describe(s, n));
        long x = 0;
        while (spl.needsMore()) {
            spl.start();
            x += s.length() + n;
            spl.end();
        }
        if (x == 42) {
            System.out.println();
        }
    }

    private static boolean told;

    public static int plain(String s, int n) {
        if (!told) {
            told = true;
            System.out.println(describe(s, n));
        }
        return s.length() + n;
    }
}
