#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: a window's whole life, as a transcript a newcomer can follow.
#
# On the host (no argument) it boots the test VM (tools/testing/vm/vm-run)
# and runs itself there with --guest. In the guest: load mwin.ko, make a
# tenant with a key (a stranger is refused), start a remote peer of that
# tenant (build/tools/mwpeer) as a coprocess, make a region and a
# window for the tenant with mwctl, have the peer write and read through
# the window, show the bytes, rebind the window read-only (the peer's
# write fails, which drops its connection), see the module grant the
# window again to the tenant's next connection, give it a lease that runs
# out, invalidate it (the peer's read fails), see why the first connection
# went (mwctl stats), have an application lend the tenant its own buffer
# (tools/examples/share_buffer), clean up.
# Each step prints "$ command" and its output ("peer>" lines go to the
# peer's stdin, "peer<" lines are what it answers). Exits non-zero as soon
# as a step does not behave as described.
set -u

if [ "${1:-}" != --guest ]; then
	cd "$(dirname "$0")/.." || exit 1
	echo "demo: booting a VM with soft-RoCE (rxe0 on eth0, 10.0.2.15) ..."
	set -o pipefail
	# The guest console, without firmware, kernel and dmesg noise.
	tools/testing/vm/vm-run --timeout 300 -- tools/demo.sh --guest | awk '
		{ sub(/\r$/, "") }
		/^===== MWIN-VM-DMESG-BEGIN/ { skip = 1 }
		/^===== MWIN-VM-DMESG-END/ { skip = 0; next }
		skip || /^MWIN-VM-EXIT=/ || /^SeaBIOS/ || /^Booting from/ { next }
		/^guest-setup: ready/ || /^\[ *[0-9]+\.[0-9]+\] / || /^$/ && !started { next }
		{ started = 1; print; fflush() }'
	rc=$?
	[ "$rc" -eq 0 ] || echo "demo: failed (status $rc)" >&2
	exit "$rc"
fi

# ------------------------------------------------------------ guest half

cd "$(dirname "$0")/.." || exit 1
export PATH=$PWD/build/tools:$PATH
HOST=${MWIN_TEST_HOST:-10.0.2.15}

fail() {
	echo "demo: FAILED: $*" >&2
	exit 1
}

say() {		# a line of narrative
	printf '\n# %s\n' "$*"
}

run() {		# run COMMAND...: print "$ COMMAND" and its output; RC its status
	echo "\$ $*"
	OUT=$("$@" 2>&1)
	RC=$?
	[ -z "$OUT" ] || printf '%s\n' "$OUT"
}

step() {	# step COMMAND...: run it; it must succeed
	run "$@"
	[ "$RC" -eq 0 ] || fail "'$*' exited with status $RC"
}

refused() {	# refused COMMAND...: run it; it must fail
	run "$@"
	[ "$RC" -ne 0 ] || fail "'$*' succeeded"
}

tget() {	# tget KEY TEXT: the word after KEY in mwctl's text output
	awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }' <<<"$2"
}

jget() {	# jget KEY JSON: the value of KEY in a flat JSON line
	sed -n "s/.*\"$1\":\"\{0,1\}\([^\",}]*\).*/\1/p" <<<"$2"
}

hex() {		# hex STRING: its bytes as hex digits
	printf '%s' "$1" | od -An -tx1 | tr -d ' \n'
}

peer_line() {	# read one line of the peer's output into LINE
	IFS= read -r -t 20 LINE <&"$PEER_OUT" || fail "mwpeer said nothing for 20 s"
}

peer() {	# peer COMMAND: send it to the peer, print what it prints up to its answer
	echo "peer> $*"
	echo "$*" >&"$PEER_IN"
	while peer_line; do
		echo "peer< $LINE"
		case $LINE in *'"cmd":'*) ANSWER=$LINE; return ;; esac
	done
}

