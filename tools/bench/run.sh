#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: the mwin benchmark suite.
#
# On the host (no --guest): build mwbench and the benchmark module
# (tools/bench/kmod, against the guest kernel's headers, with mwin's
# Module.symvers), boot the test VM with enough memory for 1 GiB windows
# and baselines, run this script there with --guest, then turn the results
# into PNG plots with gnuplot and print the table.
#
# In the guest (--guest): load mwin.ko and mwin_bench.ko, run mwbench; its
# results go to build/vm/out/bench/, the one directory the host shares
# read-write.
#
# Outputs (host): build/bench/{results.csv,summary.txt,mwbench.log,vm.log,
#   cost-vs-size.png,batch.png,datapath.png}
#
# Environment:
#   MWIN_BENCH_ARGS    extra mwbench arguments, e.g. "--quick" or
#                      "--only ctl,batch" (see mwbench --help); passed to
#                      the guest by vm-run, like every MWIN_* variable
#   MWIN_BENCH_MEM     guest memory in MiB (default 4096)
#   MWIN_BENCH_TIMEOUT guest time limit in seconds (default 1800)
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
bench=$top/build/bench
guest_out=build/vm/out/bench

# ------------------------------------------------------------ guest half

if [ "${1:-}" = --guest ]; then
	shift
	echo "bench: guest $(uname -r), $(nproc) CPUs, $(awk '/MemTotal/ { print int($2 / 1024) " MiB" }' /proc/meminfo)"
	insmod "$bench/mwin.ko" anonymous=1 || { echo "bench: insmod mwin.ko failed"; exit 1; }
	insmod "$bench/kmod/mwin_bench.ko" || { echo "bench: insmod mwin_bench.ko failed"; exit 1; }
	mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
	mkdir -p "$guest_out"
	rm -f "$guest_out"/results.csv "$guest_out"/summary.txt "$guest_out"/trace-*.txt
	start=$(date +%s)
	# shellcheck disable=SC2086 # MWIN_BENCH_ARGS is a list of words
	"$bench/mwbench" --out "$guest_out" ${MWIN_BENCH_ARGS:-} "$@" 2> "$guest_out/mwbench.log"
	rc=$?
	echo "bench: mwbench exited with status $rc after $(( $(date +%s) - start )) s"
	tail -n 5 "$guest_out/mwbench.log"
	# what the module and rxe said: peer losses, device errors
	dmesg | grep -E 'mwin|rxe' > "$guest_out/dmesg.txt" 2>&1
	exit $rc
fi

# ------------------------------------------------------------- host half

say() { echo "bench: $*"; }
die() { echo "bench: error: $*" >&2; exit 1; }

t0=$(date +%s)
kver=$(cat build/vm/kver 2>/dev/null) || die "no build/vm/kver: run make vm-modules"
kdir=build/vm/kernel/usr/src/linux-headers-$kver
[ -d "$kdir" ] || die "no $kdir"

# mwin.ko with the benchmark's hook (MWIN_BENCH=1, see Kbuild), from a
# copy of the sources: the module make vm-modules builds has none.
mkdir -p "$bench"
say "building mwin.ko with MWIN_BENCH=1 for $kver"
bash tools/testing/vm/build-copy.sh "$kdir" "$bench/src" MWIN_BENCH=1 > "$bench/build.log" 2>&1 ||
	{ cat "$bench/build.log"; die "mwin.ko (MWIN_BENCH=1) build failed"; }
grep -q 'mwin_bench_rebind' "$bench/src/Module.symvers" ||
	die "mwin.ko built with MWIN_BENCH=1 does not export mwin_bench_rebind"
cp "$bench/src/mwin.ko" "$bench/mwin.ko"
cp "$bench/src/Module.symvers" "$bench/Module.symvers"

say "building mwin_bench.ko for $kver"
rm -rf "$bench/kmod"
mkdir -p "$bench/kmod"
cp tools/bench/kmod/Kbuild tools/bench/kmod/mwin_bench.c tools/bench/kmod/mwin_bench.h "$bench/kmod/"
make -s -C "$kdir" M="$bench/kmod" KBUILD_EXTRA_SYMBOLS="$bench/Module.symvers" \
	modules > "$bench/kmod/build.log" 2>&1 || { cat "$bench/kmod/build.log"; die "bench module build failed"; }

