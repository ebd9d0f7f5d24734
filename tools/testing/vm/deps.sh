#!/bin/bash
# deps.sh: install the host packages needed to build mwin and to run its
# tests in a QEMU guest, and unpack (never install) the guest kernel: the
# image that Debian's linux-image-amd64 metapackage points at today.
#
#   build/vm/kernel/boot/vmlinuz-$KVER   guest kernel
#   build/vm/kernel/lib/modules/$KVER    its modules (depmod'ed)
#   build/vm/kver                        KVER, one line
#
# Idempotent and quiet: progress goes to stderr, KVER to stdout.  Needs root.
# MWIN_DEPS_APT_MAX_AGE (seconds, default 86400; 0 = never): refresh the apt
# lists first when they are older than this, so that KVER is today's.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
vmdir="$root/build/vm"
kdir="$vmdir/kernel"

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

# (1) host packages
install_pkgs qemu-system-x86 rdma-core ibverbs-providers ibverbs-utils \
	rdmacm-utils perftest libibverbs-dev librdmacm-dev busybox-static \
	kmod cpio iproute2 sparse linux-source-6.1 make gcc libc6-dev xz-utils \
	cppcheck python3-docutils dkms

# (2) guest kernel version = what linux-image-amd64 depends on today
apt_lists_fresh || apt_update_once
find_kver() {
	apt-cache depends linux-image-amd64 2>/dev/null |
		sed -n 's/^ *Depends: linux-image-\([0-9][^ ]*\)$/\1/p' | head -n1
}
KVER=$(find_kver)
if [ -z "$KVER" ] && [ "$updated" = 0 ]; then
	apt_update_once
	KVER=$(find_kver)
fi
[ -n "$KVER" ] || die "cannot find the kernel version from linux-image-amd64"

# (3) matching headers on the host (to build the module against)
if [ -n "$(missing_pkgs "linux-headers-$KVER")" ] && [ "$updated" = 0 ]; then
	# stale lists may name a version the archive no longer has
	apt_update_once
	KVER=$(find_kver)
	[ -n "$KVER" ] || die "cannot find the kernel version from linux-image-amd64"
fi
install_pkgs "linux-headers-$KVER"

# (3b) the newest kernel headers the archive offers, for make compat-check
newest_headers=$(apt-cache search --names-only '^linux-headers-[0-9][^ ]*-amd64$' |
	awk '{ print $1 }' | grep -v -e cloud -e rt-amd64 | sort -V | tail -n1)
[ -z "$newest_headers" ] || install_pkgs "$newest_headers"

# (4) unpack (never install) the guest kernel image
if [ "$(cat "$kdir/.kver" 2>/dev/null || true)" != "$KVER" ] ||
   [ ! -f "$kdir/boot/vmlinuz-$KVER" ] ||
   [ ! -f "$kdir/lib/modules/$KVER/modules.dep" ]; then
	dl="$vmdir/dl"
	mkdir -p "$dl"
	rm -f "$dl"/*.deb
	# let apt's sandbox user write there (avoids an "unsandboxed" warning)
	chown _apt "$dl" 2>/dev/null || true
	say "downloading linux-image-$KVER"
	if ! (cd "$dl" && apt-get download -qq "linux-image-$KVER" >&2); then
		[ "$updated" = 0 ] || die "apt-get download linux-image-$KVER failed"
		apt_update_once
		(cd "$dl" && apt-get download -qq "linux-image-$KVER" >&2) ||
			die "apt-get download linux-image-$KVER failed"
	fi
	deb=$(compgen -G "$dl/linux-image-${KVER}_*.deb" | head -n1 || true)
	[ -n "$deb" ] || die "apt-get download left no linux-image-$KVER .deb"
	say "unpacking $(basename "$deb")"
	rm -rf "$kdir" "$kdir.tmp"
	mkdir -p "$kdir.tmp"
	dpkg -x "$deb" "$kdir.tmp"
	# bookworm ships /lib/modules; a merged-/usr package would use /usr/lib
	if [ ! -d "$kdir.tmp/lib/modules/$KVER" ] && [ -d "$kdir.tmp/usr/lib/modules/$KVER" ]; then
		mkdir -p "$kdir.tmp/lib"
		mv "$kdir.tmp/usr/lib/modules" "$kdir.tmp/lib/modules"
	fi
	[ -f "$kdir.tmp/boot/vmlinuz-$KVER" ] || die "no boot/vmlinuz-$KVER in $deb"
	[ -d "$kdir.tmp/lib/modules/$KVER" ] || die "no lib/modules/$KVER in $deb"
	depmod -b "$kdir.tmp" "$KVER"
	echo "$KVER" > "$kdir.tmp/.kver"
	mv "$kdir.tmp" "$kdir"
	rm -f "$deb"
	# derived from the old kernel: vm-run rebuilds them
	rm -f "$vmdir"/initramfs.cpio* "$vmdir"/vmlinux-*
fi

# (5) record and print the version
echo "$KVER" > "$vmdir/kver.tmp"
mv "$vmdir/kver.tmp" "$vmdir/kver"
echo "$KVER"
