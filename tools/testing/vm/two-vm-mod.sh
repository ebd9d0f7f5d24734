#!/bin/bash
# two-vm-mod.sh: runs in the module VM of two-vm.sh and drives the whole
# scenario.  Loads mwin.ko, connects over TCP to two-vm-peer.sh in the peer
# VM (which then starts mwpeer against this VM over RDMA), and walks a
# window through grant, remote read/write, rebind, invalidate, remote
# invalidate, removal of the RDMA device, and the death of the peer VM in
# the middle of a transfer (the host kills it when this script asks, through
# files in MWIN_TWO_VM_SYNC, this VM's out dir).  Prints one TAP line per
# check and "# two-vm-mod: pass:N fail:N" at the end; two-vm.sh adds them up.
set -u
cd "$(dirname "$0")/../../.."

ko=${MWIN_KO:-$PWD/build/vm/mwin.ko}
peer_ip=${MWIN_TWO_VM_PEER_IP:?}
port=${MWIN_TWO_VM_CTL_PORT:?}
sync=${MWIN_TWO_VM_SYNC:?}
M=$PWD/build/tools/mwctl
tmo=40		# seconds to wait for one answer of mwpeer
pass=0
fail=0

ok() { echo "ok - two-vm: $*"; pass=$((pass + 1)); }
nok() { echo "not ok - two-vm: $*"; fail=$((fail + 1)); }
# check NAME COMMAND...: one TAP line from COMMAND's status
check() {
	local name=$1
	shift
	if "$@"; then ok "$name"; else nok "$name"; fi
}
note() { echo "# $*"; }
finish() {
	exec 3>&- 2>/dev/null
	note "two-vm-mod: pass:$pass fail:$fail"
	[ "$fail" -eq 0 ]
	exit
}
bail() { nok "$*"; note "two-vm: giving up"; finish; }

# the value of KEY in a flat JSON object (strings unquoted)
jget() { grep -o "\"$1\":[^,}]*" <<<"$2" | head -n1 | cut -d: -f2- | tr -d '"'; }

mw() { "$M" -j "$@"; }
# window_field ID KEY
window_field() { jget "$2" "$(mw window show "$1")"; }
peer_present() { mw peer show | grep -q "\"id\":$1,"; }

# ---------------------------------------------------------------- mwpeer I/O
# Lines from mwpeer: answers ({"cmd":..} or {"error":..}) and events
# ({"event":..}), which are kept in $events until peer_event takes them.
events=
line=
peer_read() {
	IFS= read -r -t "${1:-$tmo}" line <&3 || return 1
	note "peer> $line"
}
# peer COMMAND: send one command; its answer in $ans (false: no answer)
peer() {
	ans=
	note "peer< $*"
	printf '%s\n' "$*" >&3 2>/dev/null || return 1
	while peer_read; do
		case $line in
		'{"event":'*) events+=$line$'\n' ;;
		*) ans=$line; return 0 ;;
		esac
	done
	return 1
}
status_is() { [ "$(jget status "$ans")" = "$1" ]; }
# peer_event NAME SECONDS: wait for an {"event":"NAME"} line; forgets the
# events seen so far
peer_event() {
	local end=$((SECONDS + $2))
	while :; do
		if grep -q "\"event\":\"$1\"" <<<"$events"; then
			events=
			return 0
		fi
		[ "$SECONDS" -lt "$end" ] || return 1
		peer "sleep 500" || return 1
	done
}
# peer_grant RKEY: the peer is told about RKEY (a grant message)
peer_grant() {
	peer "wait grant 20000" && status_is success && [ "$(jget rkey "$ans")" = "$1" ]
}
# peer_revoke RKEY REASON
peer_revoke() {
	peer "wait revoke 20000" && status_is success &&
		[ "$(jget rkey "$ans")" = "$1" ] && [ "$(jget reason "$ans")" = "$2" ]
}
# peer_reconnect: a new connection after the module dropped the last one;
# sets $P (retries: the module may still be setting up the device)
peer_reconnect() {
	local i
	for i in 1 2 3 4 5 6 7 8 9 10; do
		peer reconnect || return 1
		if status_is success; then
			P=$(jget peer "$ans")
			events=
			return 0
		fi
		sleep 1
	done
	return 1
}
# grant_to PEER: rebind window $W to PEER; sets $K, the new rkey
grant_to() {
	local out
	out=$(mw window rebind "$W" peer "$1") || return 1
	K=$(jget rkey "$out")
	[ "$(jget state "$out")" = bound ] && [ -n "$K" ] && peer_grant "$K"
}
# a read with a dead rkey fails, and the module drops the connection
dead_rkey() {
	peer "read $1 0 4" && ! status_is success && peer_event disconnected 30
}

