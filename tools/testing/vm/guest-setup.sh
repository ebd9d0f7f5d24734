#!/bin/bash
# guest-setup.sh RUNID: runs inside the QEMU guest (chrooted into the
# overlay of the host root), started by the initramfs that vm-run builds.
# Mounts the pseudo file systems and shares, sets up eth0 and one RDMA
# device on it (rxe0, or siw0 with mwin_vm.provider=siw), runs the command
# stored in build/vm/out/.vm-run/RUNID/cmd with MWIN_VM=1, MWIN_PROVIDER
# and MWIN_DEV, prints the guest dmesg and an exit marker, then powers the
# guest off.
set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8 TERM=dumb
umask 022

runid=${1:?usage: guest-setup.sh RUNID}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
outdir=$repo/build/vm/out # vm-run's MWIN_VM_OUT: mwin_vm.out=
addr=10.0.2.15/24 # QEMU user-mode netdev's guest address; never routed out
name=mwin-vm
provider=rxe
siw_ko=
for a in $(cat /proc/cmdline 2>/dev/null); do
	case $a in
	mwin_vm.out=*) outdir=${a#*=} ;;
	mwin_vm.addr=*) addr=${a#*=} ;;	# MWIN_VM_ADDR
	mwin_vm.name=*) name=${a#*=} ;;	# MWIN_VM_NAME
	mwin_vm.provider=*) provider=${a#*=} ;;	# MWIN_VM_PROVIDER
	mwin_vm.siw_ko=*) siw_ko=${a#*=} ;;	# MWIN_VM_SIW_KO
	esac
done
rundir=$outdir/.vm-run/$runid

say() { echo "guest-setup: $*"; }
failed=
step() { # step DESCRIPTION COMMAND...: run a setup step, remember failure
	local what=$1
	shift
	if ! "$@"; then
		say "FAILED: $what"
		failed=${failed:-$what}
		return 1
	fi
}

finish() {
	local rc=$1
	echo "===== MWIN-VM-DMESG-BEGIN ====="
	dmesg 2>&1
	echo "===== MWIN-VM-DMESG-END ====="
	if [ -d "$rundir" ]; then
		dmesg > "$rundir/dmesg" 2>&1
		echo "$rc" > "$rundir/rc"
	fi
	echo "MWIN-VM-EXIT=$rc"
	sync
	# let the serial line drain before the machine goes away
	sleep 0.5
	busybox poweroff -f
	echo o > /proc/sysrq-trigger
	sleep 10
	exit "$rc"
}

# ---------------------------------------------------------------- mounts
# the initramfs moved /proc, /sys and /dev here already
mountpoint -q /proc || mount -t proc proc /proc
# MWIN_VM_APPEND=mwin_vm.trace=1 traces this script with timestamps
if grep -qw 'mwin_vm.trace=1' /proc/cmdline; then
	PS4='+ ${EPOCHREALTIME} '
	set -x
fi
mountpoint -q /sys || mount -t sysfs sysfs /sys
mountpoint -q /dev || mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /dev/pts
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
# fresh /tmp and /run, unless the repo lives there (then the overlay keeps
# them writable, showing the host's files underneath)
case $repo/ in /tmp/*) ;; *) mount -t tmpfs -o mode=1777 tmpfs /tmp ;; esac
case $repo/ in /run/*) ;; *) mount -t tmpfs -o mode=0755 tmpfs /run ;; esac
mkdir -p /run/lock
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null || true
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null || true
mkdir -p /lib/modules
step "mount guest kernel modules" \
	mount -t 9p -o ro,trans=virtio,version=9p2000.L,msize=512000,cache=loose kmods /lib/modules
mkdir -p "$outdir"
step "mount $outdir" \
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 out "$outdir"

# --------------------------------------------------------------- command
cmd=()
if [ -r "$rundir/cmd" ]; then
	# defines the array cmd and the exported variables passed by vm-run
	# shellcheck disable=SC1091
	. "$rundir/cmd"
else
	say "FAILED: no command file $rundir/cmd"
	failed=${failed:-command file}
fi

# ---------------------------------------------------------------- network
hostname "$name" 2>/dev/null || true
step "modprobe virtio_net" modprobe virtio_net
# static address only: no default route, no IPv6 autoconfiguration
sysctl -qw net.ipv6.conf.eth0.accept_ra=0 net.ipv6.conf.eth0.autoconf=0 2>/dev/null || true
step "lo up" ip link set lo up
step "eth0 address" ip addr add "$addr" dev eth0
step "eth0 up" ip link set eth0 up

# ---------------------------------------------------------------- rdma
# One RDMA device on eth0, of one provider: with two, RDMA CM's address
# resolution could take either.
siw_setup() {	# siw.ko of the running kernel, loaded
	local kver ko deps
	kver=$(uname -r)
	ko=${siw_ko:-$repo/build/vm/k/$kver/siw.ko}
	if [ -z "$siw_ko" ] && [ ! -f "$ko" ] && modinfo siw >/dev/null 2>&1; then
		# a kernel of its own that has siw (Debian's have not)
		step "modprobe siw" modprobe siw
		return
	fi
	[ -f "$ko" ] ||
		step "siw.ko of $kver: no $ko (make vm-modules builds it)" false ||
		return
	# insmod resolves nothing: what the module needs first (ib_core, libcrc32c)
	deps=$(modinfo -F depends "$ko" | tr , ' ')
	# shellcheck disable=SC2086 # module names, one word each
	step "modprobe $deps" modprobe -a $deps libcrc32c &&
		step "insmod $ko" insmod "$ko"
}
case $provider in
rxe)
	dev=rxe0
	step "modprobe rdma_rxe" modprobe rdma_rxe &&
		step "rxe0 on eth0" rdma link add rxe0 type rxe netdev eth0
	;;
siw)
	dev=siw0
	siw_setup &&
		step "siw0 on eth0" rdma link add siw0 type siw netdev eth0
	# siw of 6.1 holds root, too, to RLIMIT_MEMLOCK (8 MiB) for the memory
	# a process registers (siw_umem_get(); rxe, and 6.12's siw, pin through
	# ib_umem_get(), which lets CAP_IPC_LOCK pass): a test's second peer
	# (4 MiB of buffers each) would get ENOMEM from ibv_reg_mr(). The
	# tests that need the limit set their own.
	ulimit -l unlimited
	;;
*)
	dev=
	step "provider $provider (mwin_vm.provider=: rxe or siw)" false
	;;
esac
step "modprobe ib_uverbs rdma_ucm" modprobe -a ib_uverbs rdma_ucm
# wait (a bounded time) for the port to become ACTIVE
if [ -n "$dev" ]; then
	for _ in $(seq 50); do
		rdma link show "$dev/1" 2>/dev/null | grep -q 'state ACTIVE' && break
		sleep 0.1
	done
	rdma link show "$dev/1" 2>/dev/null | grep -q 'state ACTIVE' ||
		step "$dev ACTIVE" false
fi

if [ -n "$failed" ]; then
	say "setup failed ($failed); not running the command"
	finish 125
fi

# ---------------------------------------------------------------- run
cd "$repo" || finish 125
export MWIN_VM=1
# the command's RDMA device and its provider (the host's values, which
# vm-run passes on, are not the guest's)
export MWIN_PROVIDER=$provider MWIN_DEV=$dev
read -r up _ < /proc/uptime
say "ready after ${up}s of guest uptime; running: ${cmd[*]}"
"${cmd[@]}" < /dev/null
finish $?
