// SPDX-License-Identifier: GPL-2.0
/*
 * mwbench's batch section: MWIN_WINDOW_BATCH with 1, 8, 64 and 256
 * operations per call against the single ioctls, over 256 windows of 4 KiB,
 * and the in-kernel floor per rebind in the same rounds.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mwbench.h"

/* what a batch does, in the order of the report's rows */
enum { KIND_REBIND, KIND_INVALIDATE, KIND_CREATE, KIND_DESTROY, NR_KINDS };
static const char *const batch_kinds[NR_KINDS] = {
	"rebind", "invalidate", "create", "destroy",
};

void op_fill(struct batch_ctx *c, struct mwin_batch_op *o, uint32_t opcode,
	     uint32_t id, uint32_t access)
{
	memset(o, 0, sizeof(*o));
	o->opcode = opcode;
	switch (opcode) {
	case MWIN_BATCH_CREATE:
		o->flags = MWIN_WINDOW_OVERLAP;
		o->region = c->region;
		o->peer = c->peer;
		o->access = access;
		o->length = 4 * KiB;
		break;
	case MWIN_BATCH_REBIND:
		o->flags = MWIN_WINDOW_OVERLAP;
		o->id = id;
		o->access = access;
		o->length = 4 * KiB;
		break;
	default:
		o->id = id;
		break;
	}
}

/*
 * Every window of @ids once, in calls of @per_call entries (0: the single
 * ioctls). Returns the ns spent in the calls.
 */
int64_t batch_pass(struct batch_ctx *c, uint32_t *ids, uint32_t opcode,
		   int per_call)
{
	uint32_t access = ++c->flip & 1 ? MWIN_ACCESS_READ : RW;
	struct mwin_window_bind b;
	uint64_t sum = 0, t0;
	unsigned int i, j, n;
	uint32_t failed;
	int ret = 0;

	if (!per_call) {
		t0 = now_ns();
		for (i = 0; i < BATCH_WINDOWS && !ret; i++) {
			switch (opcode) {
			case MWIN_BATCH_CREATE:
				ret = win_create(c->region, c->peer, 0, 4 * KiB,
						 access, &b);
				ids[i] = b.id;
				break;
			case MWIN_BATCH_REBIND:
				ret = win_rebind(ids[i], 0, 4 * KiB, access);
				break;
			case MWIN_BATCH_INVALIDATE:
				ret = mwin_window_invalidate(mfd, ids[i]);
				break;
			default:
				ret = mwin_window_destroy(mfd, ids[i]);
				break;
			}
		}
		return ret ? ret : (int64_t)(now_ns() - t0);
	}
	for (i = 0; i < BATCH_WINDOWS; i += n) {
		n = BATCH_WINDOWS - i < (unsigned int)per_call ?
		    BATCH_WINDOWS - i : (unsigned int)per_call;
		for (j = 0; j < n; j++)
			op_fill(c, &c->ops[j], opcode, ids[i + j], access);
		t0 = now_ns();
		ret = win_batch(c->ops, n, &failed);
		sum += now_ns() - t0;
		if (ret)
			return ret;
		for (j = 0; j < n; j++) {
			if (c->ops[j].result) {
				c->failed_errno = -c->ops[j].result;
				return -EREMOTEIO;
			}
			if (opcode == MWIN_BATCH_CREATE)
				ids[i + j] = c->ops[j].id;
		}
	}
	return (int64_t)sum;
}

static int64_t t_batch_rebind(void *arg, int ops)
{
	struct batch_ctx *c = arg;

	(void)ops;
	return batch_pass(c, c->ids, MWIN_BATCH_REBIND, c->per_call);
}

/* @timed over all of @ids (its time), then @undo over them (untimed) */
static int64_t timed_then_undo(struct batch_ctx *c, uint32_t *ids,
			       uint32_t timed, uint32_t undo)
{
	int64_t ns, r;

	ns = batch_pass(c, ids, timed, c->per_call);
	if (ns < 0)
		return ns;
	r = batch_pass(c, ids, undo, c->per_call);
	return r < 0 ? r : ns;
}

/* invalidate all (timed), then re-validate all (untimed) */
static int64_t t_batch_invalidate(void *arg, int ops)
{
	struct batch_ctx *c = arg;

	(void)ops;
	return timed_then_undo(c, c->ids, MWIN_BATCH_INVALIDATE,
			       MWIN_BATCH_REBIND);
}

/* create all (timed), then destroy all (untimed) */
static int64_t t_batch_create(void *arg, int ops)
{
	struct batch_ctx *c = arg;

	(void)ops;
	return timed_then_undo(c, c->tmp, MWIN_BATCH_CREATE,
			       MWIN_BATCH_DESTROY);
}

