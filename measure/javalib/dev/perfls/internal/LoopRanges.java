package dev.perfls.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.HashMap;
import java.util.Map;

/**
 * Finds the loops of a method in its class file: every backward branch (javac compiles each
 * {@code for}, {@code while} and {@code do} loop to one) closes a loop that covers the bytecode
 * from the branch target to the branch. A profile uses this to tell a call made once per
 * operation from one made inside a loop, which a sampled call tree alone cannot do.
 *
 * <p>Only the class file format is read (constant pool, methods, Code attributes); nothing is
 * loaded or initialised. A class whose bytes cannot be found (a hidden class, a class from a
 * loader that does not expose its resources) or cannot be parsed has no answer.
 */
final class LoopRanges {
    /** Per class (binary name): per method "name descriptor": flattened [from, to] bci pairs. */
    private final Map<String, Map<String, int[]>> classes = new HashMap<>();
    private final ClassLoader[] loaders;

    LoopRanges(ClassLoader... loaders) {
        this.loaders = loaders;
    }

    /**
     * Whether bytecode index {@code bci} of the method lies inside a loop: 1 yes, 0 no, -1
     * unknown (no class bytes, no such method, no bci).
     */
    int inLoop(String className, String name, String descriptor, int bci) {
        if (bci < 0) {
            return -1;
        }
        Map<String, int[]> methods = classes.get(className);
        if (methods == null) {
            methods = read(className);
            classes.put(className, methods);
        }
        int[] ranges = methods.get(name + " " + descriptor);
        if (ranges == null) {
            return -1;
        }
        for (int i = 0; i < ranges.length; i += 2) {
            if (ranges[i] <= bci && bci <= ranges[i + 1]) {
                return 1;
            }
        }
        return 0;
    }

    private Map<String, int[]> read(String className) {
        // Hidden and VM-anonymous classes ("C$$Lambda$14/0x…", "C$$Lambda+0x…") have no class file.
        if (className.indexOf('/') >= 0 || className.contains("+0x")) {
            return new HashMap<>();
        }
        String resource = className.replace('.', '/') + ".class";
        for (ClassLoader l : loaders) {
            byte[] bytes = bytes(l, resource);
            if (bytes != null) {
                try {
                    return parse(bytes);
                } catch (RuntimeException e) {
                    return new HashMap<>(); // not a class file this parser understands
                }
            }
        }
        return new HashMap<>();
    }