# ------------------------------------------------------------------- start
check "insmod mwin.ko" insmod "$ko" anonymous=1
[ -e /dev/mwin ] || sleep 1

# the peer VM boots at the same time: wait for its listener
end=$((SECONDS + 120))
until exec 3<>"/dev/tcp/$peer_ip/$port"; do
	[ "$SECONDS" -lt "$end" ] || bail "no control connection to the peer VM ($peer_ip:$port)"
	sleep 1
done 2>/dev/null
if peer_read 60 && [ "$(jget event "$line")" = connected ]; then
	P=$(jget peer "$line")
	ok "peer VM connected over RDMA (peer $P)"
else
	bail "peer VM connected over RDMA"
fi
check "module lists the peer from 192.168.77.x" \
	sh -c "$M -j peer show | grep -q '\"addr\":\"${peer_ip}\".*\"state\":\"connected\"'"

# ------------------------------------------------------------------- grant
out=$(mw region create size 1M) || bail "region create"
R=$(jget id "$out")
pattern=00112233445566778899aabbccddeeff
"$M" region write "$R" hex "$pattern" >/dev/null || bail "region write"
out=$(mw window create region "$R" peer "$P" len 1M access rw) || bail "window create"
W=$(jget id "$out")
K=$(jget rkey "$out")
check "grant: window $W (rkey $K) reaches the peer VM" peer_grant "$K"

# ------------------------------------------------------------- read, write
check "peer VM reads the window" \
	eval 'peer "read $K 0 16" && status_is success && [ "$(jget data "$ans")" = "$pattern" ]'
check "peer VM writes the window" \
	eval 'peer "write $K 16 cafef00d" && status_is success &&
	      [ "$(jget data "$(mw region read "$R" offset 16 len 4)")" = cafef00d ]'
big_write() {
	peer "write $K 0 @1048576" && status_is success || return 1
	note "1 MiB write: $(jget mbps "$ans") Mbit/s"
	[ "$(jget data "$(mw region read "$R" len 4)")" = 00070e15 ]
}
# Reads are kept smaller: a read's responses come back in one burst, which
# the link (UDP sockets between two QEMUs) drops in part when the host is
# busy, and rxe then retries after seconds.
big_read() {
	local wsum
	peer "write $K 0 @131072" && status_is success || return 1
	wsum=$(jget fnv1a "$ans")
	peer "read $K 0 131072" && status_is success || return 1
	note "128 KiB read: $(jget mbps "$ans") Mbit/s"
	[ "$(jget fnv1a "$ans")" = "$wsum" ]
}
check "peer VM writes 1 MiB" big_write
check "peer VM reads 128 KiB back" big_read

# ------------------------------------------------------------------ rebind
old=$K
rebind() {
	local out
	out=$(mw window rebind "$W") || return 1
	K=$(jget rkey "$out")
	[ "$K" != "$old" ] && peer_revoke "$old" rebind && peer_grant "$K"
}
check "rebind: the peer VM gets a revoke and a new rkey" rebind
check "rebind: the new rkey works" \
	eval 'peer "read $K 0 4" && status_is success && [ "$(jget data "$ans")" = 00070e15 ]'