/* create all (untimed), then destroy all (timed) */
static int64_t t_batch_destroy(void *arg, int ops)
{
	struct batch_ctx *c = arg;
	int64_t ns;

	(void)ops;
	ns = batch_pass(c, c->tmp, MWIN_BATCH_CREATE, c->per_call);
	if (ns < 0)
		return ns;
	return batch_pass(c, c->tmp, MWIN_BATCH_DESTROY, c->per_call);
}

/*
 * The in-kernel floor (ctl.c's), as many rebinds of one of the windows as
 * a pass makes: what a batched rebind per entry is held against.
 */
static int64_t t_batch_floor(struct batch_ctx *c)
{
	return floor_run(c->ids[0], BATCH_WINDOWS);
}

/* the ratio a/b of two modes' figures within each round */
static void batch_ratio(const char *name, int batch, const double *a,
			const double *b, int trials)
{
	double r[MAX_TRIALS];
	struct stats s;
	int t;

	for (t = 0; t < trials; t++)
		r[t] = a[t] / b[t];
	s = stats_of(r, trials);
	add_result("ratio", name, 4 * KiB, batch, &s, 1, "x", NULL);
}

/*
 * Within each round: each kind's rate at 64 per call over its single
 * calls, and a single create against a single (loud) rebind.
 */
static void batch_ratios(double v[][1 + NR_BATCH][MAX_TRIALS],
			 int err[][1 + NR_BATCH], const double *floor_us,
			 int trials, bool supported)
{
	char name[48];
	int k;

	for (k = 0; k < NR_KINDS && supported; k++) {
		if (err[k][0] || err[k][3])	/* single, 64 per call */
			continue;
		snprintf(name, sizeof(name), "batched 64/single %s rate",
			 batch_kinds[k]);
		batch_ratio(name, 64, v[k][0], v[k][3], trials);
	}
	if (!err[KIND_CREATE][0] && !err[KIND_REBIND][0])
		batch_ratio("single create/rebind", 1, v[KIND_CREATE][0],
			    v[KIND_REBIND][0], trials);
	if (floor_us && supported && !err[KIND_REBIND][3])
		batch_ratio("batched 64 rebind/floor", 64, v[KIND_REBIND][3],
			    floor_us, trials);
}

/* the floor's figure, or why there is none */
static void batch_floor_result(const double *floor_us, int64_t floor_err,
			       int trials)
{
	struct stats s;

	if (floor_err == -ENOENT) {
		add_failed("batch", "floor rebind", 4 * KiB, 1, "us/op",
			   "unavailable (mwin_bench.ko not loaded)");
		return;
	}
	if (floor_err) {
		add_failed("batch", "floor rebind", 4 * KiB, 1, "us/op",
			   "failed: %s", strerror((int)-floor_err));
		return;
	}
	s = stats_of(floor_us, trials);
	add_result("batch", "floor rebind", 4 * KiB, 1, &s, BATCH_WINDOWS,
		   "us/op", NULL);
	say("batch %-20s     single: %8.1f us/op [%.1f-%.1f]", "floor rebind",
	    s.med, s.p10, s.p90);
}

