// SPDX-License-Identifier: GPL-2.0
/*
 * mwbench's ctl section: per window size, the mwin ioctls (rebind,
 * invalidate, create + destroy), the in-kernel floor through mwin_bench.ko
 * and the userspace baselines (ibv_reg_mr, ibv_rereg_mr, Type 2 memory
 * windows, and those that tell the other side of the loopback pair of the
 * new rkey, as a loud rebind tells its peer) on the same device, taking
 * turns in one round robin (rr.c).
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mwbench.h"

struct ctl_ctx {
	uint32_t region, peer, peer2;
	uint32_t win;		/* rights rebinds, invalidate, the floor */
	uint32_t win2;		/* range rebinds */
	uint32_t win3;		/* of peer2: rebinds taking turns with win */
	uint32_t win4;		/* quiet (no messages): rights rebinds */
	uint64_t size;
	uint32_t flip, flip2, flip3, flip4, mw_flip;
	struct conn *cli;	/* userspace MW / MR baselines */
	struct conn *srv;	/* the side they tell */
	struct ibv_mr *parent;
	struct ibv_mr *told_mr;	/* re-registered, then told */
	struct ibv_mw *mw;
	uint8_t *ubuf;
	int rereg_errno;
};

static int64_t t_rebind_rights(void *arg, int ops)
{
	struct ctl_ctx *c = arg;
	uint64_t t0 = now_ns();
	int i, ret;

	for (i = 0; i < ops; i++) {
		ret = win_rebind(c->win, 0, c->size,
				 ++c->flip & 1 ? MWIN_ACCESS_READ : RW);
		if (ret)
			return ret;
	}
	return (int64_t)(now_ns() - t0);
}

/* The same rebinds of a quiet window: the peer is sent nothing. */
static int64_t t_rebind_quiet(void *arg, int ops)
{
	struct ctl_ctx *c = arg;
	uint64_t t0 = now_ns();
	int i, ret;

	for (i = 0; i < ops; i++) {
		ret = win_rebind(c->win4, 0, c->size,
				 ++c->flip4 & 1 ? MWIN_ACCESS_READ : RW);
		if (ret)
			return ret;
	}
	return (int64_t)(now_ns() - t0);
}

static int64_t t_rebind_range(void *arg, int ops)
{
	struct ctl_ctx *c = arg;
	uint64_t t0 = now_ns();
	int i, ret;

	for (i = 0; i < ops; i++) {
		ret = win_rebind(c->win2, 0,
				 ++c->flip2 & 1 ? c->size / 2 : c->size, RW);
		if (ret)
			return ret;
	}
	return (int64_t)(now_ns() - t0);
}

/*
 * Rebinds that alternate between two windows of two peers (two QPs). On
 * rxe every LOCAL_INV waits until all earlier work requests of its send
 * queue completed, and the module posts its grant and revoke messages on
 * the same queue: a rebind right after another on the same QP waits for
 * the other's messages to be acknowledged by the peer; with two QPs taking
 * turns, those messages had a whole rebind's time to complete.
 */
static int64_t t_rebind_2peers(void *arg, int ops)
{
	struct ctl_ctx *c = arg;
	uint64_t t0 = now_ns();
	int i, ret;

	for (i = 0; i < ops; i++) {
		ret = win_rebind(i & 1 ? c->win3 : c->win, 0, c->size,
				 (++c->flip3 >> 1) & 1 ? MWIN_ACCESS_READ : RW);
		if (ret)
			return ret;
	}
	return (int64_t)(now_ns() - t0);
}

/* invalidate alone (timed); the rebind after it is not */
static int64_t t_invalidate(void *arg, int ops)
{
	struct ctl_ctx *c = arg;
	uint64_t sum = 0, t0;
	int i, ret;

	for (i = 0; i < ops; i++) {
		t0 = now_ns();
		ret = mwin_window_invalidate(mfd, c->win);
		sum += now_ns() - t0;
		if (!ret)
			ret = win_rebind(c->win, 0, c->size, RW);
		if (ret)
			return ret;
	}
	return (int64_t)sum;
}

