#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# qualify.sh: qualify mwin on this host's RDMA device in one run (make
# qualify; Documentation/qualify.rst). Loads mwin.ko, runs a peer process of
# its own, the revocation tests, the conformance table and a short benchmark
# on one device, writes one Markdown report and unloads what it loaded.
# Exit status: 0 every case passed (skips allowed), 1 a case failed, 2
# refused or usage error, with nothing changed.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
bin=$top/build
sys=/sys/class/infiniband
# Our own RDMA CM port, not a user's mwin's (18520): the first free one
# from here. Every case reaches it through MWIN_PORT (mwpeer_default_port()).
first_port=18521

usage() {	# usage [STATUS]: to stdout for -h, else to stderr
	local fd=2
	[ "${1:-2}" != 0 ] || fd=1
	cat >&"$fd" <<EOF
usage: qualify.sh [-d DEV] [-o FILE] [-f] [--module PATH] [--port N] [--quick]
  -d DEV         RDMA device (default: the first with an ACTIVE port)
  -o FILE        the report (default: build/qualify/report-HOST-DATE.md)
  -f             run although mwin is loaded or DEV carries QPs
  --module PATH  mwin.ko to load (default: the one make built, ./mwin.ko)
  --port N       the module's RDMA CM port (default: the first free from $first_port)
  --quick        shorter races and benchmark (the VM check)
  --skip CASE    leave a case out (window, races, keys, conformance,
                 bench), named in the report; again for another
EOF
	exit "${1:-2}"
}
refuse() { echo "qualify: refusing: $*" >&2; exit 2; }
say() { echo "qualify: $*" >&2; }
# Does an RDMA CM listener hold port $1?
listening() {
	rdma resource show cm_id 2>/dev/null |
		grep -qE "state LISTEN .*src-addr [^ ]*:$1( |$)"
}

dev='' out='' force=0 module=$top/mwin.ko port='' quick=0 skip=' '
while [ $# -gt 0 ]; do
	case $1 in -d|-o|--module|--port|--skip) [ $# -gt 1 ] || usage ;; esac
	case $1 in
	-d) dev=$2; shift ;;
	-o) out=$2; shift ;;
	-f) force=1 ;;
	--module) module=$2; shift ;;
	--port) port=$2; shift ;;
	--quick) quick=1 ;;
	--skip)
		case $2 in window|races|keys|conformance|bench) ;; *) usage ;; esac
		skip+="$2 "; shift ;;
	-h|--help) usage 0 ;;
	*) echo "qualify: unknown option $1" >&2; usage ;;
	esac
	shift
done
[ -z "$port" ] || { [[ $port =~ ^[1-9][0-9]{0,4}$ ]] && [ "$port" -lt 65536 ]; } || usage

# ---- preflight: every check comes before anything changes, so that a
# refusal leaves the host as it was.
[ "$(id -u)" = 0 ] || refuse "run as root (it loads a module): sudo make qualify"
for b in tools/mwctl tools/mwpeer selftests/mwin_window selftests/mwin_races \
	 selftests/mwin_keys selftests/mwin_conformance; do
	[ -x "$bin/$b" ] || refuse "no build/$b: run make tools selftests"
done

# the device, given or the first with an ACTIVE port, and that port
ibport=
for d in ${dev:-$(ls "$sys" 2>/dev/null)}; do
	for p in "$sys/$d"/ports/*; do
		grep -qs ACTIVE "$p/state" && { dev=$d ibport=${p##*/}; break 2; }
	done
done
[ -n "$ibport" ] || refuse "no RDMA device${dev:+ $dev} with an ACTIVE port (rdma link show)"

# Its netdev (RoCE: the GID's; InfiniBand: IPoIB) and IPv4 address: RDMA CM
# peers on this host reach the module there (127.0.0.1 has no RDMA device).
netdev=$(rdma link show "$dev/$ibport" 2>/dev/null | sed -n 's/.* netdev \([^ ]*\).*/\1/p')
[ -n "$netdev" ] || netdev=$(cat "$sys/$dev/ports/$ibport/gid_attrs/ndevs/0" 2>/dev/null)
[ -n "$netdev" ] || netdev=$(find "$sys/$dev/device/net/" -mindepth 1 -maxdepth 1 -printf '%f\n' 2>/dev/null | head -n 1)
addr=$(ip -4 -o addr show dev "$netdev" 2>/dev/null | awk '{ sub("/.*", "", $4); print $4; exit }')
[ -n "$addr" ] || refuse "$dev/$ibport has no netdev with an IPv4 address (netdev: ${netdev:-none})"

