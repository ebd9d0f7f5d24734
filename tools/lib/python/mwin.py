# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""mwin: Python over libmwin, the local side of mwin.ko.

A thin ctypes layer: one Mwin per open /dev/mwin, the calls of <mwin/mwin.h>
as its methods, the module's structs (<linux/mwin.h>) as ctypes Structures
with the same fields, events on an Events object to poll. Errors are
MwinError, an OSError with the errno and the words of mwin_strerror().
<mwin/mwin.h> and libmwin(3) are the reference.

The library is loaded from $MWIN_LIB, else as libmwin.so.1.
"""
import ctypes
import errno
import ipaddress
import mmap
import os

_u8, _u32, _s32, _u64 = ctypes.c_uint8, ctypes.c_uint32, ctypes.c_int32, \
    ctypes.c_uint64

ACCESS_READ, ACCESS_WRITE, ACCESS_ATOMIC = 1, 2, 4
CREATE_FD_OWNED, WINDOW_OVERLAP, WINDOW_QUIET, WINDOW_ONCE, \
    REGION_NEAR_DEV, REGION_READ_ONLY = 1, 2, 4, 8, 16, 32
REGION_KIND_MODULE, REGION_KIND_USER, REGION_KIND_FILE = 0, 1, 2
GET_NEXT, GET_GONE = 1, 2
REGION_DESTROY_FORCE = 1
STATS_MODULE, STATS_PEER, STATS_TENANT = 1, 2, 3
BATCH_CREATE, BATCH_REBIND, BATCH_INVALIDATE, BATCH_DESTROY = 1, 2, 3, 4
EVENT_PEER_UP, EVENT_PEER_DOWN, EVENT_GRANT, EVENT_REVOKE, \
    EVENT_REMOTE_INVALIDATE, EVENT_REJECTED_INVALIDATE, EVENT_LOST = range(1, 8)
TENANT_SET_KEY, TENANT_SET_ALLOW, TENANT_SET_MAX_CONNS, \
    TENANT_SET_MAX_WINDOWS, TENANT_SET_OWNER, TENANT_SET_MAX_BYTES = \
    1, 2, 4, 8, 16, 32
NO_OWNER = 0xffffffff

# enum mwin_call, in its order
(CALL_ANY, CALL_OPEN, CALL_INFO, CALL_REGION_CREATE, CALL_REGION_DESTROY,
 CALL_REGION_GET, CALL_REGION_MMAP, CALL_WINDOW_CREATE, CALL_WINDOW_REBIND,
 CALL_WINDOW_INVALIDATE, CALL_WINDOW_DESTROY, CALL_WINDOW_RENEW,
 CALL_WINDOW_GET, CALL_WINDOW_BATCH, CALL_PEER_GET, CALL_PEER_DISCONNECT,
 CALL_TENANT_CREATE, CALL_TENANT_SET, CALL_TENANT_GET, CALL_TENANT_DESTROY,
 CALL_STATS, CALL_EVENTS) = range(22)

_REJECT_SLOTS, _DOWN_SLOTS, _STATS_MAX = 16, 16, 32
_NAME_MAX, _KEY_MAX, _ALLOW_MAX = 24, 64, 8


class DevInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char * 64), ("index", _u32),
                ("max_pages", _u32), ("page_size_cap", _u64),
                ("max_window_bytes", _u64), ("caps", _u32), ("nr_peers", _u32),
                ("_reserved", _u64)]


class Info(ctypes.Structure):
    _fields_ = [("size", _u32), ("flags", _u32), ("abi_version", _u32),
                ("port", _u32), ("max_region_bytes", _u64),
                ("region_bytes", _u64), ("max_windows", _u32),
                ("nr_windows", _u32), ("max_peers", _u32), ("nr_peers", _u32),
                ("nr_regions", _u32), ("nr_devs", _u32), ("devs", _u64),
                ("dev_info_size", _u32), ("_reserved", _u32),
                ("nr_tenants", _u32), ("nr_anon_peers", _u32),
                ("rejects", _u64 * _REJECT_SLOTS)]


class RegionOpts(ctypes.Structure):
    _fields_ = [("size", _u32), ("flags", _u32), ("length", _u64),
                ("dev_index", _u32), ("_reserved", _u32), ("kind", _u32),
                ("fd", _s32), ("addr", _u64), ("offset", _u64)]


class RegionInfo(ctypes.Structure):
    _fields_ = [("size", _u32), ("flags", _u32), ("id", _u32),
                ("nr_windows", _u32), ("length", _u64), ("mmap_offset", _u64),
                ("rflags", _u32), ("node", _s32), ("kind", _u32),
                ("pid", _s32), ("addr", _u64)]


class WindowBind(ctypes.Structure):
    _fields_ = [("size", _u32), ("flags", _u32), ("id", _u32),
                ("region", _u32), ("peer", _u32), ("access", _u32),
                ("offset", _u64), ("length", _u64), ("rkey", _u32),
                ("tenant", _u32), ("iova", _u64), ("expires_ms", _u32),
                ("_reserved", _u32)]


class WindowInfo(ctypes.Structure):
    _fields_ = [("size", _u32), ("flags", _u32), ("id", _u32),
                ("region", _u32), ("peer", _u32), ("state", _u32),
                ("access", _u32), ("rkey", _u32), ("offset", _u64),
                ("length", _u64), ("iova", _u64), ("binds", _u64),
                ("invalidations", _u64), ("remote_invalidations", _u64),
                ("wflags", _u32), ("tenant", _u32), ("expires_ns", _u64)]


class BatchOp(ctypes.Structure):
    _fields_ = [("opcode", _u32), ("flags", _u32), ("id", _u32),
                ("region", _u32), ("peer", _u32), ("access", _u32),
                ("offset", _u64), ("length", _u64), ("rkey", _u32),
                ("result", _s32), ("iova", _u64), ("expires_ms", _u32),
                ("tenant", _u32)]


class PeerInfo(ctypes.Structure):
    _fields_ = [("size", _u32), ("flags", _u32), ("id", _u32),
                ("state", _u32), ("qpn", _u32), ("nr_windows", _u32),
                ("dev_name", ctypes.c_char * 64), ("addr", _u8 * 128),
                ("msgs_sent", _u64), ("msgs_received", _u64),
                ("remote_invalidations", _u64),
                ("rejected_invalidations", _u64), ("tenant", _u32),
                ("down_reason", _u32)]


class TenantNet(ctypes.Structure):
    _fields_ = [("family", _u8), ("prefix_len", _u8), ("_reserved", _u8 * 2),
                ("addr", _u8 * 16)]


class TenantInfo(ctypes.Structure):
    _fields_ = [("size", _u32), ("flags", _u32), ("id", _u32),
                ("owner", _u32), ("name", ctypes.c_char * _NAME_MAX),
                ("key_len", _u32), ("nr_allow", _u32),
                ("key", _u8 * _KEY_MAX), ("allow", TenantNet * _ALLOW_MAX),
                ("max_conns", _u32), ("max_windows", _u32),
                ("nr_conns", _u32), ("nr_windows", _u32), ("connects", _u64),
                ("rejects", _u64 * _REJECT_SLOTS), ("grants", _u64),
                ("revokes", _u64), ("remote_invalidations", _u64),
                ("access_errors", _u64), ("bytes_granted", _u64),
                ("max_bytes", _u64)]


class Stats(ctypes.Structure):
    _fields_ = [("size", _u32), ("flags", _u32), ("scope", _u32),
                ("id", _u32), ("nr_stats", _u32), ("_reserved", _u32),
                ("stats", _u64 * _STATS_MAX), ("downs", _u64 * _DOWN_SLOTS),
                ("rejects", _u64 * _REJECT_SLOTS)]


class Event(ctypes.Structure):
    _fields_ = [("size", _u32), ("type", _u32), ("window", _u32),
                ("peer", _u32), ("rkey", _u32), ("reason", _u32),
                ("seq", _u64), ("time_ns", _u64)]


def _load():
    lib = ctypes.CDLL(os.environ.get("MWIN_LIB", "libmwin.so.1"))
    p, i, s = ctypes.POINTER, ctypes.c_int, ctypes.c_char_p
    sigs = {
        "mwin_open": (i, []),
        "mwin_close": (i, [i]),
        "mwin_info": (i, [i, p(Info), p(DevInfo), _u32]),
        "mwin_region_create_opts": (i, [i, p(RegionOpts), p(_u32), p(_u64)]),
        "mwin_region_create_user": (i, [i, ctypes.c_void_p, _u64, _u32,
                                        p(_u32)]),
        "mwin_region_create_file": (i, [i, i, _u64, _u64, _u32, p(_u32)]),
        "mwin_region_destroy": (i, [i, _u32, _u32]),
        "mwin_region_get": (i, [i, _u32, _u32, p(RegionInfo)]),
        "mwin_window_create": (i, [i, p(WindowBind)]),
        "mwin_window_rebind": (i, [i, p(WindowBind)]),
        "mwin_window_invalidate": (i, [i, _u32]),
        "mwin_window_destroy": (i, [i, _u32]),
        "mwin_window_renew": (i, [i, _u32, _u32, p(_u64)]),
        "mwin_window_get": (i, [i, _u32, _u32, p(WindowInfo)]),
        "mwin_window_batch": (i, [i, p(BatchOp), _u32, p(_u32)]),
        "mwin_peer_get": (i, [i, _u32, _u32, p(PeerInfo)]),
        "mwin_peer_disconnect": (i, [i, _u32]),
        "mwin_tenant_create": (i, [i, p(TenantInfo)]),
        "mwin_tenant_set": (i, [i, p(TenantInfo)]),
        "mwin_tenant_get": (i, [i, _u32, _u32, p(TenantInfo)]),
        "mwin_tenant_find": (i, [i, s, p(TenantInfo)]),
        "mwin_tenant_destroy": (i, [i, _u32]),
        "mwin_stats": (i, [i, _u32, _u32, p(Stats)]),
        "mwin_events": (i, []),
        "mwin_next_event": (i, [i, p(Event)]),
        "mwin_strerror": (s, [i, i]),
        "mwin_event_name": (s, [_u32]),
        "mwin_window_state_name": (s, [_u32]),
        "mwin_peer_state_name": (s, [_u32]),
        "mwin_region_kind_name": (s, [_u32]),
        "mwin_revoke_reason_name": (s, [_u32]),
        "mwin_down_reason_name": (s, [_u32]),
        "mwin_reject_reason_name": (s, [_u32]),
        "mwin_stat_name": (s, [_u32]),
    }
    for name, (res, args) in sigs.items():
        f = getattr(lib, name)
        f.restype, f.argtypes = res, args
    return lib


_lib = _load()


def strerror(call, err):
    """mwin_strerror(): what error err of call (a CALL_*) means."""
    return _lib.mwin_strerror(call, err).decode()


def event_name(t):
    return _lib.mwin_event_name(t).decode()


def window_state_name(s):
    return _lib.mwin_window_state_name(s).decode()


def peer_state_name(s):
    return _lib.mwin_peer_state_name(s).decode()


def region_kind_name(k):
    return _lib.mwin_region_kind_name(k).decode()


def revoke_reason_name(r):
    return _lib.mwin_revoke_reason_name(r).decode()


def down_reason_name(r):
    return _lib.mwin_down_reason_name(r).decode()


def reject_reason_name(r):
    return _lib.mwin_reject_reason_name(r).decode()


def stat_name(s):
    return _lib.mwin_stat_name(s).decode()


class MwinError(OSError):
    """An error of a libmwin call: errno, and mwin_strerror()'s words."""

    def __init__(self, call, ret):
        super().__init__(-ret, strerror(call, ret))
        self.call = call