static int64_t t_invalidate_rebind(void *arg, int ops)
{
	struct ctl_ctx *c = arg;
	uint64_t t0 = now_ns();
	int i, ret;

	for (i = 0; i < ops; i++) {
		ret = mwin_window_invalidate(mfd, c->win);
		if (!ret)
			ret = win_rebind(c->win, 0, c->size, RW);
		if (ret)
			return ret;
	}
	return (int64_t)(now_ns() - t0);
}

static int64_t t_create_destroy(void *arg, int ops)
{
	struct ctl_ctx *c = arg;
	struct mwin_window_bind b;
	uint64_t t0 = now_ns();
	int i, ret;

	for (i = 0; i < ops; i++) {
		ret = win_create(c->region, c->peer, 0, c->size, RW, &b);
		if (!ret)
			ret = mwin_window_destroy(mfd, b.id);
		if (ret)
			return ret;
	}
	return (int64_t)(now_ns() - t0);
}

/*
 * The in-kernel floor, through mwin_bench.ko. One call makes fewer rebinds
 * than an MR has keys (mwin_bench_rebind() never repeats one): more are
 * made in several calls, and their times added up.
 */
#define FLOOR_MAX_CALL	200

static int64_t floor_call(const char *path, uint32_t win, int ops)
{
	char buf[64];
	unsigned int w, n;
	unsigned long long ns;
	int fd, len, ret = 0;

	fd = open(path, O_RDWR);
	if (fd < 0)
		return -errno;
	len = snprintf(buf, sizeof(buf), "%u %d\n", win, ops);
	if (write(fd, buf, len) != len)
		ret = -errno;
	if (!ret) {
		len = (int)pread(fd, buf, sizeof(buf) - 1, 0);
		if (len <= 0)
			ret = -EIO;
		else
			buf[len] = '\0';
	}
	close(fd);
	if (ret)
		return ret;
	if (sscanf(buf, "%u %u %llu", &w, &n, &ns) != 3 || w != win ||
	    n != (unsigned int)ops)
		return -EPROTO;
	return (int64_t)ns;
}

int64_t floor_run_at(const char *path, uint32_t win, int ops)
{
	int64_t ns, sum = 0;
	int n;

	for (; ops > 0; ops -= n) {
		n = ops < FLOOR_MAX_CALL ? ops : FLOOR_MAX_CALL;
		ns = floor_call(path, win, n);
		if (ns < 0)
			return ns;
		sum += ns;
	}
	return sum;
}

int64_t floor_run(uint32_t win, int ops)
{
	return floor_run_at(FLOOR_PATH, win, ops);
}

static int64_t t_floor(void *arg, int ops)
{
	struct ctl_ctx *c = arg;

	return floor_run(c->win, ops);
}

/* the floor's LOCAL_INVs alone, as WINDOW_INVALIDATE's bound */
static int64_t t_floor_invalidate(void *arg, int ops)
{
	struct ctl_ctx *c = arg;

	return floor_run_at(INV_FLOOR_PATH, c->win, ops);
}

int mr_access(bool write)
{
	return IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
	       (write ? IBV_ACCESS_REMOTE_WRITE : 0);
}

static int64_t t_reg_dereg(void *arg, int ops)
{
	struct ctl_ctx *c = arg;
	uint64_t t0 = now_ns();
	struct ibv_mr *mr;
	int i;

	for (i = 0; i < ops; i++) {
		mr = ibv_reg_mr(c->cli->pd, c->ubuf, c->size, mr_access(true));
		if (!mr)
			return -errno;
		if (ibv_dereg_mr(mr))
			return -EIO;
	}
	return (int64_t)(now_ns() - t0);
}

static int64_t t_reg_only(void *arg, int ops)
{
	struct ctl_ctx *c = arg;
	struct ibv_mr *mr;
	uint64_t sum = 0, t0;
	int i;

	for (i = 0; i < ops; i++) {
		t0 = now_ns();
		mr = ibv_reg_mr(c->cli->pd, c->ubuf, c->size, mr_access(true));
		sum += now_ns() - t0;
		if (!mr)
			return -errno;
		ibv_dereg_mr(mr);
	}
	return (int64_t)sum;
}