peer_msgs() {	# peer_msgs grant|revoke: print the module's messages up to the next of that kind
	echo "wait $1 10000" >&"$PEER_IN"
	while peer_line; do
		case $LINE in
		*'"cmd":"wait"'*) ANSWER=$LINE; break ;;
		*) echo "peer< $LINE" ;;
		esac
	done
	[ "$(jget status "$ANSWER")" = success ] || fail "the peer got no $1 message"
}

window_state() {	# window_state ID: its state, as mwctl -j reports it
	jget state "$(mwctl -j window show "$1" 2>/dev/null)"
}

MSG="hello, window!"

say "Load the module. It listens for RDMA CM peers on every RDMA device."
step insmod build/vm/mwin.ko
for _ in $(seq 50); do [ -e /dev/mwin ] && break; sleep 0.1; done
step mwctl dev show
# the guest's RDMA device: rxe0, or siw0 (MWIN_VM_PROVIDER=siw)
DEV=${MWIN_DEV:-rxe0}
grep -q "^dev $DEV " <<<"$OUT" || fail "mwctl dev show lists no $DEV"

say "Only the tenants the administrator names may connect: a stranger is refused."
refused mwpeer -t 5000 "$HOST"
grep -q "rejected by mwin on .*: anonymous" <<<"$OUT" || fail "the stranger was not refused as anonymous"

say "A tenant, with a key that both sides must prove they hold (it never crosses the wire)."
KEY=/tmp/acme.key
head -c 32 /dev/urandom > "$KEY"
step mwctl tenant create acme key "$KEY" allow "${HOST%.*}.0/24" max-conns 2

say "A peer of that tenant connects (here from the same host, through $DEV)."
echo "\$ coproc mwpeer --tenant acme --key $KEY $HOST"
coproc PEER { exec mwpeer --tenant acme --key "$KEY" -t 5000 "$HOST" 2>&1; }
# our own copies: bash forgets PEER once the coprocess exits
exec {PEER_OUT}<&"${PEER[0]}" {PEER_IN}>&"${PEER[1]}"
PEER_PROC=$PEER_PID
peer_line
echo "peer< $LINE"
P=$(jget peer "$LINE")
[ -n "$P" ] || fail "mwpeer did not connect"
for _ in $(seq 100); do
	mwctl peer show "$P" 2>/dev/null | grep -q "state connected" && break
	sleep 0.1
done
step mwctl peer show
grep -q "^peer $P .* state connected" <<<"$OUT" || fail "peer $P is not connected"
grep -q "^peer $P .*tenant acme" <<<"$OUT" || fail "peer $P is not acme's"

say "Pinned kernel memory, and a window on 8 KiB of it for tenant acme: its rkey works"
say "through every connection of acme, and through nobody else's."
step mwctl region create size 64K
R=$(tget region "$OUT")
step mwctl window create region "$R" tenant acme offset 4K len 8K access rw
W=$(tget window "$OUT")
RKEY=$(tget rkey "$OUT")
IOVA=$(tget iova "$OUT")
[ "$(tget state "$OUT")" = bound ] || fail "window $W is not bound"
peer_msgs grant
[ "$(jget rkey "$ANSWER")" = "$((RKEY))" ] || fail "the peer was granted another rkey"

