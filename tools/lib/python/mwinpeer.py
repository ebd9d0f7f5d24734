# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""mwinpeer: Python over libmwinpeer, the remote side of mwin.

A thin ctypes layer: one Peer per connection, events as Event tuples,
operations by window id and offset, errors as OSError with the errno the C
library returns (ESTALE: the window has no grant; ERANGE, EACCES, ETIME:
refused before anything was sent). <mwin/peer.h> and libmwinpeer(3) are the
reference; a Peer is used by one thread at a time, like a struct mwpeer.

The library is loaded from $MWIN_PEER_LIB, else as libmwinpeer.so.1.
"""
import ctypes
import os
from collections import namedtuple

OP_READ, OP_WRITE, OP_CAS, OP_FADD, OP_HAND_BACK = range(1, 6)
EV_CONNECTED, EV_GRANT, EV_REVOKE, EV_DONE, EV_DISCONNECTED = range(1, 6)
WIRE_GRANT, WIRE_REVOKE = 1, 2
ACCESS_READ, ACCESS_WRITE, ACCESS_ATOMIC = 1, 2, 4


class _Opts(ctypes.Structure):
    _fields_ = [("dev", ctypes.c_char_p), ("timeout_ms", ctypes.c_int),
                ("buf_size", ctypes.c_size_t), ("recv_depth", ctypes.c_int),
                ("private_data", ctypes.c_void_p),
                ("private_data_len", ctypes.c_size_t),
                ("retry_count", ctypes.c_uint8),
                ("rnr_retry_count", ctypes.c_uint8),
                ("tenant", ctypes.c_char_p), ("key", ctypes.c_char_p),
                ("key_len", ctypes.c_size_t), ("no_proof", ctypes.c_bool)]


class _Msg(ctypes.Structure):
    _fields_ = [("type", ctypes.c_uint8), ("valid", ctypes.c_bool),
                ("access", ctypes.c_uint16), ("seq", ctypes.c_uint32),
                ("window", ctypes.c_uint32), ("rkey", ctypes.c_uint32),
                ("iova", ctypes.c_uint64), ("length", ctypes.c_uint64),
                ("recv", ctypes.c_uint64), ("lease_ms", ctypes.c_uint32),
                ("flags", ctypes.c_uint32), ("missed", ctypes.c_uint32)]


class _Op(ctypes.Structure):
    _fields_ = [("type", ctypes.c_uint32), ("window", ctypes.c_uint32),
                ("offset", ctypes.c_uint64), ("len", ctypes.c_uint64),
                ("local", ctypes.c_void_p), ("compare_add", ctypes.c_uint64),
                ("swap", ctypes.c_uint64), ("cookie", ctypes.c_uint64)]


class _Event(ctypes.Structure):
    _fields_ = [("type", ctypes.c_uint32), ("status", ctypes.c_int32),
                ("cookie", ctypes.c_uint64), ("value", ctypes.c_uint64),
                ("msg", _Msg)]


Grant = namedtuple("Grant", "window rkey iova length access lease_ms once seq")
Event = namedtuple("Event", "type status cookie value grant")


def _grant(m):
    return Grant(m.window, m.rkey, m.iova, m.length, m.access, m.lease_ms,
                 bool(m.flags & 1), m.seq)


def _load():
    lib = ctypes.CDLL(os.environ.get("MWIN_PEER_LIB", "libmwinpeer.so.1"),
                      use_errno=True)
    p = ctypes.c_void_p
    sigs = {
        "mwpeer_create": (p, [ctypes.POINTER(_Opts)]),
        "mwpeer_open": (ctypes.c_int, [p, ctypes.c_char_p, ctypes.c_uint16]),
        "mwpeer_reconnect": (ctypes.c_int, [p]),
        "mwpeer_close": (None, [p]),
        "mwpeer_id": (ctypes.c_uint32, [p]),
        "mwpeer_tenant_id": (ctypes.c_uint32, [p]),
        "mwpeer_fd": (ctypes.c_int, [p]),
        "mwpeer_errmsg": (ctypes.c_char_p, [p]),
        "mwpeer_buf": (p, [p]),
        "mwpeer_buf_size": (ctypes.c_size_t, [p]),
        "mwpeer_poll": (ctypes.c_int, [p, ctypes.c_int]),
        "mwpeer_arm": (ctypes.c_int, [p]),
        "mwpeer_process": (ctypes.c_int, [p, ctypes.POINTER(_Event),
                                          ctypes.c_int]),
        "mwpeer_post": (ctypes.c_int, [p, ctypes.POINTER(_Op)]),
        "mwpeer_do": (ctypes.c_int, [p, ctypes.POINTER(_Op),
                                     ctypes.POINTER(ctypes.c_uint64)]),
        "mwpeer_grant": (ctypes.c_int, [p, ctypes.c_uint32,
                                        ctypes.POINTER(_Msg)]),
        "mwpeer_event_str": (ctypes.c_char_p, [ctypes.c_uint]),
        "mwpeer_reason_str": (ctypes.c_char_p, [ctypes.c_uint]),
        "mwpeer_status_str": (ctypes.c_char_p, [ctypes.c_int]),
    }
    for name, (res, args) in sigs.items():
        f = getattr(lib, name)
        f.restype, f.argtypes = res, args
    return lib


_lib = _load()


def event_name(t):
    return _lib.mwpeer_event_str(t).decode()


def reason_name(r):
    return _lib.mwpeer_reason_str(r).decode()


class Peer:
    """One connection to mwin: Peer(host, tenant=None, key=None, ...)."""

    def __init__(self, host, tenant=None, key=None, port=0, timeout_ms=0):
        o = _Opts(timeout_ms=timeout_ms)
        if tenant:
            o.tenant = tenant.encode()
        if key:
            o.key, o.key_len = key, len(key)
        self._p = _lib.mwpeer_create(ctypes.byref(o))
        if not self._p:
            raise OSError(ctypes.get_errno(), "mwpeer_create")
        self._check(_lib.mwpeer_open(self._p, host.encode(), port),
                    "connect")

    def _check(self, r, what):
        if r < 0:
            raise OSError(-r, "%s: %s" % (what, self.errmsg()))
        if r > 0:
            raise OSError(0, "%s: %s" % (what,
                                         _lib.mwpeer_status_str(r).decode()))
        return r

    def errmsg(self):
        return _lib.mwpeer_errmsg(self._p).decode()

    @property
    def id(self):
        return _lib.mwpeer_id(self._p)

    @property
    def tenant_id(self):
        return _lib.mwpeer_tenant_id(self._p)

    def fileno(self):
        """Readable, after arm(), when events() has something: for select."""
        return _lib.mwpeer_fd(self._p)

    def events(self, max_events=16):
        """What is ready, as a list of Event; never blocks."""
        evs = (_Event * max_events)()
        n = _lib.mwpeer_process(self._p, evs, max_events)
        return [Event(e.type, e.status, e.cookie, e.value,
                      _grant(e.msg) if e.type in (EV_GRANT, EV_REVOKE)
                      else None) for e in evs[:n]]

    def arm(self):
        """Before sleeping on fileno(): False when events are ready."""
        return _lib.mwpeer_arm(self._p) == 0

    def wait(self, timeout_ms):
        _lib.mwpeer_poll(self._p, timeout_ms)

    def grant(self, window):
        m = _Msg()
        if _lib.mwpeer_grant(self._p, window, ctypes.byref(m)):
            return None
        return _grant(m)

    def _do(self, op, what):
        old = ctypes.c_uint64()
        self._check(_lib.mwpeer_do(self._p, ctypes.byref(op),
                                   ctypes.byref(old)), what)
        return old.value

    def read(self, window, offset, length):
        """RDMA READ of length bytes at offset in the window: bytes."""
        if length > _lib.mwpeer_buf_size(self._p):
            raise OSError(22, "read: longer than the peer's buffer")
        self._do(_Op(type=OP_READ, window=window, offset=offset,
                     len=length), "read")
        return ctypes.string_at(_lib.mwpeer_buf(self._p), length)

    def write(self, window, offset, data):
        if len(data) > _lib.mwpeer_buf_size(self._p):
            raise OSError(22, "write: longer than the peer's buffer")
        ctypes.memmove(_lib.mwpeer_buf(self._p), data, len(data))
        self._do(_Op(type=OP_WRITE, window=window, offset=offset,
                     len=len(data)), "write")

    def cas(self, window, offset, compare, swap):
        """8-byte compare and swap: the old value."""
        return self._do(_Op(type=OP_CAS, window=window, offset=offset,
                            compare_add=compare, swap=swap), "cas")

    def fadd(self, window, offset, add):
        return self._do(_Op(type=OP_FADD, window=window, offset=offset,
                            compare_add=add), "fadd")

    def hand_back(self, window):
        self._do(_Op(type=OP_HAND_BACK, window=window), "hand back")

    def reconnect(self):
        self._check(_lib.mwpeer_reconnect(self._p), "reconnect")

    def close(self):
        if self._p:
            _lib.mwpeer_close(self._p)
            self._p = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
