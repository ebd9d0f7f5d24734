#!/bin/bash
# deps.sh: install the host packages needed to build mwin and to run its
# tests in a QEMU guest, and unpack (never install) the guest kernels with
# their headers: the kernel that Debian's linux-image-amd64 metapackage
# points at today, and the newest kernel the archive offers (6.12 on
# Debian 12). Each kernel KVER goes to its own directory:
#
#   build/vm/k/$KVER/boot/vmlinuz-$KVER    guest kernel
#   build/vm/k/$KVER/lib/modules/$KVER     its modules (depmod'ed)
#   build/vm/k/$KVER/usr/src/linux-headers-$KVER   its headers: KDIR
#   build/vm/k/$KVER/.kver                 KVER
#   build/vm/kernel -> k/$KVER             the first kernel, as vm-run boots
#   build/vm/kver                          the first KVER, one line
#   build/vm/kvers                         every KVER, the first first
#
# Nothing here installs a kernel image or headers on the host, so neither
# /boot nor the boot loader changes: the packages are fetched with
# `apt-get download` and unpacked with `dpkg -x`.
#
# Idempotent and quiet: progress goes to stderr, KVER to stdout.  Needs root.
# MWIN_DEPS_APT_MAX_AGE (seconds, default 86400; 0 = never): refresh the apt
# lists first when they are older than this, so that KVER is today's.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
vmdir="$root/build/vm"

say() { echo "deps: $*" >&2; }
die() { echo "deps: error: $*" >&2; exit 1; }

export DEBIAN_FRONTEND=noninteractive
updated=0
apt_update_once() {
	[ "$updated" = 0 ] || return 0
	say "apt-get update"
	local log
	log=$(mktemp)
	if ! apt-get update -q > "$log" 2>&1; then
		cat "$log" >&2
		rm -f "$log"
		die "apt-get update failed"
	fi
	rm -f "$log"
	updated=1
}

missing_pkgs() {
	# one dpkg-query call for all; unknown packages are simply not listed
	local inst p
	inst=$(dpkg-query -W -f='${Package} ${db:Status-Status}\n' "$@" 2>/dev/null |
		awk '$2 == "installed" { print $1 }' || true)
	for p in "$@"; do
		grep -qxF "$p" <<<"$inst" || echo "$p"
	done
}

install_pkgs() {
	local miss
	miss=$(missing_pkgs "$@" | tr '\n' ' ')
	[ -n "${miss// /}" ] || return 0
	apt_update_once
	say "installing: $miss"
	local log
	log=$(mktemp)
	# shellcheck disable=SC2086
	if ! apt-get install -y -q --no-install-recommends $miss > "$log" 2>&1; then
		cat "$log" >&2
		rm -f "$log"
		die "apt-get install failed: $miss"
	fi
	rm -f "$log"
}

apt_lists_fresh() {
	local max=${MWIN_DEPS_APT_MAX_AGE:-86400} newest
	[ "$max" != 0 ] || return 0
	compgen -G '/var/lib/apt/lists/*_Packages*' >/dev/null || return 1
	newest=$(stat -c %Y /var/lib/apt/lists /var/lib/apt/lists/partial 2>/dev/null |
		sort -n | tail -n1)
	[ -n "$newest" ] && [ $(($(date +%s) - newest)) -lt "$max" ]
}

[ "$(id -u)" = 0 ] || die "must run as root (apt-get, dpkg)"

# (1) host packages (what they are for: tools/testing/vm/README.md);
# none of them is a kernel image or depends on one.
pkgs="qemu-system-x86 rdma-core ibverbs-providers ibverbs-utils \
	rdmacm-utils perftest libibverbs-dev librdmacm-dev busybox-static \
	kmod cpio iproute2 sparse linux-source-6.1 linux-source-6.12 make gcc \
	gcc-12 libc6-dev \
	dwarves xz-utils cppcheck python3-docutils dkms libssl-dev openssl \
	libjson-c-dev"
# shellcheck disable=SC2086
install_pkgs $pkgs

# (2) the first guest kernel = what linux-image-amd64 depends on today
apt_lists_fresh || apt_update_once
find_kver() {
	apt-cache depends linux-image-amd64 2>/dev/null |
		sed -n 's/^ *Depends: linux-image-\([0-9][^ ]*\)$/\1/p' | head -n1
}
# the newest kernel with headers in the archive (not cloud, not rt)
find_newest() {
	apt-cache search --names-only '^linux-headers-[0-9][^ ]*-amd64$' |
		awk '{ print $1 }' | grep -v -e cloud -e rt-amd64 |
		sed 's/^linux-headers-//' | sort -V | tail -n1
}
# KVER, NEWEST and kvers: every kernel to unpack, the first first
find_kvers() {
	KVER=$(find_kver)
	if [ -z "$KVER" ] && [ "$updated" = 0 ]; then
		apt_update_once
		KVER=$(find_kver)
	fi
	[ -n "$KVER" ] || die "cannot find the kernel version from linux-image-amd64"
	NEWEST=$(find_newest)
	kvers=$KVER
	[ -z "$NEWEST" ] || [ "$NEWEST" = "$KVER" ] || kvers="$KVER $NEWEST"
}

