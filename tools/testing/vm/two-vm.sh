#!/bin/bash
# two-vm.sh: mwin between two QEMU guests joined by a virtual link.
#
# The module VM (192.168.77.1, runs two-vm-mod.sh) loads mwin.ko and drives
# the scenario; the peer VM (192.168.77.2, runs two-vm-peer.sh) runs
# build/tools/mwpeer against it.  Each VM has one virtio-net NIC on a QEMU
# "dgram" netdev whose two ends are UDP sockets on 127.0.0.1 (no user-mode
# network, nothing else is reachable), and rxe0 on it.  The host kills the
# peer VM when the driver asks for it (files in the module VM's out dir).
#
# Prints the driver's TAP lines, its own checks and one
#   # Totals: pass:N fail:N xfail:0 xpass:0 skip:0 error:0
# line.  Logs: build/vm/two-vm-mod.log, build/vm/two-vm-peer.log (consoles,
# with the guests' dmesg).  Needs build/vm/mwin.ko (make vm-modules) and
# build/tools/{mwpeer,mwctl} (make tools).  Exit status 0 when all passed.
#
# MWIN_KO (default build/vm/mwin.ko) is the module to load; the other
# MWIN_VM_* settings of vm-run apply to both VMs, except those set here.
# MWIN_TWO_VM_TIMEOUT: seconds for the whole run (default 600).
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../../.." && pwd)
vmdir=$top/build/vm
run=$vmdir/two-vm
modlog=$vmdir/two-vm-mod.log
peerlog=$vmdir/two-vm-peer.log
timeout_s=${MWIN_TWO_VM_TIMEOUT:-600}
pass=0
fail=0

ok() { echo "ok - two-vm: $*"; pass=$((pass + 1)); }
nok() { echo "not ok - two-vm: $*"; fail=$((fail + 1)); }
totals() {
	echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
	[ "$fail" -eq 0 ]
	exit
}

export MWIN_KO=${MWIN_KO:-$vmdir/mwin.ko}
for f in "$MWIN_KO" "$top/build/tools/mwpeer" "$top/build/tools/mwctl"; do
	if [ ! -f "$f" ]; then
		nok "missing $f (make vm-modules tools)"
		totals
	fi
done

# two free UDP ports on 127.0.0.1 for the link's ends
udp_free() { [ -z "$(ss -Hlun "sport = :$1" 2>/dev/null)" ]; }
for _ in $(seq 50); do
	pm=$((20000 + RANDOM % 40000))
	pp=$((pm + 1))
	udp_free "$pm" && udp_free "$pp" && break
done
link() { # link LOCAL REMOTE: a dgram netdev, both ends on 127.0.0.1
	echo "dgram,local.type=inet,local.host=127.0.0.1,local.port=$1,remote.type=inet,remote.host=127.0.0.1,remote.port=$2"
}

rm -rf "$run"
mkdir -p "$run/mod" "$run/peer"
export MWIN_VM_SMP=1 MWIN_VM_MEM=${MWIN_TWO_VM_MEM:-1024}
export MWIN_TWO_VM_MOD_IP=192.168.77.1 MWIN_TWO_VM_PEER_IP=192.168.77.2
export MWIN_TWO_VM_CTL_PORT=7000 MWIN_TWO_VM_SYNC=$run/mod

start=$(date +%s)
# the peer VM's console carries its whole dmesg: it is killed, so it
# never prints it at the end
MWIN_VM_NAME=mwin-peer MWIN_VM_ADDR=$MWIN_TWO_VM_PEER_IP/24 \
MWIN_VM_MAC=52:54:00:77:00:02 MWIN_VM_NETDEV=$(link "$pp" "$pm") \
MWIN_VM_OUT=$run/peer MWIN_VM_LOGLEVEL=7 \
	"$here/vm-run" --timeout "$timeout_s" --log "$peerlog" -- \
	"$here/two-vm-peer.sh" > /dev/null 2>&1 &
peerpid=$!
MWIN_VM_NAME=mwin-mod MWIN_VM_ADDR=$MWIN_TWO_VM_MOD_IP/24 \
MWIN_VM_MAC=52:54:00:77:00:01 MWIN_VM_NETDEV=$(link "$pm" "$pp") \
MWIN_VM_OUT=$run/mod \
	"$here/vm-run" --timeout "$timeout_s" --log "$modlog" -- \
	"$here/two-vm-mod.sh" > /dev/null 2>&1 &
modpid=$!
trap 'kill -TERM $modpid $peerpid 2>/dev/null; wait; exit 130' INT TERM HUP

# kill the peer VM when the driver asks; wait for the module VM
killed=
peer_rc=
while kill -0 "$modpid" 2>/dev/null; do
	if [ -z "$killed" ] && [ -e "$run/mod/kill-peer" ]; then
		kill -TERM "$peerpid" 2>/dev/null
		wait "$peerpid"
		peer_rc=$?
		killed=$(date +%s)
		touch "$run/mod/peer-killed"
	fi
	sleep 0.2
done
wait "$modpid"
mod_rc=$?
if [ -z "$peer_rc" ]; then
	# not killed (the driver stopped early): give it a moment, then stop it
	for _ in $(seq 100); do
		kill -0 "$peerpid" 2>/dev/null || break
		sleep 0.3
	done
	kill -TERM "$peerpid" 2>/dev/null
	wait "$peerpid"
	peer_rc=$?
fi
trap - INT TERM HUP

# ------------------------------------------------------------- verdict
tr -d '\r' < "$modlog" | grep -aE '^(ok|not ok) - two-vm:|^# peer .* gone|^# [0-9]+ [KM]iB'
read -r dp df < <(tr -d '\r' < "$modlog" |
	sed -n 's/^# two-vm-mod: pass:\([0-9]*\) fail:\([0-9]*\)$/\1 \2/p' | tail -n1)
if [ -z "${dp:-}" ]; then
	nok "the module VM's driver did not finish (see $modlog)"
else
	pass=$((pass + dp))
	fail=$((fail + df))
fi
case $mod_rc in
0) ok "module VM exited cleanly, its kernel log is clean" ;;
126) nok "module VM: the guest kernel reported a problem (see $modlog)" ;;
*) nok "module VM exited with status $mod_rc (see $modlog)" ;;
esac
# the peer VM is stopped by us (130) once the driver asked for it
if [ -n "$killed" ] && [ "$peer_rc" = 130 ]; then
	ok "peer VM killed on request"
elif [ -n "$killed" ]; then
	nok "peer VM killed on request, but vm-run returned $peer_rc"
fi
if grep -aq '^vm-run: guest kernel reported' "$peerlog"; then
	grep -a '^vm-run: guest kernel reported' "$peerlog" | sed 's/^/# peer VM: /'
	nok "peer VM's kernel log is clean"
else
	ok "peer VM's kernel log is clean"
fi
echo "# two-vm: $(($(date +%s) - start)) s; logs: $modlog $peerlog"
totals
