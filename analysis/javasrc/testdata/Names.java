package p;

import java.util.*;

public class Names<T extends Comparable<T>> {
    static final String A = "x" + 1;
    Runnable f1 = new Runnable() { public void run() {} };
    class Member {
        Object o = new Object() {};
        void m() { class Loc {} new Object() { class InAnon {} }; }
    }
    Names(int x) {
        Object o = new Foo(new Object() {}) { void inner() { new Object() { }; class L2 {} } };
        class Local { class Deep {} void q() { new Object() {}; } }
        class Other {}
    }
    void second() { class Local {} Runnable r = () -> { class InLambda {} new Object() {}; }; }
    enum E { A { void f() {} }, B(new Object() {}) { }, C; E() {} E(Object o) {} }
    interface I { Object X = new Object() {}; }
    record R(int a) { R { new Object() {}; } }
    static class Foo { Foo(Object o) {} }
    static { new Object() {}; }
}
