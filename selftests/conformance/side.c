// SPDX-License-Identifier: GPL-2.0
/*
 * The two sides of a conformance case: opening and closing them, windows
 * on them, and the observations the cases share (side.h).
 */
#define _GNU_SOURCE
#define MWIN_TEST_HELPER
#include <poll.h>
#include <stdarg.h>

#include "side.h"

__attribute__((format(printf, 2, 3)))
void rp(struct res *r, const char *fmt, ...)
{
	size_t n = strlen(r->text);
	va_list ap;

	if (n >= sizeof(r->text) - 1)
		return;
	va_start(ap, fmt);
	vsnprintf(r->text + n, sizeof(r->text) - n, fmt, ap);
	va_end(ap);
}

const char *errname(int e)
{
	static __thread char buf[24];

	switch (e) {
	case ENOENT: return "ENOENT";
	case ERANGE: return "ERANGE";
	case EBUSY: return "EBUSY";
	case EINVAL: return "EINVAL";
	case E2BIG: return "E2BIG";
	case ENOTCONN: return "ENOTCONN";
	case EIO: return "EIO";
	case ETIMEDOUT: return "ETIMEDOUT";
	case EALREADY: return "EALREADY";
	case ENOSPC: return "ENOSPC";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ENOMEM: return "ENOMEM";
	case EPERM: return "EPERM";
	}
	snprintf(buf, sizeof(buf), "errno %d", e);
	return buf;
}

/* A work completion status, short. */
const char *wcname(int st)
{
	static __thread char buf[32];

	switch (st) {
	case IBV_WC_SUCCESS: return "OK";
	case IBV_WC_LOC_LEN_ERR: return "LOC_LEN_ERR";
	case IBV_WC_LOC_QP_OP_ERR: return "LOC_QP_OP_ERR";
	case IBV_WC_LOC_PROT_ERR: return "LOC_PROT_ERR";
	case IBV_WC_WR_FLUSH_ERR: return "WR_FLUSH_ERR";
	case IBV_WC_MW_BIND_ERR: return "MW_BIND_ERR";
	case IBV_WC_REM_INV_REQ_ERR: return "REM_INV_REQ_ERR";
	case IBV_WC_REM_ACCESS_ERR: return "REM_ACCESS_ERR";
	case IBV_WC_REM_OP_ERR: return "REM_OP_ERR";
	case IBV_WC_RETRY_EXC_ERR: return "RETRY_EXC_ERR";
	case IBV_WC_RNR_RETRY_EXC_ERR: return "RNR_RETRY_EXC_ERR";
	case IBV_WC_REM_ABORT_ERR: return "REM_ABORT_ERR";
	case IBV_WC_REM_INV_RD_REQ_ERR: return "REM_INV_RD_REQ_ERR";
	case IBV_WC_FATAL_ERR: return "FATAL_ERR";
	case IBV_WC_GENERAL_ERR: return "GENERAL_ERR";
	}
	snprintf(buf, sizeof(buf), "wc status %d", st);
	return buf;
}

/* An operation's result: wc status (>= 0) or -errno (not posted / no wc). */
const char *rname(int st)
{
	static __thread char buf[48];

	if (st >= 0)
		return wcname(st);
	if (st == -ETIMEDOUT)
		return "no completion (timeout)";
	if (st == -ENOTCONN)
		return "disconnected";
	snprintf(buf, sizeof(buf), "-%s", errname(-st));
	return buf;
}

const char *statename(uint32_t st)
{
	switch (st) {
	case 0: return "gone";
	case MWIN_WINDOW_BOUND: return "BOUND";
	case MWIN_WINDOW_INVALIDATED: return "INVALIDATED";
	case MWIN_WINDOW_UNBOUND: return "UNBOUND";
	case MWIN_WINDOW_BROKEN: return "BROKEN";
	}
	return "?";
}

uint32_t peer_id(struct side *s, int i)
{
	if (i == RAW)
		return s->raw ? mwpeer_id(s->raw) : 0;
	return s->p[i] ? mwpeer_id(s->p[i]) : 0;
}

/* Wait until the module sees peer @id established (or gone). */
int module_peer_wait(int fd, uint32_t id, uint32_t state, int ms)
{
	struct mwin_peer_info pi;
	int i, r;

	for (i = 0; i < ms; i++) {
		r = mwin_peer_get(fd, id, 0, &pi);
		if (state ? (!r && pi.state == state) : r == -ENOENT)
			return 0;
		usleep(1000);
	}
	return -ETIMEDOUT;
}

