#!/usr/bin/env bash
# Builds perfls's release archives, reproducibly, from a committed tree:
#
#   scripts/release.sh [--targets "OS/ARCH ..."] [--out DIR] [--ref REF] [--verify] VERSION
#   scripts/release.sh --sums [--out DIR] VERSION
#
# VERSION is a semantic version with a leading v (v0.2.0). The tree built is
# REF (default: the tag VERSION when it exists, else HEAD), exported with
# `git archive`: uncommitted changes never reach a release. Each target's
# binary is built with cgo (tree-sitter is C) by
#
#   go build -trimpath -buildvcs=false \
#     -ldflags "-s -w -buildid= -X …/internal/version.release=VERSION -X …/internal/version.commit=COMMIT"
#
# (on Linux also static: -tags netgo,osusergo, -extldflags -static)
# and packed as DIR/perfls_VERSION_OS_ARCH.tar.gz (the binary, README.md, and
# LICENSE when the tree has one), every entry dated SOURCE_DATE_EPOCH (default:
# the commit's time). DIR/SHA256SUMS lists every archive of VERSION in DIR;
# --sums only rewrites it (after copying in archives built on another host).
# --verify builds everything a second time from another export with an empty
# Go build cache and fails unless the checksums are the same.
#
# Targets and their C compilers (override with CC_OS_ARCH, e.g. CC_linux_arm64):
#   the host's own OS/ARCH   the default C compiler (gcc on Linux, clang on macOS)
#   linux/arm64              aarch64-linux-gnu-gcc   (Debian: gcc-aarch64-linux-gnu)
#   linux/amd64              x86_64-linux-gnu-gcc    (Debian: gcc-x86-64-linux-gnu)
#   darwin/arm64             macOS's SDK: run this script on a Mac (or set
#                            CC_darwin_arm64 to a cross compiler such as osxcross's)
# Default targets: linux/amd64 linux/arm64 on Linux, darwin/arm64 on macOS.
#
# The same commit, VERSION, SOURCE_DATE_EPOCH, Go toolchain (RELEASE_GO,
# pinned below through GOTOOLCHAIN) and C compilers give the same bytes.
set -euo pipefail

RELEASE_GO=${RELEASE_GO:-go1.26.8}
MODULE=github.com/perfls/perfls

die() { printf 'release.sh: %s\n' "$*" >&2; exit 2; }
note() { printf 'release.sh: %s\n' "$*" >&2; }

root=$(git -C "$(dirname "$0")" rev-parse --show-toplevel) || die "not inside perfls's git repository"
targets="" out="" ref="" verify=0 sums_only=0 version=""
while [ $# -gt 0 ]; do
  case "$1" in
    --targets) [ $# -ge 2 ] || die "--targets needs a list, e.g. \"linux/amd64 linux/arm64\""; targets=$2; shift 2 ;;
    --out) [ $# -ge 2 ] || die "--out needs a directory"; out=$2; shift 2 ;;
    --ref) [ $# -ge 2 ] || die "--ref needs a commit, tag or branch"; ref=$2; shift 2 ;;
    --verify) verify=1; shift ;;
    --sums) sums_only=1; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown flag $1 (see --help)" ;;
    *) [ -z "$version" ] || die "two versions given: $version and $1"; version=$1; shift ;;
  esac
