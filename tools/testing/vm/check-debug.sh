#!/bin/bash
# check-debug.sh: `make check-debug`.  Builds (or reuses) the debug guest
# kernel (debug-kernel.sh: KASAN, lockdep, kmemleak, ...), builds mwin.ko
# against it from a copy of the module's sources (build/debug-kernel/src,
# so the repo's own objects are untouched), boots it with vm-run and runs
# a part of the suite plus a kmemleak scan (debug-guest.sh).  Adds up the
# "# Totals:" lines like selftests/run-vm.sh and prints
# "N passed, N failed, N skipped".  Fails on a failed test, a leak, or any
# kernel report in the guest's dmesg (vm-run's checks).
#
# Log: build/debug-kernel/check.log; kmemleak's raw report, if any, in
# build/debug-kernel/out/kmemleak.txt.
#   MWIN_CHECK_DEBUG_TIMEOUT  seconds for the VM run (default 2400; the
#                             suites take 13 to 25 min)
#   MWIN_TEST_TIMEOUT         seconds per test binary (default here 1200)
#   MWIN_TESTS                the test binaries (default here the
#                             suites of the module's failure, race,
#                             teardown and hostile paths, which need this
#                             kernel's checkers most: debug_tests below;
#                             make check runs the others; see
#                             tools/testing/vm/README.md)
#   MWIN_SKIP_TESTS           binaries left out of those
#   MWIN_MODULE_PARAMS        mwin.ko's parameters at every load (default
#                             here revoke_timeout_ms=1000
#                             auth_timeout_ms=30000: RDMA under this
#                             kernel is about 30 times slower, and an honest
#                             peer's revoke or handshake under the suite's
#                             load must not be taken for a stalled one; the
#                             tests of those bounds set their own)
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../../.." && pwd)
base=$top/build/debug-kernel
log=$base/check.log

say() { echo "check-debug: $*" >&2; }
t0=$(date +%s)

# ---- kernel
{ read -r tree && read -r stage; } < <(bash "$here/debug-kernel.sh") || {
	say "building the debug kernel failed"
	exit 1
}
[ -n "${stage:-}" ] && [ -s "$stage/.kver" ] || { say "no debug kernel"; exit 1; }
t1=$(date +%s)

# ---- the module and its test build, from copies of its sources
say "building mwin.ko and mwin-test.ko against $(cat "$stage/.kver")"
if ! bash "$here/build-modules.sh" "$tree" "$base" >&2; then
	say "building mwin.ko failed"
	exit 1
fi
t2=$(date +%s)

# ---- the suites under the debug kernel: fault injection (only here),
# injected delays, faults under load, unload and device removal, hostile
# peers, user memory, races and the ioctl fuzzer. The others' module paths
# are theirs too; they run in make check, on both kernels, rxe and siw.
debug_tests=
for t in mwin_fail_nth mwin_delays mwin_faults mwin_lifecycle mwin_hostile \
	 mwin_usermem mwin_races mwin_fuzz; do
	debug_tests="$debug_tests $top/build/selftests/$t"
done
mkdir -p "$base/out"
rm -f "$base/out/kmemleak.txt"
# build/debug-kernel/out is shared read-write with the guest (MWIN_VM_OUT)
MWIN_VM_KERNEL_DIR=$stage MWIN_VM_OUT=$base/out \
MWIN_KO=$base/mwin.ko MWIN_TEST_KO=$base/mwin-test.ko MWIN_DEBUG_OUT=$base/out \
MWIN_TEST_TIMEOUT=${MWIN_TEST_TIMEOUT:-1200} \
MWIN_TESTS=${MWIN_TESTS:-$debug_tests} \
MWIN_MODULE_PARAMS=${MWIN_MODULE_PARAMS-revoke_timeout_ms=1000 auth_timeout_ms=30000} \
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
