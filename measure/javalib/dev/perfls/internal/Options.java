package dev.perfls.internal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * Harness options, passed as {@code key=value} program arguments. The request's own arguments
 * (generator, workload-loop or method arguments) come as {@code arg.<i>=i:<decimal>} or
 * {@code arg.<i>=s:<base64 of UTF-8>}, so that the generated harness does not depend on their
 * values and any string survives the command line.
 */
final class Options {
    long warmupNs = 300_000_000L;
    int samples = 30;
    long minSampleNs = 1_000_000L;
    int minWarmup = 5;
    long maxWarmupNs = 5_000_000_000L;
    long quietNs = 100_000_000L;
    /** Standard input is perfls's watch pipe (see ParentWatch). */
    boolean parentPipe;
    /** The fork ends itself after this long, 0 = never. */
    long deadlineNs;
    /**
     * A profiled fork (the JVM records with perfls's settings): every sample is marked as an
     * iteration of the recording, none is retaken, and the recording is reduced to its summary
     * after the last one (see ProfileMarks).
     */
    boolean profile;
    /**
     * A counting fork (the project's classes call {@link Counts#$perflsHit}): the counters are read
     * around every measured span, no sample is retaken, and the counts are reported after the last.
     */
    boolean count;
    /**
     * With {@link #profile}: rounds of the ramp test's paired control after the recorded samples
     * (see {@link RampControl}); 0 runs none.
     */
    int rampRounds;
    /** The request's arguments in order: a Long or a String each. */
    Object[] args = new Object[0];

    static Options parse(String[] args) {
        Options o = new Options();
        List<Object> runArgs = new ArrayList<>();
        for (String a : args) {
            int eq = a.indexOf('=');
            if (eq < 0) {
                throw new IllegalArgumentException("bad harness argument " + a);
            }
            String k = a.substring(0, eq);
            if (k.startsWith("arg.")) {
                int i = Integer.parseInt(k.substring(4));
                if (i < 0 || i > 255) {
                    throw new IllegalArgumentException("bad harness argument " + a);
                }
                while (runArgs.size() <= i) {
                    runArgs.add(null);
                }
                runArgs.set(i, decodeArg(a.substring(eq + 1)));
                continue;
            }
            long v = Long.parseLong(a.substring(eq + 1));
            switch (k) {
                case "warmup":
                    o.warmupNs = v;
                    break;
                case "samples":
                    o.samples = (int) Math.max(1, Math.min(v, Integer.MAX_VALUE));
                    break;
                case "minsample":
                    o.minSampleNs = Math.max(0, v);
                    break;
                case "maxwarmup":
                    o.maxWarmupNs = Math.max(0, v);
                    break;
                case "quiet":
                    o.quietNs = Math.max(0, v);
                    break;
                case "parentpipe":
                    o.parentPipe = v != 0;
                    break;
                case "profile":
                    o.profile = v != 0;
                    break;
                case "count":
                    o.count = v != 0;
                    break;
                case "ramp":
                    o.rampRounds = (int) Math.max(0, Math.min(v, 1000));
                    break;
                case "deadline":
                    o.deadlineNs = Math.max(0, v);
                    break;
                case "minwarmup":
                    o.minWarmup = (int) Math.max(1, Math.min(v, 1000));
                    break;
                default:
                    // unknown options are ignored so that newer perfls versions can add some
            }
        }
        o.args = runArgs.toArray();
        return o;
    }

    /** Decodes one request argument: "i:-12" is a Long, "s:YQ==" the String "a". */
    static Object decodeArg(String v) {
        if (v.startsWith("i:")) {
            return Long.valueOf(v.substring(2));
        }
        if (v.startsWith("s:")) {
            return new String(Base64.getDecoder().decode(v.substring(2)), StandardCharsets.UTF_8);
        }
        throw new IllegalArgumentException("bad request argument " + v);
    }
}
