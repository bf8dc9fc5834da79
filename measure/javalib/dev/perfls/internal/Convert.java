package dev.perfls.internal;

/**
 * Extracts typed call arguments from a generator's {@code Object[]} tuples, outside the timed
 * region. Primitive parameters accept the matching wrapper and the wrappers that widen to it (as
 * reflection would); reference parameters accept null or an instance of the type.
 */
public final class Convert {
    private Convert() {
    }

    /** The {@code i}-th tuple, checked to hold exactly {@code arity} arguments. */
    public static Object[] tuple(Object[][] tuples, int i, int arity) {
        Object[] t = tuples[i];
        if (t.length != arity) {
            throw new IllegalArgumentException("argument tuple " + i + " has " + t.length
                    + " element(s), the measured call needs " + arity);
        }
        return t;
    }

    private static IllegalArgumentException mismatch(Object o, String want, int i, int p) {
        String got = o == null ? "null" : o.getClass().getName();
        return new IllegalArgumentException("argument tuple " + i + ", element " + p + ": expected "
                + want + ", got " + got);
    }

    public static <T> T ref(Object o, Class<T> type, int i, int p) {
        if (o != null && !type.isInstance(o)) {
            throw mismatch(o, type.getName(), i, p);
        }
        return type.cast(o);
    }

    public static <T> T receiver(Object o, Class<T> type, int i) {
        if (o == null || !type.isInstance(o)) {
            throw mismatch(o, "a non-null receiver of type " + type.getName(), i, 0);
        }
        return type.cast(o);
    }

    public static boolean toBoolean(Object o, int i, int p) {
        if (o instanceof Boolean) {
            return (Boolean) o;
        }
        throw mismatch(o, "boolean", i, p);
    }

    public static char toChar(Object o, int i, int p) {
        if (o instanceof Character) {
            return (Character) o;
        }
        throw mismatch(o, "char", i, p);
    }

    public static byte toByte(Object o, int i, int p) {
        if (o instanceof Byte) {
            return (Byte) o;
        }
        throw mismatch(o, "byte", i, p);
    }

    public static short toShort(Object o, int i, int p) {
        if (o instanceof Short || o instanceof Byte) {
            return ((Number) o).shortValue();
        }
        throw mismatch(o, "short", i, p);
    }

    public static int toInt(Object o, int i, int p) {
        if (o instanceof Integer || o instanceof Short || o instanceof Byte) {
            return ((Number) o).intValue();
        }
        if (o instanceof Character) {
            return (Character) o;
        }
        throw mismatch(o, "int", i, p);
    }

    public static long toLong(Object o, int i, int p) {
        if (o instanceof Long || o instanceof Integer || o instanceof Short || o instanceof Byte) {
            return ((Number) o).longValue();
        }
        if (o instanceof Character) {
            return (Character) o;
        }
        throw mismatch(o, "long", i, p);
    }

    public static float toFloat(Object o, int i, int p) {
        if (o instanceof Float || o instanceof Long || o instanceof Integer || o instanceof Short
                || o instanceof Byte) {
            return ((Number) o).floatValue();
        }
        if (o instanceof Character) {
            return (Character) o;
        }
        throw mismatch(o, "float", i, p);
    }

    public static double toDouble(Object o, int i, int p) {
        if (isWrapper(o)) {
            return ((Number) o).doubleValue();
        }
        if (o instanceof Character) {
            return (Character) o;
        }
        throw mismatch(o, "double", i, p);
    }

    private static boolean isWrapper(Object o) {
        return o instanceof Double || o instanceof Float || o instanceof Long || o instanceof Integer
                || o instanceof Short || o instanceof Byte;
    }
}
