#!/bin/sh
# bench/jdk-trixie.sh DIR: a JDK 25 for a Debian bookworm machine (which
# ships only JDK 17), made of Debian trixie's openjdk-25-jdk-headless run
# with trixie's own glibc through trixie's loader. Writes DIR/home, a
# JAVA_HOME whose bin/* are wrapper scripts:
#   exec DIR/sys/…/ld-linux-x86-64.so.2 --library-path <trixie libs>:<jdk libs> <real bin> "$@"
# For go run ./bench ensemble-real -jdk25 DIR/home (and JAVA_HOME=DIR/home
# perfls …). Needs curl (or wget), xz, dpkg-deb (dpkg) and sha256sum; no
# root. amd64 only. DEBIAN_MIRROR overrides http://deb.debian.org/debian.
# The .debs already in DIR (with the index's checksum) are not fetched again.
set -eu

dest=${1:?usage: bench/jdk-trixie.sh DIR (a JAVA_HOME is written to DIR/home)}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
jdk_pkgs="openjdk-25-jre-headless openjdk-25-jdk-headless"
lib_pkgs="libc6 libstdc++6 libgcc-s1 zlib1g"

[ "$(uname -m)" = x86_64 ] || { echo "jdk-trixie.sh: amd64 (x86_64) only, this is $(uname -m)" >&2; exit 2; }
for tool in xz dpkg-deb sha256sum; do
	command -v "$tool" >/dev/null || { echo "jdk-trixie.sh: $tool is missing (apt-get install xz-utils dpkg coreutils)" >&2; exit 2; }
done
fetch() { # URL FILE
	if command -v curl >/dev/null; then curl -fsSL -o "$2" "$1"; else wget -q -O "$2" "$1"; fi
}

mkdir -p "$dest"
dest=$(cd "$dest" && pwd)

index="$dest/Packages"
if [ ! -s "$index" ]; then
	echo "fetching $mirror/dists/trixie/main/binary-amd64/Packages.xz" >&2
	fetch "$mirror/dists/trixie/main/binary-amd64/Packages.xz" "$index.xz.part" || {
		echo "jdk-trixie.sh: could not fetch the trixie package index from $mirror (set DEBIAN_MIRROR to a reachable mirror)" >&2; exit 1; }
	xz -dc "$index.xz.part" >"$index.part"
	mv "$index.part" "$index"
	rm -f "$index.xz.part"
fi

# field PKG NAME: the field NAME of package PKG's stanza in the index.
field() {
	awk -v p="$1" -v f="$2:" '
		/^Package: / { cur = $2 }
		/^$/ { cur = "" }
		cur == p && $1 == f { print $2; exit }' "$index"
}

for pkg in $jdk_pkgs $lib_pkgs; do
	file=$(field "$pkg" Filename)
	sum=$(field "$pkg" SHA256)
	[ -n "$file" ] && [ -n "$sum" ] || { echo "jdk-trixie.sh: $pkg is not in $index (remove it to fetch the index again)" >&2; exit 1; }
	deb="$dest/$(basename "$file")"
	if [ ! -f "$deb" ] || ! echo "$sum  $deb" | sha256sum -c --status; then
		echo "fetching $mirror/$file" >&2
		fetch "$mirror/$file" "$deb.part"
		echo "$sum  $deb.part" | sha256sum -c --status || { echo "jdk-trixie.sh: $deb: SHA256 differs from the index's" >&2; exit 1; }
		mv "$deb.part" "$deb"
	fi
	case " $jdk_pkgs " in
	*" $pkg "*) dpkg-deb -x "$deb" "$dest/root" ;;
	*) dpkg-deb -x "$deb" "$dest/sys" ;;
	esac
done

jdk="$dest/root/usr/lib/jvm/java-25-openjdk-amd64"
libs="$dest/sys/usr/lib/x86_64-linux-gnu"
loader="$libs/ld-linux-x86-64.so.2"
[ -x "$jdk/bin/java" ] && [ -e "$loader" ] || { echo "jdk-trixie.sh: $jdk/bin/java or $loader missing after unpacking" >&2; exit 1; }

# The package links its configuration to /etc/java-25-openjdk, which the
# host lacks: point those links at the unpacked copy.
find "$dest/root" -type l | while read -r link; do
	case $(readlink "$link") in
	/etc/java-25-openjdk/*) ln -sfn "$dest/root$(readlink "$link")" "$link" ;;
	esac
done

home="$dest/home"
rm -rf "$home"
mkdir -p "$home/bin"
for entry in "$jdk"/*; do
	[ "$(basename "$entry")" = bin ] || ln -s "$entry" "$home/$(basename "$entry")"
done
for bin in "$jdk"/bin/*; do
	cat >"$home/bin/$(basename "$bin")" <<EOF
#!/bin/sh
exec $loader --library-path $libs:$jdk/lib:$jdk/lib/server $bin "\$@"
EOF
	chmod +x "$home/bin/$(basename "$bin")"
done

"$home/bin/java" -version >&2
echo "JAVA_HOME=$home" >&2
echo "$home"
