#!/bin/bash
# check-debug.sh: `make check-debug`.  Builds (or reuses) the debug guest
# kernel (debug-kernel.sh: KASAN, lockdep, kmemleak, ...), builds mwin.ko
# against it from a copy of the module's sources (build/debug-kernel/src,
# so the repo's own objects are untouched), boots it with vm-run and runs
# the whole suite plus a kmemleak scan (debug-guest.sh).  Adds up the
# "# Totals:" lines like selftests/run-vm.sh and prints
# "N passed, N failed, N skipped".  Fails on a failed test, a leak, or any
# kernel report in the guest's dmesg (vm-run's checks).
#
# Log: build/debug-kernel/check.log; kmemleak's raw report, if any, in
# build/debug-kernel/out/kmemleak.txt.
#   MWIN_CHECK_DEBUG_TIMEOUT  seconds for the VM run (default 2400; the
#                             suite takes about 9 min)
#   MWIN_TEST_TIMEOUT         seconds per test binary (default here 1200)
#   MWIN_TESTS                subset of test binaries, as for make check
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../../.." && pwd)
base=$top/build/debug-kernel
log=$base/check.log
src=$base/src

say() { echo "check-debug: $*" >&2; }
t0=$(date +%s)

# ---- kernel
{ read -r tree && read -r stage; } < <(bash "$here/debug-kernel.sh") || {
	say "building the debug kernel failed"
	exit 1
}
[ -n "${stage:-}" ] && [ -s "$stage/.kver" ] || { say "no debug kernel"; exit 1; }
t1=$(date +%s)

# ---- module, from a copy of its sources: only changed files are copied,
# so that kbuild rebuilds only what changed
sync_file() { # sync_file REL
	mkdir -p "$(dirname "$src/$1")"
	cmp -s "$top/$1" "$src/$1" || cp -p "$top/$1" "$src/$1"
}
mkdir -p "$src"
(cd "$top" && find Kbuild kmod uapi -type f \( -name Kbuild -o -name '*.[ch]' \)) |
	while read -r f; do sync_file "$f"; done
# sources removed from the repo go from the copy too
(cd "$src" && find kmod uapi -type f -name '*.[ch]') | while read -r f; do
	[ -e "$top/$f" ] || rm -f "$src/$f"
done
say "building mwin.ko against $(cat "$stage/.kver")"
make -s -C "$tree" M="$src" modules >&2 || { say "building mwin.ko failed"; exit 1; }
cp "$src/mwin.ko" "$base/mwin.ko"
t2=$(date +%s)

# ---- the suite under the debug kernel
mkdir -p "$base/out"
rm -f "$base/out/kmemleak.txt"
# build/debug-kernel/out is shared read-write with the guest (MWIN_VM_OUT)
MWIN_VM_KERNEL_DIR=$stage MWIN_VM_OUT=$base/out \
MWIN_KO=$base/mwin.ko MWIN_DEBUG_OUT=$base/out \
MWIN_TEST_TIMEOUT=${MWIN_TEST_TIMEOUT:-1200} \
	"$here/vm-run" --timeout "${MWIN_CHECK_DEBUG_TIMEOUT:-2400}" --log "$log" -- \
	"$here/debug-guest.sh"
rc=$?
t3=$(date +%s)

read -r pass fail skip < <(bash "$here/../../../selftests/totals.sh" "$log")
if [ "$rc" -ne 0 ] && [ "$fail" -eq 0 ]; then
	echo "not ok - the debug VM run failed with status $rc (see $log)"
	fail=1
fi
say "kernel $((t1 - t0)) s, module $((t2 - t1)) s, VM run $((t3 - t2)) s"
echo "$pass passed, $fail failed, $skip skipped (debug kernel)"
[ "$fail" -eq 0 ] && [ "$rc" -eq 0 ]
