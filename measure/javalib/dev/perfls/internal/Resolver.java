package dev.perfls.internal;

import java.io.IOException;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Resolves method specifications by reflection without initialising any class.
 *
 * <p>Input file, one spec per line: {@code id TAB class TAB method TAB params}, where params is
 * {@code *} when not specified, else comma-separated erased type names (empty for none).
 * Output on stdout, one line per spec: {@code perfls-resolved id TAB class TAB method TAB
 * static(0|1) TAB params TAB return TAB declaringClass} or {@code perfls-unresolved id TAB message}
 * (the message escaped as in {@link Protocol#escape}).
 */
public final class Resolver {
    private Resolver() {
    }

    public static void main(String[] args) throws IOException {
        Protocol out = Protocol.stdout();
        ClassLoader loader = Resolver.class.getClassLoader();
        for (String line : Files.readAllLines(Paths.get(args[0]), StandardCharsets.UTF_8)) {
            if (line.isEmpty()) {
                continue;
            }
            String[] f = line.split("\t", -1);
            String id = f[0];
            try {
                List<String> params = f[3].equals("*") ? null : split(f[3]);
                out.line("resolved", id + "\t" + resolve(loader, f[1], f[2], params));
            } catch (Exception | LinkageError e) {
                String msg = e instanceof ResolveException ? e.getMessage() : e.toString();
                out.line("unresolved", id + "\t" + Protocol.escape(msg));
            }
        }
        out.line("end");
    }

    private static List<String> split(String s) {
        List<String> l = new ArrayList<>();
        if (s.isEmpty()) {
            return l;
        }
        for (String p : s.split(",", -1)) {
            l.add(p.trim());
        }
        return l;
    }

    static final class ResolveException extends Exception {
        private static final long serialVersionUID = 1L;

        ResolveException(String msg) {
            super(msg);
        }
    }

    /** Finds a class by source or binary name; nested classes may use '.' or '$'. */
    static Class<?> findClass(ClassLoader loader, String name) throws ResolveException {
        String n = name;
        while (true) {
            try {
                return Class.forName(n, false, loader);
            } catch (ClassNotFoundException e) {
                // try the next nesting interpretation
            }
            int dot = n.lastIndexOf('.');
            if (dot < 0) {
                break;
            }
            n = n.substring(0, dot) + '$' + n.substring(dot + 1);
        }
        if (name.indexOf('.') < 0 && name.indexOf('$') < 0) {
            try {
                return Class.forName("java.lang." + name, false, loader);
            } catch (ClassNotFoundException e) {
                // not a java.lang class either
            }
        }
        throw new ResolveException("class " + name + " not found on the classpath");
    }

    private static String resolve(ClassLoader loader, String className, String name, List<String> params)
            throws ResolveException {
        Class<?> cls = findClass(loader, className);
        Map<String, Method> byParams = new LinkedHashMap<>();
        List<Method> privates = new ArrayList<>();
        for (Class<?> k = cls; k != null; k = k.getSuperclass()) {
            for (Method m : k.getDeclaredMethods()) {
                if (!m.getName().equals(name) || m.isSynthetic() || m.isBridge()) {
                    continue;
                }
                if (Modifier.isPrivate(m.getModifiers())) {
                    if (k == cls) {
                        privates.add(m);
                    }
                    continue;
                }
                byParams.putIfAbsent(sig(m), m);
            }
        }
        for (Method m : cls.getMethods()) {
            if (m.getName().equals(name) && !m.isSynthetic() && !m.isBridge()) {
                byParams.putIfAbsent(sig(m), m);
            }
        }
        String what = cls.getName() + "#" + name;
        List<Method> matches = new ArrayList<>();
        for (Method m : byParams.values()) {
            if (params == null || matches(m, params)) {
                matches.add(m);
            }
        }
        if (matches.size() == 1) {
            return describe(cls, matches.get(0));
        }
        if (matches.isEmpty()) {
            List<Method> priv = new ArrayList<>();
            for (Method m : privates) {
                if (params == null || matches(m, params)) {
                    priv.add(m);
                }
            }
            if (!priv.isEmpty()) {
                throw new ResolveException(cls.getName() + "#" + name + sig(priv.get(0))
                        + " is private; perfls calls measured methods directly, so make it at least package-private");
            }
            if (byParams.isEmpty()) {
                throw new ResolveException("no method " + name + " in " + cls.getName());
            }
            throw new ResolveException("no method " + what + "(" + String.join(",", params) + "); "
                    + candidates(byParams.values()));
        }
        TreeSet<String> sigs = new TreeSet<>();
        for (Method m : matches) {
            sigs.add(sig(m));
        }
        throw new ResolveException(what + " is ambiguous: " + candidates(matches)
                + "; write the parameter types, e.g. " + what + sigs.first());
    }

    private static String candidates(Iterable<Method> ms) {
        TreeSet<String> s = new TreeSet<>();
        for (Method m : ms) {
            s.add(m.getName() + sig(m));
        }
        return "candidates are " + String.join(", ", s);
    }

    private static String sig(Method m) {
        StringBuilder sb = new StringBuilder("(");
        Class<?>[] ps = m.getParameterTypes();
        for (int i = 0; i < ps.length; i++) {
            if (i > 0) {
                sb.append(',');
            }
            sb.append(sourceName(ps[i]));
        }
        return sb.append(')').toString();
    }

    static String sourceName(Class<?> c) {
        String n = c.getCanonicalName();
        return n != null ? n : c.getName();
    }

    private static boolean matches(Method m, List<String> params) {
        Class<?>[] ps = m.getParameterTypes();
        Type[] gs = m.getGenericParameterTypes();
        if (ps.length != params.size()) {
            return false;
        }
        for (int i = 0; i < ps.length; i++) {
            Type g = gs.length == ps.length ? gs[i] : ps[i];
            if (!typeMatches(ps[i], g, params.get(i))) {
                return false;
            }
        }
        return true;
    }

    /** Whether a written (erased) type name denotes the parameter type. */
    static boolean typeMatches(Class<?> c, Type g, String written) {
        String w = written.replace('$', '.').replace(" ", "");
        int dims = 0;
        while (w.endsWith("[]")) {
            w = w.substring(0, w.length() - 2);
            dims++;
        }
        Class<?> base = c;
        int cdims = 0;
        while (base.isArray()) {
            base = base.getComponentType();
            cdims++;
        }
        if (dims != cdims) {
            return false;
        }
        Type gbase = g;
        while (gbase instanceof GenericArrayType) {
            gbase = ((GenericArrayType) gbase).getGenericComponentType();
        }
        if (gbase instanceof TypeVariable && ((TypeVariable<?>) gbase).getName().equals(w)) {
            return true;
        }
        String n = sourceName(base).replace('$', '.');
        return n.equals(w) || n.endsWith("." + w);
    }

    private static String describe(Class<?> cls, Method m) {
        StringBuilder ps = new StringBuilder();
        for (Class<?> p : m.getParameterTypes()) {
            if (ps.length() > 0) {
                ps.append(',');
            }
            ps.append(sourceName(p));
        }
        return cls.getName() + "\t" + m.getName() + "\t" + (Modifier.isStatic(m.getModifiers()) ? "1" : "0") + "\t"
                + ps + "\t" + sourceName(m.getReturnType()) + "\t" + m.getDeclaringClass().getName();
    }
}