def _check(call, ret):
    if ret < 0:
        raise MwinError(call, ret)
    return ret


def _net(prefix):
    n = ipaddress.ip_network(prefix, strict=True)
    t = TenantNet(family=n.version, prefix_len=n.prefixlen)
    packed = n.network_address.packed
    t.addr[:len(packed)] = list(packed)
    return t


def _tenant_fields(t, key, allow, max_conns, max_windows, max_bytes, owner):
    """The fields given (not None) into t; their TENANT_SET_* flags."""
    flags = 0
    if key is not None:
        t.key_len = len(key)
        t.key[:len(key)] = list(key)
        flags |= TENANT_SET_KEY
    if allow is not None:
        t.nr_allow = len(allow)
        for n, a in enumerate(allow):
            t.allow[n] = _net(a)
        flags |= TENANT_SET_ALLOW
    for name, v, f in (("max_conns", max_conns, TENANT_SET_MAX_CONNS),
                       ("max_windows", max_windows, TENANT_SET_MAX_WINDOWS),
                       ("max_bytes", max_bytes, TENANT_SET_MAX_BYTES),
                       ("owner", owner, TENANT_SET_OWNER)):
        if v is not None:
            setattr(t, name, v)
            flags |= f
    return flags


class Mwin:
    """/dev/mwin, opened read-write: the calls of <mwin/mwin.h>."""

    def __init__(self):
        self.fd = _check(CALL_OPEN, _lib.mwin_open())

    def close(self):
        if self.fd >= 0:
            _lib.mwin_close(self.fd)
            self.fd = -1

    def fileno(self):
        return self.fd

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _walk(self, get, flags=0):
        """Every object of a GET call, by MWIN_GET_NEXT."""
        last = 0
        while True:
            try:
                o = get(last, GET_NEXT | flags)
            except MwinError as e:
                if e.errno == errno.ENOENT:     # past the last
                    return
                raise
            yield o
            last = o.id

    # ---- the module

    def info(self):
        """The module's figures; its devices in the list info().devices."""
        info, n = Info(), 4
        while True:
            devs = (DevInfo * n)()
            _check(CALL_INFO, _lib.mwin_info(self.fd, ctypes.byref(info),
                                             devs, n))
            if info.nr_devs <= n:
                info.devices = list(devs[:info.nr_devs])
                return info
            n = info.nr_devs + 4

    def stats(self, scope=STATS_MODULE, id=0):
        st = Stats()
        _check(CALL_STATS, _lib.mwin_stats(self.fd, scope, id,
                                           ctypes.byref(st)))
        return st

    # ---- regions

    def region_create(self, length, flags=0, near=None):
        """A region of length bytes: (id, mmap_offset). near: a device index."""
        o = RegionOpts(size=ctypes.sizeof(RegionOpts), flags=flags,
                       length=length)
        if near is not None:
            o.flags |= REGION_NEAR_DEV
            o.dev_index = near
        rid, off = _u32(), _u64()
        _check(CALL_REGION_CREATE, _lib.mwin_region_create_opts(
            self.fd, ctypes.byref(o), ctypes.byref(rid), ctypes.byref(off)))
        return rid.value, off.value

    def region_create_user(self, buf, length=None, flags=0):
        """A region of the caller's memory, pinned where it is: its id.

        buf: a writable buffer (mmap, bytearray, ctypes array...) or an
        address; its start and length page-aligned (an mmap's are). The
        region keeps the pages pinned whatever becomes of buf: keep buf for
        as long as the region is to show what the program writes there.
        """
        if isinstance(buf, int):
            if length is None:
                raise ValueError("an address needs a length")
            addr = buf
        else:
            with memoryview(buf) as v:
                length = v.nbytes if length is None else length
            c = ctypes.c_char.from_buffer(buf)
            addr = ctypes.addressof(c)
            del c       # the buffer export: an mmap may be closed later
        rid = _u32()
        _check(CALL_REGION_CREATE, _lib.mwin_region_create_user(
            self.fd, addr, length, flags, ctypes.byref(rid)))
        return rid.value

    def region_create_file(self, file, offset, length, flags=0):
        """A region of bytes [offset, offset + length) of a memfd or tmpfs
        file (a file object or descriptor): its id. The region holds the
        file; a writable one needs it open for reading and writing."""
        fd = file if isinstance(file, int) else file.fileno()
        rid = _u32()
        _check(CALL_REGION_CREATE, _lib.mwin_region_create_file(
            self.fd, fd, offset, length, flags, ctypes.byref(rid)))
        return rid.value

    def region_destroy(self, rid, force=False):
        _check(CALL_REGION_DESTROY, _lib.mwin_region_destroy(
            self.fd, rid, REGION_DESTROY_FORCE if force else 0))

    def region_get(self, rid, flags=0):
        r = RegionInfo()
        _check(CALL_REGION_GET, _lib.mwin_region_get(self.fd, rid, flags,
                                                     ctypes.byref(r)))
        return r

    def regions(self):
        return self._walk(self.region_get)

    def region_mmap(self, rid):
        """The region's memory, as mwin_region_mmap() maps it: an mmap."""
        r = self.region_get(rid)
        return mmap.mmap(self.fd, r.length, mmap.MAP_SHARED,
                         mmap.PROT_READ | mmap.PROT_WRITE,
                         offset=r.mmap_offset)

    # ---- windows

    @staticmethod
    def _bind(wid, region, offset, length, access, peer, tenant, flags,
              expires_ms):
        return WindowBind(size=ctypes.sizeof(WindowBind), id=wid,
                          region=region, offset=offset, length=length,
                          access=access, peer=peer, tenant=tenant,
                          flags=flags, expires_ms=expires_ms)

    def window_create(self, region, offset, length, access, peer=0,
                      tenant=0, flags=0, expires_ms=0):
        """A window, granted to peer or tenant: its WindowBind (id, rkey, iova)."""
        b = self._bind(0, region, offset, length, access, peer, tenant,
                       flags, expires_ms)
        _check(CALL_WINDOW_CREATE,
               _lib.mwin_window_create(self.fd, ctypes.byref(b)))
        return b

    def window_rebind(self, wid, offset, length, access, peer=0, tenant=0,
                      flags=0, expires_ms=0):
        b = self._bind(wid, 0, offset, length, access, peer, tenant, flags,
                       expires_ms)
        _check(CALL_WINDOW_REBIND,
               _lib.mwin_window_rebind(self.fd, ctypes.byref(b)))
        return b

    def window_invalidate(self, wid):
        _check(CALL_WINDOW_INVALIDATE,
               _lib.mwin_window_invalidate(self.fd, wid))

    def window_destroy(self, wid):
        _check(CALL_WINDOW_DESTROY, _lib.mwin_window_destroy(self.fd, wid))

    def window_renew(self, wid, expires_ms):
        """A new lease: the deadline, CLOCK_MONOTONIC nanoseconds."""
        ns = _u64()
        _check(CALL_WINDOW_RENEW, _lib.mwin_window_renew(
            self.fd, wid, expires_ms, ctypes.byref(ns)))
        return ns.value

    def window_get(self, wid, flags=0):
        w = WindowInfo()
        _check(CALL_WINDOW_GET, _lib.mwin_window_get(self.fd, wid, flags,
                                                     ctypes.byref(w)))
        return w

    def windows(self):
        return self._walk(self.window_get)

    def window_batch(self, ops):
        """BatchOp entries, carried out in order: each its result; failures."""
        arr = (BatchOp * len(ops))(*ops)
        failed = _u32()
        _check(CALL_WINDOW_BATCH, _lib.mwin_window_batch(
            self.fd, arr, len(ops), ctypes.byref(failed)))
        ops[:] = list(arr)
        return failed.value

    # ---- peers

    def peer_get(self, pid, flags=0):
        p = PeerInfo()
        _check(CALL_PEER_GET, _lib.mwin_peer_get(self.fd, pid, flags,
                                                 ctypes.byref(p)))
        return p

    def peers(self, gone=False):
        return self._walk(self.peer_get, GET_GONE if gone else 0)

    def peer_disconnect(self, pid):
        _check(CALL_PEER_DISCONNECT, _lib.mwin_peer_disconnect(self.fd, pid))

    # ---- tenants

    def tenant_create(self, name, key=None, allow=None, max_conns=None,
                      max_windows=None, max_bytes=None, owner=None):
        """A tenant; allow: prefixes such as "10.0.0.0/8". Its id."""
        t = TenantInfo(name=name.encode(), owner=NO_OWNER)
        _tenant_fields(t, key, allow, max_conns, max_windows, max_bytes,
                       owner)
        _check(CALL_TENANT_CREATE,
               _lib.mwin_tenant_create(self.fd, ctypes.byref(t)))
        return t.id

    def tenant_set(self, tid, key=None, allow=None, max_conns=None,
                   max_windows=None, max_bytes=None, owner=None):
        """Change the fields given of tenant tid."""
        t = TenantInfo(id=tid)
        t.flags = _tenant_fields(t, key, allow, max_conns, max_windows,
                                 max_bytes, owner)
        _check(CALL_TENANT_SET, _lib.mwin_tenant_set(self.fd, ctypes.byref(t)))

    def tenant_get(self, tid, flags=0):
        t = TenantInfo()
        _check(CALL_TENANT_GET, _lib.mwin_tenant_get(self.fd, tid, flags,
                                                     ctypes.byref(t)))
        return t

    def tenants(self):
        return self._walk(self.tenant_get)

    def tenant_find(self, name):
        t = TenantInfo()
        _check(CALL_TENANT_GET, _lib.mwin_tenant_find(
            self.fd, name.encode(), ctypes.byref(t)))
        return t

    def tenant_destroy(self, tid):
        _check(CALL_TENANT_DESTROY, _lib.mwin_tenant_destroy(self.fd, tid))


class Events:
    """mwin_events(): the module's events on a file to poll (fileno())."""

    def __init__(self, nonblock=False):
        self.fd = _check(CALL_EVENTS, _lib.mwin_events())
        os.set_blocking(self.fd, not nonblock)

    def fileno(self):
        return self.fd

    def next(self):
        """mwin_next_event(): an Event, or None when none is queued
        (non-blocking)."""
        ev = Event()
        ret = _lib.mwin_next_event(self.fd, ctypes.byref(ev))
        if ret == -errno.EAGAIN:
            return None
        _check(CALL_EVENTS, ret)
        return ev

    def close(self):
        if self.fd >= 0:
            _lib.mwin_close(self.fd)
            self.fd = -1

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
