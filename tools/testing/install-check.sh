#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# install-check.sh: the install targets, checked against the unpacked
# headers of the 6.12 guest kernel (tools/testing/vm/deps.sh unpacks them
# into build/vm/k/KVER/), in throwaway DESTDIR roots:
#
#   make without kernel headers      refuses, and says why
#   make install, signatures needed  refuses without a key, installs no module
#   make install with a key          the installed module carries one signature
#   make install, DKMS's key         MWIN_DKMS_KEY_DIR is where it is looked for
#   make install without a key       everything, the module unsigned (and said so)
#   make uninstall                   removes it all, the compressed module too
#   make install-peer                libmwinpeer and mwpeer only, no KDIR;
#                                    an application builds against it with
#                                    pkg-config, runs, and the Python module
#                                    loads it; make uninstall-peer removes it
#   make install-lib                 libmwin only, no KDIR; it exports what
#                                    its version script lists and nothing
#                                    else; an application builds against it
#                                    with pkg-config and runs what runs
#                                    without the module; the Python module
#                                    loads it; make uninstall-lib removes it
#
# install-check.sh lib runs the checks of make install-lib alone (seconds).
#
# It runs make in a copy of the working tree (git's tracked and untracked
# files, not the ignored ones) in a temporary directory under /tmp, so that
# the repo's own objects (and builds running there meanwhile) are left
# alone, and writes nowhere else: no host path, no DKMS key of the host
# (MWIN_DKMS_KEY_DIR points elsewhere), depmod and udevadm replaced by stubs
# that only log.  Needs make deps (the unpacked headers), git, openssl, xz
# and what make install needs; not root.  About 30 s of CPU: under a
# minute on an idle 2-core machine.
#
# TAP: one "ok - ..." or "not ok - ..." line per check, then "N passed,
# N failed"; exits non-zero on any failure.
# shellcheck disable=SC2317  # the checks' commands run through check()
set -u

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# the settings of whoever runs this (make check's own command line
# included) must not leak into the makes below
unset MAKEFLAGS MFLAGS GNUMAKEFLAGS MAKELEVEL MAKEOVERRIDES KDIR DESTDIR \
	PREFIX UDEV_RULES_DIR MWIN_GROUP MWIN_SIGN_KEY MWIN_SIGN_CERT \
	MWIN_DKMS_KEY_DIR
export LC_ALL=C

PREFIX=/usr/local
UDEV=/lib/udev/rules.d
PYVER=$(python3 -c 'import sys; print("python%d.%d" % sys.version_info[:2])')
SIG_MAGIC='~Module signature appended~'
CN='mwin install-check throwaway key'

pass=0 fail=0 skip=0
log=/dev/null		# output of the last make (or diff), shown when a check of it fails
tmp='' kdir='' kver='' src=''

# ---- TAP -----------------------------------------------------------------

diag() { sed 's/^/#   /'; }

# check DESC CMD...: one TAP line for CMD's status
check() {
	local desc=$1
	shift
	if "$@"; then
		echo "ok - $desc"
		pass=$((pass + 1))
		return
	fi
	echo "not ok - $desc"
	fail=$((fail + 1))
	case $1 in
	mk | says | fails_saying | host_unchanged | exports_are_the_map | \
		header_is_the_map | lib_app_builds | lib_app_runs | python_sizes_match)
		echo "#   last lines of $log:"
		tail -n 15 "$log" | diag
		;;
	esac
}

skip() {
	echo "ok - $1 # SKIP $2"
	skip=$((skip + 1))
}

finish() {
	[ "$skip" = 0 ] || echo "# $skip skipped"
	echo "$pass passed, $fail failed"
	[ "$fail" = 0 ] && exit 0
	exit 1
}

# ---- helpers -------------------------------------------------------------

# mk NAME ARGS...: make ARGS in the copy; output in $tmp/NAME.log (= $log)
mk() {
	log=$tmp/$1.log
	shift
	make -C "$src" --no-print-directory -j"$(nproc)" "$@" > "$log" 2>&1
}

