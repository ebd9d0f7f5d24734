// SPDX-License-Identifier: GPL-2.0
/*
 * Window semantics against the IB memory-window model, measured twice on
 * the same rxe device:
 *
 *  - "mwin": windows of mwin.ko (libmwin ioctls), used by mwpeer
 *    requesters connected to the module;
 *  - "rdma-core MW": Type 2 memory windows (IBV_WR_BIND_MW, LOCAL_INV,
 *    Send-with-Invalidate) over one parent MR, made by a userspace RDMA CM
 *    responder in this process (conformance/mwcore.h), used by the same
 *    mwpeer requesters; Type 1 (ibv_bind_mw) where it applies.
 *
 * Each case is one TAP test (fixture "conf", one variant per case), run on
 * both sides (conformance/side.h). It prints its row of the table as
 * "# conf: CASE FIELD VALUE" lines, which selftests/conformance/table.awk
 * turns into the table ("| # | case | expected IB | mwin | rdma-core MW |
 * note |") and its CSV. A test fails only when the mwin result differs
 * from the expected IB behaviour (or, where mwin documents a stricter
 * rule, from that rule); rdma-core results are recorded, never judged.
 *
 * The rdma-core cases that oops rxe 6.1 (invalidating a Type 2 MW that is
 * already free) are not run here: selftests/conformance/crash_mw.c runs
 * them, each in its own VM boot, from selftests/conformance.sh.
 */
#define _GNU_SOURCE
#include <stdarg.h>

#include "mwin_test.h"
#include "conformance/side.h"

struct ccase {
	const char *id;
	const char *title;
	const char *expect;
	void (*fn)(struct side *s, struct res *r);
	unsigned int flags;
	const char *note;
};

#define F_T1		(1 << 0)	/* also with a Type 1 MW */
#define F_CORE_CRASH	(1 << 1)	/* rdma-core side: own boot */
#define F_INFO		(1 << 2)	/* nothing to judge */

/* The rdma-core side's key bytes (mwcore_random_key()): a seed per run. */
static void __attribute__((constructor)) seed_keys(void)
{
	srandom(getpid() ^ time(NULL));
}

/* ------------------------------------------------------------- cases */

static void c_read_right(struct side *s, struct res *r)
{
	struct win w;

	SETUP(r, s, win_make(s, PA, 4096, 4096, RD, 0, &w));
	memcpy(s->mem + 4196, "readable", 8);
	if (read_ok(s, r, PA, w.rkey, 4196, 8))
		rp(r, "READ OK, data ok");
}

static void c_read_no_right(struct side *s, struct res *r)
{
	struct win w;

	SETUP(r, s, win_make(s, PA, 4096, 4096, all_but(s, RD), 0, &w));
	must_fail_read(s, r, PA, &w, w.rkey, 4196, 8);
}

static void c_write_right(struct side *s, struct res *r)
{
	struct win w;

	SETUP(r, s, win_make(s, PA, 4096, 4096, WR, 0, &w));
	if (write_ok(s, r, PA, w.rkey, 4296, "written!", 8))
		rp(r, "WRITE OK, landed");
}

static void c_write_no_right(struct side *s, struct res *r)
{
	struct win w;

	SETUP(r, s, win_make(s, PA, 4096, 4096, all_but(s, WR), 0, &w));
	must_fail_write(s, r, PA, &w, w.rkey, 4296, 8);
}

static void atomic_right(struct side *s, struct res *r, bool cas)
{
	uint64_t *word = (uint64_t *)(s->mem + 4096 + 64), old = 0;
	struct win w;
	int st;

	SETUP(r, s, win_make(s, PA, 4096, 4096, AT, 0, &w));
	*word = 5;
	if (cas)
		st = mwpeer_cas(s->p[PA], w.rkey, s->base + 4096 + 64, 5, 7, &old);
	else
		st = mwpeer_fadd(s->p[PA], w.rkey, s->base + 4096 + 64, 2, &old);
	rp(r, "%s %s, old %llu, now %llu", cas ? "CAS" : "FADD", rname(st),
	   (unsigned long long)old, (unsigned long long)*word);
	CHECK(r, st == IBV_WC_SUCCESS && old == 5 && *word == 7);
}

static void atomic_no_right(struct side *s, struct res *r, bool cas)
{
	uint64_t *word = (uint64_t *)(s->mem + 4096 + 64), old = 0;
	uint32_t pid = peer_id(s, PA);
	struct win w;
	int st;

	SETUP(r, s, win_make(s, PA, 4096, 4096, RW, 0, &w));
	if (!s->atomics) {
		/* nothing to refuse: the requester's device posts none */
		rp(r, "no atomics on this device");
		r->verdict = V_INFO;
		return;
	}
	*word = 5;
	if (cas)
		st = mwpeer_cas(s->p[PA], w.rkey, s->base + 4096 + 64, 5, 7, &old);
	else
		st = mwpeer_fadd(s->p[PA], w.rkey, s->base + 4096 + 64, 2, &old);
	rp(r, "%s %s, word %s", cas ? "CAS" : "FADD", rname(st),
	   *word == 5 ? "unchanged" : "CHANGED");
	CHECK(r, st == IBV_WC_REM_ACCESS_ERR && *word == 5);
	if (st != IBV_WC_SUCCESS)
		after_fail(s, r, PA, pid, &w);
}

static void c_cas_right(struct side *s, struct res *r) { atomic_right(s, r, true); }
static void c_cas_no_right(struct side *s, struct res *r) { atomic_no_right(s, r, true); }
static void c_fadd_right(struct side *s, struct res *r) { atomic_right(s, r, false); }
static void c_fadd_no_right(struct side *s, struct res *r) { atomic_no_right(s, r, false); }

/* Windows at odd offsets: [1001, 4001). */
#define ODD_OFF	1001
#define ODD_LEN	3000

