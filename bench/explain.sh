#!/usr/bin/env bash
# Figure of perfls explain (docs/regressions.md, "From alert to cause"): a
# generated history of N commits (default 32) of a small project in which
# every commit edits the measured class (a constant that does not change its
# cost) and commit S (default 21, counted from 0) makes one of p.A#work's two
# callees, scan, three times as costly. Only every K-th commit (default 4)
# and the last are measured (`perfls measure`, as a nightly job would), so
# the stored history has gaps; then `perfls explain --method p.A#work` runs
# with no revisions: it takes the latest change point of the stored results,
# bisects the commits between its two results, compares the first bad commit
# with its parent and profiles both. Printed: the change point, the first bad
# commit found against the injected one, the cause, and the wall time of
# each phase.
#
# Usage: bench/explain.sh [N] [S] [K]   (from the repository root)
# WORK=DIR keeps the project and the cache in DIR.
set -euo pipefail
n=${1:-32}
s=${2:-21}
k=${3:-4}
if [ -n "${WORK:-}" ]; then
  tmp=$WORK
  mkdir -p "$tmp"
else
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
fi
go build -o "$tmp/perfls" ./cmd/perfls
export PERFLS_CACHE_DIR="$tmp/cache"
proj="$tmp/proj"
rm -rf "$proj"
mkdir -p "$proj/src/p"
cd "$proj"
git init -q -b main
git config user.email bench@perfls.invalid
git config user.name bench
printf 'cache/\n' > .gitignore
for i in $(seq 0 $((n - 1))); do
  factor=1 msg="neutral edit $i"
  if [ "$i" -ge "$s" ]; then factor=3; fi
  if [ "$i" -eq "$s" ]; then msg="scan: check every element three times"; fi
  cat > src/p/A.java <<JAVA
package p;
import dev.perfls.*;
public class A {
    static long version() { return $i; }
    @Workload("p.A#gen")
    public static long work(int n) { return mix(n) + scan(n); }
    static long mix(int n) { long s = version(); for (int i = 0; i < n; i++) s += i ^ (s >>> 3); return s; }
    static long scan(int n) { long s = 0; for (int i = 0; i < n * $factor; i++) s += (i * 31L) ^ (s >>> 5); return s; }
    public static Iterable<Object[]> gen() { return java.util.Collections.singletonList(new Object[] {20000}); }
}
JAVA
  git add -A
  git commit -qm "$msg"
done
line=($(git rev-list --reverse HEAD))
start=$(date +%s.%N)
for i in $(seq 0 $((n - 1))); do
  if [ $((i % k)) -ne 0 ] && [ "$i" -ne $((n - 1)) ]; then continue; fi
  git checkout -q "${line[$i]}"
  "$tmp/perfls" measure --method 'p.A#work' --forks 3 --samples 10 --warmup 100ms --max-warmup 1s --format json > /dev/null
done
git checkout -q main
mid=$(date +%s.%N)
set +e
"$tmp/perfls" explain --method 'p.A#work' --forks 3 --samples 10 --warmup 100ms --max-warmup 1s --format json . > "$tmp/explain.json"
code=$?
set -e
end=$(date +%s.%N)
"$tmp/perfls" explain --method 'p.A#work' --forks 3 --samples 10 --warmup 100ms --max-warmup 1s --format markdown . > "$tmp/explain.md" || true
python3 - "$tmp/explain.json" "$code" "$s" "$start" "$mid" "$end" "${line[*]}" <<'PY'
import json, sys
out, code, s, start, mid, end, line = sys.argv[1], sys.argv[2], int(sys.argv[3]), *map(float, sys.argv[4:7]), sys.argv[7].split()
x = json.load(open(out))
pos = {c: i for i, c in enumerate(line)}
c = x.get('change') or {}
print(f"history: {len(line)} commits, slow-down injected at {s}; stored results at every few commits")
if c:
    print(f"alert: {c['metric']} {c['magnitude']*100:+.0f} % at commit {pos.get(c['commit'])} (last result before it: commit {pos.get(c.get('previous'))})")
fb = x.get('first_bad', '')
print(f"explain: exit {code}; first bad commit {pos.get(fb)} (injected {s}): {'right' if pos.get(fb) == s else 'WRONG'}; "
      f"bisect steps {len((x.get('bisect') or {}).get('steps', []))} over {x.get('commits')} commits")
cause = ''
for ch in (x.get('diff') or {}).get('changes', []):
    for f in ((ch.get('profile') or {}).get('findings') or []):
        cause = cause or f"{f['kind']}: {f['message']}"
print(f"cause: {cause or x.get('reason', 'none')}; names scan: {'scan' in cause}")
print(f"measuring the nightly results {mid - start:.0f} s; perfls explain {end - mid:.0f} s (its own figure {x.get('seconds', 0):.0f} s)")
PY
echo "markdown: $tmp/explain.md"