# A loaded mwin has someone's windows and peers: with -f it is qualified as
# it is (its port too) and left loaded.
notes=()
if [ -d /sys/module/mwin ]; then
	[ "$force" = 1 ] || refuse "mwin is already loaded (its windows and peers may be live): unload it, or -f to qualify it as it is"
	port=$(cat /sys/module/mwin/parameters/port) module="(loaded before the run)"
	notes+=("mwin was loaded before the run (-f): used as it was, not unloaded")
else
	[ -r "$module" ] || refuse "no $module: run make, or give --module PATH"
	kv=$(modinfo -F vermagic "$module" 2>/dev/null | awk '{ print $1 }')
	[ "$kv" = "$(uname -r)" ] || refuse "$module is for kernel '${kv:-?}', this is $(uname -r) (make KDIR=...)"
fi

# Live RDMA traffic: QPs on DEV other than its own QP0 and QP1 (iWARP
# has neither: every QP counts there). And mwin could not listen on a
# port another RDMA CM listener holds.
if rdma resource show qp > /dev/null 2>&1; then
	own=1
	case $(cat "$sys/$dev/node_type" 2>/dev/null) in 4:*) own=-1 ;; esac
	qps=$(rdma resource show qp | awk -v d="$dev/" -v own="$own" \
		'index($2, d) == 1 && $3 == "lqpn" && $4 > own')
	if [ -n "$qps" ]; then
		[ "$force" = 1 ] || refuse "$dev carries live RDMA traffic (-f to run anyway):"$'\n'"$(head -n 10 <<<"$qps")"
		notes+=("forced (-f) past $(wc -l <<<"$qps") live QP(s) on $dev")
	fi
	if [ -z "$port" ]; then
		port=$first_port
		while listening "$port"; do port=$((port + 1)); done
	fi
	[ -d /sys/module/mwin ] || ! listening "$port" ||
		refuse "RDMA CM port $port has a listener already (rdma resource show cm_id): --port N"
else
	notes+=("no iproute2 rdma tool with resource tracking: live QPs and listeners not checked")
fi
port=${port:-$first_port}
export MWIN_PORT=$port

