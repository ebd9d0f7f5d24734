#!/bin/bash
# inputs.sh show|record|checker: what make check takes from the Debian archive at
# its newest version, against the versions the tree was last verified with
# (tools/testing/inputs.verified: make check passed, make lint was clean).
#
#   show    one line an input, "inputs: WHAT VERSION", and where it is not
#           the verified one, "(new: verified with OLD)"; then one line that
#           counts them. Never fails: a newer input is news, not an error
#           (make lint judges the checker, the tests the rest).
#   record  rewrite inputs.verified with what is here now.
#   checker the checker's identity alone, as its line records it
#           (lint.sh).
#
# The inputs: the style checker (checkpatch, its spelling list and
# kernel-doc, from linux-source-6.1, identified by the hash of its files as
# well), the kselftest harnesses (linux-source-6.1 and -6.12), the guest
# kernels deps.sh unpacked (their packages), and the host packages that
# build and run the tests (rdma-core and its providers, QEMU, sparse,
# cppcheck). The guest kernels cannot be pinned: Debian 12's archive keeps
# only its newest kernel ABI's packages, so a pin would break within weeks.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
verified=$here/inputs.verified
CHECKER=${CHECKER:-$top/build/ksrc}

pkgver() { dpkg-query -W -f '${Version}' "$1" 2>/dev/null || echo none; }

# checker_id DIR: "LABEL sha256:HASH" of a checker's files
checker_id() {
	local label
	label=$(cat "$1/.version" 2>/dev/null || echo unknown)
	echo "$label sha256:$(cd "$1" && cat scripts/checkpatch.pl \
		scripts/spelling.txt scripts/const_structs.checkpatch \
		scripts/kernel-doc 2>/dev/null | sha256sum | cut -c1-16)"
}

current() {
	local k d
	echo "checker $(checker_id "$CHECKER")"
	for d in linux-source-6.1 linux-source-6.12; do
		echo "harness $d $(pkgver "$d")"
	done
	for k in $(cat "$top/build/vm/kvers" 2>/dev/null); do
		d=$top/build/vm/k/$k
		if [ -s "$d/.debs" ]; then
			sed -n 's/^linux-image/kernel &/p' "$d/.debs"
		else
			echo "kernel $k unknown"
		fi
	done
	for d in rdma-core ibverbs-providers librdmacm1 qemu-system-x86 \
		 sparse cppcheck; do
		echo "package $d $(pkgver "$d")"
	done
}

case "${1:-}" in
checker)
	checker_id "$CHECKER"
	;;
show)
	new=0 n=0
	while read -r kind what ver rest; do
		n=$((n + 1))
		old=$(awk -v k="$kind" -v w="$what" '$1 == k && $2 == w {
			$1 = ""; $2 = ""; sub(/^ +/, ""); print; exit }' \
			"$verified" 2>/dev/null || true)
		now="$ver${rest:+ $rest}"
		if [ "$old" = "$now" ]; then
			echo "inputs: $kind $what $now"
		else
			new=$((new + 1))
			echo "inputs: $kind $what $now (new: verified with ${old:-nothing})"
		fi
	done < <(current)
	echo "inputs: $n from the archive, $new not as verified" \
		"(tools/testing/inputs.verified)"
	;;
record)
	{
		sed -n '/^#/p' "$verified" 2>/dev/null
		current
	} > "$verified.tmp"
	mv "$verified.tmp" "$verified"
	echo "inputs: recorded in $verified"
	;;
*)
	echo "usage: inputs.sh show|record|checker" >&2
	exit 2
	;;
esac
