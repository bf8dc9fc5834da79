package pkg;

import java.util.List;
import java.util.Map;

public class Shop {
    static int total(List<Integer> xs) {
        int t = 0;
        for (int x : xs) {
            t += price(x);
        }
        return t;
    }
    static int total(int[] xs) {
        return xs.length;
    }
    static int price(int x) {
        return x * 3;
    }
    static long price(long x) {
        return x * 4;
    }
    static void each(Map.Entry<String, Integer> e) {
        Runnable r = () -> System.out.println(e);
        r.run();
    }
    static class Cart {
        Cart(int n) {
            items = n;
        }
        int items;
        void run() {}
        void runAll() { run(); }
    }
}
