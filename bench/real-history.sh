#!/usr/bin/env bash
# Figures of perfls on real histories (docs/revisions.md, "A real history"):
# diff against the oldest tag, bisect in both modes, a formula naming a
# tag, regressions, and how many stored results lack a commit.
#
#   bench/real-history.sh fixture        bench/old-history.sh's project (~5 min)
#   bench/real-history.sh jdom DIR       a clone of github.com/hunterhacker/jdom in DIR, with
#                                        bench/jdom's perfls.json and benchmark committed on top
#                                        locally (tags JDOM-2.0.0 … 2.0.6; ~15 min)
#
# Run from the repository root. Each run has a cache of its own; prints the
# commands, their exit statuses, wall times and load averages.
set -euo pipefail
what=${1:?usage: bench/real-history.sh fixture | jdom DIR}
root=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/perfls" ./cmd/perfls
export PERFLS_CACHE_DIR="$tmp/cache" PERFLS_STORE=
flags=(--forks 3 --samples 10)
case $what in
fixture)
  proj="$tmp/codec"
  bench/old-history.sh "$proj" > /dev/null
  oldest=v1.0 release=8 method=p.Codec#encode
  ;;
jdom)
  src=${2:?usage: bench/real-history.sh jdom DIR}
  proj="$tmp/jdom"
  git clone -q "$src" "$proj"
  cp -r bench/jdom/. "$proj"/
  git -C "$proj" add perfls.json bench
  git -C "$proj" -c user.name=perfls -c user.email=t@perfls commit -qm "perfls benchmarks (local)"
  oldest=JDOM-2.0.0 release=7 method=org.jdom2.output.XMLOutputter#outputString
  ;;
*)
  echo "usage: bench/real-history.sh fixture | jdom DIR" >&2
  exit 2
  ;;
esac
cd "$proj"
step() {
  local start end code
  echo "\$ perfls $*   (load $(cut -d' ' -f1-3 /proc/loadavg))"
  start=$(date +%s.%N)
  set +e
  "$tmp/perfls" "$@" > "$tmp/out" 2> "$tmp/err"
  code=$?
  set -e
  end=$(date +%s.%N)
  sed 's/^/  /' "$tmp/out"
  grep -v '^perfls: measuring' "$tmp/err" | sed 's/^/  stderr: /' || true
  printf '  exit %d, %.1f s wall\n\n' "$code" "$(echo "$end - $start" | bc)"
}
step diff --base "$oldest" "${flags[@]}"
step diff --base "$oldest" --release "$release" "${flags[@]}"
step check --release "$release" "${flags[@]}"
step bisect "$oldest" HEAD --release "$release" "${flags[@]}"
step bisect "$oldest" HEAD --method "$method" --release "$release" "${flags[@]}"
step regressions
"$tmp/perfls" regressions --format json | python3 -c '
import json, sys
r = json.load(sys.stdin)
print("stored results placed on the line: %d; left out: %s" % (r["results"], r["left_out"]))'