struct mwcore_conn *conn_of(struct side *s, int i)
{
	return mwcore_conn(s->srv, peer_id(s, i), 5000);
}

static int peer_open(struct side *s, int i)
{
	uint16_t port = s->kind == SIDE_MWIN ? 0 : s->srv->port;
	int err = 0;

	s->p[i] = mwpeer_connect(test_host(), port, NULL, TEST_TIMEOUT_MS, &err);
	if (!s->p[i])
		return err ? err : -EIO;
	mwpeer_set_timeout(s->p[i], 5000);
	if (s->kind == SIDE_MWIN)
		return module_peer_wait(s->fd, mwpeer_id(s->p[i]),
					MWIN_PEER_CONNECTED, TEST_TIMEOUT_MS);
	return conn_of(s, i) ? 0 : -ETIMEDOUT;
}

int raw_open(struct side *s)
{
	uint16_t port = s->kind == SIDE_MWIN ? mwpeer_default_port() :
						 s->srv->port;

	s->raw = mwpeer_connect(test_host(), port, NULL, MWCORE_OP_TIMEOUT_MS,
				NULL);
	if (!s->raw)
		return -ECONNREFUSED;
	if (s->kind == SIDE_MWIN)
		return module_peer_wait(s->fd, mwpeer_id(s->raw),
					MWIN_PEER_CONNECTED, TEST_TIMEOUT_MS);
	return conn_of(s, RAW) ? 0 : -ETIMEDOUT;
}

void side_close(struct side *s)
{
	int i;

	for (i = 0; i < NPEERS; i++)
		mwpeer_close(s->p[i]);
	mwpeer_close(s->raw);
	if (s->kind == SIDE_MWIN) {
		if (s->mem)
			munmap(s->mem, s->maplen);
		if (s->region)
			mwin_region_destroy(s->fd, s->region,
					    MWIN_REGION_DESTROY_FORCE);
		if (s->mon >= 0)
			close(s->mon);
		if (s->fd >= 0)
			close(s->fd);
	} else {
		mwcore_stop(s->srv);
	}
	memset(s, 0, sizeof(*s));
	s->fd = s->mon = -1;
}

/* The rdma-core side needs memory windows: siw, for one, has none. */
static int core_caps(struct side *s)
{
	struct ibv_device_attr attr;
	int r = ibv_query_device(s->srv->ctx, &attr);

	if (r)
		return -r;
	s->atomics = attr.atomic_cap != IBV_ATOMIC_NONE;
	if (attr.max_mw)
		return 0;
	snprintf(s->err, sizeof(s->err), "%s has no memory windows (max_mw 0)",
		 ibv_get_device_name(s->srv->ctx->device));
	return -EOPNOTSUPP;
}

int side_open(struct side *s, int kind, enum ibv_mw_type type)
{
	int i, r;

	memset(s, 0, sizeof(*s));
	s->kind = kind;
	s->mwtype = type;
	s->fd = s->mon = -1;
	if (kind == SIDE_MWIN) {
		s->fd = mwin_open();
		if (s->fd < 0)
			return s->fd;
		r = mwin_region_create(s->fd, REGION_LEN, 0, &s->region, NULL);
		if (r)
			return r;
		s->mem = mwin_region_mmap(s->fd, s->region, &s->maplen);
		if (!s->mem)
			return -ENOMEM;
		s->base = 0;
	} else {
		s->srv = mwcore_start(test_host(), 0, REGION_LEN, s->err,
				      sizeof(s->err));
		if (!s->srv)
			return -EIO;
		s->mem = s->srv->mem;
		s->base = (uintptr_t)s->srv->mem;
	}
	for (i = 0; i < NPEERS; i++) {
		r = peer_open(s, i);
		if (r)
			return r;
	}
	s->iwarp = test_iwarp(s->p[PA]);
	if (kind == SIDE_MWIN) {
		s->atomics = test_dev_atomics(s->fd, mwpeer_dev_name(s->p[PA]));
		return 0;
	}
	return core_caps(s);
}

int monitor_start(struct side *s)
{
	struct mwin_monitor mon = { .size = sizeof(mon) };

	s->mon = mwin_open();
	if (s->mon < 0)
		return s->mon;
	return mwin_ioctl(s->mon, MWIN_MONITOR, &mon);
}

/* The next event of @type for @window from the monitor, within @ms. */
int monitor_wait(struct side *s, uint32_t type, uint32_t window,
		 struct mwin_event *out, int ms)
{
	int64_t deadline = mwcore_now_ms() + ms;

