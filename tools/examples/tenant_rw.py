#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""tenant_rw.py: tools/examples/tenant_rw.c in Python, over mwinpeer.

  tenant_rw.py [-p PORT] [-k KEY_HEX] [-t SECONDS] HOST TENANT

Waits for a grant with read and write rights, writes and reads back
"round N from TENANT" at the window's start, twice: before and after the
owner rebinds the window. Exits 0 after round 2, 1 on a failure or after
SECONDS without progress.
"""
import argparse
import select
import sys

import mwinpeer


def run_round(peer, window, n, tenant):
    line = ("round %d from %s" % (n, tenant)).encode() + b"\0"
    peer.write(window, 0, line)
    got = peer.read(window, 0, len(line))
    if got != line:
        sys.exit("tenant_rw.py: read back %r" % got)
    print("round %d ok" % n, flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-p", type=int, default=0)
    ap.add_argument("-k", default="")
    ap.add_argument("-t", type=int, default=30)
    ap.add_argument("host")
    ap.add_argument("tenant")
    a = ap.parse_args()
    rw = mwinpeer.ACCESS_READ | mwinpeer.ACCESS_WRITE
    window, rkey, n = 0, 0, 0
    with mwinpeer.Peer(a.host, a.tenant, bytes.fromhex(a.k), a.p) as peer:
        while n < 2:
            evs = peer.events()
            if not evs and peer.arm() and \
                    not select.select([peer], [], [], a.t)[0]:
                sys.exit("tenant_rw.py: no event in %d s" % a.t)
            for ev in evs:
                print(mwinpeer.event_name(ev.type),
                      *(("window", ev.grant.window, "rkey", hex(ev.grant.rkey))
                        if ev.grant else ()), flush=True)
                if ev.type == mwinpeer.EV_DISCONNECTED:
                    sys.exit("tenant_rw.py: disconnected (%d)" % ev.status)
                g = ev.grant
                if ev.type != mwinpeer.EV_GRANT or (
                        g.window != window or g.rkey == rkey if window
                        else g.access & rw != rw):
                    continue
                window, rkey, n = g.window, g.rkey, n + 1
                run_round(peer, window, n, a.tenant)


if __name__ == "__main__":
    main()
