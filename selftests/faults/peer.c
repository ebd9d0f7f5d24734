// SPDX-License-Identifier: GPL-2.0
/*
 * The peer processes of mwin_faults: one mwpeer each, connected to the
 * module. In CMD_RUN a peer WRITEs, READs and fetch-and-adds through a
 * random grant it holds (PEER_HAMMER), now and then hands one back with
 * Send-with-Invalidate, or only takes in messages (PEER_IDLE); it
 * reconnects when its connection dies. CMD_QUIESCE and CMD_VERIFY make it
 * take in what is in flight and snapshot its grants for check.c (VERIFY
 * also checks the test's pattern in each). Every connection's end goes
 * into its slot with a letter saying how (mwin_faults.c's opening
 * comment lists them).
 */
#define _GNU_SOURCE
#include "faults.h"

#define MAX_SELF_INV	256
#define PEER_BUF	(64 * 1024)
#define PEER_OP_MS	5000

struct peer_ctx {
	struct shared *sh;
	struct peer_slot *s;
	struct mwpeer *p;
	unsigned int seed;
	bool opened;
	uint32_t cur;		/* id of the live connection, 0 if none */
	bool failed;		/* an access on it failed */
	bool silent;		/* an access on it timed out */
	unsigned int dropped;
	unsigned int nself;
	uint32_t self_inv[MAX_SELF_INV];
	uint8_t buf[WIN_MAX];
};

static void peer_end(struct peer_ctx *x, char how)
{
	struct peer_slot *s = x->s;
	const char *first = NULL;
	unsigned int n = s->nends, e;

	if (!x->cur)
		return;
	e = mwpeer_proto_errors(x->p, &first);
	if (e && !s->proto_errors)
		snprintf(s->proto_first, sizeof(s->proto_first),
			 "peer %u: %s", x->cur, first);
	s->proto_errors += e;
	if (n < MAX_ENDS) {
		s->ends[n].id = x->cur;
		s->ends[n].how = how;
		STORE(s->nends, n + 1);
	}
	x->cur = 0;
	STORE(s->id, 0);
	x->failed = false;
	x->silent = false;
	x->nself = 0;
}

static bool peer_conn_ok(struct peer_ctx *x)
{
	return x->cur && !x->silent &&
	       mwpeer_state(x->p) == MWPEER_CONNECTED &&
	       !mwpeer_qp_error(x->p);
}

/* The connection died or went silent: see whether the module closes it. */
static void peer_lost(struct peer_ctx *x)
{
	int i;
	char how;

	STORE(x->s->lost_gone, 0);
	STORE(x->s->lost_id, x->cur);
	for (i = 0; i < 100 && mwpeer_state(x->p) == MWPEER_CONNECTED; i++)
		mwpeer_poll(x->p, 50);
	if (mwpeer_state(x->p) != MWPEER_CONNECTED)
		how = x->failed || mwpeer_qp_error(x->p) ? 'Q' : 'D';
	else if (LOAD(x->s->lost_gone))
		how = 'R';
	else
		how = x->failed || mwpeer_qp_error(x->p) ? 'T' : 'O';
	STORE(x->s->lost_id, 0);
	peer_end(x, how);
	mwpeer_disconnect(x->p);
}

static int peer_ensure(struct peer_ctx *x)
{
	int r;

	if (peer_conn_ok(x))
		return 0;
	if (x->cur)
		peer_lost(x);
	r = x->opened ? mwpeer_reconnect(x->p) : mwpeer_open(x->p, test_host(), 0);
	x->opened = true;
	if (r) {
		x->s->connect_fails++;
		return r;
	}
	x->cur = mwpeer_id(x->p);
	x->s->connects++;
	STORE(x->s->id, x->cur);
	return 0;
}

static void peer_drain(struct peer_ctx *x)
{
	struct mwpeer_msg m;

	while (!mwpeer_next_msg(x->p, &m, 0)) {
		if (m.type == MWIN_WIRE_GRANT)
			x->s->grants_seen++;
		else
			x->s->revokes_seen++;
	}
}

static bool peer_self_invalidated(struct peer_ctx *x, uint32_t rkey)
{
	unsigned int i;

	for (i = 0; i < x->nself; i++)
		if (x->self_inv[i] == rkey)
			return true;
	return false;
}

/* The grants it holds, without those it handed back itself. */
static size_t peer_grants(struct peer_ctx *x, struct grant *out, size_t max)
{
	static struct mwpeer_msg g[MAX_GRANTS];
	size_t n = mwpeer_grants(x->p, g, MAX_GRANTS), i, k = 0;

	if (n > MAX_GRANTS)
		n = MAX_GRANTS;
	for (i = 0; i < n && k < max; i++) {
		if (peer_self_invalidated(x, g[i].rkey))
			continue;
		out[k].window = g[i].window;
		out[k].rkey = g[i].rkey;
		out[k].iova = g[i].iova;
		out[k].length = g[i].length;
		out[k].access = g[i].access;
		k++;
	}
	return k;
}

