// SPDX-License-Identifier: GPL-2.0
/*
 * Faults under load: the calling process killed (in the middle of calls
 * too), the RDMA device removed and added back, peers disconnected, and
 * the module unloaded and loaded again, while threads create, rebind,
 * invalidate and destroy windows (single calls and batches) and peers
 * hammer them with RDMA WRITE, READ and fetch-and-add.
 *
 * Processes. librdmacm keeps a device open for the life of the process
 * that used it, and rxe cannot be deleted while a process holds it, so the
 * test process itself never uses verbs:
 *
 *  - peers: NPEERS child processes with one mwpeer each. They WRITE, READ
 *    and fetch-and-add through whatever grants they hold, now and then hand
 *    one back with Send-with-Invalidate, and reconnect when their
 *    connection dies. Each records how every connection ended: closed by
 *    the module ('D'), closed by the module after an access failed ('Q'),
 *    dropped by the peer itself ('S', on the test's request), not closed
 *    by the module within 5 s after an access failed ('T') or timed out
 *    ('O'), or dropped by the module (the test saw it go) without the
 *    peer seeing a disconnect within 5 s ('R'). T, O and R fail the test
 *    (R is what happened when the module tore down a peer whose CM id was
 *    not established yet: no DREQ, a REJ after the peer's RTU, which
 *    mwpeer did not take for a disconnect until it was told to). A
 *    message that breaks the protocol (a revoke of an rkey that is not
 *    the current grant, a gap in the sequence, ...) fails it too;
 *  - the controller: a child process that opens /dev/mwin, makes a
 *    module-owned and an fd-owned region and runs NTHREADS threads of
 *    window calls: creates (module-owned and MWIN_CREATE_FD_OWNED),
 *    rebinds, invalidations, destroys, batches of them, regions made and
 *    force-destroyed with windows in them, second file descriptors closed
 *    with fd-owned objects in them, listings. A call that returns what it
 *    cannot return under this load fails the test: anything but 0,
 *    ENOENT, EBUSY, ENOTCONN and EIO, or ENOENT for a window that only
 *    the calling thread destroys, or a window or region still there after
 *    its region was force-destroyed or its file released.
 *
 * After every fault, the test lets things settle (bounded), then checks
 * that the module and the peers agree: no fd-owned object outlives its
 * process; no window is BROKEN, or bound to a peer that no peer process
 * holds; every bound window is a grant its peer holds with the same rkey,
 * range and rights, and every grant a peer holds is a bound window (else a
 * revoke never arrived); no peer is left that no process holds. Then it
 * writes a pattern into every bound window through mmap; each peer reads
 * its windows, checks the pattern and writes its inverse, which the test
 * finds in memory. At the end of each test the peers stop and the module's
 * counts of peers, windows, regions and region bytes must be back where
 * they were. The last test compares slab memory with the start and checks
 * that mwin is loaded and rxe0 is back and ACTIVE.
 *
 * Every wait is bounded: a call, a process or a command that does not
 * finish in time fails the test, and the kernel stacks of what is stuck are
 * printed. The seed and every injected fault, with when it was injected
 * and which calls were in flight, are printed as TAP comments.
 *
 * Environment:
 *  MWIN_FAULTS_SECONDS  seconds of load in each test (default 10, at most
 *                       120). With the default the file takes about 40 s
 *                       in the VM (3 min under the debug kernel), with 30
 *                       about 100 s; for long runs keep 4 times this plus a
 *                       minute under MWIN_TEST_TIMEOUT (guest-run.sh, 600 s
 *                       per binary).
 *  MWIN_FAULTS_SEED     seed of the random choices (default: from the time)
 *  MWIN_FAULTS_SLAB_KB  how many kB more slab objects in use than at the
 *                       start are tolerated at the end (default 2048; twice
 *                       that for /proc/meminfo's SUnreclaim)
 *  MWIN_KO              the module, for the reload (set by guest-run.sh)
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#include "mwin_test.h"

#define NPEERS		3
#define SMOKE		NPEERS		/* slot of the fresh peer */
#define NSLOTS_PEER	(NPEERS + 1)
#define NTHREADS	4
#define NWSLOTS		48
#define MAX_GRANTS	256
#define MAX_ENDS	16384
#define MAX_SELF_INV	256
#define MAX_MAPS	128
#define MAX_WINDOWS	4096
#define PEER_BUF	(64 * 1024)
#define PEER_OP_MS	5000
#define WIN_MAX		(16 * 1024)
#define MOD_REGION	(512 * 1024)
#define FD_REGION	(256 * 1024)
#define SCRATCH_REGION	(64 * 1024)
#define STUCK_MS	15000

#define LOAD(x)		__atomic_load_n(&(x), __ATOMIC_SEQ_CST)
#define STORE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_SEQ_CST)
#define INC(x)		__atomic_add_fetch(&(x), 1, __ATOMIC_SEQ_CST)

/* ------------------------------------------------------------ shared */

enum { PEER_HAMMER, PEER_IDLE };
enum { CMD_RUN, CMD_QUIESCE, CMD_VERIFY, CMD_STOP };

struct grant {
	uint32_t window;
	uint32_t rkey;
	uint64_t iova;
	uint64_t length;
	uint32_t access;
};

struct conn_end {
	uint32_t id;
	char how;
};

/* One peer process; the test writes the first block, the peer the rest. */
struct peer_slot {
	pid_t pid;
	int mode;
	int exit_when_gone;	/* exit once a reconnect fails */
	int cmd;
	unsigned int epoch;
	unsigned int drops;	/* drop the connection when this changes */

	unsigned int ack;	/* epoch of the last command carried out */
	unsigned int dropped;	/* drops carried out */
	uint32_t id;		/* peer id of the live connection, or 0 */
	uint32_t lost_id;	/* waiting to see the module close this one */
	int lost_gone;		/* the test saw the module drop lost_id */
	unsigned long ops, ok, failed, timeouts, self_inv;
	unsigned long grants_seen, revokes_seen;
	unsigned int connects, connect_fails;
	unsigned int proto_errors;
	unsigned int nends;
	struct conn_end ends[MAX_ENDS];
	char proto_first[160];

	/* what it held when it acknowledged the last quiesce or verify */
	int snap_connected;
	uint32_t snap_id;
	unsigned int snap_proto;
	unsigned int nsnap;
	struct grant snap[MAX_GRANTS];

	/* the last verify */
	unsigned int v_windows, v_fail;
	char v_msg[200];
};

enum {
	OP_NONE, OP_CREATE, OP_REBIND, OP_INVALIDATE, OP_DESTROY, OP_BATCH,
	OP_REGION, OP_FD, OP_QUERY, OP_DISCONNECT, OP_RACY, NOPS
};

static const char *const op_name[NOPS] = {
	"-", "create", "rebind", "invalidate", "destroy", "batch",
	"region", "fd-close", "query", "disconnect", "racy-invalidate",
};

struct ctl_thread {
	int op;			/* the call in flight, OP_NONE between calls */
	int64_t since_ms;	/* when it started */
	unsigned long calls[NOPS];
	unsigned long errors[NOPS];	/* allowed errors */
	unsigned long bad;
	char bad_msg[200];
};

struct shared {
	struct peer_slot peer[NSLOTS_PEER];
	int ctl_ready;
	int ctl_stop;
	int ctl_disconnects;	/* the controller may disconnect peers */
	int calm;		/* peers hand no grant back */
	uint32_t ctl_region[2];	/* module-owned, fd-owned */
	struct ctl_thread ct[NTHREADS];
};

static uint8_t pat(uint32_t window, uint64_t off)
{
	return (uint8_t)(window * 131 + off * 7 + 1);
}

/* Child processes: no inherited /dev/mwin file or mapping, die with us. */
static void child_init(void)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	syscall(SYS_close_range, 3, ~0U, 0);
}

/* ------------------------------------------------------------- peers */

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

