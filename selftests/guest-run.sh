#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the VM (see selftests/run-vm.sh): load mwin.ko, run every
# selftest binary, unload, and check that unloading left nothing behind.
# Each binary prints TAP and a "# Totals:" line; this script prints one more
# for its own checks, so the host can add them all up.
set -u
cd "$(dirname "$0")/.."

ko=${MWIN_KO:-$PWD/build/vm/mwin.ko}
# the module's test build, for selftests/mwin_delays.c
MWIN_TEST_KO=${MWIN_TEST_KO:-$PWD/build/vm/mwin-test.ko}
export MWIN_TEST_KO
tests=${MWIN_TESTS:-$(ls build/selftests/mwin_* 2>/dev/null)}
# MWIN_SKIP_TESTS: binaries (base names) this run leaves out
kept=
for t in $tests; do
	case " ${MWIN_SKIP_TESTS:-} " in *" $(basename "$t") "*) continue ;; esac
	kept+=" $t"
done
tests=$kept
out=$(mktemp -d)
pass=0
fail=0

check() {	# check NAME COMMAND...: one TAP line of our own
	local name=$1
	shift
	if "$@"; then
		echo "ok - $name"; pass=$((pass + 1))
	else
		echo "not ok - $name"; fail=$((fail + 1))
	fi
}

MWIN_TEST_HOST=$(ip -4 -o addr show dev eth0 | awk '{ split($4, a, "/"); print a[1]; exit }')
export MWIN_TEST_HOST MWIN_KO=$ko

# The suite's peers are anonymous (wire version 2), which the module
# refuses by default: admit them, at this load and every reload.
MWIN_MODULE_PARAMS="anonymous=1${MWIN_MODULE_PARAMS:+ $MWIN_MODULE_PARAMS}"
export MWIN_MODULE_PARAMS

slab_before=$(awk '/^Slab:/ { print $2 }' /proc/meminfo)
# shellcheck disable=SC2086 # MWIN_MODULE_PARAMS: words, as insmod takes them
check "insmod mwin.ko" insmod "$ko" ${MWIN_MODULE_PARAMS:-}
[ -e /dev/mwin ] || udevadm settle 2>/dev/null || sleep 1

for t in $tests; do
	name=$(basename "$t")
	echo "# ---- $name"
	klog=$(dmesg | wc -l)
	started=$(date +%s)
	timeout "${MWIN_TEST_TIMEOUT:-600}" "$t" 2>&1 | tee "$out/$name.log"
	status=${PIPESTATUS[0]}
	# what each binary costs, for the time budget (tools/testing/vm/README.md)
	echo "# ---- $name: $(($(date +%s) - started)) s"
	if ! grep -q '^# Totals:' "$out/$name.log"; then
		echo "not ok - $name exited with status $status before its totals"
		fail=$((fail + 1))
	fi
	# a failure's story is often in the kernel log: show what it said
	if [ "$status" -ne 0 ]; then
		dmesg | tail -n +"$((klog + 1))" | grep -E 'mwin|rxe|siw|infiniband' |
			tail -n 40 | sed 's/^/# dmesg: /'
	fi
done

check "rmmod mwin" rmmod mwin
check "no /dev/mwin after unload" test ! -e /dev/mwin
check "no mwin in /proc/modules" sh -c '! grep -q "^mwin " /proc/modules'
check "no mwin slab caches left" sh -c '! grep -q "^mwin" /proc/slabinfo'
slab_after=$(awk '/^Slab:/ { print $2 }' /proc/meminfo)
echo "# slab: ${slab_before} kB before load, ${slab_after} kB after unload"
echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
rm -rf "$out"
[ "$fail" -eq 0 ]
