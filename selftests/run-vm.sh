#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side of `make check`: boot the VM, run selftests/guest-run.sh in it,
# add up the "# Totals:" lines and print "N passed, N failed, N skipped".
# Fails when a test fails, when the guest did not finish, or when the guest
# kernel logged a WARNING, BUG, Oops, lockdep or KASAN report.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
log=${MWIN_CHECK_LOG:-$top/build/vm/check.log}
mkdir -p "$top/build/vm"

"$top/tools/testing/vm/vm-run" --timeout "${MWIN_CHECK_TIMEOUT:-1500}" \
	--log "$log" -- "$top/selftests/guest-run.sh"
rc=$?

read -r pass fail skip < <(tr -d '\r' < "$log" | awk '
	/^# Totals:/ {
		for (i = 3; i <= NF; i++) {
			split($i, kv, ":")
			n[kv[1]] += kv[2]
		}
	}
	END { print n["pass"] + 0, n["fail"] + n["error"] + 0, n["skip"] + 0 }')

if [ "$rc" -ne 0 ] && [ "$fail" -eq 0 ]; then
	echo "not ok - the VM run failed with status $rc (see $log)"
	fail=1
fi

# make demo, in its own boot: it checks every step of its transcript.
if [ -z "${MWIN_TESTS:-}" ] && [ "${MWIN_CHECK_DEMO:-1}" = 1 ]; then
	demo_log=$top/build/vm/demo.log
	if bash "$top/tools/demo.sh" > "$demo_log" 2>&1; then
		echo "ok - make demo"
		pass=$((pass + 1))
	else
		tail -n 20 "$demo_log"
		echo "not ok - make demo (see $demo_log)"
		fail=$((fail + 1))
	fi
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ] && [ "$rc" -eq 0 ]