static void __attribute__((noreturn)) peer_main(struct shared *sh, int i,
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

/* -------------------------------------------------------- controller */

struct wslot {
	int busy;
	uint32_t id;
	uint32_t region;
	uint64_t region_len;
	bool fd_owned;
};

struct ctl {
	struct shared *sh;
	int fd;
	int t;
	unsigned int seed;
	uint32_t region[2];
	uint64_t region_len[2];
};

static struct wslot wslots[NWSLOTS];

/* Count a call; an error it cannot return under this load is bad. */
__attribute__((format(printf, 5, 6)))
static void ctl_result(struct ctl *c, int op, int err, bool window_known,
		       const char *fmt, ...)
{
	struct ctl_thread *ct = &c->sh->ct[c->t];
	bool ok;
	va_list ap;
	int n;

	ct->calls[op]++;
	switch (-err) {
	case 0:
		return;
	case EBUSY:
	case ENOTCONN:
	case EIO:
		ok = true;
		break;
	case ENOENT:
		ok = !window_known;
		break;
	default:
		ok = false;
		break;
	}
	if (ok) {
		ct->errors[op]++;
		return;
	}
	if (ct->bad++)
		return;
	va_start(ap, fmt);
	n = vsnprintf(ct->bad_msg, sizeof(ct->bad_msg), fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < sizeof(ct->bad_msg))
		snprintf(ct->bad_msg + n, sizeof(ct->bad_msg) - n, ": %s",
			 err ? strerror(-err) : "succeeded");
}

static void ctl_enter(struct ctl *c, int op)
{
	STORE(c->sh->ct[c->t].since_ms, test_now_ms());
	STORE(c->sh->ct[c->t].op, op);
}

static void ctl_leave(struct ctl *c)
{
	STORE(c->sh->ct[c->t].op, OP_NONE);
}

static uint32_t ctl_peer(struct ctl *c)
{
	int i, k = rand_r(&c->seed);

	for (i = 0; i < NPEERS; i++) {
		uint32_t id = LOAD(c->sh->peer[(k + i) % NPEERS].id);

		if (id)
			return id;
	}
	return 0;
}

static uint32_t ctl_access(struct ctl *c)
{
	static const uint32_t a[] = {
		MWIN_ACCESS_READ | MWIN_ACCESS_WRITE, MWIN_ACCESS_ALL,
		MWIN_ACCESS_READ, MWIN_ACCESS_WRITE, MWIN_ACCESS_ATOMIC,
		MWIN_ACCESS_READ | MWIN_ACCESS_ATOMIC,
	};

	return a[rand_r(&c->seed) % ARRAY_SIZE(a)];
}

static void ctl_range(struct ctl *c, uint64_t rlen, uint64_t *off,
		      uint64_t *len)
{
	if (rand_r(&c->seed) % 3)
		*len = 1 + rand_r(&c->seed) % WIN_MAX;
	else
		*len = 4096 * (1 + rand_r(&c->seed) % (WIN_MAX / 4096));
	if (rand_r(&c->seed) % 2)
		*off = (rand_r(&c->seed) % ((rlen - *len) / 4096 + 1)) * 4096;
	else
		*off = rand_r(&c->seed) % (rlen - *len + 1);
}

static bool ctl_claim(struct wslot *w)
{
	int zero = 0;

	return __atomic_compare_exchange_n(&w->busy, &zero, 1, false,
					   __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

static void ctl_release(struct wslot *w)
{
	STORE(w->busy, 0);
}

/* Fill a create of @w into @b (a window in one of the two regions). */
static void ctl_new_window(struct ctl *c, struct wslot *w,
			   struct mwin_window_bind *b)
{
	int r = rand_r(&c->seed) % 3 == 0;	/* 1: the fd-owned region */
	uint32_t flags = 0;
	uint64_t off, len;

	w->region = c->region[r];
	w->region_len = c->region_len[r];
	w->fd_owned = r || rand_r(&c->seed) % 2;
	if (w->fd_owned) {
		flags |= MWIN_CREATE_FD_OWNED;
		if (rand_r(&c->seed) % 4 == 0)
			flags |= MWIN_WINDOW_OVERLAP;
	}
	ctl_range(c, w->region_len, &off, &len);
	*b = test_bind(w->region, ctl_peer(c), off, len, ctl_access(c), flags);
}

/* Fill a rebind of @w: another range, maybe another peer, new rights. */
static void ctl_rebind_args(struct ctl *c, struct wslot *w,
			    struct mwin_window_bind *b)
{
	uint64_t off, len;
	uint32_t flags = 0;

	if (w->fd_owned && rand_r(&c->seed) % 4 == 0)
		flags = MWIN_WINDOW_OVERLAP;
	ctl_range(c, w->region_len, &off, &len);
	*b = test_bind(0, rand_r(&c->seed) % 2 ? ctl_peer(c) : 0, off, len,
		       ctl_access(c), flags);
	b->id = w->id;
}

static void ctl_slot_op(struct ctl *c)
{
	struct wslot *w = &wslots[rand_r(&c->seed) % NWSLOTS];
	struct mwin_window_bind b;
	int roll, r;

	if (!ctl_claim(w))
		return;
	roll = rand_r(&c->seed) % 100;
	if (!w->id) {
		ctl_new_window(c, w, &b);
		ctl_enter(c, OP_CREATE);
		r = mwin_window_create(c->fd, &b);
		ctl_leave(c);
		ctl_result(c, OP_CREATE, r, false, "create in region %u",
			   w->region);
		if (!r)
			w->id = b.id;
	} else if (roll < 45) {
		ctl_rebind_args(c, w, &b);
		ctl_enter(c, OP_REBIND);
		r = mwin_window_rebind(c->fd, &b);
		ctl_leave(c);
		ctl_result(c, OP_REBIND, r, !b.peer, "rebind of window %u",
			   w->id);
	} else if (roll < 75) {
		ctl_enter(c, OP_INVALIDATE);
		r = mwin_window_invalidate(c->fd, w->id);
		ctl_leave(c);
		ctl_result(c, OP_INVALIDATE, r, true, "invalidate of window %u",
			   w->id);
	} else {
		ctl_enter(c, OP_DESTROY);
		r = mwin_window_destroy(c->fd, w->id);
		ctl_leave(c);
		ctl_result(c, OP_DESTROY, r, true, "destroy of window %u",
			   w->id);
		w->id = 0;
	}
	ctl_release(w);
}

static void ctl_batch(struct ctl *c)
{
	struct mwin_batch_op ops[8];
	struct wslot *ws[8];
	struct mwin_window_batch cmd = {
		.size = sizeof(cmd),
		.op_size = sizeof(ops[0]),
		.ops = (uintptr_t)ops,
	};
	unsigned int n = 0, i, want = 1 + rand_r(&c->seed) % 8, tries;
	int r;

	memset(ops, 0, sizeof(ops));
	for (tries = 0; n < want && tries < 16; tries++) {
		struct wslot *w = &wslots[rand_r(&c->seed) % NWSLOTS];
		struct mwin_batch_op *op = &ops[n];
		struct mwin_window_bind b;
		int roll;

		if (!ctl_claim(w))
			continue;
		ws[n++] = w;
		roll = rand_r(&c->seed) % 100;
		if (!w->id) {
			ctl_new_window(c, w, &b);
			op->opcode = MWIN_BATCH_CREATE;
			op->region = b.region;
		} else if (roll < 50) {
			ctl_rebind_args(c, w, &b);
			op->opcode = MWIN_BATCH_REBIND;
			op->id = w->id;
		} else {
			op->opcode = roll < 80 ? MWIN_BATCH_INVALIDATE :
						 MWIN_BATCH_DESTROY;
			op->id = w->id;
			continue;
		}
		op->flags = b.flags;
		op->peer = b.peer;
		op->access = b.access;
		op->offset = b.offset;
		op->length = b.length;
	}
	if (!n)
		return;
	cmd.count = n;
	ctl_enter(c, OP_BATCH);
	r = mwin_ioctl(c->fd, MWIN_WINDOW_BATCH, &cmd);
	ctl_leave(c);
	ctl_result(c, OP_BATCH, r, true, "batch of %u", n);
	for (i = 0; i < n; i++) {
		struct mwin_batch_op *op = &ops[i];

		if (!r) {
			switch (op->opcode) {
			case MWIN_BATCH_CREATE:
				ctl_result(c, OP_CREATE, op->result, false,
					   "batched create");
				if (!op->result)
					ws[i]->id = op->id;
				break;
			case MWIN_BATCH_REBIND:
				ctl_result(c, OP_REBIND, op->result, !op->peer,
					   "batched rebind of window %u",
					   op->id);
				break;
			case MWIN_BATCH_INVALIDATE:
				ctl_result(c, OP_INVALIDATE, op->result, true,
					   "batched invalidate of window %u",
					   op->id);
				break;
			default:
				ctl_result(c, OP_DESTROY, op->result, true,
					   "batched destroy of window %u",
					   op->id);
				if (!op->result)
					ws[i]->id = 0;
				break;
			}
		}
		ctl_release(ws[i]);
	}
}

/*
 * A region with a few windows, then gone: force-destroyed, or (OP_FD) made
 * fd-owned on a second file that is closed while the region is mapped and
 * its windows in use. Afterwards neither it nor its windows may be found.
 */
static void ctl_region(struct ctl *c, bool own_fd)
{
	int fd = own_fd ? mwin_open() : c->fd, op = own_fd ? OP_FD : OP_REGION;
	uint32_t rid, flags, wid[4];
	unsigned int n = 1 + rand_r(&c->seed) % 4, i, made = 0;
	struct mwin_region_info ri;
	uint64_t moff;
	void *mem;
	int r;

	if (fd < 0) {
		ctl_result(c, op, fd, false, "open");
		return;
	}
	flags = own_fd || rand_r(&c->seed) % 2 ? MWIN_CREATE_FD_OWNED : 0;
	ctl_enter(c, op);
	r = mwin_region_create(fd, SCRATCH_REGION, flags, &rid, &moff);
	ctl_leave(c);
	ctl_result(c, op, r, false, "region create");
	if (r)
		goto out;
	mem = mmap(NULL, SCRATCH_REGION, PROT_READ | PROT_WRITE, MAP_SHARED,
		   fd, moff);
	if (mem != MAP_FAILED)
		memset(mem, 0x5a, SCRATCH_REGION);
	for (i = 0; i < n; i++) {
		struct mwin_window_bind b;
		uint64_t len = 1 + rand_r(&c->seed) % 8192;

		b = test_bind(rid, ctl_peer(c), i * (SCRATCH_REGION / 4), len,
			      ctl_access(c),
			      rand_r(&c->seed) % 2 ? MWIN_CREATE_FD_OWNED : 0);
		ctl_enter(c, OP_CREATE);
		r = mwin_window_create(fd, &b);
		ctl_leave(c);
		ctl_result(c, OP_CREATE, r, false, "create in scratch region %u",
			   rid);
		if (!r)
			wid[made++] = b.id;
	}
	usleep(rand_r(&c->seed) % 3000);	/* let the peers at them */
	if (own_fd) {
		ctl_enter(c, op);
		close(fd);
		if (mem != MAP_FAILED)
			munmap(mem, SCRATCH_REGION);
		ctl_leave(c);
		fd = -1;
	} else {
		ctl_enter(c, op);
		r = mwin_region_destroy(c->fd, rid, MWIN_REGION_DESTROY_FORCE);
		ctl_leave(c);
		ctl_result(c, op, r, true, "force destroy of region %u", rid);
		if (mem != MAP_FAILED)
			munmap(mem, SCRATCH_REGION);
	}
	r = mwin_region_get(c->fd, rid, 0, &ri);
	if (r != -ENOENT)
		ctl_result(c, op, r ? r : -EEXIST, true,
			   "region %u still there after it was %s", rid,
			   own_fd ? "released with its file" : "destroyed");
	for (i = 0; i < made; i++) {
		r = test_window_state(c->fd, wid[i]);
		if (r)
			ctl_result(c, op, -EEXIST, true,
				   "window %u (%s) of region %u still there after it was %s",
				   wid[i], mwin_window_state_name(r), rid,
				   own_fd ? "released with its file" : "destroyed");
	}
out:
	if (own_fd && fd >= 0)
		close(fd);
}

static void ctl_query(struct ctl *c)
{
	struct mwin_window_info wi = { 0 };
	struct mwin_peer_info pi = { 0 };
	struct mwin_dev_info devs[4];
	struct mwin_info info;
	int r, k;

	ctl_enter(c, OP_QUERY);
	for (k = 0; k < 16; k++) {
		r = mwin_window_get(c->fd, wi.id, MWIN_GET_NEXT, &wi);
		if (r)
			break;
	}
	ctl_result(c, OP_QUERY, r == -ENOENT ? 0 : r, true, "window walk");
	for (k = 0; k < 8; k++) {
		r = mwin_peer_get(c->fd, pi.id, MWIN_GET_NEXT, &pi);
		if (r)
			break;
	}
	ctl_result(c, OP_QUERY, r == -ENOENT ? 0 : r, true, "peer walk");
	r = mwin_info(c->fd, &info, devs, 4);
	ctl_result(c, OP_QUERY, r, true, "info");
	ctl_leave(c);
}

static void ctl_disconnect(struct ctl *c)
{
	struct mwin_peer_info pi;
	uint32_t id = ctl_peer(c);
	int r;

	if (!id)
		return;
	ctl_enter(c, OP_DISCONNECT);
	r = mwin_peer_disconnect(c->fd, id);
	ctl_leave(c);
	ctl_result(c, OP_DISCONNECT, r, false, "disconnect of peer %u", id);
	if (!r && mwin_peer_get(c->fd, id, 0, &pi) != -ENOENT)
		ctl_result(c, OP_DISCONNECT, -EEXIST, true,
			   "peer %u still there after PEER_DISCONNECT returned",
			   id);
}

/* Invalidate a window another thread may be working on. */
static void ctl_racy(struct ctl *c)
{
	uint32_t id = LOAD(wslots[rand_r(&c->seed) % NWSLOTS].id);
	int r;

	if (!id)
		return;
	ctl_enter(c, OP_RACY);
	r = mwin_window_invalidate(c->fd, id);
	ctl_leave(c);
	ctl_result(c, OP_RACY, r, false, "racy invalidate of window %u", id);
}

static void *ctl_thread(void *arg)
{
	struct ctl *c = arg;

	while (!LOAD(c->sh->ctl_stop)) {
		int roll = rand_r(&c->seed) % 100;

		if (roll < 4)
			ctl_region(c, false);
		else if (roll < 7)
			ctl_region(c, true);
		else if (roll < 20)
			ctl_batch(c);
		else if (roll < 24)
			ctl_query(c);
		else if (roll < 26 && LOAD(c->sh->ctl_disconnects))
			ctl_disconnect(c);
		else if (roll < 32)
			ctl_racy(c);
		else
			ctl_slot_op(c);
		if (rand_r(&c->seed) % 3 == 0)
			usleep(rand_r(&c->seed) % 2000);
	}
	return NULL;
}

static void __attribute__((noreturn)) ctl_main(struct shared *sh,
					       unsigned int seed)
{
	static struct ctl c[NTHREADS];
	pthread_t t[NTHREADS];
	uint32_t region[2];
	uint64_t moff[2];
	void *mem[2];
	int fd, i;

	child_init();
	fd = mwin_open();
	if (fd < 0)
		_exit(2);
	if (mwin_region_create(fd, MOD_REGION, 0, &region[0], &moff[0]) ||
	    mwin_region_create(fd, FD_REGION, MWIN_CREATE_FD_OWNED, &region[1],
			       &moff[1]))
		_exit(3);
	/* mapped, and touched, while it is killed */
	mem[0] = mmap(NULL, MOD_REGION, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		      moff[0]);
	mem[1] = mmap(NULL, FD_REGION, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		      moff[1]);
	if (mem[0] == MAP_FAILED || mem[1] == MAP_FAILED)
		_exit(4);
	memset(mem[1], 0xfd, FD_REGION);
	STORE(sh->ctl_region[0], region[0]);
	STORE(sh->ctl_region[1], region[1]);
	memset(sh->ct, 0, sizeof(sh->ct));
	for (i = 0; i < NTHREADS; i++) {
		c[i].sh = sh;
		c[i].fd = fd;
		c[i].t = i;
		c[i].seed = seed * 31 + i;
		c[i].region[0] = region[0];
		c[i].region[1] = region[1];
		c[i].region_len[0] = MOD_REGION;
		c[i].region_len[1] = FD_REGION;
		if (pthread_create(&t[i], NULL, ctl_thread, &c[i]))
			_exit(5);
	}
	STORE(sh->ctl_ready, 1);
	for (i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	_exit(0);
}

/* -------------------------------------------------------- test side */

struct rmap {
	uint32_t id;
	uint8_t *mem;
	size_t len;
};

FIXTURE(faults)
{
	int fd;
	struct shared *sh;
	struct mwin_info info0;
	uint32_t base_window, base_region;
	pid_t ctl;
	unsigned int seed;
	double secs;
	int64_t t0;
	struct rmap maps[MAX_MAPS];
	int nmaps;
	struct mwin_window_info *wins;
};

static long meminfo_kb(const char *key)
{
	char line[256];
	size_t n = strlen(key);
	long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ':') {
			v = atol(line + n + 1);
			break;
		}
	fclose(f);
	return v;
}

/* kB of slab objects in use: active objects times their size, all caches. */
static long slab_used_kb(void)
{
	char line[512], name[128];
	long objs, total, size;
	long long sum = 0;
	FILE *f = fopen("/proc/slabinfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%127s %ld %ld %ld", name, &objs, &total,
			   &size) == 4)
			sum += (long long)objs * size;
	fclose(f);
	return sum / 1024;
}

/* Active objects of slab caches whose name starts with "mwin". */
static long mwin_slab_objs(void)
{
	char line[512], name[128];
	long n = 0, objs;
	FILE *f = fopen("/proc/slabinfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%127s %ld", name, &objs) == 2 &&
		    !strncmp(name, "mwin", 4))
			n += objs;
	fclose(f);
	return n;
}

static long slab0_kb, sunreclaim0_kb, used0_kb, mwin_objs0;
static struct mwin_info start_info;
static int start_info_ok;

static void drop_slab_caches(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);

	sync();
	if (fd >= 0) {
		ssize_t n = write(fd, "3\n", 2);

		(void)n;	/* best effort */
		close(fd);
	}
}