say "building mwbench"
${CC:-gcc} -O2 -g -Wall -Wextra -Werror -Wshadow -Wformat=2 -Iuapi -Itools/lib \
	-o "$bench/mwbench" tools/bench/*.c \
	build/lib/libmwinpeer.a build/lib/libmwin.a \
	-lrdmacm -libverbs -lcrypto -lpthread -lm || die "mwbench build failed"

if ! command -v gnuplot > /dev/null; then
	say "installing gnuplot-nox"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		gnuplot-nox > "$bench/apt.log" 2>&1 ||
		{ apt-get update -q > /dev/null 2>&1 &&
		  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
			gnuplot-nox >> "$bench/apt.log" 2>&1; } ||
		say "cannot install gnuplot-nox: no plots (see $bench/apt.log)"
fi

mkdir -p "$guest_out"
rm -f "$guest_out"/results.csv "$guest_out"/summary.txt "$guest_out"/mwbench.log \
	"$guest_out"/dmesg.txt "$guest_out"/trace-*.txt
mem=${MWIN_BENCH_MEM:-4096}
timeout=${MWIN_BENCH_TIMEOUT:-1800}
load0=$(cut -d' ' -f1-3 /proc/loadavg)
say "booting the VM ($mem MiB, at most $timeout s); progress in $bench/vm.log"
MWIN_VM_NAME=bench tools/testing/vm/vm-run --timeout "$timeout" --mem "$mem" \
	--log "$bench/vm.log" -- tools/bench/run.sh --guest > /dev/null 2>&1
rc=$?
load1=$(cut -d' ' -f1-3 /proc/loadavg)
rm -f "$bench"/trace-*.txt
for f in results.csv summary.txt mwbench.log dmesg.txt trace-rebind.txt trace-floor.txt; do
	[ -f "$guest_out/$f" ] && cp "$guest_out/$f" "$bench/$f"
done
if [ "$rc" -ne 0 ] || [ ! -s "$guest_out/summary.txt" ]; then
	grep -a -E '^(bench|mwbench|vm-run|guest-setup)' "$bench/vm.log" | tail -n 20
	[ -f "$guest_out/mwbench.log" ] && tail -n 20 "$guest_out/mwbench.log"
	die "the benchmark failed in the VM (status $rc, see $bench/vm.log)"
fi

# ------------------------------------------------------------------ plots

csv=$bench/results.csv
# data files for gnuplot: "x median p10 p90", one file per method
plotdata() {	# plotdata SECTION METRIC BATCH|"*" XCOL(size|batch) > file
	awk -F, -v s="$1" -v m="$2" -v b="$3" -v x="$4" '
		NR > 1 && $1 == s && $2 == m && (b == "*" || $4 == b) &&
		$12 == "\"ok\"" && $9 > 0 {
			print (x == "size" ? $3 : $4), $5, $6, $7
		}' "$csv"
}
dat=$bench/plot
rm -rf "$dat"
mkdir -p "$dat"
for m in "floor rebind" "mwin rebind" "mwin rebind, quiet" "mwin invalidate" \
	 "mwin create+destroy" "ibv_reg_mr+dereg" "userspace MW inv+bind"; do
	plotdata ctl "$m" 0 size > "$dat/ctl-${m//[^a-zA-Z0-9+]/_}.dat"
done
for k in rebind invalidate create destroy; do
	plotdata batch "batched $k" "*" batch > "$dat/batch-$k.dat"
	plotdata batch "single $k" 1 batch > "$dat/single-$k.dat"
done
for op in READ WRITE; do
	for t in window "plain MR"; do
		plotdata data "$t $op throughput" 16 size > "$dat/dp-${t// /_}-$op.dat"
	done
	plotdata ratio "window/plain MR $op throughput" 16 size > "$dat/ratio-$op.dat"
done

# a gnuplot "plot" clause for each non-empty data file
clause() {	# clause FILE TITLE STYLE [USING]
	[ -s "$1" ] && printf "'%s' using %s with yerrorlines title '%s' %s, " \
		"$1" "${4:-1:2:3:4}" "$2" "$3"
}
# shellcheck disable=SC2016 # gnuplot's $1.., not the shell's
dodge() {	# dodge FACTOR [rate]: x shifted so that error bars do not overlap
	if [ "${2:-}" = rate ]; then
		printf '($1*%s):(1e6/$2):(1e6/$4):(1e6/$3)' "$1"
	else
		printf '($1*%s):2:3:4' "$1"
	fi
}
if command -v gnuplot > /dev/null; then
	term="set terminal pngcairo size 1100,700 font 'DejaVu Sans,11' noenhanced"
	plots=$(clause "$dat/ctl-ibv_reg_mr+dereg.dat" "ibv_reg_mr + ibv_dereg_mr (userspace)" "lw 2 pt 3 lc rgb '#0072b2'" "$(dodge 0.80)"
		clause "$dat/ctl-mwin_create+destroy.dat" "mwin WINDOW_CREATE + WINDOW_DESTROY" "lw 2 pt 11 lc rgb '#e69f00'" "$(dodge 0.88)"
		clause "$dat/ctl-mwin_rebind.dat" "mwin WINDOW_REBIND ioctl" "lw 3 pt 5 lc rgb '#009e73'" "$(dodge 0.96)"
		clause "$dat/ctl-mwin_rebind__quiet.dat" "mwin WINDOW_REBIND ioctl, quiet window (no messages)" "lw 2 pt 4 lc rgb '#009e73' dt 2" "$(dodge 1.00)"
		clause "$dat/ctl-mwin_invalidate.dat" "mwin WINDOW_INVALIDATE ioctl" "lw 2 pt 9 lc rgb '#56b4e9'" "$(dodge 1.04)"
		clause "$dat/ctl-floor_rebind.dat" "in-kernel floor (mwin_bench_rebind: LOCAL_INV + REG_MR)" "lw 3 pt 7 lc rgb '#7b3294'" "$(dodge 1.12)"
		clause "$dat/ctl-userspace_MW_inv+bind.dat" "userspace Type 2 MW (LOCAL_INV + BIND_MW)" "lw 2 pt 13 lc rgb '#d62728'" "$(dodge 1.20)")
	gnuplot > "$bench/gnuplot.log" 2>&1 <<EOF || say "gnuplot failed: see $bench/gnuplot.log"
$term
set output '$bench/cost-vs-size.png'
set title 'Cost of one operation vs window size (rxe0 under QEMU TCG; median over rounds, bars p10-p90)'
set logscale xy
set xlabel 'window / buffer size'
set ylabel 'microseconds per operation (log scale)'
set format y '%.0f'
set xtics ('4K' 4096, '64K' 65536, '1M' 1048576, '16M' 16777216, '256M' 268435456, '1G' 1073741824)
set xrange [2800:1.6e9]
set grid xtics ytics mytics
set key top left box opaque
plot ${plots%, }
EOF
	plots=$(clause "$dat/batch-invalidate.dat" "MWIN_WINDOW_BATCH invalidate" "lw 2 pt 9 lc rgb '#56b4e9'" "$(dodge 0.90 rate)"
		clause "$dat/batch-rebind.dat" "MWIN_WINDOW_BATCH rebind" "lw 3 pt 5 lc rgb '#009e73'" "$(dodge 0.96 rate)"
		clause "$dat/batch-destroy.dat" "MWIN_WINDOW_BATCH destroy" "lw 2 pt 13 lc rgb '#7b3294'" "$(dodge 1.04 rate)"
		clause "$dat/batch-create.dat" "MWIN_WINDOW_BATCH create" "lw 2 pt 11 lc rgb '#e69f00'" "$(dodge 1.10 rate)"
		clause "$dat/single-rebind.dat" "single WINDOW_REBIND ioctls" "lw 2 pt 7 ps 2 lc rgb '#d62728'" "$(dodge 0.80 rate)")
	# the target: 3x the rate of the single rebinds
	goal=$(awk '{ if ($2 > 0) printf "%.0f", 3e6 / $2 }' "$dat/single-rebind.dat")
	if [ -n "$plots" ]; then
		gnuplot >> "$bench/gnuplot.log" 2>&1 <<EOF || say "gnuplot failed: see $bench/gnuplot.log"
$term
${goal:+set arrow 1 from 0.6,$goal to 380,$goal nohead dt 2 lc rgb '#d62728'}
${goal:+set label 1 'target: 3x the single rebind rate' at 0.65,$goal offset 0,0.7 tc rgb '#d62728'}
set output '$bench/batch.png'
set title 'Window operations per second vs operations per MWIN_WINDOW_BATCH call (256 windows of 4 KiB)'
set logscale x 2
set xlabel 'operations per call (the single ioctl drawn at 1)'
set ylabel 'operations per second (median over rounds, bars p10-p90)'
set xrange [0.6:380]
set yrange [0:*]
set xtics (1, 8, 64, 256)
set grid
set key top left box opaque
plot ${plots%, }
EOF
	else
		say "no batch figures (MWIN_WINDOW_BATCH unsupported?): no batch.png"
		rm -f "$bench/batch.png"
	fi
	plots=$(clause "$dat/dp-window-READ.dat" "READ through a window" "lw 2 pt 5 lc rgb '#009e73'" "$(dodge 0.94)"
		clause "$dat/dp-plain_MR-READ.dat" "READ through a plain MR" "lw 2 pt 4 dt 2 lc rgb '#009e73'" "$(dodge 0.98)"
		clause "$dat/dp-window-WRITE.dat" "WRITE through a window" "lw 2 pt 7 lc rgb '#0072b2'" "$(dodge 1.02)"
		clause "$dat/dp-plain_MR-WRITE.dat" "WRITE through a plain MR" "lw 2 pt 6 dt 2 lc rgb '#0072b2'" "$(dodge 1.06)")
	ratios=$(clause "$dat/ratio-READ.dat" "READ" "lw 2 pt 5 lc rgb '#009e73'" "$(dodge 0.97)"
		clause "$dat/ratio-WRITE.dat" "WRITE" "lw 2 pt 7 lc rgb '#0072b2'" "$(dodge 1.03)")
	if [ -n "$plots" ]; then
		gnuplot >> "$bench/gnuplot.log" 2>&1 <<EOF || say "gnuplot failed: see $bench/gnuplot.log"
set terminal pngcairo size 1100,900 font 'DejaVu Sans,11' noenhanced
set output '$bench/datapath.png'
set multiplot layout 2,1 title 'RDMA READ/WRITE through a mwin window vs a plain userspace MR (rxe0, 16 in flight)'
set logscale x 2
set xtics ('64' 64, '256' 256, '1K' 1024, '4K' 4096, '16K' 16384, '64K' 65536, '256K' 262144, '1M' 1048576)
set xrange [45:1.5e6]
set grid
set key top left box opaque
set ylabel 'MB/s (median, bars p10-p90)'
set yrange [0:*]
plot ${plots%, }
set xlabel 'message size (bytes)'
set ylabel 'window / plain MR (paired trials)'
set yrange [0.3:2]
set arrow 1 from 45,0.95 to 1.5e6,0.95 nohead dt 2 lc rgb '#d62728'
set label 1 'target: >= 0.95' at 50,0.88 tc rgb '#d62728'
plot ${ratios}1 notitle lc rgb '#888888'
unset multiplot
EOF
	fi
fi

{
	echo
	echo "Host: $(nproc) CPUs, load average before/after the run: $load0 / $load1"
	echo "(other guests on the host share the CPUs: QEMU TCG figures are relative)"
	if grep -qE 'not free|takes no messages|send failed|receive failed|retry' "$bench/dmesg.txt" 2>/dev/null; then
		echo "Guest kernel messages of note (build/bench/dmesg.txt):"
		grep -E 'not free|takes no messages|send failed|receive failed|retry' "$bench/dmesg.txt" | head -n 10 | sed 's/^/  /'
	fi
} >> "$bench/summary.txt"
cat "$bench/summary.txt"
echo
pngs=
for f in "$bench"/*.png; do [ -f "$f" ] && pngs+=" ${f#"$top"/}"; done
say "results: build/bench/results.csv, build/bench/summary.txt; plots:${pngs:- none}"
say "make bench took $(( $(date +%s) - t0 )) s"