static void c_first_last(struct side *s, struct res *r)
{
	struct win w;

	SETUP(r, s, win_make(s, PA, ODD_OFF, ODD_LEN, RW, 0, &w));
	if (write_ok(s, r, PA, w.rkey, ODD_OFF, "F", 1) &&
	    write_ok(s, r, PA, w.rkey, ODD_OFF + ODD_LEN - 1, "L", 1) &&
	    read_ok(s, r, PA, w.rkey, ODD_OFF, 1) &&
	    read_ok(s, r, PA, w.rkey, ODD_OFF + ODD_LEN - 1, 1))
		rp(r, "WRITE+READ of first and last byte OK");
}

static void c_byte_before(struct side *s, struct res *r)
{
	struct win w;

	SETUP(r, s, win_make(s, PA, ODD_OFF, ODD_LEN, RW, 0, &w));
	must_fail_write(s, r, PA, &w, w.rkey, ODD_OFF - 1, 1);
}

static void c_byte_after(struct side *s, struct res *r)
{
	struct win w;

	SETUP(r, s, win_make(s, PA, ODD_OFF, ODD_LEN, RW, 0, &w));
	must_fail_write(s, r, PA, &w, w.rkey, ODD_OFF + ODD_LEN, 1);
}

static void c_read_after(struct side *s, struct res *r)
{
	struct win w;

	SETUP(r, s, win_make(s, PA, ODD_OFF, ODD_LEN, RW, 0, &w));
	must_fail_read(s, r, PA, &w, w.rkey, ODD_OFF + ODD_LEN, 1);
}

static void c_straddle(struct side *s, struct res *r)
{
	struct win w;

	SETUP(r, s, win_make(s, PA, ODD_OFF, ODD_LEN, RW, 0, &w));
	rp(r, "12 bytes from 6 before the end: ");
	must_fail_write(s, r, PA, &w, w.rkey, ODD_OFF + ODD_LEN - 6, 12);
}

static void c_zero_len(struct side *s, struct res *r)
{
	struct win w;
	int a, b;

	/* read-only window: the zero-length WRITE has no right either */
	SETUP(r, s, win_make(s, PA, 4096, 4096, RD, 0, &w));
	a = mwpeer_read(s->p[PA], w.rkey, w.iova, NULL, 0);
	b = mwpeer_write(s->p[PA], w.rkey, w.iova + 8192, NULL, 0);
	rp(r, "READ(0) %s, WRITE(0) without the right, outside: %s", rname(a),
	   rname(b));
	/* C9-88: nothing is checked, both complete */
	CHECK(r, a == IBV_WC_SUCCESS && b == IBV_WC_SUCCESS);
}

static void c_atomic_unaligned(struct side *s, struct res *r)
{
	uint32_t pid;
	struct win w, wr;
	int st;

	/* ibv_post_send(): rxe's provider refuses before anything is sent */
	SETUP(r, s, win_make(s, PA, 4096, 4096, AT, 0, &w));
	st = mwpeer_fadd(s->p[PA], w.rkey, s->base + 4096 + 68, 1, NULL);
	rp(r, "post_send FADD @+4: %s%s", rname(st),
	   mwpeer_qp_error(s->p[PA]) ? " (QP ERR)" : " (QP ok)");
	/* the extended API sends it: the responder must refuse it */
	SETUP(r, s, raw_open(s));
	pid = peer_id(s, RAW);
	SETUP(r, s, win_make(s, RAW, 8192, 4096, AT, 0, &wr));
	*(uint64_t *)(s->mem + 8192 + 64) = 0x1111111111111111ULL;
	st = rawpeer_atomic(s->raw, false, wr.rkey, s->base + 8192 + 68, 1,
			    0, NULL);
	rp(r, "; ibv_wr FADD @+4: %s, memory %s", rname(st),
	   *(uint64_t *)(s->mem + 8192 + 64) == 0x1111111111111111ULL &&
	   *(uint64_t *)(s->mem + 8192 + 72) == 0 ? "unchanged" : "CHANGED");
	CHECK(r, st == IBV_WC_REM_INV_REQ_ERR);
	if (st != IBV_WC_SUCCESS)
		after_fail(s, r, RAW, pid, &wr);
}

static void c_atomic_cross_end(struct side *s, struct res *r)
{
	uint64_t *word = (uint64_t *)(s->mem + 4096 + 56), old = 0;
	uint32_t pid = peer_id(s, PA);
	struct win w;
	int st;

	/* 60 bytes: the 8-byte word at +56 has 4 bytes inside, 4 outside */
	SETUP(r, s, win_make(s, PA, 4096, 60, AT, 0, &w));
	*word = 1;
	st = mwpeer_fadd(s->p[PA], w.rkey, w.iova + 56, 0x100000000ULL, &old);
	rp(r, "FADD %s, word %s", rname(st), *word == 1 ? "unchanged" : "CHANGED");
	CHECK(r, st == IBV_WC_REM_ACCESS_ERR && *word == 1);
	if (st != IBV_WC_SUCCESS)
		after_fail(s, r, PA, pid, &w);
}

static void c_whole_region(struct side *s, struct res *r)
{
	struct win w;

	SETUP(r, s, win_make(s, PA, 0, REGION_LEN, RW, 0, &w));
	if (!write_ok(s, r, PA, w.rkey, 0, "0", 1) ||
	    !write_ok(s, r, PA, w.rkey, REGION_LEN - 1, "E", 1))
		return;
	rp(r, "first and last byte OK; one past: ");
	must_fail_read(s, r, PA, &w, w.rkey, REGION_LEN, 1);
}

static void c_smallest(struct side *s, struct res *r)
{
	struct win w;

	SETUP(r, s, win_make(s, PA, 777, 1, RW, 0, &w));
	if (!write_ok(s, r, PA, w.rkey, 777, "1", 1))
		return;
	rp(r, "1 byte OK; 2 bytes: ");
	must_fail_write(s, r, PA, &w, w.rkey, 777, 2);
}