static void __attribute__((constructor)) faults_start(void)
{
	int fd;

	drop_slab_caches();
	slab0_kb = meminfo_kb("Slab");
	sunreclaim0_kb = meminfo_kb("SUnreclaim");
	used0_kb = slab_used_kb();
	mwin_objs0 = mwin_slab_objs();
	fd = mwin_open();
	if (fd >= 0) {
		start_info_ok = !mwin_info(fd, &start_info, NULL, 0);
		close(fd);
	}
}

static double t_rel(FIXTURE_DATA(faults) *self)
{
	return (test_now_ms() - self->t0) / 1000.0;
}

static bool exists(const char *path)
{
	return !access(path, F_OK);
}

static bool rxe0_active(void)
{
	char buf[64] = "";
	int fd = open("/sys/class/infiniband/rxe0/ports/1/state", O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 && strstr(buf, "ACTIVE");
}

static void watch_lost(void);

/* Wait for @pid at most @ms; returns 0 and its status, or -ETIMEDOUT. */
static int wait_pid(pid_t pid, int ms, int *status)
{
	int64_t end = test_now_ms() + ms;

	for (;;) {
		pid_t r = waitpid(pid, status, WNOHANG);

		watch_lost();
		if (r == pid)
			return 0;
		if (r < 0)
			return -errno;
		if (test_now_ms() > end)
			return -ETIMEDOUT;
		usleep(5000);
	}
}

/* The kernel stacks of a process that is stuck, into the log. */
static void dump_stacks(struct __test_metadata *_metadata, pid_t pid,
			const char *who)
{
	char path[64], line[256];
	struct dirent *d;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		FILE *f;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/stack", pid,
			 d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		TH_LOG("%s (pid %d, task %s) is stuck in:", who, pid,
		       d->d_name);
		while (fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\n")] = '\0';
			TH_LOG("    %s", line);
		}
		fclose(f);
	}
	closedir(dir);
}

