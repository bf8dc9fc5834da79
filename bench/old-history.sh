#!/usr/bin/env bash
# A small project with a real history's problems (docs/revisions.md, "A
# real history"): its releases were written before its benchmarks, so the
# old tags have no perfls.json and no generators; the oldest one does not
# compile with javac 9 or later (its Bytes.transferTo clashes with the one
# Java 9 added to InputStream: --release 8 builds it); src/test holds JUnit
# tests whose jar is not there; a source root of today (src/util/java) is
# missing at the old tags. p.Codec#encode becomes quadratic at commit 4
# ("encode: the previous value from the deltas"). The last commit adds perfls.json, the
# generator p.bench.Inputs#ints and the formula
#   SELF[p.bench.Inputs#ints](n) <= 1.2 * p.Codec#encode@v1.0[p.bench.Inputs#ints](n)
# Commits have fixed authors and dates, so their hashes are the same on
# every run.
#
# Usage: bench/old-history.sh DIR   (DIR must not exist; prints the commits)
set -euo pipefail
dir=${1:?usage: bench/old-history.sh DIR}
if [ -e "$dir" ]; then
  echo "old-history.sh: $dir exists" >&2
  exit 2
fi
mkdir -p "$dir"
cd "$dir"
export GIT_AUTHOR_NAME=perfls GIT_AUTHOR_EMAIL=t@perfls GIT_COMMITTER_NAME=perfls GIT_COMMITTER_EMAIL=t@perfls
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_SYSTEM=/dev/null
git init -q -b main
n=0
commit() {
  n=$((n + 1))
  export GIT_AUTHOR_DATE="2014-01-$(printf %02d "$n")T12:00:00Z" GIT_COMMITTER_DATE="2014-01-$(printf %02d "$n")T12:00:00Z"
  git add -A
  git commit -q -m "$1"
}

mkdir -p src/main/java/p src/test/java/p
codec() { # $1: encode's body, $2: annotations on encode, $3: imports
  cat > src/main/java/p/Codec.java <<JAVA
package p;
$3
/** Delta codec for int arrays. */
public final class Codec {
    private Codec() {}

    /** The differences between consecutive values (the first against 0). */
$2    public static int[] encode(int[] values) {
$1
    }

    /** The values whose differences deltas are. */
    public static int[] decode(int[] deltas) {
        int[] out = new int[deltas.length];
        int sum = 0;
        for (int i = 0; i < deltas.length; i++) {
            sum += deltas[i];
            out[i] = sum;
        }
        return out;
    }
}
JAVA
}
linear='        int[] out = new int[values.length];
        int prev = 0;
        for (int i = 0; i < values.length; i++) {
            out[i] = values[i] - prev;
            prev = values[i];
        }
        return out;'
quadratic='        int[] out = new int[values.length];
        for (int i = 0; i < values.length; i++) {
            int prev = 0; // the sum of the deltas so far
            for (int j = 0; j < i; j++) {
                prev += out[j];
            }
            out[i] = values[i] - prev;
        }
        return out;'
bytes() { # $1: transferTo's modifiers
  cat > src/main/java/p/Bytes.java <<JAVA
package p;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/** A stream over bytes. Its transferTo predates the one Java 9 added to InputStream. */
final class Bytes extends InputStream {
    private final byte[] data;
    private int pos;

    Bytes(byte[] data) {
        this.data = data;
    }

    @Override
    public int read() {
        return pos < data.length ? data[pos++] & 0xff : -1;
    }

    $1long transferTo(OutputStream out) throws IOException {
        int n = data.length - pos;
        out.write(data, pos, n);
        pos = data.length;
        return n;
    }
}
JAVA
}
codec "$linear" "" ""
bytes ""
cat > src/test/java/p/CodecTest.java <<'JAVA'
package p;

import static org.junit.Assert.assertArrayEquals;

import org.junit.Test;

public class CodecTest {
    @Test
    public void roundTrip() {
        int[] v = {1, 5, 2, 9};
        assertArrayEquals(v, Codec.decode(Codec.encode(v)));
    }
}
JAVA
echo "# codec" > README.md
commit "codec: delta encoding"
git tag v1.0

sed -i 's/int sum = 0;/int sum = 0; \/\/ running total/' src/main/java/p/Codec.java
commit "decode: comment the running total"

bytes "public "
commit "Bytes: public transferTo, as InputStream's since Java 9"
git tag v1.1

echo "Codec.encode(values) gives the deltas; Codec.decode reverses it." >> README.md
commit "README: usage"

codec "$quadratic" "" ""
commit "encode: the previous value from the deltas"

mkdir -p src/util/java/p
cat > src/util/java/p/Hex.java <<'JAVA'
package p;

/** Hex digits of ints. */
public final class Hex {
    private Hex() {}

    public static String of(int v) {
        return Integer.toHexString(v);
    }
}
JAVA
commit "Hex helper in its own source root"

mkdir -p src/bench/java/p/bench
cat > src/bench/java/p/bench/Inputs.java <<'JAVA'
package p.bench;

import dev.perfls.*;

/** Workloads written after the releases they measure. */
public final class Inputs {
    private Inputs() {}

    @Generator("n ascending ints")
    public static Iterable<Object[]> ints(@Param(value = "n", min = 2000) int n) {
        int[] v = new int[n];
        for (int i = 0; i < n; i++) {
            v[i] = 3 * i;
        }
        return java.util.Collections.singletonList(new Object[] {v});
    }
}
JAVA
cat > perfls.json <<'JSON'
{"sourceRoots": ["src/main/java", "src/util/java", "src/bench/java"]}
JSON
codec "$quadratic" '    @Workload("p.bench.Inputs#ints")
    @SPL("for n in {2000} SELF[p.bench.Inputs#ints](n) <= 1.2 * p.Codec#encode@v1.0[p.bench.Inputs#ints](n)")
' "
import dev.perfls.*;
"
commit "benchmarks and perfls.json"
git log --reverse --format='%H %s' --decorate=short
