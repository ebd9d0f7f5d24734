#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# siw.sh KVER OUT: siw.ko (soft-iWARP) for guest kernel KVER, into
# OUT/siw.ko. Debian's kernels do not ship it: it is built from the
# drivers/infiniband/sw/siw of the linux-source package of KVER's series
# (6.1.* from linux-source-6.1, 6.12.* from linux-source-6.12; make deps
# installs them), against the headers deps.sh unpacked in build/vm/k/KVER/.
#
# The sources are extracted once per package version, into
# build/vm/siw-src/PKG-VERSION/; the objects stay in OUT/siw-obj/. A stamp
# (OUT/siw-obj/.stamp: the package, its version and the hash of the
# headers' config, symbol versions and release) says what OUT/siw.ko was
# built from: it is built again only when one of them changed. A package
# version other than the kernel image's (build/vm/k/KVER/.debs) is worth
# one line, not a failure: the driver's sources rarely change within a
# series, and the build against the kernel's own headers is what counts.
set -euo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
die() { echo "siw: error: $*" >&2; exit 1; }

[ $# -eq 2 ] || { echo "usage: siw.sh KVER OUT" >&2; exit 2; }
kver=$1
mkdir -p "$2"
out=$(cd "$2" && pwd)	# kbuild wants M= absolute
kroot=$top/build/vm/k/$kver
kdir=$kroot/usr/src/linux-headers-$kver

# the package of the kernel's series: 6.1.0-57-amd64 -> linux-source-6.1
series=$(sed -nE 's/^([0-9]+\.[0-9]+)[.-].*/\1/p' <<<"$kver")
pkg=linux-source-$series
case $series in
6.1|6.12) ;;
*) die "no linux-source package for kernel $kver: siw.ko is built from linux-source-6.1 (6.1.*) or linux-source-6.12 (6.12.*)" ;;
esac
tar=/usr/src/$pkg.tar.xz
ver=$(dpkg-query -W -f '${db:Status-Status} ${Version}' "$pkg" 2>/dev/null |
	sed -n 's/^installed //p') || ver=
{ [ -n "$ver" ] && [ -f "$tar" ]; } ||
	die "$pkg (for kernel $kver) is not installed: run tools/testing/vm/deps.sh"
[ -f "$kdir/Makefile" ] ||
	die "no headers of $kver in $kdir: run tools/testing/vm/deps.sh"

img=$(awk -v p="linux-image-$kver" '$1 == p { print $2 }' "$kroot/.debs" 2>/dev/null || true)
[ -z "$img" ] || [ "$img" = "$ver" ] ||
	echo "siw: $pkg is $ver, linux-image-$kver is $img: building siw.ko for $kver from $pkg $ver" >&2

# ------------------------------------------------------------- sources
sub=drivers/infiniband/sw/siw
src=$top/build/vm/siw-src/$pkg-$ver
if [ ! -f "$src/.done" ]; then
	echo "siw: extracting $sub of $pkg $ver" >&2
	rm -rf "$src.tmp"
	mkdir -p "$src.tmp"
	tar -xJf "$tar" -C "$src.tmp" --strip-components=5 --wildcards "*/$sub/*"
	{ [ -f "$src.tmp/Makefile" ] && [ -f "$src.tmp/siw_main.c" ]; } ||
		die "$tar has no $sub"
	: > "$src.tmp/.done"
	rm -rf "$src"
	mv "$src.tmp" "$src"
	# older versions' sources are of no more use
	for d in "$top/build/vm/siw-src/$pkg"-*; do
		[ "$d" = "$src" ] || rm -rf "$d"
	done
fi

# --------------------------------------------------------------- build
stamp="$pkg $ver $(cat "$kdir/.config" "$kdir/Module.symvers" \
	"$kdir/include/config/kernel.release" 2>/dev/null | sha256sum | cut -d' ' -f1)"
obj=$out/siw-obj
if [ -f "$out/siw.ko" ] && [ "$(cat "$obj/.stamp" 2>/dev/null || true)" = "$stamp" ]; then
	exit 0
fi
echo "siw: siw.ko for $kver from $pkg $ver" >&2
rm -rf "$obj"
mkdir -p "$obj"
cp -p "$src"/* "$obj/"
make -s -C "$kdir" M="$obj" CONFIG_RDMA_SIW=m modules
[ -f "$obj/siw.ko" ] || die "the build made no siw.ko"
cp "$obj/siw.ko" "$out/siw.ko.tmp"
mv "$out/siw.ko.tmp" "$out/siw.ko"
echo "$stamp" > "$obj/.stamp"