/* Run a command (no shell), bounded; returns its exit status or -errno. */
static int run_cmd(struct __test_metadata *_metadata, int ms, char *const argv[])
{
	int status, r;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (!pid) {
		child_init();
		execvp(argv[0], argv);
		_exit(127);
	}
	r = wait_pid(pid, ms, &status);
	if (r) {
		TH_LOG("'%s %s ...' did not finish in %d ms", argv[0], argv[1],
		       ms);
		dump_stacks(_metadata, pid, argv[0]);
		kill(pid, SIGKILL);
		return r;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : -EINTR;
}

static int rdma_link_delete(struct __test_metadata *_metadata, int ms)
{
	char *const argv[] = { "rdma", "link", "delete", "rxe0", NULL };

	return run_cmd(_metadata, ms, argv);
}

static int rdma_link_add(struct __test_metadata *_metadata, int ms)
{
	char *const argv[] = {
		"rdma", "link", "add", "rxe0", "type", "rxe", "netdev", "eth0",
		NULL
	};

	return run_cmd(_metadata, ms, argv);
}

/* rmmod and insmod by their system calls, in a child, bounded. */
static int module_call(struct __test_metadata *_metadata, bool load, int ms)
{
	const char *ko = getenv("MWIN_KO");
	int status, r;
	pid_t pid;

	if (load && !ko)
		return -ENOENT;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		int fd;

		child_init();
		if (!load)
			_exit(syscall(SYS_delete_module, "mwin", O_NONBLOCK) ?
			      errno : 0);
		fd = open(ko, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			_exit(errno);
		_exit(syscall(SYS_finit_module, fd,
			      getenv("MWIN_MODULE_PARAMS") ?: "", 0) ?
		      errno : 0);
	}
	r = wait_pid(pid, ms, &status);
	if (r) {
		TH_LOG("%s did not return in %d ms", load ? "finit_module" :
		       "delete_module", ms);
		dump_stacks(_metadata, pid, load ? "insmod" : "rmmod");
		return r;
	}
	return WIFEXITED(status) ? -WEXITSTATUS(status) : -EINTR;
}

/* The module loaded, rxe0 present: what the next binaries need. */
static void restore_world(struct __test_metadata *_metadata)
{
	int i;

	if (!exists("/sys/module/mwin")) {
		TH_LOG("restoring: loading mwin again");
		module_call(_metadata, true, 30000);
	}
	if (!exists("/sys/class/infiniband/rxe0")) {
		TH_LOG("restoring: adding rxe0 again");
		rdma_link_add(_metadata, 30000);
	}
	for (i = 0; i < 100 && !rxe0_active(); i++)
		usleep(50000);
}

/* ----------------------------------------------------- peers, parent */

/*
 * Start the peer process of slot @i. A new process in a used slot (@fresh
 * false) adds to its counters and history.
 */
static pid_t start_peer(FIXTURE_DATA(faults) *self, int i, int mode,
			bool fresh)
{
	struct peer_slot *s = &self->sh->peer[i];
	pid_t pid;

	if (fresh)
		memset(s, 0, sizeof(*s));
	s->mode = mode;
	s->exit_when_gone = 0;
	s->cmd = CMD_RUN;
	s->ack = s->epoch;
	s->id = 0;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (!pid)
		peer_main(self->sh, i, self->seed * 7 + i + 1);
	s->pid = pid;
	return pid;
}

static FIXTURE_DATA(faults) *watched;

/*
 * A peer process waits up to 5 s for the module to close a connection on
 * which an access failed. Tell it when the module has dropped that peer:
 * then a connection that still looks open to it was dropped without a
 * disconnect it could see ('R').
 */
static void watch_lost(void)
{
	struct mwin_peer_info pi;
	int i;

	if (!watched || watched->fd < 0)
		return;
	for (i = 0; i < NSLOTS_PEER; i++) {
		struct peer_slot *s = &watched->sh->peer[i];
		uint32_t id = LOAD(s->lost_id);

		if (id && !LOAD(s->lost_gone) &&
		    mwin_peer_get(watched->fd, id, 0, &pi) == -ENOENT &&
		    LOAD(s->lost_id) == id)
			STORE(s->lost_gone, 1);
	}
}

/* Wait until peers @from..@to-1 are connected. */
static int wait_peers_connected(FIXTURE_DATA(faults) *self, int from, int to,
				int ms)
{
	int64_t end = test_now_ms() + ms;
	int i;

	for (;;) {
		for (i = from; i < to; i++)
			if (!LOAD(self->sh->peer[i].id))
				break;
		if (i == to)
			return 0;
		if (test_now_ms() > end)
			return -ETIMEDOUT;
		watch_lost();
		usleep(10000);
	}
}

static void peers_cmd(FIXTURE_DATA(faults) *self, int from, int to, int cmd)
{
	int i;

	for (i = from; i < to; i++) {
		struct peer_slot *s = &self->sh->peer[i];

		if (!s->pid)
			continue;
		STORE(s->cmd, cmd);
		INC(s->epoch);
	}
}

/* Wait for the peers to carry out their last command. */
static int peers_wait_ack(struct __test_metadata *_metadata,
			  FIXTURE_DATA(faults) *self, int from, int to, int ms)
{
	int64_t end = test_now_ms() + ms;
	int i;

	for (i = from; i < to; i++) {
		struct peer_slot *s = &self->sh->peer[i];

		if (!s->pid)
			continue;
		while (LOAD(s->ack) != LOAD(s->epoch)) {
			if (test_now_ms() > end) {
				TH_LOG("peer process %d (slot %d) did not answer in %d ms",
				       s->pid, i, ms);
				dump_stacks(_metadata, s->pid, "peer process");
				return -ETIMEDOUT;
			}
			watch_lost();
			usleep(5000);
		}
	}
	return 0;
}

/*
 * How the connections of peers @from..@to-1 ended. T, O and R (dropped by
 * the module without a disconnect the peer saw) are failures.
 */
static void check_ends(struct __test_metadata *_metadata,
		       FIXTURE_DATA(faults) *self, int from, int to)
{
	int i;

	for (i = from; i < to; i++) {
		struct peer_slot *s = &self->sh->peer[i];
		unsigned int k, n = LOAD(s->nends), cnt[128] = { 0 };
		unsigned int bad = 0, dropped = 0;

		for (k = 0; k < n && k < MAX_ENDS; k++) {
			char how = s->ends[k].how;

			cnt[(unsigned char)how & 127]++;
			if (how == 'R' && !dropped++)
				TH_LOG("peer %u (slot %d): the module dropped the peer, but the peer saw no disconnect in 5 s",
				       s->ends[k].id, i);
			if (how != 'T' && how != 'O')
				continue;
			if (!bad++)
				TH_LOG("peer %u (slot %d): an access %s, and the module did not drop the peer within 5 s",
				       s->ends[k].id, i,
				       how == 'T' ? "failed" : "timed out");
		}
		TH_LOG("peer slot %d: %u connections (%u failed to connect), %lu accesses (%lu OK, %lu failed, %lu timed out), %lu self-invalidations, %lu grants and %lu revokes; ends: %u closed by the module, %u after a failed access, %u dropped by the peer, %u dropped unseen, %u at exit",
		       i, s->connects, s->connect_fails, s->ops, s->ok,
		       s->failed, s->timeouts, s->self_inv, s->grants_seen,
		       s->revokes_seen, cnt['D'], cnt['Q'], cnt['S'],
		       cnt['R'], cnt['E']);
		if (n >= MAX_ENDS)
			TH_LOG("peer slot %d: only the first %d connections were recorded",
			       i, MAX_ENDS);
		EXPECT_EQ(0, bad);
		EXPECT_EQ(0, dropped);
		if (s->proto_errors)
			TH_LOG("peer slot %d: %u messages broke the protocol, first: %s",
			       i, s->proto_errors, s->proto_first);
		EXPECT_EQ(0, s->proto_errors);
	}
}

/* Did a peer process see connection @id end with @how (any if 0)? */
static bool peer_saw_end(FIXTURE_DATA(faults) *self, uint32_t id,
			 const char *how)
{
	int i;
	unsigned int k;

	for (i = 0; i < NSLOTS_PEER; i++) {
		struct peer_slot *s = &self->sh->peer[i];
		unsigned int n = LOAD(s->nends);

		for (k = 0; k < n && k < MAX_ENDS; k++)
			if (s->ends[k].id == id)
				return strchr(how, s->ends[k].how);
		if (n >= MAX_ENDS)
			return true;	/* not recorded: cannot tell */
	}
	return false;
}

static void stop_peers(struct __test_metadata *_metadata,
		       FIXTURE_DATA(faults) *self, int from, int to)
{
	int i, status;

	peers_cmd(self, from, to, CMD_STOP);
	for (i = from; i < to; i++) {
		struct peer_slot *s = &self->sh->peer[i];

		if (!s->pid)
			continue;
		if (wait_pid(s->pid, 15000, &status)) {
			TH_LOG("peer process %d (slot %d) did not stop in 15 s",
			       s->pid, i);
			dump_stacks(_metadata, s->pid, "peer process");
			kill(s->pid, SIGKILL);
			wait_pid(s->pid, 5000, &status);
			_metadata->passed = 0;
		} else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			TH_LOG("peer process %d (slot %d) ended with status 0x%x",
			       s->pid, i, status);
			_metadata->passed = 0;
		}
		s->pid = 0;
	}
}

/* -------------------------------------------------- controller, parent */

static void log_inflight(struct __test_metadata *_metadata,
			 FIXTURE_DATA(faults) *self, const char *what)
{
	char buf[256];
	int64_t now = test_now_ms();
	size_t n = 0;
	int t;

	if (!self->ctl) {
		TH_LOG("%.2fs: %s", t_rel(self), what);
		return;
	}
	for (t = 0; t < NTHREADS; t++) {
		int op = LOAD(self->sh->ct[t].op);

		if (op == OP_NONE)
			n += snprintf(buf + n, sizeof(buf) - n, " t%d:-", t);
		else
			n += snprintf(buf + n, sizeof(buf) - n, " t%d:%s(%lldms)",
				      t, op_name[op],
				      (long long)(now - LOAD(self->sh->ct[t].since_ms)));
		if (n >= sizeof(buf))
			break;
	}
	TH_LOG("%.2fs: %s; calls in flight:%s", t_rel(self), what, buf);
}

static int start_ctl(struct __test_metadata *_metadata,
		     FIXTURE_DATA(faults) *self, bool disconnects)
{
	int64_t end = test_now_ms() + 10000;
	pid_t pid;

	STORE(self->sh->ctl_ready, 0);
	STORE(self->sh->ctl_stop, 0);
	STORE(self->sh->ctl_disconnects, disconnects);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (!pid)
		ctl_main(self->sh, self->seed ^ (unsigned int)test_now_ms());
	self->ctl = pid;
	while (!LOAD(self->sh->ctl_ready)) {
		int status;

		if (waitpid(pid, &status, WNOHANG) == pid) {
			TH_LOG("controller exited early: status 0x%x", status);
			self->ctl = 0;
			return -EIO;
		}
		if (test_now_ms() > end) {
			TH_LOG("controller not ready in 10 s");
			return -ETIMEDOUT;
		}
		usleep(2000);
	}
	return 0;
}

/* A call in flight for longer than STUCK_MS is a hang. */
static int ctl_stuck(struct __test_metadata *_metadata,
		     FIXTURE_DATA(faults) *self)
{
	int t;

	for (t = 0; t < NTHREADS; t++) {
		int op = LOAD(self->sh->ct[t].op);

		if (op != OP_NONE &&
		    test_now_ms() - LOAD(self->sh->ct[t].since_ms) > STUCK_MS) {
			TH_LOG("controller thread %d: %s has not returned in %d ms",
			       t, op_name[op], STUCK_MS);
			dump_stacks(_metadata, self->ctl, "controller");
			return 1;
		}
	}
	return 0;
}

/* Let the load run @ms, watching for calls that do not return. */
static void run_load(struct __test_metadata *_metadata,
		     FIXTURE_DATA(faults) *self, int ms)
{
	int64_t end = test_now_ms() + ms;

	while (test_now_ms() < end) {
		if (self->ctl && ctl_stuck(_metadata, self)) {
			_metadata->passed = 0;
			return;
		}
		watch_lost();
		usleep(ms < 20 ? 1000 : 10000);
	}
}

/* Reap the controller: killed, or asked to stop. Returns its status. */
static int reap_ctl(struct __test_metadata *_metadata,
		    FIXTURE_DATA(faults) *self, bool kill_it)
{
	int status = -1;

	if (!self->ctl)
		return -1;
	if (kill_it)
		kill(self->ctl, SIGKILL);
	else
		STORE(self->sh->ctl_stop, 1);
	if (wait_pid(self->ctl, 25000, &status)) {
		TH_LOG("controller (pid %d) did not %s in 25 s", self->ctl,
		       kill_it ? "die of SIGKILL" : "stop");
		dump_stacks(_metadata, self->ctl, "controller");
		kill(self->ctl, SIGKILL);
		wait_pid(self->ctl, 25000, &status);
		_metadata->passed = 0;
	}
	self->ctl = 0;
	return status;
}

static void ctl_report(struct __test_metadata *_metadata,
		       FIXTURE_DATA(faults) *self)
{
	unsigned long calls[NOPS] = { 0 }, errors[NOPS] = { 0 }, bad = 0;
	char buf[512];
	size_t n = 0;
	int t, op;

	for (t = 0; t < NTHREADS; t++) {
		struct ctl_thread *ct = &self->sh->ct[t];

		for (op = 1; op < NOPS; op++) {
			calls[op] += ct->calls[op];
			errors[op] += ct->errors[op];
		}
		if (ct->bad)
			TH_LOG("controller thread %d: %lu calls returned what they must not, first: %s",
			       t, ct->bad, ct->bad_msg);
		bad += ct->bad;
	}
	for (op = 1; op < NOPS && n < sizeof(buf); op++)
		n += snprintf(buf + n, sizeof(buf) - n, " %s %lu/%lu",
			      op_name[op], errors[op], calls[op]);
	TH_LOG("controller calls (errors/calls):%s", buf);
	EXPECT_EQ(0, bad);
}

/* ------------------------------------------------- checking the state */

static void unmap_all(FIXTURE_DATA(faults) *self)
{
	int i;

	for (i = 0; i < self->nmaps; i++)
		munmap(self->maps[i].mem, self->maps[i].len);
	self->nmaps = 0;
}

static uint8_t *region_mem(FIXTURE_DATA(faults) *self, uint32_t id,
			   size_t *len)
{
	struct mwin_region_info ri;
	struct rmap *m;
	void *mem;
	int i;

	for (i = 0; i < self->nmaps; i++)
		if (self->maps[i].id == id) {
			*len = self->maps[i].len;
			return self->maps[i].mem;
		}
	if (self->nmaps == MAX_MAPS || mwin_region_get(self->fd, id, 0, &ri))
		return NULL;
	mem = mmap(NULL, ri.length, PROT_READ | PROT_WRITE, MAP_SHARED,
		   self->fd, ri.mmap_offset);
	if (mem == MAP_FAILED)
		return NULL;
	madvise(mem, ri.length, MADV_DONTFORK);
	m = &self->maps[self->nmaps++];
	m->id = id;
	m->mem = mem;
	m->len = ri.length;
	*len = ri.length;
	return mem;
}