    private static byte[] bytes(ClassLoader l, String resource) {
        try (InputStream in = l == null ? ClassLoader.getSystemResourceAsStream(resource) : l.getResourceAsStream(resource)) {
            if (in == null) {
                return null;
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream(8192);
            byte[] buf = new byte[8192];
            for (int n; (n = in.read(buf)) > 0; ) {
                out.write(buf, 0, n);
            }
            return out.toByteArray();
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** Parses a class file into per-method loop ranges. Throws on malformed input. */
    static Map<String, int[]> parse(byte[] b) {
        Reader r = new Reader(b);
        if (r.u4() != 0xCAFEBABE) {
            throw new IllegalArgumentException("not a class file");
        }
        r.skip(4); // minor, major version
        int cpCount = r.u2();
        String[] utf8 = new String[cpCount];
        for (int i = 1; i < cpCount; i++) {
            int tag = r.u1();
            switch (tag) {
                case 1:
                    int len = r.u2();
                    utf8[i] = modifiedUtf8(b, r.pos, len);
                    r.skip(len);
                    break;
                case 3: case 4:
                    r.skip(4);
                    break;
                case 5: case 6:
                    r.skip(8);
                    i++; // takes two entries
                    break;
                case 7: case 8: case 16: case 19: case 20:
                    r.skip(2);
                    break;
                case 9: case 10: case 11: case 12: case 17: case 18:
                    r.skip(4);
                    break;
                case 15:
                    r.skip(3);
                    break;
                default:
                    throw new IllegalArgumentException("constant pool tag " + tag);
            }
        }
        r.skip(6); // access, this, super
        r.skip(2 * r.u2()); // interfaces
        int fields = r.u2();
        for (int i = 0; i < fields; i++) {
            r.skip(6);
            skipAttributes(r);
        }
        Map<String, int[]> out = new HashMap<>();
        int methods = r.u2();
        for (int i = 0; i < methods; i++) {
            r.skip(2);
            String name = utf8[r.u2()];
            String desc = utf8[r.u2()];
            int attrs = r.u2();
            for (int a = 0; a < attrs; a++) {
                String an = utf8[r.u2()];
                int len = r.u4();
                int end = r.pos + len;
                if ("Code".equals(an)) {
                    r.skip(4); // max stack, max locals
                    int codeLen = r.u4();
                    out.put(name + " " + desc, loops(b, r.pos, codeLen));
                }
                r.pos = end;
            }
        }
        return out;
    }

    private static void skipAttributes(Reader r) {
        int n = r.u2();
        for (int i = 0; i < n; i++) {
            r.skip(2);
            r.skip(r.u4());
        }
    }

    /** The [target, branch] bci ranges of the backward branches in code[start, start+len). */
    static int[] loops(byte[] code, int start, int len) {
        int[] ranges = new int[8];
        int n = 0;
        int pc = 0;
        while (pc < len) {
            int op = code[start + pc] & 0xff;
            int target = Integer.MAX_VALUE;
            int size;
            if ((op >= 0x99 && op <= 0xa8) || op == 0xc6 || op == 0xc7) { // if*, goto, jsr, ifnull, ifnonnull
                target = pc + (short) (((code[start + pc + 1] & 0xff) << 8) | (code[start + pc + 2] & 0xff));
                size = 3;
            } else if (op == 0xc8 || op == 0xc9) { // goto_w, jsr_w
                target = pc + s4(code, start + pc + 1);
                size = 5;
            } else if (op == 0xaa) { // tableswitch
                int p = (pc + 4) & ~3;
                int low = s4(code, start + p + 4);
                int high = s4(code, start + p + 8);
                size = p - pc + 12 + 4 * (high - low + 1);
            } else if (op == 0xab) { // lookupswitch
                int p = (pc + 4) & ~3;
                int pairs = s4(code, start + p + 4);
                size = p - pc + 8 + 8 * pairs;
            } else if (op == 0xc4) { // wide
                size = (code[start + pc + 1] & 0xff) == 0x84 ? 6 : 4;
            } else {
                size = LENGTH[op];
            }
            if (target <= pc && target >= 0) {
                if (n == ranges.length) {
                    int[] grown = new int[2 * n];
                    System.arraycopy(ranges, 0, grown, 0, n);
                    ranges = grown;
                }
                ranges[n++] = target;
                ranges[n++] = pc;
            }
            if (size <= 0) {
                throw new IllegalArgumentException("bad instruction length at " + pc);
            }
            pc += size;
        }
        int[] out = new int[n];
        System.arraycopy(ranges, 0, out, 0, n);
        return out;
    }

    private static int s4(byte[] b, int p) {
        return ((b[p] & 0xff) << 24) | ((b[p + 1] & 0xff) << 16) | ((b[p + 2] & 0xff) << 8) | (b[p + 3] & 0xff);
    }

    /** Instruction lengths of the fixed-size opcodes (branches and switches are handled apart). */
    private static final int[] LENGTH = new int[256];

    static {
        java.util.Arrays.fill(LENGTH, 1);
        LENGTH[0x10] = 2; // bipush
        LENGTH[0x11] = 3; // sipush
        LENGTH[0x12] = 2; // ldc
        LENGTH[0x13] = 3; // ldc_w
        LENGTH[0x14] = 3; // ldc2_w
        for (int op = 0x15; op <= 0x19; op++) {
            LENGTH[op] = 2; // xload index
        }
        for (int op = 0x36; op <= 0x3a; op++) {
            LENGTH[op] = 2; // xstore index
        }
        LENGTH[0x84] = 3; // iinc
        LENGTH[0xa9] = 2; // ret
        for (int op = 0xb2; op <= 0xb8; op++) {
            LENGTH[op] = 3; // field access, invokevirtual/special/static
        }
        LENGTH[0xb9] = 5; // invokeinterface
        LENGTH[0xba] = 5; // invokedynamic
        LENGTH[0xbb] = 3; // new
        LENGTH[0xbc] = 2; // newarray
        LENGTH[0xbd] = 3; // anewarray
        LENGTH[0xc0] = 3; // checkcast
        LENGTH[0xc1] = 3; // instanceof
        LENGTH[0xc5] = 4; // multianewarray
    }

    /** Decodes a CONSTANT_Utf8 (modified UTF-8); names used here are ASCII in practice. */
    private static String modifiedUtf8(byte[] b, int off, int len) {
        StringBuilder sb = new StringBuilder(len);
        int end = off + len;
        for (int i = off; i < end; ) {
            int c = b[i] & 0xff;
            if (c < 0x80) {
                sb.append((char) c);
                i++;
            } else if ((c & 0xe0) == 0xc0 && i + 1 < end) {
                sb.append((char) (((c & 0x1f) << 6) | (b[i + 1] & 0x3f)));
                i += 2;
            } else if (i + 2 < end) {
                sb.append((char) (((c & 0x0f) << 12) | ((b[i + 1] & 0x3f) << 6) | (b[i + 2] & 0x3f)));
                i += 3;
            } else {
                throw new IllegalArgumentException("bad UTF-8 in constant pool");
            }
        }
        return sb.toString();
    }

    private static final class Reader {
        final byte[] b;
        int pos;

        Reader(byte[] b) {
            this.b = b;
        }

        int u1() {
            return b[pos++] & 0xff;
        }

        int u2() {
            int v = ((b[pos] & 0xff) << 8) | (b[pos + 1] & 0xff);
            pos += 2;
            return v;
        }

        int u4() {
            int v = s4(b, pos);
            pos += 4;
            return v;
        }

        void skip(int n) {
            if (n < 0 || pos + n > b.length) {
                throw new IllegalArgumentException("truncated class file");
            }
            pos += n;
        }
    }
}
