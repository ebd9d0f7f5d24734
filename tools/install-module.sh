#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# install-module.sh KDIR: `make install`'s module part.  Signs mwin.ko when
# a key is at hand, refuses to install an unsigned module that the target
# kernel would refuse to load, then installs it with kbuild's
# modules_install, and runs depmod for the live system (not for a DESTDIR,
# a staging tree): kbuild runs it only from a tree with a System.map, which
# distributions' headers packages do not ship.
#
# The key: MWIN_SIGN_KEY and MWIN_SIGN_CERT, else the kernel tree's own
# certs/signing_key.pem (a kernel you built yourself), else DKMS's machine
# owner key (/var/lib/dkms/mok.key and mok.pub, which `mokutil --import`
# enrols; see the README's Secure Boot section).  The module is signed for
# the install only: the build output mwin.ko stays unsigned (sign-file would
# append a second signature to it at the next install).
#
# Signatures are required when the target kernel is built with
# CONFIG_MODULE_SIG_FORCE, or, when installing for the running kernel,
# when it enforces them now (module.sig_enforce, or lockdown, which Secure
# Boot turns on).
#
# Environment: DESTDIR (as make install passes it); MWIN_SIGN_KEY and
# MWIN_SIGN_CERT; MWIN_DKMS_KEY_DIR, where DKMS's key is looked for
# (default /var/lib/dkms; tools/testing/install-check.sh points it at an
# empty directory).
set -euo pipefail

kdir=${1:?usage: install-module.sh KDIR}
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ko=$top/mwin.ko
say() { echo "install: $*" >&2; }
die() { echo "install: error: $*" >&2; exit 1; }

[ -f "$ko" ] || die "no $ko: run make first"
kver=$(make -s -C "$kdir" kernelrelease 2>/dev/null) ||
	die "cannot read the kernel release of $kdir"

signing_required() {
	grep -qx 'CONFIG_MODULE_SIG_FORCE=y' "$kdir/.config" 2>/dev/null && return 0
	[ "$kver" = "$(uname -r)" ] || return 1
	[ "$(cat /sys/module/module/parameters/sig_enforce 2>/dev/null)" = Y ] && return 0
	grep -qE '\[(integrity|confidentiality)\]' /sys/kernel/security/lockdown 2>/dev/null
}

dkms_keys=${MWIN_DKMS_KEY_DIR:-/var/lib/dkms}
key=${MWIN_SIGN_KEY:-} cert=${MWIN_SIGN_CERT:-}
if [ -z "$key" ]; then
	for pair in "$kdir/certs/signing_key.pem $kdir/certs/signing_key.x509" \
		    "$dkms_keys/mok.key $dkms_keys/mok.pub"; do
		read -r k c <<<"$pair"
		if [ -r "$k" ] && [ -r "$c" ]; then
			key=$k cert=$c
			break
		fi
	done
fi

if [ -n "$key" ]; then
	{ [ -r "$key" ] && [ -r "$cert" ]; } || die "cannot read key $key or certificate $cert"
	say "signing mwin.ko with $key"
	# sign it in place for modules_install, then put the unsigned one back
	# (same mtime: kbuild does not rebuild it)
	unsigned=$(mktemp)
	cp -p "$ko" "$unsigned"
	trap 'cp -p "$unsigned" "$ko"; rm -f "$unsigned"' EXIT
	"$kdir/scripts/sign-file" sha256 "$key" "$cert" "$ko" ||
		die "sign-file failed"
elif signing_required; then
	die "kernel $kver loads signed modules only (Secure Boot, lockdown or
  CONFIG_MODULE_SIG_FORCE) and no key was found: set MWIN_SIGN_KEY and
  MWIN_SIGN_CERT, or create and enrol DKMS's key (README, Secure Boot)"
else
	say "mwin.ko is not signed (no key): kernel $kver loads it and marks itself tainted (E)"
fi

# kbuild would sign again with a key the headers do not carry: do not let it
make -C "$kdir" M="$top" modules_install INSTALL_MOD_PATH="${DESTDIR:-}" \
	CONFIG_MODULE_SIG_ALL=
[ -n "${DESTDIR:-}" ] || depmod "$kver"