static int list_windows(FIXTURE_DATA(faults) *self)
{
	struct mwin_window_info wi;
	int n = 0;

	wi.id = self->base_window;
	while (n < MAX_WINDOWS &&
	       !mwin_window_get(self->fd, wi.id, MWIN_GET_NEXT, &wi))
		self->wins[n++] = wi;
	return n;
}

/* The peer slot whose live connection is peer @id, or NULL. */
static struct peer_slot *slot_of(FIXTURE_DATA(faults) *self, uint32_t id)
{
	int i;

	for (i = 0; i < NSLOTS_PEER; i++)
		if (self->sh->peer[i].pid && self->sh->peer[i].snap_connected &&
		    self->sh->peer[i].snap_id == id)
			return &self->sh->peer[i];
	return NULL;
}

static const struct grant *slot_grant(const struct peer_slot *s, uint32_t w)
{
	unsigned int i;

	for (i = 0; i < s->nsnap; i++)
		if (s->snap[i].window == w)
			return &s->snap[i];
	return NULL;
}

__attribute__((format(printf, 3, 4)))
static void problem(char *buf, size_t size, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	if (n + 2 >= size)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + n, size - n, fmt, ap);
	va_end(ap);
	n = strlen(buf);
	if (n + 1 < size)
		strcat(buf, "\n");
}

/*
 * Compare the module's objects with what the peers hold; returns the
 * number of disagreements, described in @out.
 */
static int compare_state(FIXTURE_DATA(faults) *self, char *out, size_t size)
{
	struct mwin_region_info ri;
	struct mwin_peer_info pi;
	int n = 0, nw, i, k;

	out[0] = '\0';
	/* peers */
	for (pi.id = 0; !mwin_peer_get(self->fd, pi.id, MWIN_GET_NEXT, &pi);) {
		if (pi.state != MWIN_PEER_CONNECTED) {
			problem(out, size, "peer %u is %s", pi.id,
				mwin_peer_state_name(pi.state));
			n++;
		} else if (!slot_of(self, pi.id)) {
			problem(out, size, "peer %u (%u windows) is connected, but no peer process holds it",
				pi.id, pi.nr_windows);
			n++;
		}
	}
	for (i = 0; i < NSLOTS_PEER; i++) {
		struct peer_slot *s = &self->sh->peer[i];

		if (!s->pid)
			continue;
		if (s->snap_proto) {
			problem(out, size, "peer slot %d: %u bad messages: %s",
				i, s->snap_proto, s->proto_first);
			n++;
		}
		if (!s->snap_connected)
			continue;
		if (mwin_peer_get(self->fd, s->snap_id, 0, &pi) ||
		    pi.state != MWIN_PEER_CONNECTED) {
			problem(out, size, "peer %u (slot %d) is connected, but the module does not list it as connected",
				s->snap_id, i);
			n++;
		}
	}
	/* regions */
	for (ri.id = self->base_region;
	     !mwin_region_get(self->fd, ri.id, MWIN_GET_NEXT, &ri);) {
		if (ri.rflags & MWIN_CREATE_FD_OWNED) {
			problem(out, size, "fd-owned region %u outlived its process",
				ri.id);
			n++;
		}
	}
	/* windows */
	nw = list_windows(self);
	for (k = 0; k < nw; k++) {
		struct mwin_window_info *w = &self->wins[k];
		const struct grant *g;
		struct peer_slot *s;

		if (w->wflags & MWIN_CREATE_FD_OWNED) {
			problem(out, size, "fd-owned window %u (%s) outlived its process",
				w->id, mwin_window_state_name(w->state));
			n++;
		}
		switch (w->state) {
		case MWIN_WINDOW_BOUND:
			s = slot_of(self, w->peer);
			if (!s) {
				problem(out, size, "window %u is bound to peer %u, which no peer process holds",
					w->id, w->peer);
				n++;
				break;
			}
			g = slot_grant(s, w->id);
			if (!g || g->rkey != w->rkey || g->iova != w->iova ||
			    g->length != w->length || g->access != w->access) {
				problem(out, size, "window %u is bound to peer %u with rkey 0x%x [%llu, +%llu) access %u; the peer holds %s0x%x [%llu, +%llu) access %u",
					w->id, w->peer, w->rkey,
					(unsigned long long)w->iova,
					(unsigned long long)w->length, w->access,
					g ? "" : "no grant ", g ? g->rkey : 0,
					(unsigned long long)(g ? g->iova : 0),
					(unsigned long long)(g ? g->length : 0),
					g ? g->access : 0);
				n++;
			}
			break;
		case MWIN_WINDOW_UNBOUND:
			if (w->peer) {
				problem(out, size, "window %u is unbound but names peer %u",
					w->id, w->peer);
				n++;
			}
			break;
		case MWIN_WINDOW_INVALIDATED:
			break;
		default:
			problem(out, size, "window %u is %s (peer %u)", w->id,
				mwin_window_state_name(w->state), w->peer);
			n++;
			break;
		}
	}
	/* every grant a peer holds is a bound window of that peer */
	for (i = 0; i < NSLOTS_PEER; i++) {
		struct peer_slot *s = &self->sh->peer[i];
		unsigned int j;

		if (!s->pid || !s->snap_connected)
			continue;
		for (j = 0; j < s->nsnap; j++) {
			const struct grant *g = &s->snap[j];

			for (k = 0; k < nw; k++)
				if (self->wins[k].id == g->window)
					break;
			if (k < nw && self->wins[k].state == MWIN_WINDOW_BOUND &&
			    self->wins[k].peer == s->snap_id &&
			    self->wins[k].rkey == g->rkey)
				continue;
			problem(out, size, "peer %u holds rkey 0x%x of window %u, which is %s: its revoke never arrived",
				s->snap_id, g->rkey, g->window,
				k < nw ? mwin_window_state_name(self->wins[k].state) :
				"gone");
			n++;
		}
	}
	return n;
}

/*
 * Pattern into every bound window, the peers read it and write its
 * inverse, the memory must show it.
 */
static void verify_data(struct __test_metadata *_metadata,
			FIXTURE_DATA(faults) *self, int from, int to)
{
	unsigned int windows = 0, vw = 0, bad = 0;
	int nw = list_windows(self), k, i;
	uint64_t j;

	for (k = 0; k < nw; k++) {
		struct mwin_window_info *w = &self->wins[k];
		uint8_t *mem;
		size_t len;

		if (w->state != MWIN_WINDOW_BOUND)
			continue;
		mem = region_mem(self, w->region, &len);
		ASSERT_NE(NULL, mem);
		ASSERT_GE(len, w->offset + w->length);
		for (j = 0; j < w->length; j++)
			mem[w->offset + j] = pat(w->id, w->offset + j);
		windows++;
	}
	peers_cmd(self, from, to, CMD_VERIFY);
	ASSERT_EQ(0, peers_wait_ack(_metadata, self, from, to, 30000));
	for (i = from; i < to; i++) {
		struct peer_slot *s = &self->sh->peer[i];

		if (!s->pid)
			continue;
		vw += s->v_windows;
		if (s->v_fail)
			TH_LOG("peer slot %d: %u windows failed the check, first: %s",
			       i, s->v_fail, s->v_msg);
		EXPECT_EQ(0, s->v_fail);
	}
	EXPECT_EQ(windows, vw);
	for (k = 0; k < nw; k++) {
		struct mwin_window_info *w = &self->wins[k];
		uint64_t len = w->length < WIN_MAX ? w->length : WIN_MAX;
		size_t rlen;
		uint8_t *mem;

		if (w->state != MWIN_WINDOW_BOUND)
			continue;
		mem = region_mem(self, w->region, &rlen);
		for (j = 0; j < w->length; j++) {
			uint8_t want = pat(w->id, w->offset + j);

			if ((w->access & MWIN_ACCESS_WRITE) && j < len)
				want = ~want;
			if (mem[w->offset + j] == want)
				continue;
			if (!bad++)
				TH_LOG("window %u (peer %u, access %u): byte %llu is 0x%02x, expected 0x%02x",
				       w->id, w->peer, w->access,
				       (unsigned long long)j,
				       mem[w->offset + j], want);
			break;
		}
	}
	EXPECT_EQ(0, bad);
	TH_LOG("%.2fs: %u bound windows checked with real traffic", t_rel(self),
	       windows);
}

/*
 * Let the peers take in what is in flight, then compare (retrying while
 * things settle, a few seconds at most). Returns the disagreements left.
 */
static int settle(struct __test_metadata *_metadata,
		  FIXTURE_DATA(faults) *self, int from, int to, const char *when)
{
	static char out[8192];
	int attempt, n = 0;

	for (attempt = 0; attempt < 8; attempt++) {
		peers_cmd(self, from, to, CMD_QUIESCE);
		if (peers_wait_ack(_metadata, self, from, to, 30000))
			return -ETIMEDOUT;
		n = compare_state(self, out, sizeof(out));
		if (!n)
			return 0;
		usleep(300000);
	}
	if (n) {
		char *line, *save = NULL;

		TH_LOG("%s: %d disagreements between the module and the peers:",
		       when, n);
		for (line = strtok_r(out, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save))
			TH_LOG("    %s", line);
	}
	return n;
}

/*
 * Bind every window that is not bound to a quiesced peer of @from..@to-1,
 * over its own range and rights, as an operator would after a fault:
 * windows that lived through it must work again.
 */
static int rebind_leftovers(struct __test_metadata *_metadata,
			    FIXTURE_DATA(faults) *self, int from, int to)
{
	uint32_t peers[NSLOTS_PEER];
	int nw = list_windows(self), np = 0, n = 0, bad = 0, k, r;

	for (k = from; k < to; k++)
		if (self->sh->peer[k].pid && self->sh->peer[k].snap_connected)
			peers[np++] = self->sh->peer[k].snap_id;
	if (!np)
		return 0;
	for (k = 0; k < nw; k++) {
		struct mwin_window_info *w = &self->wins[k];
		struct mwin_window_bind b;

		if (w->state == MWIN_WINDOW_BOUND)
			continue;
		b = test_bind(0, peers[rand_r(&self->seed) % np], w->offset,
			      w->length, w->access ? w->access :
			      MWIN_ACCESS_READ | MWIN_ACCESS_WRITE, 0);
		b.id = w->id;
		r = mwin_window_rebind(self->fd, &b);
		if (r && !bad++)
			TH_LOG("rebind of window %u (%s, [%llu, +%llu)) to peer %u: %s",
			       w->id, mwin_window_state_name(w->state),
			       (unsigned long long)w->offset,
			       (unsigned long long)w->length, b.peer,
			       strerror(-r));
		n += !r;
	}
	EXPECT_EQ(0, bad);
	return n;
}

