#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# host-unchanged.sh snapshot FILE | check FILE: `make check` takes a
# snapshot of what boots on this host (the kernel image and header packages
# dpkg knows, the files in /boot) before it installs anything, and checks
# at its end that none of it changed: guest kernels and their headers are
# unpacked into build/, never installed (deps.sh).
set -euo pipefail

state() {
	dpkg-query -W -f='${db:Status-Status} ${Package} ${Version}\n' \
		'linux-image*' 'linux-headers*' 2>/dev/null | awk '$1 != "not-installed"' || true
	find /boot -xdev -printf '%p %s %T@\n' 2>/dev/null | sort
}

case ${1:-} in
snapshot)
	state > "$2"
	;;
check)
	if diff -u "$2" <(state) > "$2.diff"; then
		echo "ok - the host is unchanged: no kernel image or headers installed, /boot as it was"
	else
		cat "$2.diff"
		echo "not ok - make check changed the host's kernels or /boot (above)"
		exit 1
	fi
	;;
*)
	echo "usage: host-unchanged.sh snapshot|check FILE" >&2
	exit 2
	;;
esac