static void c_region_end(struct side *s, struct res *r)
{
	struct win w;

	SETUP(r, s, win_make(s, PA, REGION_LEN - 100, 100, RW, 0, &w));
	if (!write_ok(s, r, PA, w.rkey, REGION_LEN - 1, "z", 1))
		return;
	rp(r, "last byte OK; one past the region: ");
	must_fail_write(s, r, PA, &w, w.rkey, REGION_LEN, 1);
}

static void c_adjacent(struct side *s, struct res *r)
{
	struct win w1, w2;

	SETUP(r, s, win_make(s, PA, 4096, 4096, RW, 0, &w1));
	SETUP(r, s, win_make(s, PA, 8192, 4096, RW, 0, &w2));
	if (!write_ok(s, r, PA, w1.rkey, 8191, "1", 1) ||
	    !write_ok(s, r, PA, w2.rkey, 8192, "2", 1))
		return;
	rp(r, "each its own OK; 1st rkey on 2nd's first byte: ");
	must_fail_write(s, r, PA, &w1, w1.rkey, 8192, 1);
}

static void c_overlap(struct side *s, struct res *r)
{
	struct win w1, w2;
	uint8_t buf[4];
	int e = 0, st;

	SETUP(r, s, win_make(s, PA, 4096, 8192, RW, 0, &w1));
	if (s->kind == SIDE_MWIN) {
		e = win_make(s, PA, 8192, 8192, RD, 0, &w2);
		rp(r, "without MWIN_WINDOW_OVERLAP: %s; ", rname(e));
		SETUP(r, s, win_make(s, PA, 8192, 8192, RD,
				     MWIN_WINDOW_OVERLAP, &w2));
	} else {
		SETUP(r, s, win_make(s, PA, 8192, 8192, RD, 0, &w2));
	}
	if (!write_ok(s, r, PA, w1.rkey, 9000, "ov", 2))
		return;
	st = mwpeer_read(s->p[PA], w2.rkey, w2.iova + 9000 - 8192, buf, 2);
	CHECK(r, st == IBV_WC_SUCCESS && !memcmp(buf, "ov", 2));
	rp(r, "write via RW, read via R: %s; R-only rkey: ", rname(st));
	must_fail_write(s, r, PA, &w2, w2.rkey, 9000, 1);
}

static void c_rebind_range(struct side *s, struct res *r)
{
	struct win w;
	uint32_t old;
	uint64_t old_off = 0;

	SETUP(r, s, win_make(s, PA, old_off, 4096, RW, 0, &w));
	old = w.rkey;
	SETUP(r, s, win_rebind(s, &w, -1, 8192, 4096, RW));
	if (!write_ok(s, r, PA, w.rkey, 8192, "n", 1))
		return;
	rp(r, "new rkey%s OK; old rkey in old range: ",
	   (old >> 8) == (w.rkey >> 8) ? " (same index)" : "");
	must_fail_write(s, r, PA, &w, old, old_off + 10, 1);
}

static void c_rebind_rights(struct side *s, struct res *r)
{
	struct win w;
	uint32_t old;

	SETUP(r, s, win_make(s, PA, 4096, 4096, RW, 0, &w));
	old = w.rkey;
	SETUP(r, s, win_rebind(s, &w, -1, 4096, 4096, RD));
	if (!read_ok(s, r, PA, w.rkey, 4096, 8))
		return;
	rp(r, "new rkey READ OK; old (RW) rkey WRITE: ");
	must_fail_write(s, r, PA, &w, old, 4100, 1);
}

static void c_rebind_peer(struct side *s, struct res *r)
{
	struct win w;
	uint32_t old;

	SETUP(r, s, win_make(s, PA, 4096, 4096, RW, 0, &w));
	old = w.rkey;
	SETUP(r, s, win_rebind(s, &w, PB, 4096, 4096, RW));
	if (!write_ok(s, r, PB, w.rkey, 4100, "b", 1))
		return;
	rp(r, "new rkey via B OK%s; old rkey via A: ",
	   (old >> 8) == (w.rkey >> 8) ? " (same index)" : " (new index)");
	must_fail_write(s, r, PA, NULL, old, 4100, 1);
}

static void c_after_local_inv(struct side *s, struct res *r)
{
	struct win w;
	int e;

	SETUP(r, s, win_make(s, PA, 4096, 4096, RW, 0, &w));
	e = win_invalidate(s, &w);
	rp(r, "invalidate %s", rname(e));
	CHECK(r, e == 0);
	if (e) {
		if (s->kind == SIDE_CORE)
			rp(r, ", binding QP %s", mwcore_qp_state_str(
				mwcore_qp_state(conn_of(s, PA))));
		return;
	}
	if (s->kind == SIDE_MWIN) {
		struct mwpeer_msg m;

		if (!next_revoke(s->p[PA], &m, 2000))
			rp(r, " (revoke msg, reason %s)",
			   mwpeer_reason_str(m.access));
	}
	rp(r, "; old rkey: ");
	must_fail_write(s, r, PA, &w, w.rkey, 4100, 1);
}

static void c_after_remote_inv(struct side *s, struct res *r)
{
	struct win w;
	int st;

	if (s->kind == SIDE_MWIN)
		SETUP(r, s, monitor_start(s));
	SETUP(r, s, win_make(s, PA, 4096, 4096, RW, 0, &w));
	st = mwpeer_send_inv(s->p[PA], w.rkey);
	rp(r, "sender %s; ", rname(st));
	CHECK(r, st == IBV_WC_SUCCESS);
	if (s->kind == SIDE_MWIN) {
		struct mwin_event ev;

		if (!monitor_wait(s, MWIN_EVENT_REMOTE_INVALIDATE, w.id, &ev, 3000)) {
			rp(r, "module: invalidated rkey %s, window %s",
			   ev.rkey == w.rkey ? "= rkey" : "WRONG",
			   statename(test_window_state(s->fd, w.id)));
			CHECK(r, ev.rkey == w.rkey);
		} else {
			rp(r, "module: no REMOTE_INVALIDATE event");
			CHECK(r, false);
		}
	} else {
		struct ibv_wc wc;

		if (mwcore_wait_recv(s->srv, conn_of(s, PA), &wc, 3000)) {
			rp(r, "receiver wc %s, wc_flags 0x%x%s, invalidated_rkey %s",
			   wcname(wc.status), wc.wc_flags,
			   wc.wc_flags & IBV_WC_WITH_INV ? " (WITH_INV)" :
			   " (no IBV_WC_WITH_INV)",
			   wc.invalidated_rkey == w.rkey ? "= rkey" : "WRONG");
			CHECK(r, wc.status == IBV_WC_SUCCESS &&
				 wc.invalidated_rkey == w.rkey);
		} else {
			rp(r, "receiver: no completion");
			CHECK(r, false);
		}
	}
	rp(r, "; old rkey: ");
	must_fail_write(s, r, PA, &w, w.rkey, 4100, 1);
}