enum { CHECK_REBIND = 1, CHECK_VERIFY = 2 };

/*
 * Settle and compare; then, with CHECK_REBIND, bind the windows left
 * unbound and compare again; with CHECK_VERIFY, check the data of every
 * bound window. The peers run again afterwards.
 */
static void settle_and_check(struct __test_metadata *_metadata,
			     FIXTURE_DATA(faults) *self, int from, int to,
			     int what, const char *when)
{
	int n = settle(_metadata, self, from, to, when);

	if (!n && (what & CHECK_REBIND)) {
		n = rebind_leftovers(_metadata, self, from, to);
		TH_LOG("%.2fs: %d windows bound again", t_rel(self), n);
		n = settle(_metadata, self, from, to, when);
	}
	if (n)
		_metadata->passed = 0;
	else if (what & CHECK_VERIFY)
		verify_data(_metadata, self, from, to);
	unmap_all(self);
	peers_cmd(self, from, to, CMD_RUN);
}

/* Destroy what the test made, then the counts must be the start's. */
static void cleanup_and_count(struct __test_metadata *_metadata,
			      FIXTURE_DATA(faults) *self)
{
	struct mwin_region_info ri;
	struct mwin_info info;
	int nw, k, i;

	unmap_all(self);
	nw = list_windows(self);
	for (k = 0; k < nw; k++)
		EXPECT_EQ(0, mwin_window_destroy(self->fd, self->wins[k].id));
	for (ri.id = self->base_region;
	     !mwin_region_get(self->fd, ri.id, MWIN_GET_NEXT, &ri);)
		EXPECT_EQ(0, mwin_region_destroy(self->fd, ri.id,
						 MWIN_REGION_DESTROY_FORCE));
	/* the peers' teardown is asynchronous: give it time */
	for (i = 0; i < 1000; i++) {
		ASSERT_EQ(0, mwin_info(self->fd, &info, NULL, 0));
		if (info.nr_peers == self->info0.nr_peers &&
		    info.nr_windows == self->info0.nr_windows)
			break;
		usleep(10000);
	}
	drop_slab_caches();
	TH_LOG("%.2fs: slab objects in use: %ld kB more than when the file started",
	       t_rel(self), slab_used_kb() - used0_kb);
	EXPECT_EQ(self->info0.nr_peers, info.nr_peers);
	EXPECT_EQ(self->info0.nr_windows, info.nr_windows);
	EXPECT_EQ(self->info0.nr_regions, info.nr_regions);
	EXPECT_EQ(self->info0.region_bytes, info.region_bytes);
}

static int no_fd_owned(struct __test_metadata *_metadata,
		       FIXTURE_DATA(faults) *self)
{
	struct mwin_region_info ri;
	struct mwin_window_info wi;
	int n = 0;

	for (wi.id = 0; !mwin_window_get(self->fd, wi.id, MWIN_GET_NEXT, &wi);)
		if (wi.wflags & MWIN_CREATE_FD_OWNED) {
			if (!n++)
				TH_LOG("fd-owned window %u (%s, peer %u) outlived its process",
				       wi.id, mwin_window_state_name(wi.state),
				       wi.peer);
		}
	for (ri.id = 0; !mwin_region_get(self->fd, ri.id, MWIN_GET_NEXT, &ri);)
		if (ri.rflags & MWIN_CREATE_FD_OWNED) {
			if (!n++)
				TH_LOG("fd-owned region %u (%u windows) outlived its process",
				       ri.id, ri.nr_windows);
		}
	return n;
}

static void set_base(FIXTURE_DATA(faults) *self)
{
	struct mwin_region_info ri;
	struct mwin_window_info wi;

	self->base_window = 0;
	self->base_region = 0;
	for (wi.id = 0; !mwin_window_get(self->fd, wi.id, MWIN_GET_NEXT, &wi);)
		self->base_window = wi.id;
	for (ri.id = 0; !mwin_region_get(self->fd, ri.id, MWIN_GET_NEXT, &ri);)
		self->base_region = ri.id;
	mwin_info(self->fd, &self->info0, NULL, 0);
}

FIXTURE_SETUP(faults)
{
	const char *env = getenv("MWIN_FAULTS_SECONDS");
	const char *seed = getenv("MWIN_FAULTS_SEED");

	self->t0 = test_now_ms();
	self->secs = env ? atof(env) : 10;
	if (!(self->secs > 0) || self->secs > 120)
		self->secs = 10;
	self->seed = seed ? strtoul(seed, NULL, 0) :
			    (unsigned int)time(NULL) ^ (unsigned int)getpid();
	self->sh = mmap(NULL, sizeof(*self->sh), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->sh);
	memset(self->sh, 0, sizeof(*self->sh));
	self->wins = calloc(MAX_WINDOWS, sizeof(*self->wins));
	ASSERT_NE(NULL, self->wins);
	self->fd = mwin_open();
	ASSERT_LE(0, self->fd);
	watched = self;
	set_base(self);
	TH_LOG("seed %u (MWIN_FAULTS_SEED=%u repeats its choices), %.1f s of load",
	       self->seed, self->seed, self->secs);
}

FIXTURE_TEARDOWN(faults)
{
	int i, status;

	watched = NULL;
	if (self->ctl) {
		kill(self->ctl, SIGKILL);
		wait_pid(self->ctl, 25000, &status);
	}
	for (i = 0; i < NSLOTS_PEER; i++)
		if (self->sh->peer[i].pid) {
			kill(self->sh->peer[i].pid, SIGKILL);
			wait_pid(self->sh->peer[i].pid, 10000, &status);
		}
	unmap_all(self);
	if (self->fd >= 0)
		close(self->fd);
	restore_world(_metadata);
	free(self->wins);
	munmap(self->sh, sizeof(*self->sh));
}

static void start_peers(struct __test_metadata *_metadata,
			FIXTURE_DATA(faults) *self)
{
	int i;

	for (i = 0; i < NPEERS; i++)
		ASSERT_LT(0, start_peer(self, i, PEER_HAMMER, true));
	ASSERT_EQ(0, wait_peers_connected(self, 0, NPEERS, 20000));
}

/* Milliseconds in [lo, hi). */
static int rand_ms(FIXTURE_DATA(faults) *self, int lo, int hi)
{
	return lo + rand_r(&self->seed) % (hi > lo ? hi - lo : 1);
}

/* ------------------------------------------------------------- tests */

enum {
	KILL_ANYTIME, KILL_IN_BATCH, KILL_IN_REGION, KILL_IN_CREATE,
	KILL_AT_ONCE, NKILL
};

static const char *const kill_name[NKILL] = {
	"at a random time", "in a batch", "in a region or fd-close sequence",
	"in a create", "right after it got going",
};

/* Wait (at most @ms) until a controller thread is in one of @ops. */
static bool wait_for_op(FIXTURE_DATA(faults) *self, const int *ops, int nops,
			int ms)
{
	int64_t end = test_now_ms() + ms;
	int t, k;

	while (test_now_ms() < end) {
		for (t = 0; t < NTHREADS; t++)
			for (k = 0; k < nops; k++)
				if (LOAD(self->sh->ct[t].op) == ops[k])
					return true;
		usleep(200);
	}
	return false;
}

/*
 * The calling process killed with SIGKILL while its threads churn windows
 * and the peers use them, at random points and in the middle of calls
 * (a batch, a create, a region or file being torn down); round after
 * round, the peers busy or idle. Its fd-owned objects must go with it
 * (revoked: no peer keeps a grant), even while another process still maps
 * its fd-owned region (whose pages stay until that unmaps); its
 * module-owned ones must stay, and work again once bound to a peer.
 */
TEST_F_TIMEOUT(faults, kill_caller_mid_call, 300)
{
	int64_t end = test_now_ms() + (int64_t)(self->secs * 1000);
	int round, rounds = 0, mode;

	start_peers(_metadata, self);
	for (round = 0; round < 40 && (round < 3 || test_now_ms() < end); round++) {
		struct mwin_info before, after;
		struct mwin_region_info ri;
		uint32_t fd_region;
		size_t len = 0;
		uint8_t *mem;
		int status, k, nw;

		ASSERT_EQ(0, start_ctl(_metadata, self, false));
		fd_region = self->sh->ctl_region[1];
		/* a mapping of the fd-owned region outlives its process */
		mem = region_mem(self, fd_region, &len);
		ASSERT_NE(NULL, mem);
		ASSERT_EQ(FD_REGION, len);
		mode = rand_r(&self->seed) % NKILL;
		if (mode == KILL_AT_ONCE)
			run_load(_metadata, self, rand_ms(self, 0, 20));
		else
			run_load(_metadata, self, rand_ms(self, 100, 1500));
		/*
		 * Every other round the peers stop their accesses (and keep
		 * taking messages) before the kill: a grant whose revoke never
		 * comes then stays for the check to find, where an access
		 * would fail, kill the connection and forget it.
		 */
		if (round % 2 == 0) {
			peers_cmd(self, 0, NPEERS, CMD_QUIESCE);
			ASSERT_EQ(0, peers_wait_ack(_metadata, self, 0, NPEERS,
						    30000));
		}
		if (mode == KILL_IN_BATCH) {
			static const int ops[] = { OP_BATCH };

			wait_for_op(self, ops, 1, 3000);
		} else if (mode == KILL_IN_REGION) {
			static const int ops[] = { OP_REGION, OP_FD };

			wait_for_op(self, ops, 2, 3000);
		} else if (mode == KILL_IN_CREATE) {
			static const int ops[] = { OP_CREATE };

			wait_for_op(self, ops, 1, 3000);
		}
		log_inflight(_metadata, self, "SIGKILL to the controller");
		status = reap_ctl(_metadata, self, true);
		EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
		ctl_report(_metadata, self);
		TH_LOG("round %d: killed %s, the peers %s", round,
		       kill_name[mode], round % 2 ? "busy" : "idle");
		rounds++;

		/* its file is released: the fd-owned region is gone ... */
		EXPECT_EQ(-ENOENT, mwin_region_get(self->fd, fd_region, 0, &ri));
		EXPECT_EQ(0, no_fd_owned(_metadata, self));
		/* ... but our mapping keeps its pages until we unmap them */
		for (k = 0; k < FD_REGION; k += 4096)
			mem[k] ^= 0xff;
		ASSERT_EQ(0, mwin_info(self->fd, &before, NULL, 0));
		unmap_all(self);
		/*
		 * A window of that region whose peer's QP is still draining
		 * holds the region (and its pages) until the drain ends.
		 */
		for (k = 0; k < 5000; k++) {
			ASSERT_EQ(0, mwin_info(self->fd, &after, NULL, 0));
			if (after.region_bytes == before.region_bytes - FD_REGION)
				break;
			usleep(1000);
		}
		EXPECT_EQ(before.region_bytes - FD_REGION, after.region_bytes);

		settle_and_check(_metadata, self, 0, NPEERS,
				 CHECK_REBIND | CHECK_VERIFY, "after the kill");
		if (_metadata->passed == 0)
			break;
		/* keep the leftovers of the rounds from piling up */
		nw = list_windows(self);
		for (k = 0; k < nw - 100; k++)
			EXPECT_EQ(0, mwin_window_destroy(self->fd,
							 self->wins[k].id));
	}
	TH_LOG("%d rounds", rounds);
	stop_peers(_metadata, self, 0, NPEERS);
	check_ends(_metadata, self, 0, NPEERS);
	cleanup_and_count(_metadata, self);
}