static void peer_status(struct peer_ctx *x, int st)
{
	x->s->ops++;
	if (st == IBV_WC_SUCCESS) {
		x->s->ok++;
	} else if (st == -ETIMEDOUT) {
		x->s->timeouts++;
		x->silent = true;
	} else {
		x->s->failed++;
		x->failed = true;
	}
}

/* One access through a random grant, with rights it has. */
static void peer_hammer(struct peer_ctx *x)
{
	static struct grant g[MAX_GRANTS];
	size_t n = peer_grants(x, g, MAX_GRANTS);
	uint64_t len, at, word, old;
	int kinds[3], nk = 0, kind, st;
	struct grant *q;

	if (!n) {
		mwpeer_poll(x->p, 5);
		return;
	}
	q = &g[rand_r(&x->seed) % n];
	if (rand_r(&x->seed) % 128 == 0 && x->nself < MAX_SELF_INV &&
	    !LOAD(x->sh->calm)) {
		st = mwpeer_send_inv(x->p, q->rkey);
		if (st == IBV_WC_SUCCESS) {
			x->self_inv[x->nself++] = q->rkey;
			x->s->self_inv++;
		}
		peer_status(x, st);
		return;
	}
	len = 1 + rand_r(&x->seed) % (q->length < 512 ? q->length : 512);
	at = q->iova + rand_r(&x->seed) % (q->length - len + 1);
	word = (q->iova + 7) & ~7ULL;
	if (q->access & MWIN_ACCESS_WRITE)
		kinds[nk++] = 0;
	if (q->access & MWIN_ACCESS_READ)
		kinds[nk++] = 1;
	if ((q->access & MWIN_ACCESS_ATOMIC) && word + 8 <= q->iova + q->length)
		kinds[nk++] = 2;
	if (!nk) {
		mwpeer_poll(x->p, 1);
		return;
	}
	kind = kinds[rand_r(&x->seed) % nk];
	switch (kind) {
	case 0:
		memset(x->buf, rand_r(&x->seed), len);
		st = mwpeer_write(x->p, q->rkey, at, x->buf, len);
		break;
	case 1:
		st = mwpeer_read(x->p, q->rkey, at, x->buf, len);
		break;
	default:
		st = mwpeer_fadd(x->p, q->rkey, word, 1, &old);
		break;
	}
	peer_status(x, st);
}

/* Take in messages until none came for 200 ms (at most about 6 s). */
static void peer_quiesce(struct peer_ctx *x)
{
	int quiet = 0, k;

	for (k = 0; k < 300 && quiet < 10; k++) {
		unsigned long before;

		if (!peer_conn_ok(x)) {
			quiet = 0;
			if (peer_ensure(x)) {
				if (LOAD(x->s->exit_when_gone))
					return;
				usleep(20000);
			}
			continue;
		}
		before = x->s->grants_seen + x->s->revokes_seen;
		mwpeer_poll(x->p, 20);
		peer_drain(x);
		if (x->s->grants_seen + x->s->revokes_seen == before &&
		    peer_conn_ok(x))
			quiet++;
		else
			quiet = 0;
	}
}

static void peer_snapshot(struct peer_ctx *x)
{
	struct peer_slot *s = x->s;

	s->nsnap = peer_grants(x, s->snap, MAX_GRANTS);
	s->snap_connected = peer_conn_ok(x);
	s->snap_id = x->cur;
	s->snap_proto = s->proto_errors +
			(x->cur ? mwpeer_proto_errors(x->p, NULL) : 0);
}

__attribute__((format(printf, 2, 3)))
static void peer_vfail(struct peer_ctx *x, const char *fmt, ...)
{
	va_list ap;

	if (!x->s->v_fail++) {
		va_start(ap, fmt);
		vsnprintf(x->s->v_msg, sizeof(x->s->v_msg), fmt, ap);
		va_end(ap);
	}
}

/*
 * Each grant: READ and check the pattern the test wrote, WRITE its
 * inverse, or (atomics only) fetch-and-add 0 and check the word.
 */
