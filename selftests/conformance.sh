#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make conformance`: the window-semantics table of mwin against the IB
# memory-window model and against rdma-core's own memory windows on rxe.
#
#  1. builds selftests/conformance/crash_mw.c (not a suite binary: it
#     oopses rxe 6.1 on purpose) into build/conformance/;
#  2. boots the VM once for build/selftests/mwin_conformance (via
#     selftests/run-vm.sh: module loaded, the binary run, module unloaded),
#     which writes build/vm/out/conformance.{md,csv};
#  3. boots the VM once per crash case (crash_mw local, crash_mw remote)
#     and records what the guest kernel did;
#  4. merges the crash results into the table, prints it, and writes the
#     final build/vm/out/conformance.md.
#
# Exit status: 0 when every mwin result is the expected IB behaviour (or
# the stricter behaviour mwin documents), 1 otherwise or when the main run
# failed. The rdma-core column is measured, never judged.
#
# Environment: MWIN_CONF_LOG (console log of the main run, default
# build/vm/conformance.log; crash boots log to ...-crash-MODE.log beside
# it), MWIN_CONF_CRASH=0 skips the crash boots, MWIN_CONF_TIMEOUT (s, per
# boot, default 900 for the main run).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
out=build/vm/out
log=${MWIN_CONF_LOG:-$top/build/vm/conformance.log}
logbase=${log%.log}
mkdir -p "$out" build/conformance "$(dirname "$log")"

bin=build/selftests/mwin_conformance
if [ ! -x "$bin" ]; then
	echo "conformance: $bin is missing: run make selftests" >&2
	exit 1
fi

# ---- 1. the crash-case program
crash=build/conformance/crash_mw
if ! ${CC:-cc} -O2 -g -Wall -Werror -Iuapi -Itools/lib -o "$crash" \
	selftests/conformance/crash_mw.c tools/lib/mwpeer.c tools/lib/libmwin.c \
	-lrdmacm -libverbs -lcrypto -lpthread; then
	echo "conformance: cannot build $crash" >&2
	exit 1
fi

# ---- 2. the main table
rm -f "$out/conformance.md" "$out/conformance.csv"
start=$(date +%s)
MWIN_CHECK_LOG=$log MWIN_CHECK_TIMEOUT=${MWIN_CONF_TIMEOUT:-900} \
	MWIN_TESTS=$bin MWIN_CHECK_KERNELS=first bash selftests/run-vm.sh
main_rc=$?
main_secs=$(( $(date +%s) - start ))

# ---- 3. one boot per crash case
# crash mode -> case id in the table
declare -A crash_case=([local]=inv_twice [remote]=sinv_twice)
declare -A crash_res
if [ "${MWIN_CONF_CRASH:-1}" != 0 ]; then
	for mode in local remote; do
		clog=$logbase-crash-$mode.log
		start=$(date +%s)
		tools/testing/vm/vm-run --timeout 300 --log "$clog" -- \
			"$crash" "$mode" > /dev/null 2>&1
		rc=$?
		secs=$(( $(date +%s) - start ))
		bug=$(grep -a -m1 -o 'BUG: [^[]*' "$clog" | sed 's/ *$//')
		fn=$(grep -a -A12 'Call Trace:' "$clog" | grep -a -m1 -o 'rxe_[a-z_]*' || true)
		rip=$(grep -a -m1 -o 'RIP: 0010:[^ ]*' "$clog" | sed 's/RIP: 0010://')
		panic=$(grep -a -m1 -o 'Kernel panic - not syncing: .*' "$clog" | tr -d '\r')
		result=$(grep -a -m1 'crash_mw: RESULT' "$clog" | sed 's/.*RESULT //')
		if [ -n "$bug" ]; then
			text="OOPS: $bug at $rip from $fn"
			[ -z "$panic" ] || text+="; ${panic#Kernel panic - not syncing: } -> panic"
		elif [ -n "$result" ] && [ "$rc" = 0 ]; then
			text="no oops: $result"
		else
			text="boot ended with status $rc, no oops seen (see $clog)"
		fi
		crash_res[${crash_case[$mode]}]="$text (own boot, ${secs} s)"
		echo "conformance: crash case $mode: $text"
	done
fi

# ---- 4. the final table
md=$out/conformance.md
if [ ! -s "$md" ]; then
	echo "not ok - no table: the main run did not finish (status $main_rc, see $log)"
	exit 1
fi
tmp=$(mktemp)
# rows: | n | case | expected | mwin | core | note |; crash rows are matched
# by the case id in the CSV (column 2)
declare -A id_of
while IFS=, read -r n id _; do
	[[ $n =~ ^[0-9]+$ ]] && id_of[$n]=$id
done < "$out/conformance.csv"
diffs=0
while IFS= read -r line; do
	if [[ $line =~ ^\|\ ([0-9]+)\ \|\ (.*)$ ]]; then
		n=${BASH_REMATCH[1]}
		id=${id_of[$n]:-}
		IFS='|' read -r _ f_n f_case f_exp f_mwin f_core f_note _ <<<"$line"
		if [ -n "$id" ] && [ -n "${crash_res[$id]:-}" ]; then
			f_core=" ${crash_res[$id]} "
		fi
		case $f_mwin in " ! "*|" ? "*) diffs=$((diffs + 1)) ;; esac
		line="|$f_n|$f_case|$f_exp|$f_mwin|$f_core|$f_note|"
	fi
	echo "$line"
done < "$md" > "$tmp"
cat "$tmp" > "$md"
rm -f "$tmp"

echo
echo "# mwin window semantics vs. IB memory windows (rxe, $(uname -m))"
echo "# main run: ${main_secs} s, status $main_rc; log $log"
cat "$md"
echo
if [ "$main_rc" -ne 0 ] || [ "$diffs" -ne 0 ]; then
	echo "conformance: FAILED: $diffs mwin result(s) differ from the expected behaviour (main run status $main_rc)"
	exit 1
fi
echo "conformance: every mwin result is the expected IB behaviour or mwin's documented stricter one"