static int64_t t_rereg(void *arg, int ops)
{
	struct ctl_ctx *c = arg;
	uint64_t sum = 0, t0;
	struct ibv_mr *mr;
	int i, ret = 0;

	mr = ibv_reg_mr(c->cli->pd, c->ubuf, c->size, mr_access(true));
	if (!mr)
		return -errno;
	for (i = 0; i < ops && !ret; i++) {
		t0 = now_ns();
		errno = 0;
		ret = ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
				   mr_access(++c->flip & 1));
		sum += now_ns() - t0;
		if (ret)
			c->rereg_errno = errno ? errno : EIO;
	}
	ibv_dereg_mr(mr);
	return ret ? -c->rereg_errno : (int64_t)sum;
}

/* userspace Type 2 MW: LOCAL_INV and/or BIND_MW, one post, wait for the last */
static int mw_bind(struct ctl_ctx *c, bool inv, bool bind)
{
	struct ibv_send_wr inv_wr = {}, bind_wr = {}, *bad;
	uint32_t rkey = ibv_inc_rkey(c->mw->rkey);
	int ret;

	inv_wr.opcode = IBV_WR_LOCAL_INV;
	inv_wr.invalidate_rkey = c->mw->rkey;
	inv_wr.wr_id = ++c->cli->wr_seq;
	inv_wr.send_flags = bind ? 0 : IBV_SEND_SIGNALED;
	inv_wr.next = bind ? &bind_wr : NULL;
	bind_wr.opcode = IBV_WR_BIND_MW;
	bind_wr.wr_id = ++c->cli->wr_seq;
	bind_wr.send_flags = IBV_SEND_SIGNALED;
	bind_wr.bind_mw.mw = c->mw;
	bind_wr.bind_mw.rkey = rkey;
	bind_wr.bind_mw.bind_info.mr = c->parent;
	bind_wr.bind_mw.bind_info.addr = (uintptr_t)c->ubuf;
	bind_wr.bind_mw.bind_info.length = c->size;
	bind_wr.bind_mw.bind_info.mw_access_flags =
		IBV_ACCESS_REMOTE_READ |
		(++c->mw_flip & 1 ? 0 : IBV_ACCESS_REMOTE_WRITE);
	if (ibv_post_send(c->cli->qp, inv ? &inv_wr : &bind_wr, &bad))
		return -errno;
	ret = wait_send(c->cli, bind ? bind_wr.wr_id : inv_wr.wr_id);
	if (ret)
		return ret < 0 ? ret : -EIO;
	if (bind)
		c->mw->rkey = rkey;	/* rxe's provider does not */
	return 0;
}

static int64_t t_mw_rebind(void *arg, int ops)
{
	struct ctl_ctx *c = arg;
	uint64_t t0 = now_ns();
	int i, ret;

	for (i = 0; i < ops; i++) {
		ret = mw_bind(c, true, true);
		if (ret)
			return ret;
	}
	return (int64_t)(now_ns() - t0);
}

static int64_t t_mw_invalidate(void *arg, int ops)
{
	struct ctl_ctx *c = arg;
	uint64_t sum = 0, t0;
	int i, ret;

	for (i = 0; i < ops; i++) {
		t0 = now_ns();
		ret = mw_bind(c, true, false);
		sum += now_ns() - t0;
		if (!ret)
			ret = mw_bind(c, false, true);
		if (ret)
			return ret;
	}
	return (int64_t)sum;
}

/*
 * The told baselines: what an rdma-core application does to hand its peer
 * a new rkey, or to tell it one is dead, as a loud rebind or invalidate
 * does: the change, then one SEND of one struct mwin_wire_msg (the size of
 * the module's grant, wire.rst), waited for. The change is waited for
 * before the SEND, as the module sends a grant only once its registration
 * completed.
 */
static int tell_peer(struct ctl_ctx *c, uint8_t type, uint32_t rkey)
{
	struct mwin_wire_msg m = {
		.magic = htole32(MWIN_WIRE_MAGIC),
		.version = MWIN_WIRE_VERSION,
		.type = type,
		.rkey = htole32(rkey),
		.iova = htole64((uintptr_t)c->ubuf),
		.length = htole64(c->size),
	};

	return conn_send(c->cli, &m, sizeof(m));
}