static void c_after_destroy(struct side *s, struct res *r)
{
	struct win w;
	int e;

	SETUP(r, s, win_make(s, PA, 4096, 4096, RW, 0, &w));
	e = win_destroy(s, &w);
	rp(r, "%s %s; old rkey: ",
	   s->kind == SIDE_MWIN ? "WINDOW_DESTROY" : "ibv_dealloc_mw", rname(e));
	CHECK(r, e == 0);
	must_fail_write(s, r, PA, NULL, w.rkey, 4100, 1);
}

static void c_after_region_destroy(struct side *s, struct res *r)
{
	struct win w;
	int e;

	SETUP(r, s, win_make(s, PA, 4096, 4096, RW, 0, &w));
	if (s->kind == SIDE_MWIN) {
		e = mwin_region_destroy(s->fd, s->region, 0);
		rp(r, "destroy: %s, ", rname(e));
		e = mwin_region_destroy(s->fd, s->region,
					MWIN_REGION_DESTROY_FORCE);
		rp(r, "forced: %s, window %s; old rkey: ", rname(e),
		   statename(test_window_state(s->fd, w.id)));
		s->region = 0;
	} else {
		/* IB: an MR with bound windows cannot be deregistered */
		e = ibv_dereg_mr(s->srv->mr);
		rp(r, "ibv_dereg_mr with a bound MW: %s, ", e ? errname(e) : "OK");
		if (!e)
			s->srv->mr = NULL;
		e = mwcore_dealloc(s->srv, w.m);
		if (s->srv->mr && !ibv_dereg_mr(s->srv->mr))
			s->srv->mr = NULL;
		rp(r, "after ibv_dealloc_mw: %s; old rkey: ",
		   s->srv->mr ? "MR still there" : "MR deregistered");
	}
	CHECK(r, e == 0);
	must_fail_write(s, r, PA, NULL, w.rkey, 4100, 1);
}

static void c_inv_twice(struct side *s, struct res *r)
{
	struct win w;
	int e1, e2;

	SETUP(r, s, win_make(s, PA, 4096, 4096, RW, 0, &w));
	e1 = win_invalidate(s, &w);
	e2 = win_invalidate(s, &w);
	rp(r, "invalidate %s, again %s", rname(e1), rname(e2));
	if (s->kind == SIDE_MWIN) {
		struct mwpeer_msg m;
		int n = 0;

		while (!mwpeer_next_msg(s->p[PA], &m, 300))
			n += m.type == MWIN_WIRE_REVOKE;
		rp(r, " (%d revoke msg), window %s", n,
		   statename(test_window_state(s->fd, w.id)));
	}
	CHECK(r, e1 == 0);
	rp(r, "; old rkey: ");
	must_fail_write(s, r, PA, &w, w.rkey, 4100, 1);
}

static void c_sinv_twice(struct side *s, struct res *r)
{
	struct win w;
	int a, b;

	SETUP(r, s, win_make(s, PA, 4096, 4096, RW, 0, &w));
	a = mwpeer_send_inv(s->p[PA], w.rkey);
	usleep(100000);
	b = mwpeer_send_inv(s->p[PA], w.rkey);
	rp(r, "Send-with-Inv %s, again %s", rname(a), rname(b));
	if (s->kind == SIDE_MWIN) {
		struct mwin_window_info wi;

		usleep(100000);
		if (!mwin_window_get(s->fd, w.id, 0, &wi))
			rp(r, ", window %s, remote_invalidations %llu",
			   statename(wi.state),
			   (unsigned long long)wi.remote_invalidations);
	}
	CHECK(r, a == IBV_WC_SUCCESS);
	rp(r, "; old rkey: ");
	if (!mwpeer_qp_error(s->p[PA]) &&
	    mwpeer_state(s->p[PA]) == MWPEER_CONNECTED) {
		must_fail_write(s, r, PA, &w, w.rkey, 4100, 1);
	} else {
		rp(r, "requester gone (%s)", mwpeer_errmsg(s->p[PA]));
	}
}

static void c_rebind_invalidated(struct side *s, struct res *r)
{
	struct win w;
	uint32_t old;

	SETUP(r, s, win_make(s, PA, 4096, 4096, RW, 0, &w));
	SETUP(r, s, win_invalidate(s, &w));
	old = w.rkey;
	SETUP(r, s, win_rebind(s, &w, -1, 4096, 4096, RW));
	if (!write_ok(s, r, PA, w.rkey, 4100, "r", 1))
		return;
	rp(r, "rebind OK, new rkey works; old rkey: ");
	must_fail_write(s, r, PA, &w, old, 4100, 1);
}

static void c_other_peer(struct side *s, struct res *r)
{
	struct win w;

	SETUP(r, s, win_make(s, PA, 4096, 4096, RW, 0, &w));
	rp(r, "B with A's rkey: ");
	if (s->mwtype == IBV_MW_TYPE_1) {
		int st = mwpeer_write(s->p[PB], w.rkey, w.iova + 4, "1", 1);

		/* Type 1 is valid on every QP of the PD (IB allows it) */
		rp(r, "WRITE %s, %s", rname(st),
		   s->mem[4100] == '1' ? "landed" : "nothing written");
		return;
	}
	must_fail_write(s, r, PB, NULL, w.rkey, 4100, 1);
	if (write_ok(s, r, PA, w.rkey, 4100, "a", 1))
		rp(r, "; A unaffected: WRITE OK");
	if (s->kind == SIDE_MWIN)
		rp(r, ", window %s", statename(test_window_state(s->fd, w.id)));
}

