#!/bin/bash
# debug-guest.sh: runs in the debug kernel's VM (see check-debug.sh): the
# whole suite (selftests/guest-run.sh, which loads and unloads $MWIN_KO),
# then a kmemleak scan.  Leaks are printed in full, with addresses in mwin
# (unloaded by then) resolved from snapshots of its symbols taken while it
# was loaded.  Prints one more TAP line and "# Totals:" line of its own.
set -u
cd "$(dirname "$0")/../../.."

kml=/sys/kernel/debug/kmemleak
out=${MWIN_DEBUG_OUT:-/tmp}
syms=$out/mwin.kallsyms
: > "$syms"

# mwin's symbols, each time it is (re)loaded at a new address
watch_syms() {
	local text last=
	while :; do
		if read -r text 2>/dev/null < /sys/module/mwin/sections/.text &&
		   [ "$text" != "$last" ]; then
			grep -a ' \[mwin\]$' /proc/kallsyms >> "$syms"
			last=$text
		fi
		sleep 0.5
	done
}
watch_syms &
watcher=$!

bash selftests/guest-run.sh
rc=$?
kill "$watcher" 2>/dev/null
wait "$watcher" 2>/dev/null

# resolve bare addresses ("[<ffffffffc0...>] 0xffffffffc0...") in a
# kmemleak report against the snapshots: nearest symbol below, within 64 KiB
symbolize() {
	awk -v syms="$syms" '
	# the low 32 bits: exact in awk, and all of module space has the
	# same upper half (ffffffff)
	function hex(s,   n, i, c) {
		n = 0; s = tolower(substr(s, length(s) - 7))
		for (i = 1; i <= length(s); i++) {
			c = index("0123456789abcdef", substr(s, i, 1)) - 1
			n = n * 16 + c
		}
		return n
	}
	BEGIN {
		while ((getline l < syms) > 0) {
			split(l, f, " ")
			if (f[2] !~ /^[tT]$/) continue
			n++; addr[n] = hex(f[1]); name[n] = f[3]
		}
	}
	{
		if (match($0, /\] 0x[0-9a-f]+$/)) {
			a = hex(substr($0, RSTART + 4)); best = 0
			for (i = 1; i <= n; i++)
				if (addr[i] <= a && a - addr[i] < 65536 &&
				    (!best || addr[i] > addr[best]))
					best = i
			if (best)
				$0 = $0 sprintf(" (mwin: %s+0x%x)", name[best], a - addr[best])
		}
		print
	}'
}

pass=0
fail=0
if [ -w "$kml" ]; then
	# a second scan confirms what the first one saw (kmemleak's advice)
	echo scan > "$kml"
	sleep 5
	echo scan > "$kml"
	report=$(cat "$kml")
	if [ -z "$report" ]; then
		echo "ok - kmemleak: no leaks"
		pass=1
	else
		echo "$report" > "$out/kmemleak.txt"
		echo "# kmemleak report:"
		symbolize <<<"$report" | sed 's/^/# /'
		echo "not ok - kmemleak: $(grep -c '^unreferenced object' <<<"$report") suspected leaks"
		fail=1
	fi
else
	echo "not ok - kmemleak: $kml missing (is this the debug kernel?)"
	fail=1
fi
echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
[ "$rc" -eq 0 ] && [ "$fail" -eq 0 ]