says() { grep -qF -- "$1" "$log"; }
# fails_saying MESSAGE NAME ARGS...: make ARGS fails and says MESSAGE
fails_saying() {
	local m=$1
	shift
	! mk "$@" && says "$m"
}

# the module installed under root $1 for $kver (updates/ or extra/,
# compressed or not), empty if none
module_in() {
	compgen -G "$1/lib/modules/$kver/*/mwin.ko*" | head -n1
}
no_module_in() { [ -z "$(compgen -G "$1/lib/modules/*/*/mwin.ko*")" ]; }

# the module's bytes, uncompressed
module_bytes() {
	case $1 in
	*.xz) xz -dc "$1" ;;
	*.zst) zstd -dcq "$1" ;;
	*.gz) gzip -dc "$1" ;;
	*) cat "$1" ;;
	esac
}
is_signed() { [ "$(module_bytes "$1" | tail -c 28)" = "$SIG_MAGIC" ]; }
signatures() { module_bytes "$1" | grep -caF "$SIG_MAGIC"; }
vermagic_is() { [ "$(modinfo -F vermagic "$1" | cut -d' ' -f1)" = "$2" ]; }
signer_is() { [ "$(modinfo -F signer "$1")" = "$2" ]; }
files_in() { [ ! -d "$1" ] || (cd "$1" && find . ! -type d | sed 's|^\./||' | sort); }
only_files() { [ "$(files_in "$1")" = "$(printf '%s\n' "${@:2}" | sort)" ]; }
never_ran() { [ ! -s "$tmp/stub-$1.log" ]; }

# ---- setup ---------------------------------------------------------------

# KVER and KDIR of the 6.12 guest kernel, from deps.sh's records
find_kdir() {
	local vm=$top/build/vm
	kver=$(cat "$vm/kvers" "$vm/kver" 2>/dev/null | grep -m1 '^6\.12\.')
	if [ -z "$kver" ]; then
		echo "not ok - no 6.12 kernel in $vm/kvers or $vm/kver: run make deps"
		fail=$((fail + 1))
		finish
	fi
	kdir=$vm/k/$kver/usr/src/linux-headers-$kver
	if [ ! -f "$kdir/Makefile" ] || [ ! -x "$kdir/scripts/sign-file" ]; then
		echo "not ok - no kbuild tree at $kdir: run make deps"
		fail=$((fail + 1))
		finish
	fi
}

# the working tree as it is now, without build outputs
copy_tree() {
	mkdir -p "$src"
	git -C "$top" ls-files -z -co --exclude-standard |
		while IFS= read -r -d '' f; do
			[ ! -e "$top/$f" ] || printf '%s\0' "$f"
		done |
		tar -C "$top" --null -T - -cf - | tar -C "$src" -xf -
}

# depmod and udevadm on PATH only log: nothing here may run them for
# real, and with DESTDIR the install targets must not run them at all
stub_host_tools() {
	local t
	mkdir -p "$tmp/bin"
	for t in depmod udevadm; do
		printf '#!/bin/sh\necho "%s $*" >> "%s"\n' "$t" "$tmp/stub-$t.log" \
			> "$tmp/bin/$t"
		chmod +x "$tmp/bin/$t"
	done
	PATH=$tmp/bin:$PATH
}

# a key pair that lives as long as this run
make_key() {
	openssl req -new -nodes -utf8 -sha256 -days 1 -batch -x509 \
		-newkey rsa:2048 -subj "/CN=$CN/" -outform DER \
		-keyout "$tmp/key.pem" -out "$tmp/cert.der" > "$tmp/openssl.log" 2>&1
}