static void c_foreign_sinv(struct side *s, struct res *r)
{
	uint32_t bid = peer_id(s, PB);
	bool untouched = true, landed;
	struct win w;
	int st;

	SETUP(r, s, win_make(s, PA, 4096, 4096, RW, 0, &w));
	st = mwpeer_send_inv(s->p[PB], w.rkey);
	rp(r, "B's Send-with-Inv of A's rkey: %s", rname(st));
	if (s->kind == SIDE_MWIN) {
		struct mwpeer_msg m;
		bool gone = !module_peer_wait(s->fd, bid, 0, 5000);
		bool revoked = !next_revoke(s->p[PA], &m, 3000) &&
			       m.type == MWIN_WIRE_REVOKE && m.rkey == w.rkey &&
			       m.access == MWIN_REVOKE_REMOTE;
		bool regranted = revoked &&
				 !test_next_about(s->p[PA], MWIN_WIRE_GRANT,
						  w.id, &m) &&
				 m.rkey != w.rkey;
		uint32_t state = test_window_state(s->fd, w.id);

		rp(r, "; B %s; A %s%s; window %s",
		   gone ? "disconnected" : "ALIVE",
		   revoked ? "told (revoke, reason remote)" : "NOT told",
		   regranted ? ", then granted a new rkey" : "",
		   statename(state));
		if (regranted)
			rp(r, "; A's new rkey: WRITE %s",
			   rname(mwpeer_write(s->p[PA], m.rkey, w.iova + 4,
					      "A", 1)));
		/*
		 * IB: refused, A untouched (siw checks the PD: so it is).
		 * rxe has already invalidated the MR when the module sees
		 * it: mwin's documented answer is to cut B off, revoke A's
		 * rkey, tell A and grant it a new one.
		 */
		untouched = !revoked;
		if (gone && regranted && state == MWIN_WINDOW_BOUND)
			r->verdict = V_DOC;
		else if (!(gone && untouched && state == MWIN_WINDOW_BOUND))
			r->verdict = V_DIFF;	/* neither answer */
	} else {
		struct ibv_wc wc;

		if (mwcore_wait_recv(s->srv, conn_of(s, PB), &wc, 3000))
			rp(r, "; receiver wc %s, invalidated %s",
			   wcname(wc.status),
			   wc.invalidated_rkey == w.rkey ? "A's rkey" : "?");
		CHECK(r, st != IBV_WC_SUCCESS);
	}
	/* is A's rkey still alive? (IB: yes; it was not B's to kill) */
	st = write_landed(s, PA, w.rkey, 4100, "A", 1, &landed);
	rp(r, "; A's rkey afterwards: WRITE %s%s", rname(st),
	   st == IBV_WC_SUCCESS && !landed ? " but nothing landed" : "");
	if (untouched)
		CHECK(r, landed);
}

/*
 * siw invalidates an MR by its index whatever the key byte: the stale
 * rkey killed the live one. mwin's documented answer: the window shown
 * invalidated and its peer told, by a revoke of the live rkey.
 */
static void sinv_killed_live(struct side *s, struct res *r, struct win *w)
{
	struct mwpeer_msg m;
	bool told = false;
	int i;

	for (i = 0; i < 3 && !told; i++)
		told = !next_revoke(s->p[PA], &m, 3000) && m.rkey == w->rkey;
	rp(r, "; live rkey %s", told ? "revoked, peer told" : "NOT told");
	r->verdict = told ? V_DOC : V_DIFF;
}

static void c_sinv_stale(struct side *s, struct res *r)
{
	uint32_t pid = peer_id(s, PA);
	struct win w;
	uint32_t old;
	int st;

	SETUP(r, s, win_make(s, PA, 4096, 4096, RW, 0, &w));
	old = w.rkey;
	SETUP(r, s, win_rebind(s, &w, -1, 4096, 4096, RW));
	st = mwpeer_send_inv(s->p[PA], old);
	rp(r, "Send-with-Inv of the pre-rebind rkey: sender %s", rname(st));
	if (s->kind == SIDE_MWIN) {
		bool gone = !module_peer_wait(s->fd, pid, 0, 5000);
		uint32_t state = test_window_state(s->fd, w.id);

		rp(r, "; module: peer %s, window %s", gone ? "torn down" : "alive",
		   statename(state));
		if (s->iwarp && !gone && state == MWIN_WINDOW_INVALIDATED)
			sinv_killed_live(s, r, &w);
		else
			CHECK(r, gone);
	} else {
		struct ibv_wc wc;
		struct mwcore_conn *c = conn_of(s, PA);

		if (mwcore_wait_recv(s->srv, c, &wc, 3000))
			rp(r, "; receiver wc %s", wcname(wc.status));
		else
			rp(r, "; receiver: no completion");
		usleep(100000);
		rp(r, ", resp QP %s", mwcore_qp_state_str(mwcore_qp_state(c)));
		CHECK(r, mwcore_qp_state(c) == IBV_QPS_ERR);
	}
}

static void c_sinv_unknown(struct side *s, struct res *r)
{
	uint32_t pid = peer_id(s, PA);
	uint32_t bogus = 0x00fffe00 | 0x5a;
	int st;

	st = mwpeer_send_inv(s->p[PA], bogus);
	rp(r, "sender %s", rname(st));
	if (s->kind == SIDE_MWIN) {
		bool gone = !module_peer_wait(s->fd, pid, 0, 5000);

		rp(r, "; module: peer %s", gone ? "torn down" : "alive");
		CHECK(r, gone);
	} else {
		struct ibv_wc wc;
		struct mwcore_conn *c = conn_of(s, PA);

		if (mwcore_wait_recv(s->srv, c, &wc, 3000))
			rp(r, "; receiver wc %s", wcname(wc.status));
		else
			rp(r, "; receiver: no completion");
		usleep(100000);
		rp(r, ", resp QP %s", mwcore_qp_state_str(mwcore_qp_state(c)));
		CHECK(r, mwcore_qp_state(c) == IBV_QPS_ERR);
	}
	/* a later operation tells what the requester is left with */
	mwpeer_set_timeout(s->p[PA], 9000);
	st = mwpeer_read(s->p[PA], 0, 0, NULL, 0);
	rp(r, "; requester's next op: %s", rname(st));
}

