#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-copy.sh KDIR DIR [VAR=VALUE...]: build mwin.ko against KDIR from a
# copy of the module's sources in DIR, with the given kbuild variables
# (MWIN_TEST=1, MWIN_BENCH=1, see Kbuild), leaving the repo's own objects
# alone. Only changed files are copied, so kbuild rebuilds only what
# changed. The module is DIR/mwin.ko.
set -eu
top=$(cd "$(dirname "$0")/../../.." && pwd)
kdir=$1
mkdir -p "$2"
dir=$(cd "$2" && pwd)	# kbuild wants M= absolute
shift 2

(cd "$top" && find Kbuild kmod uapi -type f \( -name Kbuild -o -name '*.[ch]' \)) |
	while read -r f; do
		mkdir -p "$(dirname "$dir/$f")"
		cmp -s "$top/$f" "$dir/$f" || cp -p "$top/$f" "$dir/$f"
	done
# sources removed from the repo go from the copy too
(cd "$dir" && find kmod uapi -type f -name '*.[ch]') | while read -r f; do
	[ -e "$top/$f" ] || rm -f "$dir/$f"
done
# objects of a build with other variables are stale: kbuild does not know
stamp="$*"
[ "$(cat "$dir/.vars" 2>/dev/null)" = "$stamp" ] ||
	find "$dir" -name '*.o' -delete
echo "$stamp" > "$dir/.vars"
make -s -C "$kdir" M="$dir" "$@" modules
