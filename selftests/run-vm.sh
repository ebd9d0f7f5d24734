#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side of `make check`: boot the VM, run selftests/guest-run.sh in it,
# add up the "# Totals:" lines and print "N passed, N failed, N skipped".
# Fails when a test fails, when the guest did not finish, or when the guest
# kernel logged a WARNING, BUG, Oops, lockdep or KASAN report.
#
# Without MWIN_TESTS (which names the binaries to run) this is the whole of
# `make check`: the suite on the first guest kernel (build/vm/kver), then
# again on every other guest kernel (build/vm/kvers: the newest Debian 12
# kernel, 6.12) with the mwin.ko built for it; then the runs that need
# boots of their own (the demo, the module and its peer in two VMs, the
# conformance table with its crash cases, make qualify on rxe and on siw),
# one result each, on the first kernel (the conformance table on every
# one). MWIN_CHECK_KERNELS=first keeps to the first kernel; =KVER runs the
# suite on that kernel alone.
#
# Those runs are on rxe (soft-RoCE). After the suite of each kernel, a
# part of it runs again on siw (soft-iWARP, MWIN_VM_PROVIDER=siw), in a
# boot of its own, log build/vm/check-siw-KVER.log: the binaries
# MWIN_SIW_TESTS names (base names in build/selftests/, or paths), or
# MWIN_TESTS when that is set (MWIN_CHECK_SIW_LOG: another log, for one
# kernel). MWIN_CHECK_PROVIDERS (default "rxe siw") chooses the
# providers; the runs in boots of their own are rxe's, but make qualify's
# second run, on siw.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
log=${MWIN_CHECK_LOG:-$top/build/vm/check.log}
mkdir -p "$top/build/vm"

# MWIN_TESTS as the caller set it: then it names every provider's binaries
user_tests=${MWIN_TESTS:-}
full=0
if [ -z "${MWIN_TESTS:-}" ]; then
	full=1
	# mwin_conformance runs in make conformance's own boot, below.
	MWIN_TESTS=$(ls "$top"/build/selftests/mwin_* | grep -v /mwin_conformance$ |
		     tr '\n' ' ')
	export MWIN_TESTS
fi

# The binaries of the siw runs: the connection tests of the core calls,
# windows, tenants, leases and hostile peers, and the peer library's
# suite (the C and Python examples in it); in make check also the
# conformance cases, whose output is the siw column of the conformance
# table (conformance.sh reads it from this run's log: no boot of its own).
siw_tests=
if [ -n "$user_tests" ]; then
	siw_tests=$user_tests
