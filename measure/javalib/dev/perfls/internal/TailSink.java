package dev.perfls.internal;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/** An output stream that keeps only the last {@code capacity} bytes written to it. */
public final class TailSink extends OutputStream {
    private final byte[] ring;
    private long total;

    public TailSink(int capacity) {
        ring = new byte[capacity];
    }

    @Override
    public synchronized void write(int b) {
        ring[(int) (total % ring.length)] = (byte) b;
        total++;
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) {
        if (len >= ring.length) {
            off += len - ring.length;
            total += len - ring.length;
            len = ring.length;
        }
        while (len > 0) {
            int pos = (int) (total % ring.length);
            int n = Math.min(len, ring.length - pos);
            System.arraycopy(b, off, ring, pos, n);
            off += n;
            len -= n;
            total += n;
        }
    }

    /** Total number of bytes ever written. */
    public synchronized long total() {
        return total;
    }

    /** The bytes kept, decoded as UTF-8, prefixed with a note when older output was dropped. */
    public synchronized String tail(int max) {
        int kept = (int) Math.min(Math.min(total, ring.length), max);
        byte[] out = new byte[kept];
        long start = total - kept;
        for (int i = 0; i < kept; i++) {
            out[i] = ring[(int) ((start + i) % ring.length)];
        }
        String s = new String(out, StandardCharsets.UTF_8);
        if (start > 0) {
            s = "[... " + start + " earlier bytes dropped]\n" + s;
        }
        return s;
    }
}
