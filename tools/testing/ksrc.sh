#!/bin/bash
# ksrc.sh PKG DIR: the files the build takes from a Debian linux-source
# package (PKG, e.g. linux-source-6.1: its tarball /usr/src/PKG.tar.xz),
# extracted into DIR: the kselftest harness and the style checkers. Done
# again only when the installed version of PKG is not the one DIR holds;
# DIR/.version says which ("PKG VERSION"). make deps installs PKG.
set -euo pipefail
pkg=$1 dir=$2
files="tools/testing/selftests/kselftest_harness.h
tools/testing/selftests/kselftest.h
scripts/checkpatch.pl
scripts/spelling.txt
scripts/const_structs.checkpatch
scripts/kernel-doc"

ver=$(dpkg-query -W -f '${Version}' "$pkg" 2>/dev/null) || ver=
tar=/usr/src/$pkg.tar.xz
if [ -z "$ver" ] || [ ! -f "$tar" ]; then
	echo "ksrc: $pkg is not installed: run make deps" >&2
	exit 1
fi
[ "$(cat "$dir/.version" 2>/dev/null || true)" != "$pkg $ver" ] || exit 0
echo "ksrc: the harness and checkers of $pkg $ver into $dir" >&2
rm -rf "$dir.tmp"
mkdir -p "$dir.tmp"
# shellcheck disable=SC2046 # one pattern a line, none with a space
tar -xJf "$tar" -C "$dir.tmp" --strip-components=1 --wildcards \
	$(sed 's|^|*/|' <<<"$files")
echo "$pkg $ver" > "$dir.tmp/.version"
rm -rf "$dir"
mv "$dir.tmp" "$dir"
