#!/bin/bash
# debug-kernel.sh: build (once) the debug guest kernel of `make check-debug`
# from Debian's linux-source-6.1 tarball: defconfig + kvm_guest.config +
# debug.config (KASAN, lockdep, kmemleak, ...), bzImage and modules.
#
#   build/debug-kernel/<key>/linux/   the built tree (mwin.ko builds against it)
#   build/debug-kernel/<key>/stage/   what vm-run boots (MWIN_VM_KERNEL_DIR):
#       boot/vmlinuz-$KVER, lib/modules/$KVER, .kver, .cmdline
#
# <key> hashes the linux-source-6.1 package version and debug.config, so a
# second run with the same inputs does nothing; an interrupted build is
# resumed.  Prints the tree and the stage directory (two lines).
# Progress goes to stderr, the build log to build/debug-kernel/<key>/build.log.
# Needs root only to install missing build packages; `debug-kernel.sh
# --packages` installs them and stops (.ci/run, before it builds the
# kernel beside `make check`, which must not meet an apt-get of its own).
# MWIN_DEBUG_KERNEL_JOBS: make -j (default: nproc).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
base="$root/build/debug-kernel"
frag="$here/debug.config"
tarball=/usr/src/linux-source-6.1.tar.xz
srcpkg=linux-source-6.1

say() { echo "debug-kernel: $*" >&2; }
die() { echo "debug-kernel: error: $*" >&2; exit 1; }

# ---- build packages, only the missing ones
need_pkgs() {
	local miss=() p
	for p in "$@"; do
		dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null | grep -qx installed ||
			miss+=("$p")
	done
	[ ${#miss[@]} -gt 0 ] || return 0
	[ "$(id -u)" = 0 ] || die "missing packages (need root to install): ${miss[*]}"
	say "installing: ${miss[*]}"
	export DEBIAN_FRONTEND=noninteractive
	if ! apt-get install -y -q --no-install-recommends "${miss[@]}" >/dev/null 2>&1; then
		apt-get update -q >/dev/null 2>&1 || die "apt-get update failed"
		apt-get install -y -q --no-install-recommends "${miss[@]}" >&2 ||
			die "apt-get install failed: ${miss[*]}"
	fi
}
need_pkgs "$srcpkg" flex bison libelf-dev libssl-dev bc make gcc libc6-dev xz-utils kmod cpio
[ -f "$tarball" ] || die "$tarball missing (package $srcpkg)"
[ "${1:-}" != --packages ] || exit 0

# ---- cache key
version=$(dpkg-query -W -f='${Version}' "$srcpkg")
key=$( { echo "$srcpkg $version"; cat "$frag"; } | sha256sum | cut -c1-16)
dir="$base/$key"
tree="$dir/linux"
stage="$dir/stage"
mkdir -p "$base"
# one build at a time
exec 9> "$base/.lock"
flock 9

# Kernel parameters vm-run adds for this kernel.  acpi=noirq: with all the
# checkers on, ACPICA interprets the i440fx _PRT method (a loop) so slowly
# under TCG that it hits its 30 s loop timeout, once per PCI device: 2 min
# lost at boot, and no INTx routing.  The legacy $PIR table does it at once.
# no5lvl: QEMU's "-cpu max" has LA57, and identify_cpu() clears the boot
# CPU's feature bits for a moment, so that pgtable_l5_enabled() is false;
# an interrupt then makes KASAN report a wild-memory-access on any address
# of the 5-level direct map (seen once at boot: handle_edge_irq taking its
# descriptor's lock during cpu_detect()).
# slub_debug=A,...: the failslab mark (no other debugging) on the kmalloc
# caches that selftests/mwin_fail_nth.c fails a connect's allocations in
# (failslab cache-filter; the mark cannot be set at run time).  Without
# cache-filter set, as everywhere else, the mark does nothing.
cmdline="acpi=noirq no5lvl slub_debug=A,kmalloc-512,kmalloc-1k,kmalloc-2k,kmalloc-4k,kmalloc-8k"

if [ -f "$dir/.done" ] && [ -s "$stage/.kver" ]; then
	echo "$cmdline" > "$stage/.cmdline"
	echo "$tree"
	echo "$stage"
	exit 0
fi

start=$(date +%s)
mkdir -p "$dir"
log="$dir/build.log"
jobs=${MWIN_DEBUG_KERNEL_JOBS:-$(nproc)}
# LOCALVERSION set (to nothing): no "+" appended to the release
kmake() { make -C "$tree" LOCALVERSION= "$@" >> "$log" 2>&1 || {
	tail -n 40 "$log" >&2
	die "make $* failed (full log: $log)"
}; }

# ---- source and configuration (redone unless the tree is configured)
if [ ! -f "$dir/.configured" ]; then
	say "unpacking $srcpkg $version into $tree (key $key)"
	rm -rf "$tree" "$dir/unpack"
	mkdir -p "$dir/unpack"
	tar -xJf "$tarball" -C "$dir/unpack"
	mv "$dir/unpack/linux-source-6.1" "$tree"
	rmdir "$dir/unpack"
	: > "$log"
	say "configuring: defconfig kvm_guest.config + $(basename "$frag")"
	kmake defconfig
	kmake kvm_guest.config
	(cd "$tree" && scripts/kconfig/merge_config.sh -m .config "$frag") >> "$log" 2>&1 ||
		die "merge_config.sh failed (log: $log)"
	kmake olddefconfig
	# every line of the fragment must have survived
	bad=0
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*) want=$line; sym=${line%%=*} ;;
		"# CONFIG_"*" is not set") sym=${line#\# }; sym=${sym%% *}; want=$line ;;
		*) continue ;;
		esac
		got=$(grep -E "^(# )?$sym[= ]" "$tree/.config" || true)
		if [ "$want" != "$got" ] && ! { [[ $want == "# "* ]] && [ -z "$got" ]; }; then
			say "config: wanted '$want', got '${got:-nothing}'"
			bad=1
		fi
	done < "$frag"
	[ "$bad" = 0 ] || die "debug.config does not apply cleanly"
	touch "$dir/.configured"
fi

# ---- build and install into the stage directory
say "building bzImage and modules with -j$jobs (log: $log)"
kmake -j"$jobs" bzImage modules
KVER=$(make -s -C "$tree" LOCALVERSION= kernelrelease)
[ -n "$KVER" ] || die "no kernel release"
say "installing $KVER into $stage"
rm -rf "$stage"
mkdir -p "$stage/boot"
kmake INSTALL_MOD_PATH="$stage" modules_install
# the tree is the build tree; no need for these links in the guest
rm -f "$stage/lib/modules/$KVER/build" "$stage/lib/modules/$KVER/source"
depmod -b "$stage" "$KVER"
# vm-run boots the bzImage: the PVH entry of the ELF vmlinux (which skips
# the slow decompression) runs KASAN-instrumented C code before KASAN's
# shadow exists, and the guest triple-faults at once
cp "$tree/arch/x86/boot/bzImage" "$stage/boot/vmlinuz-$KVER"
echo "$cmdline" > "$stage/.cmdline"
echo "$KVER" > "$stage/.kver"
touch "$dir/.done"
say "built $KVER in $(($(date +%s) - start)) s"

# older keys are dead weight (each tree is several GB)
for d in "$base"/*/; do
	d=${d%/}
	[ "$d" = "$dir" ] || [ ! -f "$d/.configured" ] || { say "removing old build $d"; rm -rf "$d"; }
done
echo "$tree"
echo "$stage"