else
	for t in ${MWIN_SIW_TESTS:-mwin_uapi mwin_window mwin_tenants mwin_leases \
			mwin_hostile mwin_peerlib} \
		 $([ "$full" = 1 ] && echo mwin_conformance); do
		case $t in */*) ;; *) t=$top/build/selftests/$t ;; esac
		siw_tests+="${siw_tests:+ }$t"
	done
fi

# Left out of the rxe suite on every kernel but the first: the CLI's
# suites (userspace, over the ioctls the others make) and the ioctl fuzzer
# (it runs under KASAN in make check-debug too).
later_skip="mwin_fuzz mwin_mwctl mwin_mwctl_leases mwin_mwctl_tenants mwin_mwctl_windows"
# Left out of the first kernel's rxe suite when every kernel runs (make
# check): the suites of injected delays and faults, which make
# check-debug runs on that same kernel (6.1) under KASAN and lockdep, and
# the other kernels run here (README.md, "Two providers").
first_skip="mwin_delays mwin_faults"

# MWIN_CHECK_PROVIDERS: rxe, siw, or both (default)
providers=${MWIN_CHECK_PROVIDERS:-rxe siw}
for p in $providers; do
	case $p in rxe|siw) ;; *)
		echo "run-vm: unknown provider $p in MWIN_CHECK_PROVIDERS (rxe, siw)" >&2
		exit 2 ;;
	esac
done
on() { case " $providers " in *" $1 "*) return 0 ;; esac; return 1; }

first=$(cat "$top/build/vm/kver")
# MWIN_CHECK_KERNELS: all (default), first, or one KVER of build/vm/kvers
only=${MWIN_CHECK_KERNELS:-all}
summary=

# the suite in one boot: suite NAME LOG [VAR=VALUE...] (for vm-run)
suite() {
	local k=$1 klog=$2 p f s r
	shift 2
	env "$@" "$top/tools/testing/vm/vm-run" --timeout "${MWIN_CHECK_TIMEOUT:-1500}" \
		--log "$klog" -- "$top/selftests/guest-run.sh"
	r=$?
	read -r p f s < <(bash "$top/selftests/totals.sh" "$klog")
	if [ "$r" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - the VM run on $k failed with status $r (see $klog)"
		f=1
	fi
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	summary="$summary# $k: $p passed, $f failed, $s skipped (suite)"$'\n'
	[ "$r" -eq 0 ]
}

# the suite on kernel KVER, with the modules built for it, on each provider
# chosen: suite_on KVER [LOG]
suite_on() {
	local k=$1 d=$top/build/vm/k/$1 r=0
	local vars=(MWIN_VM_KERNEL_DIR="$d" MWIN_KO="$d/mwin.ko"
		    MWIN_TEST_KO="$d/mwin-test.ko")
	[ "$k" != "$first" ] || vars=()
	# CI's budget: on the other kernels, not what runs on the first and
	# depends on no kernel of its own (README.md, "Two providers")
	if [ "$k" != "$first" ] && [ -z "$user_tests" ]; then
		vars+=(MWIN_SKIP_TESTS="${MWIN_SKIP_TESTS-$later_skip}")
	elif [ "$only" = all ] && [ -z "$user_tests" ]; then
		vars+=(MWIN_SKIP_TESTS="${MWIN_SKIP_TESTS-$first_skip}")
	fi
	if on rxe; then
		suite "$k" "${2:-$top/build/vm/check-$k.log}" "${vars[@]}" || r=1
	fi
	if on siw; then
		if [ ! -f "$d/siw.ko" ]; then
			echo "not ok - no siw.ko for $k: make vm-modules builds it"
			fail=$((fail + 1))
			summary="$summary# $k siw: not run, no $d/siw.ko"$'\n'
			return 1
		fi
		# key guessing's 255 reconnections: left out on siw
		# (README.md, "Two providers")
		suite "$k siw" "${MWIN_CHECK_SIW_LOG:-$top/build/vm/check-siw-$k.log}" "${vars[@]}" \
			MWIN_VM_PROVIDER=siw MWIN_TESTS="$siw_tests" \
			MWIN_CONF_SKIP="${MWIN_CONF_SKIP-key_guess}" || r=1
	fi
	return "$r"
}

pass=0 fail=0 skip=0
rc=0
case $only in
all|first) suite_on "$first" "$log" || rc=1 ;;
*) grep -qxF "$only" "$top/build/vm/kvers" ||
	{ echo "run-vm: no guest kernel $only (build/vm/kvers)" >&2; exit 2; }
   suite_on "$only" "$log" || rc=1 ;;
esac

if [ "$only" = all ]; then
	for k in $(grep -vxF "$first" "$top/build/vm/kvers" 2>/dev/null); do
		suite_on "$k" || rc=1
	done
fi

# Runs in boots of their own, one result each: run_own NAME COMMAND...
run_own() {
	local name=$1 own_log
	shift
	own_log=$top/build/vm/make-$name.log
	if "$@" > "$own_log" 2>&1; then
		echo "ok - make $name"
		pass=$((pass + 1))
	else
		tail -n 20 "$own_log"
		echo "not ok - make $name (see $own_log)"
		fail=$((fail + 1))
	fi
}

# the runs in boots of their own are rxe's, but qualify's, which runs on
# siw too, and the conformance table's siw column, from the siw runs above
if [ "$full" = 1 ] && on rxe; then
	[ "${MWIN_CHECK_DEMO:-1}" = 1 ] && run_own demo bash "$top/tools/demo.sh"
	run_own two-vm bash "$top/tools/testing/vm/two-vm.sh"
	# region memory on its device's node, in a VM of two NUMA nodes
	run_own numa env MWIN_VM_NUMA=1 MWIN_NUMA=1 \
		MWIN_TESTS="$top/build/selftests/mwin_numa" \
		"$top/tools/testing/vm/vm-run" --timeout 600 \
		--log "$top/build/vm/numa.log" -- "$top/selftests/guest-run.sh"
	# its siw column from the siw runs of the suite above, when they ran
	conf_siw=0
	if on siw; then
		case $only in all|first) conf_siw=from-check ;; *) conf_siw=1 ;; esac
	fi
	run_own conformance env -u MWIN_TESTS MWIN_CONF_SIW=$conf_siw \
		bash "$top/selftests/conformance.sh"
	# the table, as make conformance prints it
	sed -n '/^# mwin window semantics/,$p' "$top/build/vm/make-conformance.log"
	run_own qualify env -u MWIN_TESTS bash "$top/tools/testing/vm/qualify-check.sh"
fi
if [ "$full" = 1 ] && on siw; then
	run_own qualify-siw env -u MWIN_TESTS MWIN_VM_PROVIDER=siw \
		bash "$top/tools/testing/vm/qualify-check.sh"
fi

printf '%s' "$summary"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ] && [ "$rc" -eq 0 ]