/*
 * MWIN_PEER_DISCONNECT of peers, peers dropping their own connections and
 * peer processes killed, at random points while the controller churns
 * (and disconnects peers itself now and then).
 */
TEST_F_TIMEOUT(faults, peer_disconnect_under_load, 300)
{
	int64_t end = test_now_ms() + (int64_t)(self->secs * 1000);
	unsigned int ioctl_dis = 0, drops = 0, kills = 0, k;
	/* how the peer may have seen it end: also 'S' if it was dropping */
	struct { uint32_t id; int slot; const char *how; } dis[256];
	int ndis = 0, status;

	start_peers(_metadata, self);
	ASSERT_EQ(0, start_ctl(_metadata, self, true));
	while (test_now_ms() < end) {
		int i = rand_r(&self->seed) % NPEERS;
		int what = rand_r(&self->seed) % 8;
		struct peer_slot *s = &self->sh->peer[i];
		struct mwin_peer_info pi;
		bool dropping;
		uint32_t id;
		int r, j;

		run_load(_metadata, self, rand_ms(self, 50, 500));
		/* before the id: a drop asked for may be of that connection */
		dropping = LOAD(s->drops) != LOAD(s->dropped);
		id = LOAD(s->id);
		if (what < 5 && id) {
			log_inflight(_metadata, self, "MWIN_PEER_DISCONNECT");
			r = mwin_peer_disconnect(self->fd, id);
			TH_LOG("    of peer %u (slot %d): %s", id, i,
			       r ? strerror(-r) : "done");
			EXPECT_TRUE(!r || r == -ENOENT);
			if (!r) {
				/* gone when the call returns */
				r = mwin_peer_get(self->fd, id, 0, &pi);
				EXPECT_EQ(-ENOENT, r);
				if (ndis < 256) {
					dis[ndis].id = id;
					dis[ndis].how = dropping ? "DQRS" : "DQR";
					dis[ndis++].slot = i;
				}
			}
			ioctl_dis++;
		} else if (what < 7) {
			log_inflight(_metadata, self, "a peer drops its connection");
			TH_LOG("    peer %u (slot %d)", id, i);
			INC(s->drops);
			drops++;
		} else {
			log_inflight(_metadata, self, "SIGKILL to a peer process");
			TH_LOG("    pid %d, peer %u (slot %d)", s->pid, id, i);
			kill(s->pid, SIGKILL);
			ASSERT_EQ(0, wait_pid(s->pid, 10000, &status));
			s->pid = 0;
			kills++;
			/* the module notices the vanished peer */
			if (id)
				EXPECT_EQ(0, test_wait_peer_gone(self->fd, id));
			/* it had no time to see the disconnects not seen yet */
			for (j = 0; j < ndis; j++)
				if (dis[j].slot == i &&
				    !peer_saw_end(self, dis[j].id, dis[j].how))
					dis[j--] = dis[--ndis];
			ASSERT_LT(0, start_peer(self, i, PEER_HAMMER, false));
		}
	}
	log_inflight(_metadata, self, "stopping the controller");
	status = reap_ctl(_metadata, self, false);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ctl_report(_metadata, self);
	EXPECT_EQ(0, no_fd_owned(_metadata, self));
	ASSERT_EQ(0, wait_peers_connected(self, 0, NPEERS, 20000));
	settle_and_check(_metadata, self, 0, NPEERS,
			 CHECK_REBIND | CHECK_VERIFY, "after the disconnects");
	/* every peer the module disconnected saw its connection end */
	for (k = 0; k < (unsigned int)ndis; k++) {
		bool seen = peer_saw_end(self, dis[k].id, dis[k].how);

		if (!seen)
			TH_LOG("peer %u was disconnected, but its process did not see the module close it",
			       dis[k].id);
		EXPECT_TRUE(seen);
	}
	TH_LOG("%u PEER_DISCONNECT calls, %u drops by peers, %u peer processes killed",
	       ioctl_dis, drops, kills);
	stop_peers(_metadata, self, 0, NPEERS);
	check_ends(_metadata, self, 0, NPEERS);
	cleanup_and_count(_metadata, self);
}

static bool mwin_has_dev(int fd, const char *name)
{
	struct mwin_dev_info devs[8];
	struct mwin_info info;
	unsigned int i;

	if (mwin_info(fd, &info, devs, 8))
		return false;
	for (i = 0; i < info.nr_devs && i < 8; i++)
		if (!strcmp(devs[i].name, name))
			return true;
	return false;
}

/*
 * One window per peer of @from..@to-1 in @region (made by the test, so no
 * controller destroys it): created when @ids[i] is 0, else rebound to the
 * peer's current connection. Returns how many calls succeeded.
 */
static int bind_own(FIXTURE_DATA(faults) *self, uint32_t region, int from,
		    int to, uint32_t *ids)
{
	int i, n = 0;

	for (i = from; i < to; i++) {
		struct mwin_window_bind b;
		uint32_t id = LOAD(self->sh->peer[i].id);

		if (!id)
			continue;
		b = test_bind(ids[i] ? 0 : region, id, (uint64_t)i * 16384 + 8,
			      12000, MWIN_ACCESS_ALL, 0);
		b.id = ids[i];
		if (ids[i] ? mwin_window_rebind(self->fd, &b) :
			     mwin_window_create(self->fd, &b))
			continue;
		ids[i] = b.id;
		n++;
	}
	return n;
}

/*
 * rxe0 deleted at a random point of the load: the peers are disconnected
 * and their processes exit (letting go of the device), the calls in flight
 * return, every window is left unbound; rxe0 added back, a fresh peer
 * connects, the windows that lived through it are bound to it and it
 * reads and writes the right bytes through them and through a new one.
 */
TEST_F_TIMEOUT(faults, device_removal_under_load, 300)
{
	uint32_t own[NSLOTS_PEER] = { 0 }, region, nr;
	struct mwin_window_bind b;
	struct mwin_peer_info pi;
	int i, r, status, nw, k;
	int64_t t;

	start_peers(_metadata, self);
	ASSERT_EQ(0, mwin_region_create(self->fd, NPEERS * 16384, 0, &region,
					NULL));
	EXPECT_EQ(NPEERS, bind_own(self, region, 0, NPEERS, own));
	ASSERT_EQ(0, start_ctl(_metadata, self, false));
	run_load(_metadata, self, rand_ms(self, 300, self->secs * 1000));
	/* bound to live peers when the device goes */
	r = bind_own(self, region, 0, NPEERS, own);
	for (i = 0; i < NPEERS; i++)
		STORE(self->sh->peer[i].exit_when_gone, 1);
	log_inflight(_metadata, self, "rdma link delete rxe0");
	TH_LOG("    (%d windows of the test's own just bound again)", r);
	t = test_now_ms();
	r = rdma_link_delete(_metadata, 60000);
	TH_LOG("%.2fs: rdma link delete rxe0 returned %d after %lld ms",
	       t_rel(self), r, (long long)(test_now_ms() - t));
	ASSERT_EQ(0, r);
	EXPECT_FALSE(exists("/sys/class/infiniband/rxe0"));
	/* the device is gone only once every process let go of it */
	for (i = 0; i < NPEERS; i++) {
		struct peer_slot *s = &self->sh->peer[i];

		EXPECT_EQ(0, wait_pid(s->pid, 10000, &status));
		EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		s->pid = 0;
	}
	/* the calls go on failing, and none hangs */
	run_load(_metadata, self, 1000);
	log_inflight(_metadata, self, "stopping the controller");
	status = reap_ctl(_metadata, self, false);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ctl_report(_metadata, self);
	check_ends(_metadata, self, 0, NPEERS);
	for (i = 0; i < NPEERS; i++) {
		struct peer_slot *s = &self->sh->peer[i];
		unsigned int n = s->nends;

		/* the last connection was closed by the module */
		EXPECT_LT(0, n);
		if (n)
			EXPECT_NE(NULL, strchr("DQR", s->ends[n - 1].how));
	}

	/* no peer, no device, every window unbound, nothing fd-owned */
	EXPECT_EQ(-ENOENT, mwin_peer_get(self->fd, 0, MWIN_GET_NEXT, &pi));
	EXPECT_FALSE(mwin_has_dev(self->fd, "rxe0"));
	EXPECT_EQ(0, no_fd_owned(_metadata, self));
	nw = list_windows(self);
	for (k = 0; k < nw; k++) {
		struct mwin_window_info *w = &self->wins[k];

		if (w->state != MWIN_WINDOW_UNBOUND || w->peer)
			TH_LOG("window %u is %s (peer %u) with its device gone",
			       w->id, mwin_window_state_name(w->state), w->peer);
		EXPECT_EQ(MWIN_WINDOW_UNBOUND, w->state);
	}
	TH_LOG("%d windows left, all unbound", nw);

	/* add it back */
	t = test_now_ms();
	ASSERT_EQ(0, rdma_link_add(_metadata, 30000));
	for (i = 0; i < 200 && !rxe0_active(); i++)
		usleep(50000);
	ASSERT_TRUE(rxe0_active());
	for (i = 0; i < 200 && !mwin_has_dev(self->fd, "rxe0"); i++)
		usleep(10000);
	EXPECT_TRUE(mwin_has_dev(self->fd, "rxe0"));
	TH_LOG("%.2fs: rxe0 back and ACTIVE after %lld ms", t_rel(self),
	       (long long)(test_now_ms() - t));

	/* a fresh peer: the old windows (rebound) and a new one work */
	ASSERT_LT(0, start_peer(self, SMOKE, PEER_IDLE, true));
	ASSERT_EQ(0, wait_peers_connected(self, SMOKE, SMOKE + 1, 20000));
	ASSERT_EQ(0, mwin_region_create(self->fd, 64 * 1024, 0, &nr, NULL));
	b = test_bind(nr, self->sh->peer[SMOKE].id, 100, 5000,
		      MWIN_ACCESS_READ | MWIN_ACCESS_WRITE, 0);
	ASSERT_EQ(0, mwin_window_create(self->fd, &b));
	settle_and_check(_metadata, self, SMOKE, SMOKE + 1,
			 CHECK_REBIND | CHECK_VERIFY, "after rxe0 came back");
	stop_peers(_metadata, self, SMOKE, SMOKE + 1);
	check_ends(_metadata, self, SMOKE, SMOKE + 1);
	cleanup_and_count(_metadata, self);
}

