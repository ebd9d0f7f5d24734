#!/bin/bash
# two-vm-peer.sh: runs in the peer VM of two-vm.sh.  Waits for one TCP
# connection from the driver (two-vm-mod.sh in the module VM) and runs
# mwpeer on it: the connection's bytes are mwpeer's stdin and stdout, so
# the driver types mwpeer's commands and reads its JSON answers.  mwpeer
# itself connects over RDMA (rxe0 on eth0) to mwin in the module VM.
set -u
cd "$(dirname "$0")/../../.."

mod_ip=${MWIN_TWO_VM_MOD_IP:?}
port=${MWIN_TWO_VM_CTL_PORT:?}
echo "two-vm-peer: waiting for the driver on tcp port $port"
# busybox nc -e execs the rest of the line with the socket as stdin/stdout
busybox nc -l -p "$port" -e "$PWD/build/tools/mwpeer" -t 20000 "$mod_ip"
rc=$?
echo "two-vm-peer: mwpeer exited with status $rc"
exit "$rc"