/* ibv_dereg_mr + ibv_reg_mr of the window's range: a new rkey */
static int mr_reregister(struct ctl_ctx *c)
{
	if (c->told_mr && ibv_dereg_mr(c->told_mr))
		return -EIO;
	c->told_mr = ibv_reg_mr(c->cli->pd, c->ubuf, c->size,
				mr_access(true));
	return c->told_mr ? 0 : -errno;
}

enum told { TOLD_MW_REBIND, TOLD_MW_INVALIDATE, TOLD_MR_REREG };

/* the timed part of one told operation: the change, then its message */
static int told_once(struct ctl_ctx *c, enum told k)
{
	int ret;

	switch (k) {
	case TOLD_MW_REBIND:
		ret = mw_bind(c, true, true);
		return ret ? ret : tell_peer(c, MWIN_WIRE_GRANT, c->mw->rkey);
	case TOLD_MW_INVALIDATE:
		ret = mw_bind(c, true, false);
		return ret ? ret : tell_peer(c, MWIN_WIRE_REVOKE, c->mw->rkey);
	default:
		ret = mr_reregister(c);
		return ret ? ret : tell_peer(c, MWIN_WIRE_GRANT,
					     c->told_mr->rkey);
	}
}

/*
 * @ops told operations @k, their timed parts added up. @pumped: the other
 * side's receives are posted again by a thread that sleeps until each
 * SEND arrives, as a module's peer's are (struct peer); else in line,
 * untimed. An invalidated MW is bound again untimed; the first MR is
 * registered untimed.
 */
static int64_t told_trial(struct ctl_ctx *c, enum told k, bool pumped,
			  int ops)
{
	uint64_t sum = 0, t0;
	int i, ret = 0, r;

	if (k == TOLD_MR_REREG && !c->told_mr)
		ret = mr_reregister(c);
	if (!ret && pumped)
		ret = conn_pump_start(c->srv);
	if (ret)
		return ret;
	for (i = 0; i < ops && !ret; i++) {
		t0 = now_ns();
		ret = told_once(c, k);
		sum += now_ns() - t0;
		if (!ret && !pumped)
			ret = conn_repost_recv(c->srv);
		if (!ret && k == TOLD_MW_INVALIDATE)
			ret = mw_bind(c, false, true);
	}
	r = pumped ? conn_pump_stop(c->srv) : 0;
	ret = ret ? ret : r;
	return ret ? ret : (int64_t)sum;
}

static int64_t t_mw_rebind_told(void *arg, int ops)
{
	return told_trial(arg, TOLD_MW_REBIND, true, ops);
}

static int64_t t_mw_rebind_told_inline(void *arg, int ops)
{
	return told_trial(arg, TOLD_MW_REBIND, false, ops);
}

static int64_t t_mw_invalidate_told(void *arg, int ops)
{
	return told_trial(arg, TOLD_MW_INVALIDATE, true, ops);
}

static int64_t t_mr_rereg_told(void *arg, int ops)
{
	return told_trial(arg, TOLD_MR_REREG, true, ops);
}

/*
 * One by one: single rebinds of a 4 KiB window. Every 256 binds the MR's
 * key bytes are spent and the module replaces the MR (the rkey's index
 * changes): those operations are told apart.
 */
static void rebind_detail(struct ctl_ctx *c)
{
	int n = 2048, i, nrep = 0, nother = 0, slow = 0, ret;
	double *v = calloc(n, sizeof(*v)), *rep = calloc(n, sizeof(*v));
	double *other = calloc(n, sizeof(*v));
	uint32_t rkey, prev = 0;
	struct stats s, sr, so;
	uint64_t t0;

	if (!v || !rep || !other)
		die("out of memory");
	for (i = 0; i < n; i++) {
		t0 = now_ns();
		ret = win_rebind_key(c->win, 0, c->size,
				     ++c->flip & 1 ? MWIN_ACCESS_READ : RW,
				     &rkey);
		v[i] = (now_ns() - t0) / 1e3;
		if (ret) {
			add_failed("detail", "rebind per-op", c->size, 0,
				   "us", "failed: %s", strerror(-ret));
			goto out;
		}
		if (i && (rkey >> 8) != (prev >> 8))
			rep[nrep++] = v[i];
		else if (i)
			other[nother++] = v[i];
		prev = rkey;
	}
	s = stats_of(v, n);
	for (i = 0; i < n; i++)
		slow += v[i] > 2 * s.med;
	add_result("detail", "rebind per-op", c->size, 0, &s, n, "us", NULL);
	sr = stats_of(rep, nrep);
	if (nrep)
		add_result("detail", "rebind MR replaced", c->size, 0, &sr,
			   nrep, "us", NULL);
	so = stats_of(other, nother);
	add_result("detail", "rebind same MR", c->size, 0, &so, nother, "us",
		   NULL);
	qsort(v, n, sizeof(*v), cmp_double);
	s.med = pct(v, n, 0.99);
	s.p10 = v[n - 1];
	s.p90 = slow;
	add_result("detail", "rebind p99/max/slow", c->size, 0, &s, n, "us",
		   NULL);
	say("detail: %d single rebinds of 4 KiB: median %.1f us, mean %.1f, p99 %.1f, max %.1f, %d over 2x the median; %d replaced the MR (median %.1f us), others median %.1f us",
	    n, pct(v, n, 0.5), s.mean, s.med, s.p10, slow, nrep, sr.med,
	    so.med);
out:
	free(v);
	free(rep);
	free(other);
}