host=$(hostname -s 2>/dev/null || hostname)
out=${out:-$bin/qualify/report-$host-$(date +%Y%m%d-%H%M%S).md}
mkdir -p "$(dirname "$out")" || refuse "cannot create the directory of $out"
out=$(cd "$(dirname "$out")" && pwd)/${out##*/}

# ---- from here on the host changes; the trap undoes it
logs=${out%.md}.logs
rm -rf "$logs" && mkdir -p "$logs" || exit 1
work=$(mktemp -d)
loaded=0 peer_pid='' anon=/sys/module/mwin/parameters/anonymous anon_was=''
cleanup() {
	[ -z "$peer_pid" ] || kill "$peer_pid" 2> /dev/null
	[ -z "$anon_was" ] || echo "$anon_was" > "$anon"
	[ "$loaded" = 0 ] || [ ! -d /sys/module/mwin ] || rmmod mwin
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
klog0=$(dmesg | wc -l)
t_start=$(date +%s)
rows='' npass=0 nfail=0 nskip=0
declare -A desc=(
	[load]="insmod; /dev/mwin; $dev in mwctl dev show"
	[peer]="an mwpeer process on port $port: grant, WRITE, READ, revoke, old rkey dead"
	[window]="mwin_window: rights, invalidate, rebind, destroy, Send-with-Invalidate"
	[races]="mwin_races: revokes racing READ/WRITE/atomics"
	[keys]="mwin_keys: key bytes unpredictable, none reused by an MR"
	[conformance]="mwin_conformance: window semantics against IB MWs"
	[bench]="mwbench --only ctl,batch,data: control path against the anchors, batches, data path"
	[unload]="rmmod; no /dev/mwin left")

# record CASE START RC [NOTE]: its row, from the "# Totals:" lines of its log
record() {
	local c=$1 rc=$3 note=${4:-} res=pass p=0 f=0 s=0
	if [ -f "$logs/$c.log" ]; then
		# (a here-string: a host without /dev/fd, like the VM, has no <(...))
		read -r p f s <<<"$(bash "$top/selftests/totals.sh" "$logs/$c.log")"
		grep -q '^# Totals:' "$logs/$c.log" || { note+="no totals "; f=$((f + 1)); }
	fi
	[ "$rc" = 0 ] || { note+="status $rc "; [ "$f" -gt 0 ] || f=1; }
	if [ "$f" -gt 0 ]; then res=fail nfail=$((nfail + 1))
	elif [ "$p" = 0 ]; then res=skip nskip=$((nskip + 1))
	else npass=$((npass + 1)); fi
	rows+="| $c | ${desc[$c]} | $res | $p | $f | $s | $(( $(date +%s) - $2 )) s | $note |"$'\n'
}
run_case() {	# run_case CASE SECONDS COMMAND...: in $work, bounded
	local c=$1 t0 limit=$2
	shift 2
	say "case $c"
	t0=$(date +%s)
	(cd "$work" && timeout "$limit" "$@") > "$logs/$c.log" 2>&1
	record "$c" "$t0" $?
}
totals() {	# totals: a "# Totals:" line for the status of the last command
	local r=$?
	echo "# Totals: pass:$((r == 0)) fail:$((r != 0)) xfail:0 xpass:0 skip:0 error:0"
}
tap() {	# tap NAME COMMAND...: one TAP line
	local n=$1
	shift
	if "$@"; then echo "ok - $n"; tp=$((tp + 1)); else echo "not ok - $n"; tf=$((tf + 1)); fi
}
jget() { sed -n "s/.*\"$1\":\"\{0,1\}\([^\",}]*\).*/\1/p" <<<"$2"; }
pq() {	# pq LINE STATUS|!STATUS: a command to the peer; true when it
	local line=	# answers (ANSWER) with STATUS, or with another than !STATUS
	ANSWER=
	echo "$1" >&"$pin" || return 1
	while [ -z "$ANSWER" ] && IFS= read -r -t 20 line <&"$pout"; do
		echo "peer< $line"
		case $line in *'"cmd":'*) ANSWER=$line ;; esac
	done
	line=$(jget status "$ANSWER")
	[ -n "$ANSWER" ] && if [ "${2#!}" = "$2" ]; then [ "$line" = "$2" ]; else [ "$line" != "${2#!}" ]; fi
}
# A peer in a process of its own on our port, as a user's would be.
case_peer() {
	local line='' p r w rkey ANSWER='' tp=0 tf=0 mwctl=$bin/tools/mwctl
	coproc PEER { exec "$bin/tools/mwpeer" -p "$port" -d "$dev" -t 5000 "$addr" 2>&1; }
	# shellcheck disable=SC2153 # PEER_PID: set by coproc
	peer_pid=$PEER_PID
	[ -n "${PEER[1]:-}" ] || { echo "not ok - mwpeer exited at once"; return; }
	exec {pout}<&"${PEER[0]}" {pin}>&"${PEER[1]}"
	trap '' PIPE	# a peer that died must not take this shell with it
	IFS= read -r -t 20 line <&"$pout"
	echo "peer< $line"
	p=$(jget peer "$line")
	tap "peer connects to $addr:$port" test -n "$p"
	r=$(jget id "$("$mwctl" -j region create size 64K)")
	w=$("$mwctl" -j window create region "$r" peer "$p" len 8K access rw)
	echo "$w"
	rkey=$(jget rkey "$w") w=$(jget id "$w")
	tap "window created" test -n "$rkey"
	tap "grant reaches the peer" pq "wait grant 10000" success
	tap "WRITE through the window" pq "write $rkey 0 71756166" success
	# shellcheck disable=SC2016 # expanded by eval, in tap
	tap "READ returns it" eval 'pq "read $rkey 0 4" success && [ "$(jget data "$ANSWER")" = 71756166 ]'
	tap "invalidate" "$mwctl" window invalidate "$w"
	tap "revoke reaches the peer" pq "wait revoke 10000" success
	tap "READ through the revoked rkey fails" pq "read $rkey 0 4" '!success'
	"$mwctl" region destroy "$r" force
	echo quit >&"$pin"
	for _ in $(seq 50); do kill -0 "$peer_pid" 2> /dev/null || break; sleep 0.1; done
	kill "$peer_pid" 2> /dev/null
	wait "$peer_pid"
	peer_pid=
	exec {pin}>&- {pout}<&-
	trap - PIPE
	echo "# Totals: pass:$tp fail:$tf xfail:0 xpass:0 skip:0 error:0"
}

# ---- the cases
# The suite's peers, mwbench's and mwpeer without --tenant are anonymous,
# which mwin admits only with its "anonymous" parameter set (a module
# without that parameter ignores it). A module loaded before: for the run.
t0=$(date +%s)
pre=$([ -d /sys/module/mwin ] && echo "loaded before the run")
[ -n "$pre" ] || { insmod "$module" port="$port" anonymous=1 > "$logs/load.log" 2>&1 && loaded=1; }
if [ -n "$pre" ] && [ "$(cat "$anon" 2>/dev/null)" = N ]; then
	echo Y > "$anon" && anon_was=N
	notes+=("anonymous peers admitted during the run (anonymous=Y), N again after it")
fi
for _ in $(seq 50); do [ -e /dev/mwin ] && break; sleep 0.1; done
"$bin/tools/mwctl" -d dev show > "$logs/dev.txt" 2>&1
grep -q "^dev $dev " "$logs/dev.txt"
totals >> "$logs/load.log"
record load "$t0" 0 "$pre"
params=$(grep -H . /sys/module/mwin/parameters/* 2>/dev/null | sed 's|.*/||; s/:/=/' | tr '\n' ' ')

if [ -e /dev/mwin ]; then
	say "case peer"
	t0=$(date +%s)
	case_peer > "$logs/peer.log" 2>&1
	record peer "$t0" 0
	export MWIN_TEST_HOST=$addr
	bench_quick=()
	# quick: windows up to 16 MiB, in a VM of 2 GiB
	[ "$quick" = 0 ] || { export MWIN_RACES_SECONDS=${MWIN_RACES_SECONDS:-5}; bench_quick=(--quick --trials 3 --max-size 16M); }
	for c in window races keys conformance bench; do
		if [ "${skip#* "$c" }" != "$skip" ]; then
			record "$c" "$(date +%s)" 0 "left out (--skip)"
		elif [ "$c" != bench ]; then
			run_case "$c" 900 "$bin/selftests/mwin_$c"
		elif [ -x "$bin/tools/mwbench" ]; then
			# prints no TAP: its exit status is the result
			run_case bench 600 sh -c '"$@" && echo "# Totals: pass:1"' - \
				"$bin/tools/mwbench" --out "$logs/bench" --host "$addr" \
				--dev "$dev" --only ctl,batch,data "${bench_quick[@]}"
		else
			record bench "$(date +%s)" 0 "no build/tools/mwbench (make qualify builds it)"
		fi
	done
	# the table from mwin_conformance's "# conf:" lines
	awk -v md="$logs/conformance.md" -v csv="$logs/conformance.csv" \
		-f "$top/selftests/conformance/table.awk" "$logs/conformance.log"
fi
if [ "$loaded" = 1 ]; then
	t0=$(date +%s)
	rmmod mwin > "$logs/unload.log" 2>&1 && sleep 0.5 && [ ! -e /dev/mwin ] &&
		! grep -q '^mwin ' /proc/modules
	totals >> "$logs/unload.log"
	record unload "$t0" 0
fi

# the driver: the bus device's, or a software device on a netdev (rxe, siw)
drv=$(basename "$(readlink -f "$sys/$dev/device/driver")" 2>/dev/null)
# the device's transport, as mwin's log line names it (kmod/provider.c)
transport() {
	case $(f "$sys/$dev/node_type") in
	4:*) echo iWARP ;;
	*) [ "$(f "$p/link_layer")" = Ethernet ] && echo RoCE || echo InfiniBand ;;
	esac
}
[ -e "$sys/$dev/device/driver" ] ||
	drv="software, on ${netdev:-$(cat "$sys/$dev/parent" 2>/dev/null)} ($(awk '/^(rdma_rxe|siw) / { printf "%s", $1 }' /proc/modules) loaded)"
