#!/usr/bin/env bash
# Figure of perfls bisect in formula mode (docs/revisions.md): a generated
# history of N commits (default 32) where every commit changes the measured
# class and commit K (default 20) makes p.A#work 100x slower, so that the
# formula "SELF[gen](3000) <= p.A#ref[gen](3000)" holds before K and is
# violated from K on. Prints the first bad commit found, the steps and the
# wall time. Usage: bench/bisect-formula.sh [N] [K]   (from the repository root)
set -euo pipefail
n=${1:-32}
k=${2:-20}
root=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/perfls" ./cmd/perfls
export PERFLS_CACHE_DIR="$tmp/cache"
proj="$tmp/proj"
mkdir -p "$proj/src/p"
cd "$proj"
git init -q -b main
git config user.email bench@perfls.invalid
git config user.name bench
for i in $(seq 0 $((n - 1))); do
  factor=1
  if [ "$i" -ge "$k" ]; then factor=100; fi
  cat > src/p/A.java <<JAVA
package p;
import dev.perfls.*;
public class A {
    static long version() { return $i; }
    @SPL("SELF[gen](3000) <= p.A#ref[gen](3000)")
    public static long work(int n) { long s = version(); for (int i = 0; i < n * $factor; i++) s += i ^ (s >>> 3); return s; }
    public static long ref(int n) { long s = 0; for (int i = 0; i < n * 10; i++) s += i ^ (s >>> 3); return s; }
    public static Iterable<Object[]> gen(int n) { return java.util.Collections.singletonList(new Object[] {n}); }
}
JAVA
  git add -A
  git commit -qm "commit $i"
done
good=$(git rev-list --reverse HEAD | head -1)
want=$(git rev-list --reverse HEAD | sed -n "$((k + 1))p")
start=$(date +%s.%N)
set +e
"$tmp/perfls" bisect "$good" HEAD --forks 3 --samples 10 --warmup 100ms --max-warmup 500ms --format json . > "$tmp/out.json"
code=$?
set -e
end=$(date +%s.%N)
python3 - "$tmp/out.json" "$want" "$code" "$start" "$end" <<'PY'
import json, sys
out, want, code, start, end = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), float(sys.argv[5])
b = json.load(open(out))
print(f"perfls bisect (formula mode) over {b['commits']} commits: exit {code}, mode {b['mode']}")
print(f"first bad {b['first_bad'][:12]} (want {want[:12]}): {'right' if b['first_bad'] == want else 'WRONG'}")
print(f"followed: {b.get('formulas')}")
print(f"{len(b['steps'])} commits judged, {b['measured']} measured (GOOD included), {end - start:.1f} s wall")
for s in b['steps']:
    print(f"  {s['verdict']:4} {s['commit'][:12]} {s.get('reason', '')}")
PY