/* the windows of every size: two each, on the region, for the peer */
static int ctl_windows(struct ctl_ctx *ctx, int n)
{
	struct mwin_window_bind b;
	int i, ret;

	for (i = 0; i < n; i++) {
		struct ctl_ctx *c = &ctx[i];

		ret = win_create(c->region, c->peer, 0, c->size, RW, &b);
		c->win = b.id;
		if (!ret)
			ret = win_create(c->region, c->peer, 0, c->size, RW, &b);
		c->win2 = b.id;
		if (!ret)
			ret = win_create(c->region, c->peer2, 0, c->size, RW, &b);
		c->win3 = b.id;
		if (!ret) {
			b = (struct mwin_window_bind){
				.flags = MWIN_WINDOW_OVERLAP | MWIN_WINDOW_QUIET,
				.region = c->region, .peer = c->peer,
				.access = RW, .length = c->size,
			};
			ret = mwin_window_create(mfd, &b);
		}
		c->win4 = b.id;
		if (ret) {
			say("WINDOW_CREATE of %" PRIu64 " bytes: %s", c->size,
			    strerror(-ret));
			return ret;
		}
	}
	return 0;
}

struct ctl_env {
	struct peer *p, *p2;
	struct ctl_ctx *ctx;
	int n;
};

static int ctl_recover(void *arg)
{
	struct ctl_env *e = arg;
	int i;

	if (peer_alive(e->p) && peer_alive(e->p2))
		return -1;
	peer_close(e->p);
	peer_close(e->p2);
	e->p = peer_connect();
	e->p2 = peer_connect();
	if (!e->p || !e->p2)
		die("no peer");
	for (i = 0; i < e->n; i++) {
		mwin_window_destroy(mfd, e->ctx[i].win);
		mwin_window_destroy(mfd, e->ctx[i].win2);
		mwin_window_destroy(mfd, e->ctx[i].win3);
		mwin_window_destroy(mfd, e->ctx[i].win4);
		e->ctx[i].peer = e->p->peer_id;
		e->ctx[i].peer2 = e->p2->peer_id;
	}
	return ctl_windows(e->ctx, e->n);
}

