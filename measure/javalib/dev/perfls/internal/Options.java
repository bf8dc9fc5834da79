package dev.perfls.internal;

/** Harness options, passed as {@code key=value} program arguments. */
final class Options {
    long warmupNs = 300_000_000L;
    int samples = 30;
    long minSampleNs = 1_000_000L;
    int minWarmup = 5;
    long maxWarmupNs = 5_000_000_000L;
    long quietNs = 100_000_000L;

    static Options parse(String[] args) {
        Options o = new Options();
        for (String a : args) {
            int eq = a.indexOf('=');
            if (eq < 0) {
                throw new IllegalArgumentException("bad harness argument " + a);
            }
            String k = a.substring(0, eq);
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
                case "minwarmup":
                    o.minWarmup = (int) Math.max(1, Math.min(v, 1000));
                    break;
                default:
                    // unknown options are ignored so that newer perfls versions can add some
            }
        }
        return o;
    }
}
