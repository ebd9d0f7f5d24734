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
#     whose "# conf:" lines selftests/conformance/table.awk turns into the
#     table, build/vm/out/conformance-KVER.{md,csv};
#  3. boots the VM once per crash case (crash_mw local, crash_mw remote)
#     and records what the guest kernel did;
#  4. merges the crash results into the table, prints it, and writes the
#     final build/vm/out/conformance.md.
#
# Exit status: 0 when every mwin result is the expected IB behaviour (or
# the stricter behaviour mwin documents), 1 otherwise or when the main run
# failed. The rdma-core column is measured, never judged.
#
# It does so on every guest kernel (build/vm/kvers; MWIN_CHECK_KERNELS=first
# keeps to the first), writes each kernel's table to conformance-KVER.md,
# and conformance.md is the first kernel's followed by the rows where each
# other kernel's differs.
#
# Then the same binary on siw (soft-iWARP), in a boot of its own, whose
# mwin results are the table's siw column (rdma-core's side is not run
# there: siw has no memory windows).
#
# Environment: MWIN_CONF_LOG (console log of the main run, default
# build/vm/conformance.log, to which -KVER is added; crash boots log to
# ...-KVER-crash-MODE.log beside it), MWIN_CONF_CRASH=0 skips the crash
# boots, MWIN_CONF_TIMEOUT (s, per boot, default 900 for the main run),
# MWIN_CONF_SIW (below).
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
	selftests/conformance/crash_mw.c selftests/conformance/mwcore.c \
	build/lib/libmwinpeer.a build/lib/libmwin.a \
	-lrdmacm -libverbs -lcrypto -lpthread; then
	echo "conformance: cannot build $crash" >&2
	exit 1
fi

# The table on one guest kernel: conformance-KVER.md in $out, with the
# crash cases' results merged in. Prints it; fails when an mwin result is
# not the expected one. table KVER
table() {
	local k=$1 klog=$logbase-$1.log kdir='' main_rc main_secs start
	local mode clog rc secs bug fn rip panic result text md tmp n id line
	local f_n f_case f_exp f_mwin f_core f_siw f_note diffs=0
	local -A crash_res id_of
	[ "$k" = "$first" ] || kdir=$top/build/vm/k/$k

	# ---- 2. the main table: on rxe (the rdma-core side is rxe's), then
	# the mwin side again on siw, in a boot of its own, for its column
	start=$(date +%s)
	MWIN_CHECK_LOG=$klog MWIN_CHECK_TIMEOUT=${MWIN_CONF_TIMEOUT:-900} \
		MWIN_TESTS=$bin MWIN_CHECK_KERNELS=$k MWIN_CHECK_PROVIDERS=rxe \
		bash selftests/run-vm.sh
	main_rc=$?
	main_secs=$(( $(date +%s) - start ))
	siwlog='' siw_note=''
	if [ "$siw" = from-check ]; then
		# make check's siw run of the suite on this kernel ran them
		siwlog=build/vm/check-siw-$k.log
		siw_note="; siw: from make check's siw run, log $siwlog"
		grep -aq '^# conf: ' "$siwlog" 2>/dev/null ||
			{ echo "not ok - no conformance cases in $siwlog"; main_rc=1; }
	elif [ "$siw" = 1 ]; then
		siwlog=$logbase-$k-siw.log
		start=$(date +%s)
		MWIN_CHECK_SIW_LOG=$siwlog MWIN_CHECK_TIMEOUT=${MWIN_CONF_TIMEOUT:-900} \
			MWIN_TESTS=$bin MWIN_CHECK_KERNELS=$k MWIN_CHECK_PROVIDERS=siw \
			bash selftests/run-vm.sh
		siw_rc=$?
		siw_note="; siw run: $(( $(date +%s) - start )) s, status $siw_rc, log $siwlog"
		[ "$siw_rc" = 0 ] || main_rc=$siw_rc
	fi
	md=$out/conformance-$k.md
	rm -f "$md" "$out/conformance-$k.csv"
	awk -v md="$md" -v csv="$out/conformance-$k.csv" -v siw="$siwlog" \
		-f selftests/conformance/table.awk "$klog" ${siwlog:+"$siwlog"}

	# ---- 3. one boot per crash case
	if [ "${MWIN_CONF_CRASH:-1}" != 0 ]; then
		for mode in local remote; do
			clog=$logbase-$k-crash-$mode.log
			start=$(date +%s)
			env ${kdir:+MWIN_VM_KERNEL_DIR=$kdir} \
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
			echo "conformance: $k: crash case $mode: $text"
		done
	fi

	# ---- 4. the kernel's table
	if [ ! -s "$md" ]; then
		echo "not ok - no table on $k: the main run did not finish (status $main_rc, see $klog)"
		return 1
	fi
	tmp=$(mktemp)
	# rows: | n | case | expected | mwin | core | note |; crash rows are
	# matched by the case id in the CSV (column 2)
	while IFS=, read -r n id _; do
		[[ $n =~ ^[0-9]+$ ]] && id_of[$n]=$id
	done < "$out/conformance-$k.csv"
	while IFS= read -r line; do
		if [[ $line =~ ^\|\ ([0-9]+)\ \|\ (.*)$ ]]; then
			n=${BASH_REMATCH[1]}
			id=${id_of[$n]:-}
			f_siw=''
			if [ -n "$siwlog" ]; then
				IFS='|' read -r _ f_n f_case f_exp f_mwin f_core f_siw f_note _ <<<"$line"
			else
				IFS='|' read -r _ f_n f_case f_exp f_mwin f_core f_note _ <<<"$line"
			fi
			if [ -n "$id" ] && [ -n "${crash_res[$id]:-}" ]; then
				f_core=" ${crash_res[$id]} "
			fi
			case $f_mwin in " ! "*|" ? "*) diffs=$((diffs + 1)) ;; esac
			case $f_siw in " ! "*|" ? "*) diffs=$((diffs + 1)) ;; esac
			line="|$f_n|$f_case|$f_exp|$f_mwin|$f_core|${siwlog:+$f_siw|}$f_note|"
		fi
		echo "$line"
	done < "$md" > "$tmp"
	cat "$tmp" > "$md"
	rm -f "$tmp"

	echo
	echo "# mwin window semantics vs. IB memory windows (rxe, $(uname -m), $k)"
	echo "# main run: ${main_secs} s, status $main_rc; log $klog$siw_note"
	cat "$md"
	echo
	if [ "$main_rc" -ne 0 ] || [ "$diffs" -ne 0 ]; then
		echo "conformance: $k: FAILED: $diffs mwin result(s) differ from the expected behaviour (main run status $main_rc)"
		return 1
	fi
	echo "conformance: $k: every mwin result is the expected IB behaviour, mwin's documented stricter one, or a device's named defect (x)"
}