void bench_ctl(void)
{
	static struct ctl_ctx ctx[NR_SIZES];
	static double v[NR_SIZES][RR_MAX][MAX_TRIALS];
	static int err[NR_SIZES][RR_MAX];
	struct rr_method m[] = {
		{ "mwin rebind", t_rebind_rights, true, false },		/* 0 */
		{ "floor rebind", t_floor, true, false },			/* 1 */
		{ "userspace MW inv+bind", t_mw_rebind, true, false },		/* 2 */
		{ "mwin rebind (new range)", t_rebind_range, true, false },	/* 3 */
		{ "mwin invalidate", t_invalidate, true, false },		/* 4 */
		{ "mwin invalidate+rebind", t_invalidate_rebind, true, false },	/* 5 */
		{ "mwin create+destroy", t_create_destroy, true, false },	/* 6 */
		{ "userspace MW invalidate", t_mw_invalidate, true, false },	/* 7 */
		{ "mwin rebind 2 peers", t_rebind_2peers, true, false },	/* 8 */
		{ "ibv_reg_mr+dereg", t_reg_dereg, true, true },	/* 9 */
		{ "ibv_reg_mr", t_reg_only, true, true },		/* 10 */
		{ "ibv_rereg_mr", t_rereg, false, true },		/* 11 */
		{ "mwin rebind, quiet", t_rebind_quiet, true, false },	/* 12 */
		{ "floor invalidate", t_floor_invalidate, true, false },	/* 13 */
		{ "userspace MW rebind, told", t_mw_rebind_told, true, false },	/* 14 */
		{ "userspace MW invalidate, told", t_mw_invalidate_told, true,
		  false },							/* 15 */
		{ "userspace MR re-registration, told", t_mr_rereg_told, true,
		  true },							/* 16 */
		{ "userspace MW rebind, told in line", t_mw_rebind_told_inline,
		  true, false },						/* 17 */
	};
	void *ctxp[NR_SIZES];
	int trials[NR_SIZES], ops[NR_SIZES];
	const int n = nr_ctl_sizes();
	const uint64_t top = ctl_sizes[n - 1];
	struct ctl_env env = { .ctx = ctx, .n = n };
	long long cnt0[NR_CNT];
	struct ibv_mr *parent;
	struct peer *p, *p2;
	struct loop lp;
	uint32_t region;
	uint8_t *ubuf;
	bool mw_ok = true;
	char tb[24];
	size_t i;
	int ret;

	say("control path: one region of %s, windows of 4 KiB .. %s, %d rounds of %d ops (ibv_reg_mr: 8, or 1 from 16 MiB)",
	    size_str(top, tb), tb, opt.trials, opt.ops);
	cnt_read(cnt0);
	p = peer_connect();
	p2 = peer_connect();
	if (!p || !p2)
		die("no peer");
	if (loop_open(&lp, 64 * KiB, 64 * KiB))
		die("no loopback connection");
	ret = region_create(top, &region);
	if (ret)
		die("REGION_CREATE %s: %s", tb, strerror(-ret));
	/* the userspace buffer of the baselines, as large, populated */
	ubuf = mmap(NULL, top, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (ubuf == MAP_FAILED)
		die("mmap %s: %s", tb, strerror(errno));
	parent = ibv_reg_mr(lp.cli->pd, ubuf, top,
			    mr_access(true) | IBV_ACCESS_MW_BIND);
	if (!parent)
		say("ibv_reg_mr %s with MW_BIND: %s", tb, strerror(errno));

	for (i = 0; i < (size_t)n; i++) {
		struct ctl_ctx *c = &ctx[i];

		c->region = region;
		c->peer = p->peer_id;
		c->peer2 = p2->peer_id;
		c->size = ctl_sizes[i];
		c->cli = lp.cli;
		c->srv = lp.srv;
		c->parent = parent;
		c->ubuf = ubuf;
		ctxp[i] = c;
		trials[i] = opt.trials;
		ops[i] = opt.ops;
		if (parent && mw_ok) {
			c->mw = ibv_alloc_mw(lp.cli->pd, IBV_MW_TYPE_2);
			ret = c->mw ? mw_bind(c, false, true) : -errno;
			if (ret) {
				say("userspace Type 2 MW unusable: %s",
				    strerror(-ret));
				mw_ok = false;
			}
		}
	}
	if (ctl_windows(ctx, n))
		die("cannot create the windows");
	env.p = p;
	env.p2 = p2;
	if (!mw_ok) {
		m[2].on = m[7].on = m[14].on = m[15].on = m[17].on = false;
		add_failed("ctl", "userspace MW inv+bind", 0, 0, "us/op",
			   "unsupported");
	}
	if (access(FLOOR_PATH, W_OK)) {
		say("%s: %s (is mwin_bench.ko loaded?)", FLOOR_PATH,
		    strerror(errno));
		m[1].on = false;
		add_failed("ctl", "floor rebind", 0, 0, "us/op",
			   "unavailable (mwin_bench.ko not loaded)");
	}
	if (access(INV_FLOOR_PATH, W_OK)) {
		m[13].on = false;
		add_failed("ctl", "floor invalidate", 0, 0, "us/op",
			   "unavailable (mwin_bench.ko not loaded)");
	}

	/* ibv_rereg_mr: rxe on 6.1 has none; then it stays out */
	if (t_rereg(&ctx[0], 1) < 0) {
		add_failed("ctl", "ibv_rereg_mr", 0, 0, "us/op",
			   "unsupported (%s)", strerror(ctx[0].rereg_errno));
	} else {
		m[11].on = true;
	}
	round_robin("ctl", ctxp, ctl_sizes, n, m, ARRAY_SIZE(m), trials,
		    ops, v,
		    err, ctl_recover, &env);
	p = env.p;
	p2 = env.p2;
	peer_check(p, "after the control path");
	rr_results("ctl", ctl_sizes, n, m, ARRAY_SIZE(m), trials, ops, v,
		   err);
	/* ratios within each round: both figures saw the same host */
	if (m[1].on)
		rr_ratio("mwin/floor", ctl_sizes, n, 0, 1, trials, v, err);
	if (m[2].on)
		rr_ratio("mwin/userspace MW", ctl_sizes, n, 0, 2, trials,
			 v, err);
	if (m[1].on)
		rr_ratio("quiet/floor", ctl_sizes, n, 12, 1, trials, v,
			 err);
	if (m[2].on)
		rr_ratio("quiet/userspace MW", ctl_sizes, n, 12, 2,
			 trials, v, err);
	if (m[13].on)
		rr_ratio("invalidate/floor invalidate", ctl_sizes, n, 4,
			 13, trials, v, err);
	if (m[14].on)
		rr_ratio("mwin/MW rebind told", ctl_sizes, n, 0, 14,
			 trials, v, err);
	if (m[15].on)
		rr_ratio("invalidate/MW invalidate told", ctl_sizes, n,
			 4, 15, trials, v, err);
	if (m[17].on)
		rr_ratio("mwin/MW rebind told in line", ctl_sizes, n, 0,
			 17, trials, v, err);
	rr_ratio("MR rereg told/mwin", ctl_sizes, n, 16, 0, trials, v,
		 err);
	rr_ratio("2 peers/1 peer", ctl_sizes, n, 8, 0, trials, v, err);
	rr_ratio("reg+dereg/mwin", ctl_sizes, n, 9, 0, trials, v, err);
	rr_ratio("range/rights", ctl_sizes, n, 3, 0, trials, v, err);
	if (n == NR_SIZES)
		rr_ratio_x("rebind 1 GiB/4 KiB", 1 * GiB, NR_SIZES - 1, 0, 0,
			   0, trials[0], v, err);

	/* packets on the wire per operation, 4 KiB windows */
	pkts_per_op("floor rebind", t_floor, &ctx[0], 256);
	pkts_per_op("mwin rebind", t_rebind_rights, &ctx[0], 256);
	pkts_per_op("mwin rebind, quiet", t_rebind_quiet, &ctx[0], 256);
	pkts_per_op("mwin invalidate+rebind", t_invalidate_rebind, &ctx[0],
		    256);
	pkts_per_op("mwin create+destroy", t_create_destroy, &ctx[0], 256);
	if (m[2].on)
		pkts_per_op("userspace MW inv+bind", t_mw_rebind, &ctx[0], 256);
	if (m[14].on)
		pkts_per_op("userspace MW rebind, told", t_mw_rebind_told,
			    &ctx[0], 256);
	rebind_detail(&ctx[0]);

	for (i = 0; i < (size_t)n; i++) {
		mwin_window_destroy(mfd, ctx[i].win);
		mwin_window_destroy(mfd, ctx[i].win2);
		mwin_window_destroy(mfd, ctx[i].win3);
		mwin_window_destroy(mfd, ctx[i].win4);
		if (ctx[i].mw)
			ibv_dealloc_mw(ctx[i].mw);
		if (ctx[i].told_mr)
			ibv_dereg_mr(ctx[i].told_mr);
	}
	if (parent)
		ibv_dereg_mr(parent);
	munmap(ubuf, top);
	mwin_region_destroy(mfd, region, MWIN_REGION_DESTROY_FORCE);
	loop_close(&lp);
	peer_close(p);
	peer_close(p2);
	cnt_section("ctl", cnt0);
}