# (3) unpack (never install) a kernel, its headers and its kbuild:
# unpack_kernel KVER; sets stale=1 and unpacks nothing when the download
# fails before any apt-get update (the lists may be stale)
#
# The headers' Makefile includes its -common tree by an absolute path, and
# lib/modules/KVER/build points at the host's /usr/src: both are made to
# point into the unpacked tree.
kernel_pkgs() {
	local k=$1 img=linux-image-$1
	# Debian 12's 6.12 image is only a virtual package of the -unsigned one
	# (not grep -q: under pipefail, apt-cache's SIGPIPE would count)
	[[ $(apt-cache policy "$img" 2>/dev/null) == *"Candidate: "[0-9]* ]] ||
		img=$img-unsigned
	echo "$img linux-headers-$k"
	apt-cache depends "linux-headers-$k" 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-\(headers\|kbuild\)-[^ <>]*\)$/\1/p'
}

unpack_kernel() {
	local k=$1 dest="$vmdir/k/$1" dl="$vmdir/dl" pkgs deb
	if [ "$(cat "$dest/.kver" 2>/dev/null || true)" = "$k" ] &&
	   [ -f "$dest/boot/vmlinuz-$k" ] && [ -f "$dest/lib/modules/$k/modules.dep" ] &&
	   [ -f "$dest/usr/src/linux-headers-$k/Makefile" ] && [ -s "$dest/.debs" ]; then
		return 0
	fi
	pkgs=$(kernel_pkgs "$k" | tr '\n' ' ')
	mkdir -p "$dl"
	rm -f "$dl"/*.deb
	# let apt's sandbox user write there (avoids an "unsandboxed" warning)
	chown _apt "$dl" 2>/dev/null || true
	say "downloading (not installing) $pkgs"
	# shellcheck disable=SC2086
	if ! (cd "$dl" && apt-get download -qq $pkgs >&2); then
		[ "$updated" = 0 ] || die "apt-get download $pkgs failed"
		rm -f "$dl"/*.deb
		stale=1
		return 0
	fi
	rm -rf "$dest" "$dest.tmp"
	mkdir -p "$dest.tmp"
	for deb in "$dl"/*.deb; do
		say "unpacking $(basename "$deb")"
		dpkg -x "$deb" "$dest.tmp"
		# which packages, for make inputs
		dpkg-deb -W --showformat='${Package} ${Version}\n' "$deb" >> "$dest.tmp/.debs"
	done
	rm -f "$dl"/*.deb
	# bookworm ships /lib/modules; a merged-/usr package would use /usr/lib
	if [ ! -d "$dest.tmp/lib/modules/$k" ] && [ -d "$dest.tmp/usr/lib/modules/$k" ]; then
		mkdir -p "$dest.tmp/lib"
		mv "$dest.tmp/usr/lib/modules" "$dest.tmp/lib/modules"
	fi
	[ -f "$dest.tmp/boot/vmlinuz-$k" ] || die "no boot/vmlinuz-$k in $pkgs"
	[ -d "$dest.tmp/lib/modules/$k" ] || die "no lib/modules/$k in $pkgs"
	[ -f "$dest.tmp/usr/src/linux-headers-$k/Makefile" ] ||
		die "no usr/src/linux-headers-$k in $pkgs"
	sed -i "s|^include /usr/src/|include $dest/usr/src/|" \
		"$dest.tmp/usr/src/linux-headers-$k/Makefile"
	ln -sfn "../../../usr/src/linux-headers-$k" "$dest.tmp/lib/modules/$k/build"
	rm -f "$dest.tmp/lib/modules/$k/source"
	depmod -b "$dest.tmp" "$k"
	echo "$k" > "$dest.tmp/.kver"
	mv "$dest.tmp" "$dest"
}

stale=0
find_kvers
for k in $kvers; do
	unpack_kernel "$k"
	[ "$stale" = 0 ] || break
done
if [ "$stale" = 1 ]; then
	# stale apt lists may name a kernel the archive no longer has: refresh
	# them and look the versions up again
	apt_update_once
	find_kvers
	for k in $kvers; do
		unpack_kernel "$k"
	done
fi

# (4) the first kernel is the one vm-run boots by default
if [ "$(readlink "$vmdir/kernel" 2>/dev/null || true)" != "k/$KVER" ]; then
	# an older layout kept the kernel itself there
	rm -rf "$vmdir/kernel"
	ln -sfn "k/$KVER" "$vmdir/kernel"
	# derived from the old kernel: vm-run rebuilds them
	rm -f "$vmdir"/initramfs.cpio* "$vmdir"/vmlinux-*
fi
# kernels of earlier runs that the archive no longer offers
for d in "$vmdir"/k/*; do
	[ -d "$d" ] || continue
	case " $kvers " in *" ${d##*/} "*) ;; *) rm -rf "$d" ;; esac
done

# (5) record and print the versions
echo "$kvers" | tr ' ' '\n' > "$vmdir/kvers.tmp"
mv "$vmdir/kvers.tmp" "$vmdir/kvers"
echo "$KVER" > "$vmdir/kver.tmp"
mv "$vmdir/kver.tmp" "$vmdir/kver"
echo "$KVER"