	for (;;) {
		struct pollfd pfd = { .fd = s->mon, .events = POLLIN };
		struct mwin_event ev;
		int left = (int)(deadline - mwcore_now_ms());

		if (left <= 0)
			return -ETIMEDOUT;
		if (poll(&pfd, 1, left) <= 0)
			continue;
		if (read(s->mon, &ev, sizeof(ev)) != sizeof(ev))
			return -EIO;
		if (ev.type == type && (!window || ev.window == window)) {
			*out = ev;
			return 0;
		}
	}
}

/* The next revoke message of @p (grants before it are skipped). */
int next_revoke(struct mwpeer *p, struct mwpeer_msg *m, int ms)
{
	int64_t deadline = mwcore_now_ms() + ms;

	for (;;) {
		int left = (int)(deadline - mwcore_now_ms());

		if (left <= 0 || mwpeer_next_msg(p, m, left))
			return -ETIMEDOUT;
		if (m->type == MWIN_WIRE_REVOKE)
			return 0;
	}
}

/* ----------------------------------------------------------- windows */

/*
 * Grant [@off, @off + @len) with @access to requester @i. Returns 0, a
 * negative errno (ioctl or post), or the failed bind's wc status (> 0).
 */
int win_make(struct side *s, int i, uint64_t off, uint64_t len,
	     uint32_t access, uint32_t flags, struct win *w)
{
	int r;

	memset(w, 0, sizeof(*w));
	w->peer = i;
	w->off = off;
	w->len = len;
	w->access = access;
	if (s->kind == SIDE_MWIN) {
		struct mwin_window_bind b = test_bind(s->region, peer_id(s, i),
						      off, len, access, flags);

		r = mwin_window_create(s->fd, &b);
		if (r)
			return r;
		w->id = b.id;
		w->rkey = b.rkey;
		w->iova = b.iova;
		if (i < NPEERS)
			mwpeer_wait_grant(s->p[i], b.id, 0, NULL, 2000);
		return 0;
	}
	w->m = mwcore_alloc_mw(s->srv, s->mwtype);
	if (!w->m) {
		snprintf(s->err, sizeof(s->err), "ibv_alloc_mw: %s",
			 strerror(errno));
		return -(errno ? errno : ENOMEM);
	}
	r = mwcore_bind(s->srv, conn_of(s, i), w->m, off, len, access,
			mwcore_random_key(w->m->rkey));
	if (r)
		return r;
	w->rkey = w->m->rkey;
	w->iova = s->base + off;
	return 0;
}

/* Rebind @w to requester @i (-1: the same) with a new range and rights. */
int win_rebind(struct side *s, struct win *w, int i, uint64_t off,
	       uint64_t len, uint32_t access)
{
	uint32_t old = w->rkey;
	int r;

	if (i < 0)
		i = w->peer;
	if (s->kind == SIDE_MWIN) {
		struct mwin_window_bind b = test_bind(0, 0, off, len, access, 0);

		/* another peer, or an unbound window (after a reconnect) */
		if (i != w->peer ||
		    test_window_state(s->fd, w->id) == MWIN_WINDOW_UNBOUND)
			b.peer = peer_id(s, i);
		b.id = w->id;
		r = mwin_window_rebind(s->fd, &b);
		if (r)
			return r;
		w->rkey = b.rkey;
		w->iova = b.iova;
		if (i < NPEERS)
			mwpeer_wait_grant(s->p[i], b.id, old, NULL, 2000);
	} else {
		r = mwcore_bind(s->srv, conn_of(s, i), w->m, off, len, access,
				mwcore_random_key(w->m->rkey));
		if (r)
			return r;
		w->rkey = w->m->rkey;
		w->iova = s->base + off;
	}
	w->peer = i;
	w->off = off;
	w->len = len;
	w->access = access;
	return 0;
}

int win_invalidate(struct side *s, struct win *w)
{
	if (s->kind == SIDE_MWIN)
		return mwin_window_invalidate(s->fd, w->id);
	return mwcore_invalidate(s->srv, NULL, w->m, false);
}

int win_destroy(struct side *s, struct win *w)
{
	if (s->kind == SIDE_MWIN)
		return mwin_window_destroy(s->fd, w->id);
	return mwcore_dealloc(s->srv, w->m);
}

/* ------------------------------------------------------ observations */

/*
 * After a failed access by requester @i: the requester's QP, and what the
 * responder side did (mwin: the peer is torn down and its windows
 * unbound; rdma-core: the responder QP's state).
 */