static void c_zero_len_revoked(struct side *s, struct res *r)
{
	struct win w;
	int a, b;

	SETUP(r, s, win_make(s, PA, 4096, 4096, RW, 0, &w));
	SETUP(r, s, win_invalidate(s, &w));
	a = mwpeer_read(s->p[PA], w.rkey, w.iova, NULL, 0);
	b = mwpeer_write(s->p[PA], w.rkey, w.iova, NULL, 0);
	rp(r, "revoked rkey: READ(0) %s, WRITE(0) %s; 1-byte: ", rname(a),
	   rname(b));
	/* either answer conforms (C9-88); the 1-byte access must fail */
	must_fail_read(s, r, PA, &w, w.rkey, 4096, 1);
}

static void c_bind_outside(struct side *s, struct res *r)
{
	struct win w;
	int e;

	e = win_make(s, PA, REGION_LEN - 4096, 8192, RW, 0, &w);
	rp(r, "bind of [len-4096, len+4096): %s", rname(e));
	CHECK(r, e != 0);
	if (s->kind == SIDE_CORE) {
		struct mwcore_conn *c = conn_of(s, PA);

		rp(r, "; binding QP %s", mwcore_qp_state_str(mwcore_qp_state(c)));
	} else {
		struct mwin_peer_info pi;

		rp(r, "; peer %s",
		   mwin_peer_get(s->fd, peer_id(s, PA), 0, &pi) ? "gone" :
		   mwin_peer_state_name(pi.state));
	}
}

static void c_bind_zero_len(struct side *s, struct res *r)
{
	struct win w;
	int e;

	e = win_make(s, PA, 4096, 0, RW, 0, &w);
	rp(r, "bind of 0 bytes: %s", rname(e));
	CHECK(r, e != 0);
	if (s->kind == SIDE_CORE) {
		struct mwcore_conn *c = conn_of(s, PA);

		rp(r, "; binding QP %s", mwcore_qp_state_str(mwcore_qp_state(c)));
	}
}

/*
 * A READ short enough to travel inline in its response (up to 32 bytes on
 * siw), crossing a page boundary, of a window that starts mid-page: F
 * bytes in the first page, S in the second. The bytes around the window
 * are all different, so that a byte from the wrong place shows.
 */
#define XP_F	11
#define XP_S	5

/*
 * siw_try_1seg()'s answer: it copies S bytes from the first page and then
 * F bytes from the start of the page holding byte S; the window starts
 * after that page's start, so those bytes are not the window's.
 */
static bool siw_short_read_defect(const struct side *s, const uint8_t *buf,
				  uint64_t off)
{
	uint64_t page = off & ~4095ULL;

	return s->iwarp && !memcmp(buf, s->mem + off, XP_S) &&
	       !memcmp(buf + XP_S, s->mem + page, XP_F);
}

static void c_short_read_cross_page(struct side *s, struct res *r)
{
	uint64_t off = 8192 - XP_F, k;
	uint8_t buf[XP_F + XP_S];
	struct win w;
	int st;

	SETUP(r, s, win_make(s, PA, 8192 - 64, 128, RD, 0, &w));
	for (k = 4096; k < 12288; k++)
		s->mem[k] = (uint8_t)(k * 7 + k / 251 + 1);
	st = mwpeer_read(s->p[PA], w.rkey, s->base + off, buf, sizeof(buf));
	if (st != IBV_WC_SUCCESS) {
		rp(r, "READ %s", rname(st));
		CHECK(r, false);
	} else if (!memcmp(buf, s->mem + off, sizeof(buf))) {
		rp(r, "READ OK, data ok");
	} else if (siw_short_read_defect(s, buf, off)) {
		rp(r, "READ OK, but its last %d bytes are the first %d of the page, %d bytes before the window: the device's defect",
		   XP_F, XP_F, 4096 - 64);
		r->verdict = V_DEFECT;
	} else {
		rp(r, "READ OK but wrong data");
		CHECK(r, false);
	}
}

static void c_key_sequence(struct side *s, struct res *r)
{
	struct win w;
	int i, seq = 0;
	uint32_t prev;

	SETUP(r, s, win_make(s, PA, 4096, 4096, RW, 0, &w));
	prev = w.rkey;
	rp(r, "key bytes:");
	for (i = 0; i < 8; i++) {
		SETUP(r, s, win_rebind(s, &w, -1, 4096, 4096, RW));
		rp(r, " %02x", w.rkey & 0xff);
		seq += ((prev + 1) & 0xff) == (w.rkey & 0xff);
		prev = w.rkey;
	}
	rp(r, " (%d of 8 = previous + 1)", seq);
}

/* ------------------------------------------------------- case table */

#define EXP_RAE "REM_ACCESS_ERR; requester QP to error; nothing written"

FIXTURE(conf) {
	int unused;
};

FIXTURE_VARIANT(conf) {
	const struct ccase *c;
};

FIXTURE_SETUP(conf) { }
FIXTURE_TEARDOWN(conf) { }