# host_snapshot FILE: what the host has at the paths an install without
# DESTDIR would write, its kernel packages and /boot
host_snapshot() {
	ls -d "$PREFIX/bin/mwctl" "$PREFIX/bin/mwpeer" "$PREFIX/include/linux/mwin.h" \
		"$PREFIX/share/man/man8/mwctl.8" "$PREFIX/share/man/man1/mwpeer.1" \
		"$PREFIX/share/doc/mwin" "$UDEV/60-mwin.rules" \
		/lib/modules/*/updates/mwin.ko* /lib/modules/*/extra/mwin.ko* \
		> "$1" 2>/dev/null
	bash "$top/tools/testing/vm/host-unchanged.sh" snapshot "$1.kernels" &&
		cat "$1.kernels" >> "$1"
}

setup() {
	tmp=$(mktemp -d /tmp/mwin-install-check.XXXXXX) || exit 1
	trap 'rm -rf "$tmp"' EXIT
	src=$tmp/src
	touch "$tmp/start"
	host_snapshot "$tmp/host.before"
	# install-module.sh looks for DKMS's key here: there is none
	export MWIN_DKMS_KEY_DIR=$tmp/no-dkms-key
	stub_host_tools
	check "copy the working tree to $src" copy_tree
	check "openssl makes a throwaway signing key" make_key
}

# ---- the checks ----------------------------------------------------------

# 1. no kernel tree: make refuses
check_no_headers() {
	local r
	r=$(uname -r)
	local msg="No kernel tree at /nonexistent"
	check "make modules KDIR=/nonexistent fails: \"$msg\"" \
		fails_saying "$msg" no-kdir modules KDIR=/nonexistent
	if [ -e "/lib/modules/$r/build" ]; then
		skip "make without KDIR fails when the running kernel has no headers" \
			"this host has /lib/modules/$r/build"
		return
	fi
	msg="No kernel tree at /lib/modules/$r/build: install linux-headers-$r"
	check "make without KDIR fails: \"$msg\"" fails_saying "$msg" no-headers
}

# 4. signatures required (CONFIG_MODULE_SIG_FORCE=y) and no key: no install.
# The KDIR is a symlink farm of the headers tree with its own .config: kbuild
# takes the farm for its objtree (its top Makefile is included by an
# absolute path and finds srctree itself), and builds from it.
sigforce_kdir() {
	local farm=$tmp/kdir-sigforce
	cp -as "$kdir" "$farm" || return 1
	rm "$farm/.config"
	grep -v -e '^CONFIG_MODULE_SIG_FORCE=' -e '^# CONFIG_MODULE_SIG_FORCE is not set' \
		"$kdir/.config" > "$farm/.config"
	echo CONFIG_MODULE_SIG_FORCE=y >> "$farm/.config"
	[ "$(make -s -C "$farm" kernelrelease)" = "$kver" ]
}

# refused_leaving_nothing MESSAGE DESTDIR: the last make stopped there
# (not earlier) and installed nothing at all
refused_leaving_nothing() { says "$1" && only_files "$2"; }

check_sig_required() {
	local d=$tmp/d-sigforce farm=$tmp/kdir-sigforce
	local msg="loads signed modules only"
	check "a KDIR with CONFIG_MODULE_SIG_FORCE=y: a symlink farm of $kdir" \
		sigforce_kdir
	check "make install, signatures required, no key: fails, \"$msg\"" \
		fails_saying "$msg" install-sigforce install DESTDIR="$d" KDIR="$farm" \
		PREFIX="$PREFIX" UDEV_RULES_DIR="$UDEV"
	# the message comes after make modules: the farm built mwin.ko
	check "kbuild builds mwin.ko for $kver from the symlink farm" \
		vermagic_is "$src/mwin.ko" "$kver"
	check "make install, signatures required, no key: no mwin.ko* in DESTDIR" \
		no_module_in "$d"
	check "make install, signatures required, no key: DESTDIR stays empty" \
		refused_leaving_nothing "$msg" "$d"
	files_in "$d" | diag
}

