#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""share_buffer.py: tools/examples/share_buffer.c in Python, over mwin
(the owner) and mwinpeer (its peer, a child process).

  share_buffer.py [-p PORT] [-k KEY_HEX] [-t SECONDS] HOST TENANT

The owner fills a buffer of its own (an anonymous mmap), makes a read-only
user region of it, grants TENANT a read-only window of it with a lease,
renews the lease twice, then invalidates and destroys the window; the peer
reads the whole window after each step and checks the bytes, and after the
revoke sees its READ fail. Exits 0 when all went as said, 1 otherwise.
"""
import argparse
import errno
import mmap
import os
import select
import sys
import time

import mwin
import mwinpeer

BUF_LEN = 64 * 1024
LEASE_MS = 5000


def pattern():
    """The buffer's bytes: both sides know them, so the peer can check."""
    return bytes((i * 7 + (i >> 12)) & 0xff for i in range(BUF_LEN))


def say(fd, c):
    os.write(fd, c)


def hear(fd, secs):
    """The next byte of fd within secs; b"" at its end or on a timeout."""
    if not select.select([fd], [], [], secs)[0]:
        return b""
    return os.read(fd, 1)


# ---- peer

def peer_wait(peer, state, want, secs):
    """Events until one of type want of our window (the first grant's)."""
    while True:
        evs = peer.events(1)
        if not evs:
            if peer.arm() and not select.select([peer], [], [], secs)[0]:
                raise OSError(errno.ETIMEDOUT, "no event in %d s" % secs)
            continue
        ev = evs[0]
        if ev.type == mwinpeer.EV_DISCONNECTED:
            raise OSError(-ev.status, "disconnected")
        if ev.type == mwinpeer.EV_GRANT and not state["window"]:
            state["window"] = ev.grant.window
        if ev.type == want and ev.grant.window == state["window"]:
            why = (", reason " + mwinpeer.reason_name(ev.grant.access)
                   if want == mwinpeer.EV_REVOKE else "")
            print("peer: %s of window %u rkey %#x%s" % (
                mwinpeer.event_name(want), ev.grant.window, ev.grant.rkey,
                why), flush=True)
            return


def peer_read(peer, window, want):
    got = peer.read(window, 0, BUF_LEN)
    if got != want:
        print("peer: the bytes of window %u are not the owner's" % window,
              flush=True)
        return False
    print("peer: read %d bytes of window %u: all the owner's"
          % (BUF_LEN, window), flush=True)
    return True


def peer_serve(peer, state, ask, want, secs):
    """Read (after a grant or renewal), or read after the revoke and fail."""
    try:
        if ask == b"r":
            peer_wait(peer, state, mwinpeer.EV_GRANT, secs)
            return peer_read(peer, state["window"], want)
        peer_wait(peer, state, mwinpeer.EV_REVOKE, secs)
    except OSError as e:
        print("peer: %s" % e, flush=True)
        return False
    try:
        peer.read(state["window"], 0, BUF_LEN)
    except OSError as e:
        print("peer: read of window %u failed: %s"
              % (state["window"], os.strerror(e.errno) if e.errno else e),
              flush=True)
        return True
    print("peer: read after the revoke succeeded", flush=True)
    return False


def run_peer(a, key, ask_fd, answer_fd):
    want = pattern()
    try:
        peer = mwinpeer.Peer(a.host, a.tenant, key, a.p)
    except OSError as e:
        print("peer: cannot connect to %s as %s: %s" % (a.host, a.tenant, e),
              flush=True)
        return 1
    with peer:
        print("peer: connected to %s as tenant %s" % (a.host, a.tenant),
              flush=True)
        say(answer_fd, b"c")
        state = {"window": 0}
        while True:
            ask = hear(ask_fd, a.t)
            if not ask:
                return 0
            ok = peer_serve(peer, state, ask, want, a.t)
            say(answer_fd, b"k" if ok else b"f")


# ---- owner

def owner_ask(ask_fd, answer_fd, ask, secs):
    say(ask_fd, ask)
    if hear(answer_fd, secs) != b"k":
        raise RuntimeError("the peer did not answer as it should")


def owner_grant(m, region, tenant, secs):
    """A read-only window of the whole region, with a lease. The tenant's
    connection proves its key after the peer said it connected: until
    then the module says ENOTCONN, so try again for a while."""
    tid = m.tenant_find(tenant).id
    end = time.monotonic() + secs
    while True:
        try:
            return m.window_create(region, 0, BUF_LEN, mwin.ACCESS_READ,
                                   tenant=tid, expires_ms=LEASE_MS)
        except mwin.MwinError as e:
            if e.errno != errno.ENOTCONN or time.monotonic() > end:
                raise
            time.sleep(0.01)


def owner_share(m, region, a, ask_fd, answer_fd):
    w = owner_grant(m, region, a.tenant, a.t)
    print("owner: window %u of region %u granted to tenant %s: read-only, "
          "rkey %#x, lease %d ms" % (w.id, region, a.tenant, w.rkey,
                                     LEASE_MS), flush=True)
    owner_ask(ask_fd, answer_fd, b"r", a.t)
    for n in (1, 2):
        deadline = m.window_renew(w.id, LEASE_MS)
        left = (deadline - time.clock_gettime_ns(time.CLOCK_MONOTONIC)) \
            // 1000000
        print("owner: lease of window %u renewed (%d of 2): ends in %d ms"
              % (w.id, n, left), flush=True)
        owner_ask(ask_fd, answer_fd, b"r", a.t)
    m.window_invalidate(w.id)
    print("owner: window %u invalidated: its rkey is dead" % w.id, flush=True)
    owner_ask(ask_fd, answer_fd, b"x", a.t)
    m.window_destroy(w.id)
    print("owner: window %u destroyed" % w.id, flush=True)


def run_owner(a, ask_fd, answer_fd):
    buf = mmap.mmap(-1, BUF_LEN)
    buf[:] = pattern()
    with mwin.Mwin() as m:
        # owned: the region goes with m, whatever happens below
        region = m.region_create_user(buf, flags=mwin.CREATE_FD_OWNED |
                                      mwin.REGION_READ_ONLY)
        print("owner: region %u of my buffer, %d bytes, read-only"
              % (region, BUF_LEN), flush=True)
        if hear(answer_fd, a.t) != b"c":
            raise RuntimeError("the peer did not connect")
        owner_share(m, region, a, ask_fd, answer_fd)
    buf.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-p", type=int, default=0)
    ap.add_argument("-k", default="")
    ap.add_argument("-t", type=int, default=30)
    ap.add_argument("host")
    ap.add_argument("tenant")
    a = ap.parse_args()
    key = bytes.fromhex(a.k)
    to_peer, to_owner = os.pipe(), os.pipe()
    pid = os.fork()
    if not pid:
        os.close(to_peer[1])
        os.close(to_owner[0])
        os._exit(run_peer(a, key, to_peer[0], to_owner[1]))
    os.close(to_peer[0])
    os.close(to_owner[1])
    ok = True
    try:
        run_owner(a, to_peer[1], to_owner[0])
    except (OSError, RuntimeError) as e:
        print("owner: %s" % e, flush=True)
        ok = False
    os.close(to_peer[1])        # the peer's end of the requests: it goes
    ok = os.waitpid(pid, 0)[1] == 0 and ok
    print("share_buffer: ok" if ok else "share_buffer: failed", flush=True)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