say "The peer writes and reads the window with one-sided RDMA."
peer write "$RKEY" "$IOVA" "$(hex "$MSG")"
[ "$(jget status "$ANSWER")" = success ] || fail "the peer's write failed"
peer read "$RKEY" "$IOVA" ${#MSG}
[ "$(jget data "$ANSWER")" = "$(hex "$MSG")" ] || fail "the peer read other bytes"
step mwctl region read "$R" offset 4K len 16
grep -qF "|$MSG" <<<"$OUT" || fail "the region does not hold the peer's bytes"

say "Rebind read-only: a new rkey; the old one is dead when mwctl returns."
step mwctl window rebind "$W" access r
RKEY2=$(tget rkey "$OUT")
[ "$(tget access "$OUT")" = r ] && [ "$RKEY2" != "$RKEY" ] || fail "the rebind did not take"
peer_msgs grant
peer write "$RKEY2" "$IOVA" "$(hex "overwritten!!!")"
[ "$(jget status "$ANSWER")" != success ] || fail "the peer wrote to a read-only window"

say "A failed access breaks that connection, not the grant: acme had no other one, so"
say "the window's rkey died with it, and the window waits, still acme's."
for _ in $(seq 100); do [ "$(window_state "$W")" = unbound ] && break; sleep 0.1; done
step mwctl window show "$W"
[ "$(tget state "$OUT")" = unbound ] || fail "window $W is not unbound"
grep -q " tenant acme" <<<"$OUT" || fail "window $W is no longer acme's"
say "acme reconnects: the module binds the window again, with a new rkey, and tells it."
peer reconnect
P2=$(jget peer "$ANSWER")
[ -n "$P2" ] && [ "$P2" != "$P" ] || fail "the peer did not reconnect"
peer_msgs grant
RKEY3=$(jget rkey "$ANSWER")
[ -n "$RKEY3" ] && [ "$RKEY3" != "$((RKEY2))" ] || fail "the window was not granted again with a new rkey"
step mwctl window show "$W"
[ "$(tget state "$OUT")" = bound ] || fail "window $W is not bound again"
peer read "$RKEY3" "$IOVA" ${#MSG}
[ "$(jget data "$ANSWER")" = "$(hex "$MSG")" ] || fail "the window does not hold the first bytes"

say "A lease: a grant that ends by itself. Rebind the window with a lease of 2 s, then"
say "renew it to end 1 s from now: the peer is told each time (lease_ms), and at its end"
say "the module revokes the rkey by itself, and says why."
step mwctl window rebind "$W" expires 2s
peer_msgs revoke
peer_msgs grant
step mwctl window renew "$W" expires 1s
grep -q " expires " <<<"$OUT" || fail "mwctl does not show the lease"
peer_msgs grant
[ -n "$(jget lease_ms "$ANSWER")" ] || fail "the renewal did not tell the peer its lease"
peer_msgs revoke
[ "$(jget reason "$ANSWER")" = expired ] || fail "the lease did not end the grant"
step mwctl window show "$W"
[ "$(tget state "$OUT")" = invalidated ] || fail "window $W is not invalidated"
say "A rebind grants it again, without a lease this time."
step mwctl window rebind "$W"
peer_msgs grant
RKEY3=$(jget rkey "$ANSWER")

say "Invalidate: the rkey dies, the peer is told, its read fails."
step mwctl window invalidate "$W"
[ "$(tget state "$OUT")" = invalidated ] || fail "window $W is not invalidated"
peer_msgs revoke
peer read "$RKEY3" "$IOVA" ${#MSG}
[ "$(jget status "$ANSWER")" != success ] || fail "the peer read through an invalidated window"

say "The tenant's counters: two connections, each dropped for its failed access."
for _ in $(seq 100); do mwctl peer show "$P2" >/dev/null 2>&1 || break; sleep 0.1; done
step mwctl -d tenant show acme
say "Why they were dropped (downs qp-error: a request on the QP failed), and all of"
say "the tenant's counters (without -d, those that are not 0): mwctl stats."
step mwctl -d stats tenant acme
grep -Eq ' downs ([^ ]*,)?qp-error:2' <<<"$OUT" ||
	fail "mwctl stats does not say why acme's connections went"

peer quit
wait "$PEER_PROC" 2>/dev/null
say "An application lends acme a buffer of its own (tools/examples/share_buffer, with"
say "libmwin): it pins it where it is as a read-only user region, grants a window with a"
say "lease, renews it twice, revokes it; its peer (libmwinpeer, a child process) reads"
say "and checks the bytes after each step, and fails to after the revoke."
step build/examples/share_buffer -t 20 -k "$(od -An -tx1 "$KEY" | tr -d ' \n')" "$HOST" acme
grep -q "^share_buffer: ok" <<<"$OUT" || fail "share_buffer did not end as described"

say "Clean up."
step mwctl window destroy "$W"
step mwctl region destroy "$R"
step mwctl tenant destroy acme
step rmmod mwin
echo
echo "demo: every step behaved as described"
