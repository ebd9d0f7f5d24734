#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check's run of tools/qualify.sh, so that it does not rot: one boot
# of the test VM (rxe0 on eth0, 10.0.2.15; siw0 with MWIN_VM_PROVIDER=siw,
# whose report must name iWARP), in which (--guest)
#  1. with mwin loaded (max_windows=4321), qualify.sh without -f must exit
#     2, write no report and leave the module loaded with its parameters;
#  2. with a live QP on the device (ibv_rc_pingpong waiting for its partner),
#     the same, and load nothing;
#  3. qualify.sh --quick --module build/vm/mwin.ko must exit 0 and unload
#     what it loaded.
# Then the host checks the report of 3 (qualify/qualify.md in build/vm/out
# or $MWIN_VM_OUT): every section, every case passed, the conformance
# table filled in. Console: build/vm/qualify.log (qualify-siw.log, and
# qualify-siw/ for the report, on siw). MWIN_QUALIFY_TIMEOUT
# bounds the boot (default 480 s); 2 to 2.5 minutes on 2 cores, about 4.5
# with two other VMs running.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$top" || exit 1
# the guest writes only to vm-run's shared directory; --guest is told it.
# On siw (MWIN_VM_PROVIDER=siw; the guest's MWIN_PROVIDER) the report and
# console log are qualify-siw's.
name=qualify
[ "${MWIN_VM_PROVIDER:-${MWIN_PROVIDER:-rxe}}" = rxe ] || name=qualify-siw
out=${2:-${MWIN_VM_OUT:-build/vm/out}}/$name
ko=build/vm/mwin.ko
fails=0

check() {	# check NAME COMMAND...: one TAP line
	local n=$1
	shift
	if "$@"; then echo "ok - $n"; else echo "not ok - $n"; fails=$((fails + 1)); fi
}

# ------------------------------------------------------------ guest half
if [ "${1:-}" = --guest ]; then
	params() { grep -H . /sys/module/mwin/parameters/* 2>/dev/null; }
	insmod "$ko" max_windows=4321 || exit 1
	before=$(params)
	tools/qualify.sh --module "$ko" -o "$out/refused.md" 2> "$out/refused.err"
	check "refused while mwin is loaded (status $?)" [ $? = 2 ]
	check "the reason given" grep -q "mwin is already loaded" "$out/refused.err"
	check "mwin still loaded with its parameters" [ "${before:-none}" = "$(params)" ]
	check "no report written" [ ! -e "$out/refused.md" ]
	rmmod mwin

	# rxe's IPv4 GID is index 1; siw has one GID, index 0
	gid=1
	[ "${MWIN_PROVIDER:-rxe}" = rxe ] || gid=0
	ibv_rc_pingpong -d "${MWIN_DEV:-rxe0}" -g "$gid" > /dev/null 2>&1 &
	pp=$!
	for _ in $(seq 100); do
		rdma resource show qp | grep -q 'comm ibv_rc_pingpong' && break
		sleep 0.1
	done
	tools/qualify.sh --module "$ko" -o "$out/refused.md" 2> "$out/refused.err"
	check "refused with a live QP on ${MWIN_DEV:-rxe0} (status $?)" [ $? = 2 ]
	check "the reason given" grep -q "live RDMA traffic" "$out/refused.err"
	check "nothing loaded" [ ! -d /sys/module/mwin ]
	kill "$pp"
	wait "$pp" 2> /dev/null

	# and the conformance case of key guessing (README.md, "Two providers")
	[ "$name" = qualify ] || export MWIN_CONF_SKIP=${MWIN_CONF_SKIP-key_guess}
	tools/qualify.sh --quick --module "$ko" -o "$out/qualify.md"
	check "qualify.sh --quick passed (status $?)" [ $? = 0 ]
	check "mwin unloaded after it" [ ! -d /sys/module/mwin ]
	exit "$fails"
fi

# ------------------------------------------------------------- host half
t0=$(date +%s)
make -s -C "$top" "$top/build/tools/mwbench" || exit 1
rm -rf "$out"
mkdir -p "$out"
log=build/vm/$name.log
MWIN_VM_NAME=$name tools/testing/vm/vm-run --timeout "${MWIN_QUALIFY_TIMEOUT:-480}" \
	--log "$log" -- tools/testing/vm/qualify-check.sh --guest "${out%/"$name"}" > /dev/null 2>&1
rc=$?
tr -d '\r' < "$log" | grep -E '^(not )?ok - |^qualify: '
check "the VM run (status $rc, see $log)" [ "$rc" = 0 ]

r=$out/qualify.md
for s in "## System" "## Device" "## Cases" "## Conformance" "## Benchmark" "## Kernel log"; do
	check "report: $s" grep -qxF "$s" "$r"
done
check "report: Result PASS" grep -q '^Result: \*\*PASS\*\*' "$r"
for c in load peer window races keys conformance bench unload; do
	check "report: case $c passed" grep -qE "^\| $c \| .* \| pass \| [1-9]" "$r"
done
check "report: no failed case" bash -c "! grep -qE '^\| [a-z]+ \| [^|]* \| fail \|' '$r'"
check "report: the conformance table" test "$(grep -cE '^\| [0-9]+ \| ' "$r")" -gt 20
check "report: batch and data path figures" grep -q '^64 B  *READ' "$r"
# the control path against the baselines that tell the peer (issue 35)
check "report: the control path's ratios" grep -q '^Ratios within each round' "$r"
check "report: the told baselines" grep -q '^Told baselines' "$r"
# (siw has no memory windows: its told table has the MR's column alone)
[ "${MWIN_VM_PROVIDER:-rxe}" != rxe ] ||
	check "report: the loud rebind's verdict" grep -qE '^ +loud rebind / userspace MW rebind, told, every size +<= 1.2x +[0-9.]+x' "$r"
# the guest's device: rxe0, or siw0 with MWIN_VM_PROVIDER=siw
check "report: the device" grep -q "^| device | ${MWIN_VM_PROVIDER:-rxe}0, port 1 |" "$r"
transport=RoCE
[ "${MWIN_VM_PROVIDER:-rxe}" = rxe ] || transport=iWARP
check "report: the transport, $transport" grep -qxF "| transport | $transport |" "$r"
defect="none known"
[ "${MWIN_VM_PROVIDER:-rxe}" = rxe ] ||
	defect="a READ of <= 32 bytes across pages returns bytes outside its window (siw_try_1seg())"
check "report: the device's known defect: $defect" grep -qxF "| known defect | $defect |" "$r"
echo "qualify-check: $fails failed, $(( $(date +%s) - t0 )) s; report $r"
[ "$fails" = 0 ]