# 3. a key given: the installed module is signed, once, with it
check_signed() {
	local d=$tmp/d-signed m
	check "make install MWIN_SIGN_KEY=... MWIN_SIGN_CERT=... succeeds" \
		mk install-signed install DESTDIR="$d" KDIR="$kdir" PREFIX="$PREFIX" \
		UDEV_RULES_DIR="$UDEV" MWIN_SIGN_KEY="$tmp/key.pem" \
		MWIN_SIGN_CERT="$tmp/cert.der"
	check "make install says it signs mwin.ko with the key" \
		says "signing mwin.ko with $tmp/key.pem"
	m=$(module_in "$d")
	check "signed: mwin.ko* installed for $kver (${m#"$d"})" test -n "$m"
	[ -n "$m" ] || return
	check "signed: the module ends with \"$SIG_MAGIC\"" is_signed "$m"
	check "signed: the module carries one signature" \
		test "$(signatures "$m")" = 1
	check "signed: modinfo names the throwaway key's signer" signer_is "$m" "$CN"
	check "signed: the build output mwin.ko stays unsigned" \
		test "$(signatures "$src/mwin.ko")" = 0
}

# DKMS's key, where MWIN_DKMS_KEY_DIR says (mok.pub is DER, as DKMS's)
check_dkms_key() {
	local d=$tmp/d-dkms k=$tmp/dkms-key m
	mkdir -p "$k"
	cp "$tmp/key.pem" "$k/mok.key"
	cp "$tmp/cert.der" "$k/mok.pub"
	check "make install MWIN_DKMS_KEY_DIR=... succeeds" \
		mk install-dkms install DESTDIR="$d" KDIR="$kdir" PREFIX="$PREFIX" \
		UDEV_RULES_DIR="$UDEV" MWIN_DKMS_KEY_DIR="$k"
	check "make install signs with \$MWIN_DKMS_KEY_DIR/mok.key" \
		says "signing mwin.ko with $k/mok.key"
	m=$(module_in "$d")
	check "DKMS's key: the installed module carries one signature" \
		test -n "$m" -a "$(signatures "${m:-/dev/null}")" = 1
}

