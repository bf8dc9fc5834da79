#!/usr/bin/env bash
# Installs Debian trixie's Neovim 0.10 into DIR without root, for a machine
# whose own Neovim is too old to draw semantic tokens and inlay hints (Debian
# bookworm has 0.7.2). Trixie's nvim needs glibc 2.38 and bookworm has 2.36,
# so the script unpacks trixie's libc with it and points the nvim binary at
# that libc's loader and libraries (patchelf, trixie's too, run through the
# loader: ld-linux --library-path). A wrapper around the loader alone is not
# enough: nvim's terminal UI starts its own binary (v:progpath) with --embed,
# and through a loader that would be the loader. The system's libc is left
# alone, and programs nvim starts (the language server) run with it as usual.
# DIR/nvim is a wrapper that sets the runtime and Lua module paths. The paths
# are absolute: after moving DIR, run the script again.
# Usage: docs/images/nvim-trixie.sh DIR     then: DIR/nvim --version
# PACKAGES=file uses an already downloaded and decompressed Packages index.
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
dir=$(mkdir -p "$1" && cd "$1" && pwd)
mirror=${MIRROR:-http://deb.debian.org/debian}
index=${PACKAGES:-$dir/Packages}
if [ ! -s "$index" ]; then
  curl -fsSL "$mirror/dists/trixie/main/binary-amd64/Packages.xz" | xz -d >"$index.tmp"
  mv "$index.tmp" "$index"
fi
# neovim's Depends, then what those need beside glibc 2.38 (ld.so names the
# next missing library when one is left out).
pkgs="neovim neovim-runtime libluajit-5.1-2 libmsgpack-c2 libtree-sitter0.22
  libunibilium4 libuv1t64 libvterm0 lua-lpeg lua-luv libutf8proc3
  libc6 libgcc-s1 libstdc++6 zlib1g patchelf"
mkdir -p "$dir/debs" "$dir/root"
for p in $pkgs; do
  # Filename and SHA256 of package $p in the index (paragraphs separated by blank lines).
  read -r file sum < <(awk -v p="$p" 'BEGIN{RS="";FS="\n"}
    { name=""; file=""; sum=""
      for (i = 1; i <= NF; i++) {
        if ($i ~ /^Package: /) name = substr($i, 10)
        if ($i ~ /^Filename: /) file = substr($i, 11)
        if ($i ~ /^SHA256: /) sum = substr($i, 9)
      }
      if (name == p) { print file, sum; exit } }' "$index") || true
  [ -n "${file:-}" ] || { echo "$p: not in $index" >&2; exit 1; }
  deb=$dir/debs/${file##*/}
  [ -s "$deb" ] || curl -fsSL -o "$deb" "$mirror/$file"
  echo "$sum  $deb" | sha256sum -c --quiet - || { echo "$deb: checksum differs from the index" >&2; exit 1; }
  dpkg -x "$deb" "$dir/root"
done
r=$dir/root
lib=$r/usr/lib/x86_64-linux-gnu
# lpeg and luv are Lua C modules nvim loads with require(); Debian's nvim
# looks for them in /usr/lib, where they are not here.
cpath="$lib/lua/5.1/?.so"
# DT_RPATH (not RUNPATH) so that the libraries' own dependencies (luv's
# libuv, libc itself) come from here too.
if [ "$("$lib/ld-linux-x86-64.so.2" --library-path "$lib" "$r/usr/bin/patchelf" --print-interpreter "$r/usr/bin/nvim")" != "$lib/ld-linux-x86-64.so.2" ]; then
  "$lib/ld-linux-x86-64.so.2" --library-path "$lib" "$r/usr/bin/patchelf" \
    --set-interpreter "$lib/ld-linux-x86-64.so.2" --force-rpath --set-rpath "$lib" "$r/usr/bin/nvim"
fi
cat >"$dir/nvim" <<SH
#!/bin/sh
# Debian trixie's Neovim on an older glibc: see docs/images/nvim-trixie.sh.
export VIMRUNTIME='$r/usr/share/nvim/runtime'
export LUA_CPATH='$cpath;;'
exec '$r/usr/bin/nvim' "\$@"
SH
chmod +x "$dir/nvim"
"$dir/nvim" --version | head -1
echo "wrote $dir/nvim"
