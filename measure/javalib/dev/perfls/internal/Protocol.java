package dev.perfls.internal;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Writes the perfls line protocol (version 4: sample lines carry GC time, heap used, JIT time, loaded classes,
 * process CPU time and the processor; a thread line names the measuring thread) to the process's original standard output. Every
 * line is {@code perfls-<kind> <fields>}; free text fields are escaped with {@link #escape}.
 * User code never writes here: the harness redirects System.out and System.err elsewhere.
 */
public final class Protocol {
    public static final int VERSION = 4;

    private final OutputStream out;
    private boolean broken;

    Protocol(OutputStream out) {
        this.out = out;
    }

    /** A writer on file descriptor 1, independent of System.out. */
    public static Protocol stdout() {
        return new Protocol(new FileOutputStream(FileDescriptor.out));
    }

    /** Writes one line; fields are joined by single spaces and must already be escaped. */
    public synchronized void line(String kind, String... fields) {
        if (broken) {
            return;
        }
        StringBuilder sb = new StringBuilder(64);
        sb.append("perfls-").append(kind);
        for (String f : fields) {
            sb.append(' ').append(f);
        }
        sb.append('\n');
        try {
            out.write(sb.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
        } catch (IOException e) {
            broken = true; // the parent is gone; nothing useful is left to do
        }
    }

    /**
     * Escapes text so that it fits in one protocol field: backslash, space, newline, carriage
     * return, tab and other control characters become {@code \\}, {@code \s}, {@code \n},
     * {@code \r}, {@code \t} and {@code \xHH}. The empty string is written as {@code \e}.
     */
    public static String escape(String s) {
        if (s == null || s.isEmpty()) {
            return "\\e";
        }
        StringBuilder sb = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '\\':
                    sb.append("\\\\");
                    break;
                case ' ':
                    sb.append("\\s");
                    break;
                case '\n':
                    sb.append("\\n");
                    break;
                case '\r':
                    sb.append("\\r");
                    break;
                case '\t':
                    sb.append("\\t");
                    break;
                default:
                    if (c < 0x20 || c == 0x7f) {
                        sb.append("\\x").append(Character.forDigit(c >> 4, 16)).append(Character.forDigit(c & 15, 16));
                    } else {
                        sb.append(c);
                    }
            }
        }
        return sb.toString();
    }
}