check "rebind: the old rkey fails and the module drops the peer" dead_rkey "$old"
check "rebind: window unbound after the drop" \
	eval '[ "$(window_field "$W" state)" = unbound ]'
check "peer VM reconnects" peer_reconnect

# -------------------------------------------------------------- invalidate
check "grant to the new peer $P" grant_to "$P"
invalidate() {
	local out
	out=$(mw window invalidate "$W") || return 1
	[ "$(jget state "$out")" = invalidated ] && peer_revoke "$K" invalidate
}
check "invalidate: the peer VM gets a revoke" invalidate
check "invalidate: the rkey fails" dead_rkey "$K"
check "peer VM reconnects" peer_reconnect

# ------------------------------------------------------- remote invalidate
check "grant to the new peer $P" grant_to "$P"
remote_inv() {
	local i
	peer "inv $K" && status_is success || return 1
	for i in $(seq 50); do
		[ "$(window_field "$W" state)" = invalidated ] && return 0
		sleep 0.2
	done
	return 1
}
check "remote invalidate: the window is invalidated" remote_inv
check "remote invalidate: the rkey fails" dead_rkey "$K"
check "peer VM reconnects" peer_reconnect

# ----------------------------------------------------- device removal
check "grant to the new peer $P" grant_to "$P"
# the RDMA device guest-setup.sh made: rxe0, or siw0 (MWIN_VM_PROVIDER=siw)
dev=${MWIN_DEV:-rxe0}
dev_gone() {
	rdma link delete "$dev" || return 1
	peer_event disconnected 60
}
check "$dev deleted in the module VM: the peer VM sees the disconnect" dev_gone
check "device removal: the module dropped the peer" eval '! peer_present "$P"'
check "device removal: window unbound" eval '[ "$(window_field "$W" state)" = unbound ]'
check "device removal: the module lists no device" \
	eval '! mw dev show | grep -q "\"name\":\"$dev\""'
readd() {
	local i
	rdma link add "$dev" type "${MWIN_PROVIDER:-rxe}" netdev eth0 || return 1
	for i in $(seq 100); do
		rdma link show "$dev/1" 2>/dev/null | grep -q 'state ACTIVE' && return 0
		sleep 0.1
	done
	return 1
}
check "$dev added again" readd
check "peer VM reconnects" peer_reconnect

# -------------------------------------------- peer VM killed mid-transfer
check "grant to the new peer $P" grant_to "$P"
mid_transfer() {
	local i
	# queue many 1 MiB writes; mwpeer answers them one by one
	for i in $(seq 200); do
		printf 'write %s 0 @1048576\n' "$K" >&3 || return 1
	done
	for i in 1 2; do
		peer_read || return 1
		case $line in *'"status":"success"'*) ;; *) return 1 ;; esac
	done
	touch "$sync/kill-peer"
	for i in $(seq 600); do
		[ -e "$sync/peer-killed" ] && return 0
		sleep 0.1
	done
	return 1
}
check "peer VM killed while writing" mid_transfer
t0=$SECONDS
exec 3>&-
wait_gone() {
	local i
	for i in $(seq "$1"); do
		peer_present "$P" || { note "peer $P gone $((SECONDS - t0)) s after the kill"; return 0; }
		sleep 1
	done
	return 1
}
# Nothing tells the module that a host vanished: no DREQ comes.  Its
# keepalive (a zero-length RDMA WRITE every keepalive_ms, 5 s) finds out
# when the QP's retries run out (about 3 x 2 s on rxe).
check "peer VM killed: the module drops the peer by itself" wait_gone 40
check "peer VM killed: window unbound" eval '[ "$(window_field "$W" state)" = unbound ]'

# --------------------------------------------------------------------- end
check "window destroy" eval 'mw window destroy "$W" >/dev/null'
check "region destroy" eval 'mw region destroy "$R" >/dev/null'
check "rmmod mwin" rmmod mwin
check "no mwin slab caches left" sh -c '! grep -q "^mwin" /proc/slabinfo'
finish