dmesg | tail -n +"$((klog0 + 1))" | grep -E "mwin|$dev|rxe|siw|mlx5|infiniband|rdma|ib_" |
	tail -n 200 > "$logs/dmesg.txt"
# what the device does that mwin cannot mend, as mwin logged it (provider.c)
defect=$(dmesg | tail -n +"$((klog0 + 1))" |
	sed -n "s/.*mwin: the device's defect: //p" | head -n 1)

# ---- the report
# mwbench's summary without the targets of the sections --only left out
figures() {
	awk 'BEGIN { RS = ""; ORS = "\n\n" } {
		gsub(/\n[^\n]*not measured[^\n]*/, ""); print }' "$1"
}
f() { local v; v=$(cat "$1" 2>/dev/null); echo "${v:-?}"; }
code() { echo '```'; cat; echo '```'; }
result=PASS
[ "$nfail" = 0 ] || result=FAIL
p=$sys/$dev/ports/$ibport
{
	cat <<EOF
# mwin qualification: $dev on $host

Result: **$result**: $npass passed, $nfail failed, $nskip skipped ($(( $(date +%s) - t_start )) s)$([ -n "$defect" ] && echo "; the device has a defect mwin cannot mend (Device, known defect)")

## System

| | |
|---|---|
| date | $(date -u '+%Y-%m-%d %H:%M:%S UTC') |
| host | $host |
| kernel | $(uname -r) \`$(uname -v)\` $(uname -m) |
| distribution | $(sed -n 's/^PRETTY_NAME="\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' /etc/os-release 2>/dev/null) |
| rdma-core | $(dpkg-query -W -f '${Version}' rdma-core 2>/dev/null || rpm -q rdma-core 2>/dev/null || echo ?) |
| module | $module$([ -f "$module" ] && echo ", sha256 $(sha256sum "$module" | cut -c1-16)") |
| source | $(git -C "$top" describe --always --dirty 2>/dev/null || echo ?) |
| module parameters | ${params:-?} |
| options | port $port$([ "$quick" = 1 ] && echo ", --quick")$([ "$force" = 1 ] && echo ", -f") |
$(for n in "${notes[@]}"; do echo "| note | $n |"; done)

## Device

| | |
|---|---|
| device | $dev, port $ibport |
| driver | $drv |
| firmware | $(f "$sys/$dev/fw_ver") |
| node GUID | $(f "$sys/$dev/node_guid") |
| port state | $(f "$p/state"), $(f "$p/phys_state"), $(f "$p/rate") |
| transport | $(transport) |
| known defect | ${defect:-none known} |
| link layer | $(f "$p/link_layer") |
| MTU | $(ibv_devinfo -d "$dev" -i "$ibport" 2>/dev/null | awk '/active_mtu/ { print $2; exit }') (netdev $(f "/sys/class/net/$netdev/mtu")) |
| netdev | $netdev, $addr |

\`mwctl -d dev show\`, module loaded:

$(code < "$logs/dev.txt")

$(ibv_devinfo -d "$dev" 2>&1 | code)

## Cases

| case | what | result | pass | fail | skip | time | note |
|---|---|---|---|---|---|---|---|
$rows
EOF
	for c in "$logs"/*.log; do
		grep -q '^not ok' "$c" || continue
		printf '\nFailures of %s (the whole log: %s):\n\n' "${c##*/}" "$c"
		{ grep '^not ok' "$c"; echo ...; tail -n 30 "$c"; } | code
	done
	printf '\n## Conformance\n\n'
	cat "$logs/conformance.md" 2>/dev/null || echo "(not run)"
	printf '\n## Benchmark\n\n'
	if [ -s "$logs/bench/summary.txt" ]; then figures "$logs/bench/summary.txt" | code; else echo "(not run)"; fi
	printf '\n## Kernel log\n\nmwin, %s and RDMA lines of dmesg during the run (at most 200):\n\n' "$dev"
	code < "$logs/dmesg.txt"
	printf '\nThe logs of every case: %s/\n' "$logs"
} > "$out"
echo "qualify: $result: $npass passed, $nfail failed, $nskip skipped; report: $out"
[ "$nfail" = 0 ]