done
[ -n "$version" ] || die "give the version, e.g. scripts/release.sh v0.2.0 (see --help)"
[[ "$version" =~ ^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]] || die "version $version is not a semantic version with a leading v, e.g. v0.2.0 or v0.2.0-rc.1"
out=${out:-$root/dist}
mkdir -p "$out"
out=$(cd "$out" && pwd)
name_version=${version#v}

export GOTOOLCHAIN=$RELEASE_GO GOFLAGS=-mod=readonly
tmpdirs=()
trap 'rm -rf ${tmpdirs[@]+"${tmpdirs[@]}"}' EXIT

write_sums() {
  local archives=()
  for a in "$out"/perfls_"${name_version}"_*.tar.gz; do [ -e "$a" ] && archives+=("$a"); done
  [ ${#archives[@]} -gt 0 ] || die "no archives of $version in $out"
  # The packer runs for the host, whatever target was built last.
  (cd "$root" && env -u GOOS -u GOARCH -u CC CGO_ENABLED=0 go run ./scripts/pack sums -o "$out/SHA256SUMS" "${archives[@]}")
  note "wrote $out/SHA256SUMS:"
  cat "$out/SHA256SUMS"
}
if [ "$sums_only" = 1 ]; then
  write_sums
  exit 0
fi

if [ -z "$ref" ]; then
  if git -C "$root" rev-parse -q --verify "refs/tags/$version" >/dev/null; then
    ref=$version
  else
    ref=HEAD
    note "no tag $version: building HEAD"
  fi
fi
commit=$(git -C "$root" rev-parse --verify "$ref^{commit}") || die "$ref is not a commit"
: "${SOURCE_DATE_EPOCH:=$(git -C "$root" log -1 --format=%ct "$commit")}"
export SOURCE_DATE_EPOCH

host_os=$(go env GOHOSTOS) host_arch=$(go env GOHOSTARCH)
if [ -z "$targets" ]; then
  case "$host_os" in
    darwin) targets="darwin/arm64" ;;
    *) targets="linux/amd64 linux/arm64" ;;
  esac
fi

# c_compiler prints the C compiler for a target, or fails saying what to install.
c_compiler() {
  local os=$1 arch=$2 var="CC_$1_$2" cc=""
  if [ -n "${!var:-}" ]; then
    cc=${!var}
  elif [ "$os/$arch" = "$host_os/$host_arch" ]; then
    cc=${CC:-$([ "$os" = darwin ] && echo clang || echo gcc)}
  else
    case "$os/$arch" in
      linux/arm64) cc=aarch64-linux-gnu-gcc ;;
      linux/amd64) cc=x86_64-linux-gnu-gcc ;;
      darwin/*) die "$os/$arch needs macOS's SDK, which this $host_os host lacks: run scripts/release.sh --targets $os/$arch $version on a Mac and copy the archive into $out (then --sums), or set $var to a cross compiler (osxcross)" ;;
      *) die "no C compiler known for $os/$arch: set $var" ;;
    esac
  fi
  if ! command -v "${cc%% *}" >/dev/null 2>&1; then
    case "$cc" in
      aarch64-linux-gnu-gcc) die "$cc not found: apt-get install gcc-aarch64-linux-gnu (or set $var)" ;;
      x86_64-linux-gnu-gcc) die "$cc not found: apt-get install gcc-x86-64-linux-gnu (or set $var)" ;;
      *) die "C compiler $cc for $os/$arch not found (set $var)" ;;
    esac
  fi
  echo "$cc"
}

# build_all DEST: exports the commit, builds every target and packs it into DEST.
build_all() {
  local dest=$1 work src t os arch cc stage dir tags link
  work=$(mktemp -d)
  tmpdirs+=("$work")
  src=$work/src
  mkdir -p "$src"
  git -C "$root" archive --format=tar "$commit" | tar -x -C "$src"
  for t in $targets; do
    os=${t%/*} arch=${t#*/}
    [ "$os/$arch" = "$t" ] && [ -n "$os" ] && [ -n "$arch" ] || die "target $t is not OS/ARCH"
    cc=$(c_compiler "$os" "$arch")
    dir=perfls_${name_version}_${os}_${arch}
    stage=$work/stage/$dir
    mkdir -p "$stage"
    # Linux binaries are static (pure-Go DNS and user lookup), so that they
    # run on any distribution's C library; macOS's are linked as macOS wants.
    tags="" link=""
    if [ "$os" = linux ]; then tags="netgo,osusergo" link="-linkmode external -extldflags -static"; fi
    note "building $t with $cc ($(go version | cut -d' ' -f3), commit ${commit:0:12})"
    (cd "$src" && GOOS=$os GOARCH=$arch GOAMD64=v1 GOARM64=v8.0 CGO_ENABLED=1 CC=$cc \
      go build -trimpath -buildvcs=false -tags "$tags" \
        -ldflags "-s -w -buildid= $link -X $MODULE/internal/version.release=$version -X $MODULE/internal/version.commit=$commit" \
        -o "$stage/perfls" ./cmd/perfls)
    sed -e "s/@VERSION@/$version/g" -e "s/@COMMIT@/$commit/g" -e "s|@TARGET@|$t|g" "$src/scripts/archive-README.md" >"$stage/README.md"
    [ ! -f "$src/LICENSE" ] || cp "$src/LICENSE" "$stage/LICENSE"
    (cd "$src" && env -u GOOS -u GOARCH -u CC CGO_ENABLED=0 go run ./scripts/pack tar -epoch "$SOURCE_DATE_EPOCH" -o "$dest/$dir.tar.gz" "$stage")
    note "wrote $dest/$dir.tar.gz"
  done
}

build_all "$out"
write_sums
if [ "$verify" = 1 ]; then
  again=$(mktemp -d)
  cache=$(mktemp -d)
  tmpdirs+=("$again" "$cache")
  note "--verify: building again from a new export with an empty Go build cache"
  GOCACHE=$cache build_all "$again"
  fail=0
  for t in $targets; do
    a=perfls_${name_version}_${t%/*}_${t#*/}.tar.gz
    if cmp -s "$out/$a" "$again/$a"; then
      note "reproducible: $a"
    else
      note "NOT reproducible: $a differs between the two builds"; fail=1
    fi
  done
  [ "$fail" = 0 ] || exit 1
fi