void after_fail(struct side *s, struct res *r, int i, uint32_t pid,
		const struct win *w)
{
	struct mwpeer *p = i == RAW ? s->raw : s->p[i];
	bool qperr = mwpeer_qp_error(p);
	/* iWARP: the TERMINATE ends the connection, flushed or not */
	bool ended = !qperr && s->iwarp && !test_wait_disconnected(p);

	if (ended)
		rp(r, "; req connection ended");
	else
		rp(r, "; req QP %s", qperr ? "ERR" : "ok");
	CHECK(r, qperr || ended);
	if (s->kind == SIDE_MWIN) {
		bool gone = !module_peer_wait(s->fd, pid, 0, 5000);

		rp(r, ", peer %s", gone ? "torn down" : "alive");
		CHECK(r, gone);
		if (w && w->id)
			rp(r, ", window %s",
			   statename(test_window_state(s->fd, w->id)));
	} else {
		struct mwcore_conn *c = mwcore_conn(s->srv, pid, 100);
		int st = mwcore_qp_state(c), k;

		for (k = 0; k < 200 && st != IBV_QPS_ERR; k++) {
			usleep(10000);
			st = mwcore_qp_state(c);
		}
		rp(r, ", resp QP %s", mwcore_qp_state_str(st));
	}
}

/* Was status @st of requester @i's access refused by the rkey check? */
static bool refused(struct side *s, int i, int st)
{
	struct mwpeer *p = i == RAW ? s->raw : s->p[i];

	return test_refused_status(p, st) == IBV_WC_REM_ACCESS_ERR;
}

/* One access that must fail with a remote access error and change nothing. */
void must_fail_write(struct side *s, struct res *r, int i,
		     const struct win *w, uint32_t rkey, uint64_t off,
		     size_t len)
{
	uint8_t before[64], pat[64];
	uint32_t pid = peer_id(s, i);
	/* the part of the target inside the region, which can be checked */
	size_t in = off >= REGION_LEN ? 0 :
		    off + len > REGION_LEN ? REGION_LEN - off : len;
	int st;

	memcpy(before, s->mem + off, in);
	memset(pat, 0xA5, len);
	st = mwpeer_write(s->p[i], rkey, s->base + off, pat, len);
	rp(r, "WRITE %s", rname(st));
	/* on iWARP this waits for the end of the connection: all has landed */
	CHECK(r, refused(s, i, st));
	if (memcmp(before, s->mem + off, in)) {
		rp(r, ", DATA LANDED");
		CHECK(r, false);
	} else {
		rp(r, ", nothing written");
	}
	if (st != IBV_WC_SUCCESS || s->iwarp)
		after_fail(s, r, i, pid, w);
}

void must_fail_read(struct side *s, struct res *r, int i,
		    const struct win *w, uint32_t rkey, uint64_t off,
		    size_t len)
{
	uint32_t pid = peer_id(s, i);
	int st = mwpeer_read(s->p[i], rkey, s->base + off, NULL, len);

	rp(r, "READ %s", rname(st));
	CHECK(r, st != IBV_WC_SUCCESS && refused(s, i, st));
	if (st != IBV_WC_SUCCESS)
		after_fail(s, r, i, pid, w);
}

int write_landed(struct side *s, int i, uint32_t rkey, uint64_t off,
		 const char *data, size_t len, bool *landed)
{
	int st = test_write_fenced(s->p[i], s->iwarp, rkey, s->base + off,
				   data, len);

	*landed = st == IBV_WC_SUCCESS && !memcmp(s->mem + off, data, len);
	return st;
}

bool write_ok(struct side *s, struct res *r, int i, uint32_t rkey,
	      uint64_t off, const char *data, size_t len)
{
	bool landed;
	int st = write_landed(s, i, rkey, off, data, len, &landed);

	if (st != IBV_WC_SUCCESS)
		rp(r, "WRITE %s", rname(st));
	else if (!landed)
		rp(r, "WRITE OK but data missing");
	CHECK(r, landed);
	return landed;
}

bool read_ok(struct side *s, struct res *r, int i, uint32_t rkey,
	     uint64_t off, size_t len)
{
	uint8_t buf[256];
	int st = mwpeer_read(s->p[i], rkey, s->base + off, buf, len);
	bool ok = st == IBV_WC_SUCCESS && !memcmp(buf, s->mem + off, len);

	if (st != IBV_WC_SUCCESS)
		rp(r, "READ %s", rname(st));
	else if (!ok)
		rp(r, "READ OK but wrong data");
	CHECK(r, ok);
	return ok;
}