static void peer_verify(struct peer_ctx *x)
{
	struct peer_slot *s = x->s;
	unsigned int i;
	uint64_t k;

	s->v_windows = 0;
	s->v_fail = 0;
	s->v_msg[0] = '\0';
	for (i = 0; i < s->nsnap; i++) {
		struct grant *g = &s->snap[i];
		uint64_t len = g->length < WIN_MAX ? g->length : WIN_MAX;
		int st;

		s->v_windows++;
		if (g->access & MWIN_ACCESS_READ) {
			st = mwpeer_read(x->p, g->rkey, g->iova, x->buf, len);
			if (st != IBV_WC_SUCCESS) {
				peer_vfail(x, "peer %u: READ of window %u (rkey 0x%x): %s",
					   x->cur, g->window, g->rkey,
					   mwpeer_status_str(st));
				return;
			}
			for (k = 0; k < len; k++) {
				if (x->buf[k] == pat(g->window, g->iova + k))
					continue;
				peer_vfail(x, "peer %u: window %u byte %llu reads 0x%02x, the test wrote 0x%02x",
					   x->cur, g->window,
					   (unsigned long long)k, x->buf[k],
					   pat(g->window, g->iova + k));
				break;
			}
		}
		if (g->access & MWIN_ACCESS_WRITE) {
			for (k = 0; k < len; k++)
				x->buf[k] = ~pat(g->window, g->iova + k);
			st = mwpeer_write(x->p, g->rkey, g->iova, x->buf, len);
			if (st != IBV_WC_SUCCESS) {
				peer_vfail(x, "peer %u: WRITE of window %u (rkey 0x%x): %s",
					   x->cur, g->window, g->rkey,
					   mwpeer_status_str(st));
				return;
			}
		}
		if (g->access == MWIN_ACCESS_ATOMIC) {
			uint64_t word = (g->iova + 7) & ~7ULL, old = 0, want = 0;

			if (word + 8 > g->iova + g->length)
				continue;
			for (k = 0; k < 8; k++)
				want |= (uint64_t)pat(g->window, word + k) << (8 * k);
			st = mwpeer_fadd(x->p, g->rkey, word, 0, &old);
			if (st != IBV_WC_SUCCESS)
				peer_vfail(x, "peer %u: FADD in window %u (rkey 0x%x): %s",
					   x->cur, g->window, g->rkey,
					   mwpeer_status_str(st));
			else if (old != want)
				peer_vfail(x, "peer %u: FADD in window %u saw 0x%llx, the test wrote 0x%llx",
					   x->cur, g->window,
					   (unsigned long long)old,
					   (unsigned long long)want);
		}
	}
}

/*
 * The peer process of slot @i: runs until told CMD_STOP (or, with
 * exit_when_gone, until it cannot reconnect), then exits.
 */
void __attribute__((noreturn)) peer_main(struct shared *sh, int i,
					 unsigned int seed)
{
	struct mwpeer_opts o = {
		.timeout_ms = PEER_OP_MS,
		.buf_size = PEER_BUF,
	};
	static struct peer_ctx x;

	child_init();
	x.sh = sh;
	x.s = &sh->peer[i];
	x.seed = seed;
	x.dropped = LOAD(x.s->drops);
	STORE(x.s->dropped, x.dropped);
	x.p = mwpeer_create(&o);
	if (!x.p)
		_exit(2);
	for (;;) {
		unsigned int ep = LOAD(x.s->epoch);
		int cmd = LOAD(x.s->cmd);

		if (cmd == CMD_STOP)
			break;
		if (LOAD(x.s->drops) != x.dropped) {
			x.dropped = LOAD(x.s->drops);
			mwpeer_poll(x.p, 0);
			if (x.cur && !peer_conn_ok(&x)) {
				peer_lost(&x);
			} else if (x.cur) {
				peer_end(&x, 'S');
				mwpeer_disconnect(x.p);
			}
			STORE(x.s->dropped, x.dropped);
		}
		if (!peer_conn_ok(&x) && peer_ensure(&x)) {
			if (LOAD(x.s->exit_when_gone))
				break;
			usleep(50000);
			continue;
		}
		if (cmd == CMD_QUIESCE || cmd == CMD_VERIFY) {
			if (LOAD(x.s->ack) == ep) {
				mwpeer_poll(x.p, 20);
				peer_drain(&x);
				continue;
			}
			peer_quiesce(&x);
			peer_snapshot(&x);
			if (cmd == CMD_VERIFY && peer_conn_ok(&x))
				peer_verify(&x);
			STORE(x.s->ack, ep);
			continue;
		}
		peer_drain(&x);
		if (x.s->mode == PEER_IDLE)
			mwpeer_poll(x.p, 20);
		else
			peer_hammer(&x);
	}
	if (x.cur && !peer_conn_ok(&x))
		peer_lost(&x);
	peer_end(&x, 'E');
	mwpeer_close(x.p);
	_exit(0);
}