static char *const rmmod_argv[] = { "rmmod", "mwin", NULL };

/* /sys/module/mwin/refcnt, or -1 when the module is not loaded. */
static int module_refcnt(void)
{
	char buf[32] = "";
	int fd = open("/sys/module/mwin/refcnt", O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? atoi(buf) : -1;
}

struct wsnap {
	uint32_t id, state, rkey, peer;
	uint64_t binds;
};

static int snap_windows(FIXTURE_DATA(faults) *self, struct wsnap *out)
{
	int n = list_windows(self), k;

	for (k = 0; k < n; k++) {
		out[k].id = self->wins[k].id;
		out[k].state = self->wins[k].state;
		out[k].rkey = self->wins[k].rkey;
		out[k].peer = self->wins[k].peer;
		out[k].binds = self->wins[k].binds;
	}
	return n;
}

static unsigned long peers_ok(FIXTURE_DATA(faults) *self)
{
	unsigned long n = 0;
	int i;

	for (i = 0; i < NPEERS; i++)
		n += LOAD(self->sh->peer[i].ok);
	return n;
}

static unsigned int peers_ends(FIXTURE_DATA(faults) *self)
{
	unsigned int n = 0;
	int i;

	for (i = 0; i < NPEERS; i++)
		n += LOAD(self->sh->peer[i].nends);
	return n;
}

/*
 * The controller killed while the peers hammer module-owned windows; rmmod
 * with /dev/mwin open or mapped must fail (the module is in use:
 * delete_module() says EWOULDBLOCK, rmmod(8) "in use") and change nothing;
 * rmmod once nothing holds it must succeed while the peers are connected
 * and their traffic runs, and they must see their connections closed;
 * then insmod, and the peers reconnect and use new windows.
 */
TEST_F_TIMEOUT(faults, rmmod_under_load, 300)
{
	static struct wsnap s1[MAX_WINDOWS], s2[MAX_WINDOWS];
	uint32_t own[NSLOTS_PEER] = { 0 };
	struct mwin_info i1, i2;
	unsigned long ok0, ends0;
	uint32_t region, nr;
	uint64_t moff;
	void *mem;
	int n1, n2, r, i, status;
	int64_t t;

	if (!getenv("MWIN_KO"))
		SKIP(return, "MWIN_KO is not set");
	start_peers(_metadata, self);
	ASSERT_EQ(0, start_ctl(_metadata, self, false));
	region = self->sh->ctl_region[0];
	run_load(_metadata, self, rand_ms(self, 200, self->secs * 500));
	log_inflight(_metadata, self, "SIGKILL to the controller");
	status = reap_ctl(_metadata, self, true);
	EXPECT_TRUE(WIFSIGNALED(status));
	ctl_report(_metadata, self);
	EXPECT_EQ(0, no_fd_owned(_metadata, self));
	/* from now on nothing churns: every access must succeed */
	STORE(self->sh->calm, 1);
	settle_and_check(_metadata, self, 0, NPEERS,
			 CHECK_REBIND | CHECK_VERIFY, "after the kill");
	ASSERT_EQ(0, mwin_region_create(self->fd, NPEERS * 16384, 0, &nr,
					&moff));
	EXPECT_EQ(NPEERS, bind_own(self, nr, 0, NPEERS, own));
	ASSERT_EQ(0, wait_peers_connected(self, 0, NPEERS, 20000));
	run_load(_metadata, self, 300);

	/*
	 * rmmod with the file open, then with only a mapping: the module is
	 * in use. delete_module() says EWOULDBLOCK (rmmod(8) itself reads
	 * the refcnt first and says "in use", EBUSY).
	 */
	ASSERT_EQ(0, mwin_info(self->fd, &i1, NULL, 0));
	n1 = snap_windows(self, s1);
	ok0 = peers_ok(self);
	ends0 = peers_ends(self);
	EXPECT_LE(1, module_refcnt());
	r = module_call(_metadata, false, 30000);
	TH_LOG("%.2fs: rmmod with /dev/mwin open: %s (refcnt %d)", t_rel(self),
	       strerror(-r), module_refcnt());
	EXPECT_EQ(-EWOULDBLOCK, r);
	EXPECT_NE(0, run_cmd(_metadata, 30000, rmmod_argv));
	mem = mmap(NULL, NPEERS * 16384, PROT_READ | PROT_WRITE, MAP_SHARED,
		   self->fd, moff);
	ASSERT_NE(MAP_FAILED, mem);
	madvise(mem, NPEERS * 16384, MADV_DONTFORK);
	close(self->fd);
	self->fd = -1;
	EXPECT_LE(1, module_refcnt());
	r = module_call(_metadata, false, 30000);
	TH_LOG("%.2fs: rmmod with a region mapped: %s (refcnt %d)",
	       t_rel(self), strerror(-r), module_refcnt());
	EXPECT_EQ(-EWOULDBLOCK, r);
	EXPECT_NE(0, run_cmd(_metadata, 30000, rmmod_argv));
	munmap(mem, NPEERS * 16384);
	self->fd = mwin_open();
	ASSERT_LE(0, self->fd);
	run_load(_metadata, self, 300);
	ASSERT_EQ(0, mwin_info(self->fd, &i2, NULL, 0));
	n2 = snap_windows(self, s2);
	EXPECT_EQ(i1.nr_peers, i2.nr_peers);
	EXPECT_EQ(i1.nr_windows, i2.nr_windows);
	EXPECT_EQ(i1.nr_regions, i2.nr_regions);
	EXPECT_EQ(i1.region_bytes, i2.region_bytes);
	ASSERT_EQ(n1, n2);
	EXPECT_EQ(0, memcmp(s1, s2, n1 * sizeof(s1[0])));
	EXPECT_EQ(ends0, peers_ends(self));	/* nobody was disconnected */
	EXPECT_LT(ok0, peers_ok(self));		/* and the traffic ran */

	/* now with nothing holding it, under traffic */
	close(self->fd);
	self->fd = -1;
	EXPECT_EQ(0, module_refcnt());
	ok0 = peers_ok(self);
	log_inflight(_metadata, self, "rmmod mwin");
	t = test_now_ms();
	r = module_call(_metadata, false, 60000);
	TH_LOG("%.2fs: rmmod: %s after %lld ms (%lu accesses meanwhile)",
	       t_rel(self), r ? strerror(-r) : "done",
	       (long long)(test_now_ms() - t), peers_ok(self) - ok0);
	ASSERT_EQ(0, r);
	EXPECT_FALSE(exists("/dev/mwin"));
	EXPECT_FALSE(exists("/sys/module/mwin"));
	/* every peer sees its connection closed */
	for (t = test_now_ms(); test_now_ms() - t < 15000;) {
		for (i = 0; i < NPEERS; i++)
			if (LOAD(self->sh->peer[i].id))
				break;
		if (i == NPEERS)
			break;
		usleep(10000);
	}
	for (i = 0; i < NPEERS; i++)
		EXPECT_EQ(0, LOAD(self->sh->peer[i].id));
	EXPECT_LE(ends0 + NPEERS, peers_ends(self));

	t = test_now_ms();
	r = module_call(_metadata, true, 30000);
	TH_LOG("%.2fs: insmod: %s after %lld ms", t_rel(self),
	       r ? strerror(-r) : "done", (long long)(test_now_ms() - t));
	ASSERT_EQ(0, r);
	for (i = 0; i < 200 && !exists("/dev/mwin"); i++)
		usleep(10000);
	self->fd = mwin_open();
	ASSERT_LE(0, self->fd);
	memset(&self->info0, 0, sizeof(self->info0));
	self->base_window = 0;
	self->base_region = 0;
	EXPECT_EQ(-ENOENT, mwin_region_destroy(self->fd, region, 0));
	/* the peers reconnect to the new module and use new windows */
	ASSERT_EQ(0, wait_peers_connected(self, 0, NPEERS, 20000));
	ASSERT_EQ(0, mwin_region_create(self->fd, NPEERS * 16384, 0, &nr,
					NULL));
	memset(own, 0, sizeof(own));
	EXPECT_EQ(NPEERS, bind_own(self, nr, 0, NPEERS, own));
	run_load(_metadata, self, 500);
	settle_and_check(_metadata, self, 0, NPEERS, CHECK_VERIFY,
			 "after the reload");
	stop_peers(_metadata, self, 0, NPEERS);
	check_ends(_metadata, self, 0, NPEERS);
	cleanup_and_count(_metadata, self);
}

/*
 * After all that: mwin loaded, rxe0 back and ACTIVE, no more objects than
 * at the start, and slab memory about where it was.
 */
TEST_F_TIMEOUT(faults, after_all_faults, 60)
{
	const char *env = getenv("MWIN_FAULTS_SLAB_KB");
	long tol = env ? atol(env) : 2048, slab, sunr, used, objs;
	struct mwin_info info;
	int i;

	EXPECT_TRUE(exists("/sys/module/mwin"));
	EXPECT_TRUE(exists("/sys/class/infiniband/rxe0"));
	for (i = 0; i < 100 && !rxe0_active(); i++)
		usleep(50000);
	EXPECT_TRUE(rxe0_active());
	EXPECT_TRUE(mwin_has_dev(self->fd, "rxe0"));
	ASSERT_EQ(0, mwin_info(self->fd, &info, NULL, 0));
	EXPECT_EQ(0, info.nr_peers);
	if (start_info_ok) {
		EXPECT_GE(start_info.nr_windows, info.nr_windows);
		EXPECT_GE(start_info.nr_regions, info.nr_regions);
		EXPECT_GE(start_info.region_bytes, info.region_bytes);
	}

	/* what is freed after a grace period, and the caches, first */
	sleep(2);
	drop_slab_caches();
	slab = meminfo_kb("Slab");
	sunr = meminfo_kb("SUnreclaim");
	used = slab_used_kb();
	objs = mwin_slab_objs();
	TH_LOG("slab: %ld kB at the start, %ld kB now (unreclaimable %ld kB, %ld kB; objects in use %ld kB, %ld kB); mwin slab objects %ld, %ld; tolerance %ld kB",
	       slab0_kb, slab, sunreclaim0_kb, sunr, used0_kb, used,
	       mwin_objs0, objs, tol);
	EXPECT_LT(used - used0_kb, tol);
	EXPECT_LT(sunr - sunreclaim0_kb, 2 * tol);
	EXPECT_GE(mwin_objs0, objs);
}

TEST_HARNESS_MAIN
