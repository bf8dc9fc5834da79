#!/usr/bin/env bash
# Figure of perfls regressions on real measurements (docs/regressions.md): a
# generated history of N commits (default 20) of a small project where every
# commit edits the measured class (a constant that does not change its cost)
# and two commits inject slow-downs of p.A#work: +30 % at commit S1 (default
# 7) and +100 % at commit S2 (default 14), counted from 0. Each commit is
# measured out of process with `perfls measure` (3 forks, short warm-up) in
# a clean checkout, so every result carries its commit; then `perfls
# regressions --format json` runs over the store and the change points of the
# time series are scored against the injected ones (a match within ±1
# commit): precision, recall and F1, with the wall time of both phases.
#
# Usage: bench/regressions.sh [N] [S1] [S2]   (from the repository root)
# WORK=DIR keeps the project and the cache in DIR; when DIR/proj exists the
# history is not measured again, only analysed. ENV_FROM=K measures commits
# K and later with another JVM configuration (C1 only: -XX:TieredStopAtLevel=1),
# another machine class: with S1 = S2 = N (no injected slow-down) every
# change point is a false alarm, and the step between the classes must be
# reported as "environment differs".
set -euo pipefail
n=${1:-20}
s1=${2:-7}
s2=${3:-14}
root=$(pwd)
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
start=$(date +%s.%N)
if [ ! -d "$proj" ]; then
  mkdir -p "$proj/src/p"
  cd "$proj"
  git init -q -b main
  git config user.email bench@perfls.invalid
  git config user.name bench
  printf 'cache/\n' > .gitignore
  for i in $(seq 0 $((n - 1))); do
    factor=10 msg="neutral edit $i"
    if [ "$i" -ge "$s1" ]; then factor=13; fi
    if [ "$i" -ge "$s2" ]; then factor=26; fi
    if [ "$i" -eq "$s1" ]; then msg="slow-down +30 % at $i"; fi
    if [ "$i" -eq "$s2" ]; then msg="slow-down +100 % at $i"; fi
    cat > src/p/A.java <<JAVA
package p;
import dev.perfls.*;
public class A {
    static long version() { return $i; }
    @Workload("p.A#gen(int)")
    public static long work(int n) { long s = version(); for (int i = 0; i < n * $factor / 10; i++) s += i ^ (s >>> 3); return s; }
    public static Iterable<Object[]> gen(int n) { return java.util.Collections.singletonList(new Object[] {n}); }
}
JAVA
    git add -A
    git commit -qm "$msg"
  done
  i=0
  for c in $(git rev-list --reverse HEAD); do
    git checkout -q "$c"
    jvm=()
    if [ -n "${ENV_FROM:-}" ] && [ "$i" -ge "$ENV_FROM" ]; then jvm=(--jvm-arg=-XX:TieredStopAtLevel=1); fi
    "$tmp/perfls" measure --method 'p.A#work' --workload 'p.A#gen' --args 100000 "${jvm[@]}" \
      --forks 3 --samples 10 --warmup 100ms --max-warmup 500ms --format json > /dev/null
    i=$((i + 1))
  done
  git checkout -q main
fi
mid=$(date +%s.%N)
cd "$proj"
set +e
"$tmp/perfls" regressions --format json . > "$tmp/regressions.json"
code=$?
set -e
end=$(date +%s.%N)
python3 - "$tmp/regressions.json" "$code" "$s1" "$s2" "$start" "$mid" "$end" "$(git rev-list --reverse HEAD | tr '\n' ' ')" <<'PY'
import json, sys
out, code, s1, s2, start, mid, end, line = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), *map(float, sys.argv[5:8]), sys.argv[8].split()
r = json.load(open(out))
pos = {c: i for i, c in enumerate(line)}
truth = [t for t in (s1, s2) if t < len(line)]
found = sorted(pos[c['commit']] for c in r['changes'] if c['metric'] == 'time' and c['method'].startswith('p.A#work'))
matched = sum(1 for f in found if any(abs(f - t) <= 1 for t in truth))
hit = sum(1 for t in truth if any(abs(f - t) <= 1 for f in found))
p = matched / len(found) if found else 1.0
rc = hit / len(truth) if truth else 1.0
f1 = 2 * p * rc / (p + rc) if p + rc else 0.0
print(f"perfls regressions over {len(line)} commits: exit {code}, {r['results']} results in {r['series']} series")
print(f"time per op: injected at {truth}, detected at {found}: precision {p:.2f}, recall {rc:.2f}, F1 {f1:.2f} (match ±1 commit)")
for c in r['changes']:
    print(f"  {c['metric']:5} {pos[c['commit']]:2} {c['commit'][:10]} {c['subject']!r:28} {c['magnitude']*100:+7.1f} %  p={c['p_value']:.1e}")
for e in r['environment_differs']:
    print(f"  environment differs: {e['metric']:5} {pos[e['commit']]:2} {e['magnitude']*100:+7.1f} %  p={e['p_value']:.1e}  {e['jvm']} vs {e['other_jvm']}")
print(f"measuring {mid - start:.0f} s, perfls regressions {end - mid:.2f} s")
PY