void bench_batch(void)
{
	static const trial_fn fns[NR_KINDS] = {
		t_batch_rebind, t_batch_invalidate, t_batch_create,
		t_batch_destroy,
	};
	/* modes: the single calls, then 1, 8, 64, 256 per call */
	static double v[NR_KINDS][1 + NR_BATCH][MAX_TRIALS];
	static double floor_us[MAX_TRIALS];
	int64_t floor_err = access(FLOOR_PATH, W_OK) ? -errno : 0;
	int err[NR_KINDS][1 + NR_BATCH] = {};
	int errno_entry[NR_KINDS][1 + NR_BATCH] = {};
	int trials = opt.trials < 11 ? opt.trials : 11;
	struct batch_ctx *c = calloc(1, sizeof(*c));
	long long cnt0[NR_CNT];
	bool supported = true;
	unsigned int k, mo, i;
	int recoveries = 0;
	uint32_t failed;
	struct peer *p;
	struct stats s;
	char name[48];
	int64_t ns;
	int ret, t;

	if (!c)
		die("out of memory");
	say("batch: %d windows of 4 KiB on one region, single calls and 1..256 per call, %d rounds",
	    BATCH_WINDOWS, trials);
	cnt_read(cnt0);
	p = peer_connect();
	if (!p)
		die("no peer");
	c->peer = p->peer_id;
	ret = region_create(2 * MiB, &c->region);
	if (ret)
		die("REGION_CREATE: %s", strerror(-ret));
	ret = (int)batch_pass(c, c->ids, MWIN_BATCH_CREATE, 0);
	if (ret < 0)
		die("creating %d windows: %s", BATCH_WINDOWS, strerror(-ret));

	/* is MWIN_WINDOW_BATCH there? one rebind */
	op_fill(c, &c->ops[0], MWIN_BATCH_REBIND, c->ids[0], RW);
	ret = win_batch(c->ops, 1, &failed);
	if (ret == -ENOTTY || ret == -EOPNOTSUPP) {
		say("MWIN_WINDOW_BATCH: %s: batched figures unsupported",
		    strerror(-ret));
		supported = false;
	} else if (ret || failed) {
		say("MWIN_WINDOW_BATCH probe: call: %s, entry: %s",
		    strerror(-ret), strerror(-c->ops[0].result));
	}

	for (t = -1; t < trials; t++) {
redo:
		for (k = 0; k < NR_KINDS; k++) {
			for (mo = 0; mo <= NR_BATCH; mo++) {
				if (err[k][mo] || (mo && !supported))
					continue;
				c->per_call = mo ? batch_sizes[mo - 1] : 0;
				c->failed_errno = 0;
				ns = fns[k](c, BATCH_WINDOWS);
				if (ns < 0 && recoveries < 5 && !peer_alive(p)) {
					/* see PEER_RECV_DEPTH */
					recoveries++;
					peer_losses++;
					say("batch: the peer was lost during %s %d/call (round %d): new peer, round again",
					    batch_kinds[k], c->per_call, t);
					for (i = 0; i < BATCH_WINDOWS; i++) {
						mwin_window_destroy(mfd, c->ids[i]);
						mwin_window_destroy(mfd, c->tmp[i]);
					}
					peer_close(p);
					p = peer_connect();
					if (!p)
						die("no peer");
					c->peer = p->peer_id;
					if (batch_pass(c, c->ids, MWIN_BATCH_CREATE,
						       0) < 0)
						die("creating %d windows",
						    BATCH_WINDOWS);
					goto redo;
				}
				if (ns < 0) {
					err[k][mo] = (int)ns;
					errno_entry[k][mo] = c->failed_errno;
					say("batch %s %d/call: %s%s%s", batch_kinds[k],
					    c->per_call, strerror((int)-ns),
					    c->failed_errno ? ": " : "",
					    c->failed_errno ?
					    strerror(c->failed_errno) : "");
				} else if (t >= 0) {
					v[k][mo][t] = ns / 1e3 / BATCH_WINDOWS;
				}
			}
		}
		ns = floor_err ? floor_err : t_batch_floor(c);
		if (ns < 0)
			floor_err = ns;
		else if (t >= 0)
			floor_us[t] = ns / 1e3 / BATCH_WINDOWS;
	}
	for (k = 0; k < NR_KINDS; k++) {
		for (mo = 0; mo <= NR_BATCH; mo++) {
			int per = mo ? batch_sizes[mo - 1] : 1;

			snprintf(name, sizeof(name), "%s %s",
				 mo ? "batched" : "single", batch_kinds[k]);
			if (mo && !supported) {
				add_failed("batch", name, 4 * KiB, per, "us/op",
					   "unsupported (ENOTTY)");
				continue;
			}
			if (err[k][mo]) {
				add_failed("batch", name, 4 * KiB, per, "us/op",
					   "failed: %s",
					   strerror(errno_entry[k][mo] ?
						    errno_entry[k][mo] :
						    -err[k][mo]));
				continue;
			}
			s = stats_of(v[k][mo], trials);
			add_result("batch", name, 4 * KiB, per, &s,
				   BATCH_WINDOWS, "us/op", NULL);

			say("batch %-20s %3d/call: %8.1f us/op [%.1f-%.1f]",
			    name, per, s.med, s.p10, s.p90);
		}
	}
	batch_floor_result(floor_us, floor_err, trials);
	batch_ratios(v, err, floor_err ? NULL : floor_us, trials, supported);
	if (supported && !err[0][0] && !err[0][3]) {
		c->per_call = 64;
		pkts_per_op("batched rebind (64/call)", t_batch_rebind, c,
			    BATCH_WINDOWS);
	}
	c->per_call = 0;
	pkts_per_op("single rebind (256 windows)", t_batch_rebind, c,
		    BATCH_WINDOWS);
	batch_pass(c, c->ids, MWIN_BATCH_DESTROY, 0);
	mwin_region_destroy(mfd, c->region, MWIN_REGION_DESTROY_FORCE);
	if (atomic_load(&p->errors))
		say("peer: %d errors", atomic_load(&p->errors));
	peer_close(p);
	free(c);
	cnt_section("batch", cnt0);
}