# 2. no key: everything installed, the module unsigned
# what make install-peer installs, relative to the root
peer_files() {
	local p=${PREFIX#/} m=${PREFIX#/}/share/man/man3
	printf '%s\n' "$p/bin/mwpeer" "$p/share/man/man1/mwpeer.1" \
		"$p/lib/libmwinpeer.so.1.0.0" "$p/lib/libmwinpeer.so.1" \
		"$p/lib/libmwinpeer.so" "$p/lib/pkgconfig/mwinpeer.pc" \
		"$p/include/mwin/peer.h" "$p/include/linux/mwin.h" \
		"$m/libmwinpeer.3" "$m/mwpeer_open.3" "$m/mwpeer_process.3" \
		"$m/mwpeer_post.3" "$p/lib/$PYVER/dist-packages/mwinpeer.py"
}

# what make install-lib installs, relative to the root
lib_files() {
	local p=${PREFIX#/} m=${PREFIX#/}/share/man/man3 f
	printf '%s\n' "$p/lib/libmwin.so.1.0.0" "$p/lib/libmwin.so.1" \
		"$p/lib/libmwin.so" "$p/lib/pkgconfig/mwin.pc" \
		"$p/include/mwin/mwin.h" "$p/include/linux/mwin.h" \
		"$p/lib/$PYVER/dist-packages/mwin.py"
	# a page per family, a link to it per function
	for f in libmwin mwin_region mwin_window mwin_tenant mwin_peer \
		mwin_stats mwin_events $(lib_functions | grep -vx \
		-e mwin_stats -e mwin_events); do
		echo "$m/$f.3"
	done
}

# the functions libmwin's version script exports
lib_functions() {
	sed -n 's/^\t\t\(mwin_[a-z_]*\);$/\1/p' "$top/tools/lib/libmwin.map"
}

installed_files() {
	local d=$1
	{ peer_files; lib_files; } | sort -u | sed "s|^|$d/|"
	printf '%s\n' "$d$PREFIX/bin/mwctl" "$d$PREFIX/share/man/man8/mwctl.8" \
		"$d$UDEV/60-mwin.rules" \
		"$d$PREFIX/share/doc/mwin/examples/modprobe.d/mwin.conf" \
		"$d$PREFIX/share/doc/mwin/examples/modules-load.d/mwin.conf"
}

check_unsigned() {
	local d=$tmp/d-unsigned m f files
	check "make install without a key succeeds" \
		mk install-unsigned install DESTDIR="$d" KDIR="$kdir" \
		PREFIX="$PREFIX" UDEV_RULES_DIR="$UDEV"
	check "make install says the module is not signed" \
		says "mwin.ko is not signed (no key)"
	m=$(module_in "$d")
	check "unsigned: mwin.ko* installed for $kver (${m#"$d"})" test -n "$m"
	if [ -n "$m" ]; then
		check "unsigned: the module is built for $kver (vermagic)" \
			vermagic_is "$m" "$kver"
		check "unsigned: the module carries no signature" \
			test "$(signatures "$m")" = 0
	fi
	mapfile -t files < <(installed_files "$d")
	for f in "${files[@]}"; do
		check "unsigned: ${f#"$d"} installed" test -s "$f"
	done
	check "unsigned: mwctl and mwpeer are executable" \
		test -x "$d$PREFIX/bin/mwctl" -a -x "$d$PREFIX/bin/mwpeer"
	check "unsigned: the udev rule gives /dev/mwin to group rdma" \
		grep -q 'GROUP="rdma"' "$d$UDEV/60-mwin.rules"
}

# 5. uninstall: nothing left but empty directories
check_uninstall() {
	local d=$tmp/d-unsigned m
	m=$(module_in "$d")
	check "make uninstall DESTDIR=... succeeds" \
		mk uninstall uninstall DESTDIR="$d" PREFIX="$PREFIX" UDEV_RULES_DIR="$UDEV"
	[ -z "$m" ] || check "make uninstall removes ${m#"$d"}" test ! -e "$m"
	check "make uninstall leaves nothing but empty directories" only_files "$d"
	[ -z "$(files_in "$d")" ] || files_in "$d" | diag
}

# the C example, built as an application would against the tree in $1
app_builds() {
	local pc=(--define-variable=prefix="$1$PREFIX" mwinpeer)
	log=$tmp/app.log
	PKG_CONFIG_PATH="$1$PREFIX/lib/pkgconfig" sh -c 'cc -o "$0" "$1" \
		$(pkg-config --cflags --libs "$2" "$3")' "$tmp/app" \
		"$src/tools/examples/tenant_rw.c" "${pc[@]}" > "$log" 2>&1
}

# 6. install-peer: libmwinpeer and mwpeer, and no kernel tree needed; an
# application finds it through pkg-config, links and runs; then
# uninstall-peer
check_install_peer() {
	local d=$tmp/d-peer lib=$tmp/d-peer$PREFIX/lib
	mapfile -t want < <(peer_files)
	check "make install-peer KDIR=/nonexistent succeeds" \
		mk install-peer install-peer DESTDIR="$d" KDIR=/nonexistent PREFIX="$PREFIX"
	check "make install-peer installs libmwinpeer and mwpeer only" \
		only_files "$d" "${want[@]}"
	check "the library's soname is libmwinpeer.so.1" \
		sh -c "readelf -d '$lib/libmwinpeer.so.1' | grep -q 'SONAME.*libmwinpeer.so.1]'"
	check "the library exports mwpeer_* only, at version MWINPEER_1.0" \
		sh -c "nm -D --defined-only '$lib/libmwinpeer.so.1' | awk '{ print \$3 }' |
			grep -v '^MWINPEER_1.0$' | grep -vq '^mwpeer_.*@@MWINPEER_1.0$' && exit 1; exit 0"
	check "an application builds with pkg-config --cflags --libs mwinpeer" \
		app_builds "$d"
	check "the application runs against the installed library" \
		sh -c "LD_LIBRARY_PATH='$lib' '$tmp/app' 2>&1 | grep -q usage"
	check "the Python module loads the installed library" \
		env MWIN_PEER_LIB="$lib/libmwinpeer.so.1" \
		PYTHONPATH="$lib/$PYVER/dist-packages" python3 -c \
		'import mwinpeer; assert mwinpeer.event_name(2) == "grant"'
	check "make uninstall-peer succeeds" \
		mk uninstall-peer uninstall-peer DESTDIR="$d" PREFIX="$PREFIX"
	check "make uninstall-peer leaves nothing but empty directories" \
		only_files "$d"
}

# the library's dynamic symbols: the version node and each function at it
lib_exports() {
	nm -D --defined-only "$1" | awk '{ print $3 }' | sort
}

# what the version script says the library exports: each version node,
# and each function at the node that lists it
map_exports() {
	awk '/^MWIN_[0-9.]+ \{/ { node = $1; print node }
	     /^\t\tmwin_[a-z_]*;$/ { sub(/;$/, "", $1); print $1 "@@" node }' \
		"$top/tools/lib/libmwin.map"
}

exports_are_the_map() {
	diff -u <(lib_exports "$1") <(map_exports | sort) > "$log"
}

header_is_the_map() {
	log=$tmp/lib-header.log
	diff -u <(grep -o '^[a-z].*[ *]mwin_[a-z_]*(' "$1" | grep -o 'mwin_[a-z_]*' | sort) \
		<(lib_functions | sort) > "$log"
}

# tools/testing/libmwin-app.c, built as an application would against the
# tree in $1
lib_app_builds() {
	local pc=(--define-variable=prefix="$1$PREFIX" mwin)
	log=$tmp/lib-app.log
	PKG_CONFIG_PATH="$1$PREFIX/lib/pkgconfig" sh -c 'cc -Wall -Wextra -Werror \
		-o "$0" "$1" $(pkg-config --cflags --libs "$2" "$3")' "$tmp/lib-app" \
		"$src/tools/testing/libmwin-app.c" "${pc[@]}" > "$log" 2>&1
}

lib_app_runs() {
	log=$tmp/lib-app-run.log
	LD_LIBRARY_PATH=$1 "$tmp/lib-app" > "$log" 2>&1
}

# the Python module's structs are the size of the uAPI's
python_sizes_match() {
	log=$tmp/lib-sizes.log
	diff <(LD_LIBRARY_PATH=$1 "$tmp/lib-app" sizes) \
		<(MWIN_LIB="$1/libmwin.so.1" PYTHONPATH="$1/$PYVER/dist-packages" \
		python3 -c 'import ctypes, mwin
print(*(ctypes.sizeof(s) for s in (mwin.Info, mwin.DevInfo, mwin.RegionOpts,
	mwin.RegionInfo, mwin.WindowBind, mwin.WindowInfo, mwin.BatchOp,
	mwin.PeerInfo, mwin.TenantInfo, mwin.Stats, mwin.Event)))') > "$log" 2>&1
}

# 7. install-lib: libmwin alone, no kernel tree needed; an application
# finds it through pkg-config, links and runs; then uninstall-lib
check_install_lib() {
	local d=$tmp/d-lib lib=$tmp/d-lib$PREFIX/lib
	mapfile -t want < <(lib_files)
	check "make install-lib KDIR=/nonexistent succeeds" \
		mk install-lib install-lib DESTDIR="$d" KDIR=/nonexistent PREFIX="$PREFIX"
	check "make install-lib installs libmwin only" only_files "$d" "${want[@]}"
	[ "$(files_in "$d")" = "$(printf '%s\n' "${want[@]}" | sort)" ] ||
		diff <(files_in "$d") <(printf '%s\n' "${want[@]}" | sort) | diag
	check "the library's soname is libmwin.so.1" \
		sh -c "readelf -d '$lib/libmwin.so.1' | grep -q 'SONAME.*libmwin.so.1]'"
	check "the library exports the version script's $(lib_functions | wc -l) functions at their version nodes, nothing else" \
		exports_are_the_map "$lib/libmwin.so.1"
	check "the version script lists every function <mwin/mwin.h> declares" \
		header_is_the_map "$d$PREFIX/include/mwin/mwin.h"
	check "an application builds with pkg-config --cflags --libs mwin" \
		lib_app_builds "$d"
	check "it runs against the installed library: mwin_strerror(), events, no module" \
		lib_app_runs "$lib"
	check "the Python module loads the installed library" \
		env MWIN_LIB="$lib/libmwin.so.1" PYTHONPATH="$lib/$PYVER/dist-packages" \
		python3 -c 'import mwin
assert mwin.strerror(mwin.CALL_WINDOW_RENEW, -62).startswith("its lease ran out")
assert mwin.event_name(mwin.EVENT_GRANT) == "grant"'
	check "the Python module's structs are the sizes of the uAPI's" \
		python_sizes_match "$lib"
	check "make uninstall-lib succeeds" \
		mk uninstall-lib uninstall-lib DESTDIR="$d" PREFIX="$PREFIX"
	check "make uninstall-lib leaves nothing but empty directories" \
		only_files "$d"
}

# 8. both libraries in one tree: the example that lends a buffer
# (tools/examples/share_buffer.c: libmwin for the owner, libmwinpeer for
# its peer) builds as an application would, with pkg-config mwin mwinpeer
share_buffer_builds() {
	local pc=(--define-variable=prefix="$1$PREFIX" mwin mwinpeer)
	log=$tmp/share-buffer.log
	PKG_CONFIG_PATH="$1$PREFIX/lib/pkgconfig" sh -c 'cc -Wall -Wextra -Werror \
		-o "$0" "$1" $(pkg-config --cflags --libs "$2" "$3" "$4")' \
		"$tmp/share_buffer" "$src/tools/examples/share_buffer.c" "${pc[@]}" \
		> "$log" 2>&1
}

install_both() {
	mk both-lib install-lib DESTDIR="$1" KDIR=/nonexistent PREFIX="$PREFIX" &&
		mk both-peer install-peer DESTDIR="$1" KDIR=/nonexistent PREFIX="$PREFIX"
}

check_install_both() {
	local d=$tmp/d-both
	check "make install-lib, then install-peer, into one tree succeed" \
		install_both "$d"
	check "the share_buffer example builds with pkg-config --cflags --libs mwin mwinpeer" \
		share_buffer_builds "$d"
}

# the host and the headers tree as they were
headers_unchanged() {
	[ -z "$(find "$top/build/vm/k/$kver/usr/src" -newer "$tmp/start" -print -quit)" ]
}

host_unchanged() {
	host_snapshot "$tmp/host.after"
	diff -u "$tmp/host.before" "$tmp/host.after" > "$log"
}

check_host() {
	check "with DESTDIR, no depmod ran" never_ran depmod
	check "with DESTDIR, no udevadm ran" never_ran udevadm
	check "the headers tree of $kver is unchanged" headers_unchanged
	log=$tmp/host.diff
	check "the host is unchanged: nothing installed, kernels and /boot as they were" \
		host_unchanged
}

main() {
	if [ "${1:-}" = lib ]; then
		setup
		check_install_lib
		check_install_both
		finish
	fi
	find_kdir
	setup
	check_no_headers
	check_sig_required
	check_signed
	check_dkms_key
	check_unsigned
	check_uninstall
	check_install_peer
	check_install_lib
	check_install_both
	check_host
	finish
}

main "$@"