#define CASE(_id, ...)							\
	static const struct ccase case_##_id = { #_id, __VA_ARGS__ };	\
	FIXTURE_VARIANT_ADD(conf, _id) { .c = &case_##_id }

CASE(read_right, "READ inside, with READ right", "OK, data", c_read_right,
     F_T1, NULL);
CASE(read_no_right, "READ inside, without READ right", EXP_RAE,
     c_read_no_right, 0, NULL);
CASE(write_right, "WRITE inside, with WRITE right", "OK, data lands",
     c_write_right, 0, NULL);
CASE(write_no_right, "WRITE inside, without WRITE right", EXP_RAE,
     c_write_no_right, 0, NULL);
CASE(cas_right, "CAS inside, with ATOMIC right", "OK, swapped", c_cas_right,
     0, NULL);
CASE(cas_no_right, "CAS inside, without ATOMIC right", EXP_RAE,
     c_cas_no_right, 0, NULL);
CASE(fadd_right, "FADD inside, with ATOMIC right", "OK, added",
     c_fadd_right, 0, NULL);
CASE(fadd_no_right, "FADD inside, without ATOMIC right", EXP_RAE,
     c_fadd_no_right, 0, NULL);
CASE(first_last, "first and last byte of [1001, 4001)", "OK",
     c_first_last, 0, NULL);
CASE(byte_before, "WRITE 1 byte before the window", EXP_RAE,
     c_byte_before, F_T1,
     "rxe checks a Type 1/2 MW's rkey and rights but the bounds of its parent MR only");
CASE(byte_after, "WRITE 1 byte after the window", EXP_RAE, c_byte_after,
     0, "same rxe bounds bug");
CASE(read_after, "READ 1 byte after the window", "REM_ACCESS_ERR; requester QP to error",
     c_read_after, 0, "same rxe bounds bug: the read leaks a byte outside the window");
CASE(straddle, "WRITE starting inside, ending outside", EXP_RAE,
     c_straddle, 0, "same rxe bounds bug");
CASE(zero_len, "zero-length READ/WRITE (no right, outside)",
     "OK: not checked (C9-88)", c_zero_len, 0, NULL);
CASE(atomic_unaligned, "atomic on a misaligned address",
     "REM_INV_REQ_ERR (Invalid Request NAK); nothing changed",
     c_atomic_unaligned, 0,
     "rxe's provider refuses misaligned atomics in ibv_post_send() (EINVAL, nothing sent); the ibv_wr_* API sends them");
CASE(atomic_cross_end, "FADD on a word crossing the window end", EXP_RAE,
     c_atomic_cross_end, 0, "same rxe bounds bug");
CASE(whole_region, "whole-region window, one byte past its end",
     "first/last OK; past the end REM_ACCESS_ERR", c_whole_region, 0,
     "past the parent MR rxe checks");
CASE(smallest, "1-byte window, 2-byte WRITE", EXP_RAE, c_smallest, 0,
     "same rxe bounds bug");
CASE(region_end, "window at the region's end, one byte past",
     "last byte OK; past REM_ACCESS_ERR", c_region_end, 0, NULL);
CASE(adjacent, "adjacent windows: 1st rkey on 2nd's first byte", EXP_RAE,
     c_adjacent, 0, "same rxe bounds bug");
CASE(overlap, "overlapping windows (RW and R)",
     "both work, each with its own rights", c_overlap, 0,
     "mwin wants MWIN_WINDOW_OVERLAP for overlapping windows (EBUSY without)");
CASE(rebind_range, "old rkey after rebind (range change)", EXP_RAE,
     c_rebind_range, F_T1, NULL);
CASE(rebind_rights, "old rkey after rebind (rights change)", EXP_RAE,
     c_rebind_rights, 0, NULL);
CASE(rebind_peer, "old rkey after rebind to another peer", EXP_RAE,
     c_rebind_peer, 0,
     "mwin: new MR on B's PD (new index); Type 2B: same MW, bound to B's QP");
CASE(after_local_inv, "old rkey after local invalidate", EXP_RAE,
     c_after_local_inv, F_T1,
     "Type 1 MWs cannot be invalidated by LOCAL_INV (o10-37.2.26)");
CASE(after_remote_inv, "old rkey after remote invalidate (Send-with-Invalidate)",
     "sender OK; receiver's completion carries the rkey; then " EXP_RAE,
     c_after_remote_inv, 0,
     "rxe gives userspace receivers the kernel's IB_WC_WITH_INVALIDATE bit (0x4, IBV_WC_IP_CSUM_OK) instead of IBV_WC_WITH_INV (0x8)");
CASE(after_destroy, "old rkey after destroy / ibv_dealloc_mw", EXP_RAE,
     c_after_destroy, 0, NULL);
CASE(after_region_destroy, "old rkey after region force-destroy", EXP_RAE,
     c_after_region_destroy, 0,
     "IB refuses to deregister an MR with bound windows; rdma-core has no force: dealloc the MWs first");
CASE(inv_twice, "local invalidate of an invalidated window",
     "no effect or an error completion; never a crash; rkey stays dead",
     c_inv_twice, F_CORE_CRASH,
     "rxe 6.1 oopses (NULL dereference in rxe_do_invalidate_mw) on a free Type 2 MW: run in its own boot");
CASE(sinv_twice, "Send-with-Invalidate of an invalidated window's rkey",
     "no effect or refused; never a crash; rkey stays dead", c_sinv_twice,
     F_CORE_CRASH, "same rxe oops, from the responder path: own boot");
CASE(rebind_invalidated, "rebind an invalidated window",
     "OK, new rkey works, old one dead", c_rebind_invalidated, 0, NULL);
CASE(other_peer, "rkey used through another peer's connection",
     EXP_RAE "; owner unaffected", c_other_peer, F_T1,
     "Type 1 MWs are valid on every QP of their PD: B's access succeeds (allowed for Type 1)");
CASE(foreign_sinv, "peer B's Send-with-Invalidate naming A's rkey",
     "refused (B's connection fails); A's window untouched",
     c_foreign_sinv, 0,
     "rxe invalidates without checking the MR's/MW's PD or QP; mwin (documented) disconnects B, revokes A's rkey, tells A and grants A a new one");
CASE(sinv_stale, "Send-with-Invalidate of the pre-rebind rkey",
     "refused; the connection fails (Class J)", c_sinv_stale, 0,
     "rxe completes the sender's request OK and errors the receiving QP");
CASE(sinv_unknown, "Send-with-Invalidate of an unknown rkey",
     "refused; the connection fails (Class J)", c_sinv_unknown, 0,
     "rxe completes the sender's request OK and errors the receiving QP");
CASE(zero_len_revoked, "zero-length READ/WRITE with a revoked rkey",
     "may complete OK (C9-88: not checked); never a revocation probe",
     c_zero_len_revoked, 0, NULL);
CASE(bind_outside, "bind a range leaving the region / parent MR",
     "refused", c_bind_outside, 0,
     "a failed Type 2 bind is an error completion that moves the binding QP to error; mwin checks in the ioctl, nothing is posted");
CASE(bind_zero_len, "bind 0 bytes", "refused", c_bind_zero_len, 0,
     "mwin: EINVAL in the ioctl");
CASE(key_guess, "all 255 other key bytes against a live window",
     "all 255 REM_ACCESS_ERR", c_key_guess, 0,
     "one guess per connection: a failed access kills it; guesses through the owner's connection (the only one the right key works on), 4 threads");
CASE(key_sequence, "key bytes of 8 successive rebinds",
     "consumer's choice (Type 2); HCA's (Type 1)", c_key_sequence,
     F_T1 | F_INFO,
     "rdma-core's ibv_bind_mw() on rxe takes key + 1 (predictable); mwin draws random bytes never repeated by one MR (mwin_keys)");

CASE(short_read_cross_page, "16-byte READ across a page boundary, window from mid-page",
     "OK, data", c_short_read_cross_page, 0,
     "siw (6.1, 6.12) copies a payload of up to 32 bytes crossing a page boundary from the wrong place (siw_try_1seg()): its READ returns bytes of the page before the window");

/* ------------------------------------------------------ running them */

/* The verdict as table.awk reads it. */
static const char *vword(int v)
{
	switch (v) {
	case V_OK: return "as-IB";
	case V_DOC: return "documented";
	case V_DIFF: return "DIFFERS";
	case V_INFO: return "info";
	case V_SETUP: return "setup-failed";
	case V_DEFECT: return "device-defect";
	default: return "not-run";
	}
}

/*
 * One "# conf: CASE FIELD VALUE" line of the table, for table.awk: VALUE is
 * the rest of the line, so a line break in it becomes a space. Flushed: the
 * harness ends a test with _exit(), and a test that times out is killed.
 */
__attribute__((format(printf, 4, 5)))
static void conf_line(FILE *f, const char *id, const char *field,
		      const char *fmt, ...)
{
	char value[1024], *p;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(value, sizeof(value), fmt, ap);
	va_end(ap);
	for (p = value; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	fprintf(f, "# conf: %s %s %s\n", id, field, value);
	fflush(f);
}

/* Runs case @c on one side and prints its cell: "FIELD VERDICT TEXT". */
static int run_side(const struct ccase *c, const char *field, int kind,
		    enum ibv_mw_type type)
{
	struct side s;
	struct res r = { .verdict = V_OK };
	int e = side_open(&s, kind, type);

	if (e == -EOPNOTSUPP && kind == SIDE_CORE) {
		snprintf(r.text, sizeof(r.text), "not run: %s", s.err);
		r.verdict = V_NOTRUN;
	} else if (e) {
		snprintf(r.text, sizeof(r.text), "setup failed: %s %s",
			 rname(e), s.err);
		r.verdict = V_SETUP;
	} else {
		c->fn(&s, &r);
		if ((c->flags & F_INFO) && r.verdict == V_OK)
			r.verdict = V_INFO;
	}
	side_close(&s);
	conf_line(stdout, c->id, field, "%s %s", vword(r.verdict), r.text);
	return r.verdict;
}

/*
 * A case's row: what it is before it runs (so that a case that does not
 * finish still has its row), then each side's cell, then its time.
 */
/* Is case @id named in MWIN_CONF_SKIP (case ids, blank-separated)? */
static bool left_out(const char *id)
{
	const char *list = getenv("MWIN_CONF_SKIP");
	size_t n = strlen(id);

	for (; list && *list; list += strcspn(list, " "), list += *list == ' ')
		if (!strncmp(list, id, n) && (list[n] == ' ' || !list[n]))
			return true;
	return false;
}

TEST_F_TIMEOUT(conf, run, 240)
{
	const struct ccase *c = variant->c;
	int64_t t0 = mwcore_now_ms();
	int vm;

	conf_line(stdout, c->id, "title", "%s", c->title);
	conf_line(stdout, c->id, "expect", "%s", c->expect);
	if (c->note)
		conf_line(stdout, c->id, "note", "%s", c->note);
	if (left_out(c->id)) {
		conf_line(stdout, c->id, "mwin", "%s %s", vword(V_NOTRUN),
			  "left out (MWIN_CONF_SKIP)");
		conf_line(stdout, c->id, "seconds", "0.0");
		SKIP(return, "left out (MWIN_CONF_SKIP)");
	}
	vm = run_side(c, "mwin", SIDE_MWIN, 0);
	if (c->flags & F_CORE_CRASH) {
		conf_line(stdout, c->id, "core", "%s %s", vword(V_NOTRUN),
			  "not run here: oopses rxe (own boot)");
	} else {
		run_side(c, "core", SIDE_CORE, IBV_MW_TYPE_2);
		if (c->flags & F_T1)
			run_side(c, "t1", SIDE_CORE, IBV_MW_TYPE_1);
	}
	conf_line(stdout, c->id, "seconds", "%.1f",
		  (mwcore_now_ms() - t0) / 1000.0);
	EXPECT_TRUE(vm == V_OK || vm == V_DOC || vm == V_INFO ||
		    vm == V_DEFECT);
}

/* table.awk reads a row from lines: a value never spans two. */
TEST(conf_line_is_one_line)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ASSERT_NE(NULL, f);
	conf_line(f, "id", "mwin", "%s %s", vword(V_DOC), "a\nb\r\nc");
	fclose(f);
	EXPECT_STREQ("# conf: id mwin documented a b  c\n", buf);
	free(buf);
}

TEST_HARNESS_MAIN