# The rows whose mwin or rdma-core result differs between two kernels'
# tables, leaving out what differs from run to run (timings, key bytes,
# addresses): "| n | case | column | first | second |".
kernel_diffs() {
	# shellcheck disable=SC2016 # awk's fields, not the shell's
	local norm='$2 ~ /^ [0-9]+ $/ {
		for (i = 5; i <= 7; i++) {
			gsub(/ \([0-9.]+ s\)|, [0-9]+ s\)/, ")", $i)
			gsub(/key bytes: [0-9a-f ]+/, "key bytes: ... ", $i)
			# mwin draws its key bytes at random: so is this count
			if (i != 6)
				gsub(/\([0-9] of 8 = previous \+ 1\)/, "(random)", $i)
			gsub(/address: [0-9a-fx]+|\+0x[0-9a-f]+\/0x[0-9a-f]+/, "", $i)
		}
		print $2 "|" $3 "|" $5 "|" $6 "|" $7 }'
	# (without the siw column, $7 is the note: the same on both)
	join -t'|' -j1 <(awk -F'|' "$norm" "$1" | sort) \
		<(awk -F'|' "$norm" "$2" | cut -d'|' -f1,3,4,5 | sort) |
		awk -F'|' '$3 != $6 { print "|" $1 "|" $2 "| mwin |" $3 "|" $6 "|" }
			   $4 != $7 { print "|" $1 "|" $2 "| rdma-core |" $4 "|" $7 "|" }
			   $5 != $8 { print "|" $1 "|" $2 "| mwin (siw) |" $5 "|" $8 "|" }' |
		sort -t'|' -k2,2n
}

# the siw column: its own boot per kernel; MWIN_CONF_SIW=0 leaves it out,
# =from-check takes it from make check's siw runs (run-vm.sh)
siw=${MWIN_CONF_SIW:-1}

# crash mode -> case id in the table
declare -A crash_case=([local]=inv_twice [remote]=sinv_twice)
first=$(cat build/vm/kver)
fail=0
kernels=$first
[ "${MWIN_CHECK_KERNELS:-all}" = first ] ||
	kernels=$(cat build/vm/kvers 2>/dev/null || echo "$first")
for k in $kernels; do
	table "$k" || fail=1
done
# conformance.md: the first kernel's table, then how the others differ
md=$out/conformance.md
cp "$out/conformance-$first.md" "$md" 2>/dev/null || fail=1
for k in $kernels; do
	if [ "$k" = "$first" ] || [ ! -s "$out/conformance-$k.md" ]; then
		continue
	fi
	{
		echo
		echo "Where $k differs from $first (timings, key bytes and addresses aside):"
		echo
		echo "| n | case | column | $first | $k |"
		echo "|---|---|---|---|---|"
		kernel_diffs "$out/conformance-$first.md" "$out/conformance-$k.md"
	} | tee -a "$md"
done
exit "$fail"
