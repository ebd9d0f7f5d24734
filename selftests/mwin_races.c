// SPDX-License-Identifier: GPL-2.0
/*
 * Races between window operations and remote traffic through them.
 *
 * NPAIRS pairs of threads share one region; pair i owns area i of it
 * (64 KiB; one more area at the end is never granted). In each pair:
 *
 *  - the peer thread P owns one mwpeer and two windows in its area: a
 *    "stable" one (upper half), never revoked while the connection lives,
 *    and a "target" one (lower half). It creates or rebinds both to its
 *    connection, arms the controller, and hammers WRITE, READ and
 *    fetch-and-add through both, keeping a shadow copy of what its area
 *    must hold;
 *  - the controller thread C, after a random delay, revokes the target's
 *    rkey: rebind (same range, another range, fewer rights), invalidate
 *    or destroy. It raises "revoking" before the ioctl and "returned"
 *    after, then fills the target's old range with a tombstone byte
 *    through the mmap and raises "tombstoned".
 *
 * Invariants, checked by P:
 *  - no access with the old rkey succeeds when it was posted after C saw
 *    the revoking call return ("returned" read before the post);
 *  - no access fails unless its window was being revoked: the stable
 *    window never fails, the target only once "revoking" is up;
 *  - when a round is over (P's connection died from its first failed
 *    access), the area equals the shadow, in which the target's old range
 *    is tombstone: a write that landed after the tombstone, or anywhere
 *    outside P's windows, shows up; so does a READ that returned
 *    tombstone bytes (data from after the revoke returned);
 *  - at the end the whole region equals the shadows, the spare area is
 *    still zero.
 *
 * Bounded by MWIN_RACES_SECONDS (default 25).
 *
 * force_destroy_vs_create: REGION_DESTROY with MWIN_REGION_DESTROY_FORCE
 * while another thread creates windows in the region: when the call
 * returns, no window of the region may be left (nor its rkey work).
 */
#include <pthread.h>
#include <stdarg.h>
#include <time.h>

#include "mwin_test.h"

#define NPAIRS		3
#define AREA		(64 * 1024)
#define HALF		(AREA / 2)
#define REGION_LEN	((NPAIRS + 1) * AREA)
#define MAX_OPS		20000
#define TOMB(i)		((uint8_t)(0xE0 | (i)))

enum { ACT_REBIND, ACT_MOVE, ACT_RIGHTS, ACT_INVALIDATE, ACT_DESTROY, NACT };
static const char *act_name[NACT] = {
	"rebind", "rebind elsewhere", "rebind read-only", "invalidate",
	"destroy",
};

struct pair {
	int i;
	int fd;
	uint32_t region;
	uint8_t *mem;			/* the whole region */
	double deadline;
	unsigned int seed;

	struct mwpeer *p;
	uint32_t pid;
	uint32_t access;		/* all the device grants */
	bool iwarp;
	uint32_t wid, sid;		/* target and stable window */
	uint64_t off, len;		/* target's range */
	uint32_t rkey;
	uint64_t soff, slen;
	uint32_t srkey;

	/* P <-> C */
	int go, stop;
	int revoking, returned, tombstoned;
	int action, result;

	uint8_t shadow[AREA];

	/* counts */
	unsigned int rounds, ops, ok, probes, race_fails;
	unsigned int acts[NACT], act_errors;
	double slowest;			/* s, the slowest revoking call */
	int slowest_act, slowest_result;
	unsigned int violations, errors, late;
	unsigned int first_round, err_round, late_round;
	char first[320];
	char first_late[320];
	char step[200];		/* what round_setup() did last */
	char errmsg[256];
};

#define LOAD(x)		__atomic_load_n(&(x), __ATOMIC_SEQ_CST)
#define STORE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_SEQ_CST)

__attribute__((format(printf, 2, 3)))
static void violation(struct pair *q, const char *fmt, ...)
{
	va_list ap;

	if (!q->violations++) {
		va_start(ap, fmt);
		vsnprintf(q->first, sizeof(q->first), fmt, ap);
		va_end(ap);
		q->first_round = q->rounds;
	}
}

/*
 * An access posted before the revoking call returned whose data moved
 * after it returned: rxe checks the rkey of a request, then copies, and
 * its LOCAL_INV does not wait for requests between the two. The same gap
 * once failed a fetch-and-add racing an invalidation with an Invalid
 * Request NAK instead of a remote access error. Not mwin's doing: counted
 * apart, fatal only with MWIN_RACES_STRICT=1.
 */
__attribute__((format(printf, 2, 3)))
static void late(struct pair *q, const char *fmt, ...)
{
	va_list ap;

	if (!q->late++) {
		va_start(ap, fmt);
		vsnprintf(q->first_late, sizeof(q->first_late), fmt, ap);
		va_end(ap);
		q->late_round = q->rounds;
	}
}

__attribute__((format(printf, 2, 3)))
static void fail_err(struct pair *q, const char *fmt, ...)
{
	va_list ap;

	if (!q->errors++) {
		va_start(ap, fmt);
		vsnprintf(q->errmsg, sizeof(q->errmsg), fmt, ap);
		va_end(ap);
		q->err_round = q->rounds;
	}
}

static uint64_t area_base(const struct pair *q)
{
	return (uint64_t)q->i * AREA;
}

/* ------------------------------------------------------------ control */

static void *controller(void *arg)
{
	struct pair *q = arg;

	while (!LOAD(q->stop)) {
		struct mwin_window_bind b;
		uint64_t off, len;
		int act, r;
		double t0;

		if (!LOAD(q->go)) {
			usleep(100);
			continue;
		}
		STORE(q->go, 0);
		usleep(rand_r(&q->seed) % 3000);
		act = rand_r(&q->seed) % NACT;
		off = q->off;
		len = q->len;
		STORE(q->revoking, 1);
		t0 = test_now_s();
		switch (act) {
		case ACT_REBIND:
		case ACT_MOVE:
		case ACT_RIGHTS: {
			uint64_t noff = off, nlen = len;
			uint32_t access = q->access;

			if (act == ACT_MOVE) {
				nlen = 1 + rand_r(&q->seed) % 4096;
				noff = area_base(q) +
				       rand_r(&q->seed) % (HALF - nlen);
			}
			if (act == ACT_RIGHTS)
				access = MWIN_ACCESS_READ;
			b = test_bind(0, 0, noff, nlen, access, 0);
			b.id = q->wid;
			r = mwin_window_rebind(q->fd, &b);
			break;
		}
		case ACT_INVALIDATE:
			r = mwin_window_invalidate(q->fd, q->wid);
			break;
		default:
			r = mwin_window_destroy(q->fd, q->wid);
			break;
		}
		STORE(q->returned, 1);
		if (test_now_s() - t0 > q->slowest) {
			q->slowest = test_now_s() - t0;
			q->slowest_act = act;
			q->slowest_result = r;
		}
		/* after the call returned nothing may land here any more */
		memset(q->mem + off, TOMB(q->i), len);
		q->action = act;
		q->result = r;
		q->acts[act]++;
		if (r)
			q->act_errors++;
		if (act == ACT_DESTROY && !r)
			q->wid = 0;
		STORE(q->tombstoned, 1);
	}
	return NULL;
}

/* ---------------------------------------------------------------- peer */

static int grant(struct pair *q, uint32_t *id, uint64_t off, uint64_t len,
		 uint32_t *rkey)
{
	struct mwin_window_bind b = test_bind(q->region, q->pid, off, len,
					      q->access, 0);
	int r;

	if (*id) {
		b.region = 0;
		b.id = *id;
		r = mwin_window_rebind(q->fd, &b);
	} else {
		r = mwin_window_create(q->fd, &b);
	}
	if (r)
		return r;
	*id = b.id;
	*rkey = b.rkey;
	return 0;
}

/* A connection, and both windows granted to it. */
static int round_setup(struct pair *q)
{
	struct mwpeer_msg m;
	int r;

	if (!q->p || mwpeer_qp_error(q->p) ||
	    mwpeer_state(q->p) != MWPEER_CONNECTED) {
		struct mwin_peer_info pi;
		int k;

		/* the module tears the old peer down first */
		for (k = 0; q->pid && k < 5000; k++) {
			if (mwin_peer_get(q->fd, q->pid, 0, &pi) == -ENOENT)
				break;
			usleep(1000);
		}
		if (q->p) {
			/* connecting is not what is raced: the library's bound */
			mwpeer_set_timeout(q->p, MWPEER_DEFAULT_TIMEOUT_MS);
			r = mwpeer_reconnect(q->p);
		} else {
			q->p = test_connect();
			r = q->p ? 0 : -ECONNREFUSED;
		}
		if (r) {
			snprintf(q->step, sizeof(q->step), "connect: %s",
				 q->p ? mwpeer_errmsg(q->p) : "refused");
			return r;
		}
		q->pid = mwpeer_id(q->p);
		for (k = 0; k < 5000; k++) {
			if (!mwin_peer_get(q->fd, q->pid, 0, &pi) &&
			    pi.state == MWIN_PEER_CONNECTED)
				break;
			usleep(1000);
		}
		mwpeer_set_timeout(q->p, 5000);
		q->access = test_all_access(q->fd, q->p);
		q->iwarp = test_iwarp(q->p);
	}
	q->slen = 64 + rand_r(&q->seed) % 4096;
	q->soff = area_base(q) + HALF + rand_r(&q->seed) % (HALF - q->slen);
	q->len = 1 + rand_r(&q->seed) % 8192;
	q->off = area_base(q) + rand_r(&q->seed) % (HALF - q->len);
	snprintf(q->step, sizeof(q->step), "grant (window create or rebind)");
	r = grant(q, &q->sid, q->soff, q->slen, &q->srkey) ?:
	    grant(q, &q->wid, q->off, q->len, &q->rkey);
	while (!mwpeer_next_msg(q->p, &m, 0))
		;
	return r;
}

/*
 * Compare the area with the shadow. A difference inside the target's old
 * range [@off, +@len) is a write that landed late (see late()); anywhere
 * else it is a write outside every window.
 */
static void check_area(struct pair *q, const char *when, uint64_t off,
		       uint64_t len)
{
	const uint8_t *a = q->mem + area_base(q);
	uint64_t lo = off - area_base(q), hi = lo + len;
	size_t k;

	for (k = 0; k < AREA; k++) {
		if (a[k] == q->shadow[k])
			continue;
		if (k >= lo && k < hi)
			late(q, "%s: byte %zu of area %d, in the revoked target [%llu, +%llu), is 0x%02x, not the tombstone: a WRITE landed after the revoke (%s) returned",
			     when, k, q->i, (unsigned long long)lo,
			     (unsigned long long)len, a[k], act_name[q->action]);
		else
			violation(q, "%s: byte %zu of area %d is 0x%02x, expected 0x%02x (target was [%llu, +%llu), stable [%llu, +%llu), %s)",
				  when, k, q->i, a[k], q->shadow[k],
				  (unsigned long long)lo,
				  (unsigned long long)len,
				  (unsigned long long)(q->soff - area_base(q)),
				  (unsigned long long)q->slen,
				  act_name[q->action]);
		memcpy(q->shadow, a, AREA);	/* report once */
		return;
	}
}

/*
 * siw answers a READ of up to 32 bytes that crosses a page boundary with
 * bytes from elsewhere (its defect: kmod/provider.c, conformance row 41):
 * on iWARP such a READ [*@at, +*@l) of window [@off, +@len) is moved to
 * one side of the boundary, shortened if that side is shorter.
 */
static void keep_short_read_in_page(uint64_t off, uint64_t len,
				    uint64_t *at, uint64_t *l)
{
	uint64_t b = (*at + *l - 1) & ~4095ULL;	/* the page its end is in */

	if (*l > 32 || b <= *at)
		return;
	if (b - off >= off + len - b) {
		*l = *l < b - off ? *l : b - off;
		*at = b - *l;
	} else {
		*l = *l < off + len - b ? *l : off + len - b;
		*at = b;
	}
}

/*
 * Fill the local buffer a READ of [@rel, +@len) lands in with the
 * complement of what it must return: a READ that completes without
 * placing its data cannot pass for a right one.
 */
static void poison_read_buffer(struct pair *q, uint64_t rel, uint64_t len)
{
	uint8_t *lb = mwpeer_buf(q->p);
	uint64_t k;

	for (k = 0; k < len; k++)
		lb[k] = (uint8_t)~q->shadow[rel + k];
}

static int access_once(struct pair *q, uint32_t rkey, uint64_t off,
		       uint64_t len, unsigned int n)
{
	uint8_t buf[256];
	uint64_t at, l, rel, old = 0, word = (off + 7) & ~7ULL;
	int kinds = q->access & MWIN_ACCESS_ATOMIC ? 4 : 3;
	int kind = rand_r(&q->seed) % kinds, st;
	size_t k;

	if (kind == 3 && word + 8 > off + len)
		kind = 0;
	l = 1 + rand_r(&q->seed) % (len < sizeof(buf) ? len : sizeof(buf));
	at = off + rand_r(&q->seed) % (len - l + 1);
	if (kind == 2 && q->iwarp)
		keep_short_read_in_page(off, len, &at, &l);
	rel = at - area_base(q);
	switch (kind) {
	case 0:
	case 1:
		for (k = 0; k < l; k++)
			buf[k] = (uint8_t)(n * 7 + k + q->i * 3 + 1);
		st = test_write_fenced(q->p, q->iwarp, rkey, at, buf, l);
		if (st == IBV_WC_SUCCESS)
			memcpy(q->shadow + rel, buf, l);
		return st;
	case 2:
		poison_read_buffer(q, rel, l);
		st = mwpeer_read(q->p, rkey, at, buf, l);
		if (st == IBV_WC_SUCCESS && memcmp(buf, q->shadow + rel, l)) {
			size_t first = l, tomb = 0, diff = 0, unplaced = 0;

			for (k = 0; k < l; k++) {
				if (buf[k] == q->shadow[rel + k])
					continue;
				first = first < l ? first : k;
				diff++;
				tomb += buf[k] == TOMB(q->i);
				unplaced += buf[k] == (uint8_t)~q->shadow[rel + k];
			}
			if (tomb == diff)
				late(q, "READ of [%llu, +%llu) in area %d returned tombstone bytes from +%zu: data written after the revoke returned",
				     (unsigned long long)rel,
				     (unsigned long long)l, q->i, first);
			else
				violation(q, "READ of [%llu, +%llu) in area %d returned 0x%02x at +%zu, expected 0x%02x (%zu bytes differ, %zu of them never placed: still the poison the local buffer held; the memory holds 0x%02x; access %u)",
					  (unsigned long long)rel,
					  (unsigned long long)l, q->i,
					  buf[first], first,
					  q->shadow[rel + first], diff, unplaced,
					  q->mem[at + first], n);
		}
		return st;
	default:
		rel = word - area_base(q);
		st = mwpeer_fadd(q->p, rkey, word, n | 1, &old);
		if (st == IBV_WC_SUCCESS) {
			uint64_t v;

			memcpy(&v, q->shadow + rel, 8);
			if (old != v && old == TOMB(q->i) * 0x0101010101010101ULL)
				late(q, "FADD at %llu of area %d saw the tombstone 0x%llx: it ran after the revoke returned",
				     (unsigned long long)rel, q->i,
				     (unsigned long long)old);
			else if (old != v)
				violation(q, "FADD at %llu of area %d saw 0x%llx, expected 0x%llx",
					  (unsigned long long)rel, q->i,
					  (unsigned long long)old,
					  (unsigned long long)v);
			v += n | 1;
			memcpy(q->shadow + rel, &v, 8);
		}
		return st;
	}
}

/*
 * One access through window [@off, +@len) with @rkey: WRITE, READ or
 * FADD (where the device has atomics) at random. Returns the status, a
 * refusal as IBV_WC_REM_ACCESS_ERR on every transport; on success the
 * shadow is updated (WRITE, FADD) or checked (READ).
 */
static int access_one(struct pair *q, uint32_t rkey, uint64_t off,
		      uint64_t len, unsigned int n)
{
	int st = access_once(q, rkey, off, len, n);

	return st == IBV_WC_SUCCESS ? st : test_refused_status(q->p, st);
}

/* Append to @msg, once, the revoke this round's controller made. */
static void name_revoke(const struct pair *q, char *msg, size_t size)
{
	size_t n = strlen(msg);

	if (!strstr(msg, "[revoke:"))
		snprintf(msg + n, size - n, " [revoke: %s, ioctl %d]",
			 act_name[q->action], q->result);
}

static void *peer_thread(void *arg)
{
	struct pair *q = arg;
	int k;

	while (test_now_s() < q->deadline && q->violations < 5) {
		unsigned int n;
		bool patient = rand_r(&q->seed) & 1;
		uint64_t off, len;
		uint32_t rkey;
		int st = 0, r;

		r = round_setup(q);
		if (r) {
			fail_err(q, "round %u: %s: %s", q->rounds, q->step,
				 strerror(-r));
			break;
		}
		q->rounds++;
		off = q->off;
		len = q->len;
		rkey = q->rkey;
		STORE(q->revoking, 0);
		STORE(q->returned, 0);
		STORE(q->tombstoned, 0);
		STORE(q->go, 1);
		for (n = 1; n <= MAX_OPS; n++) {
			bool after = LOAD(q->returned);
			bool target;

			/*
			 * A patient round works on the stable window until the
			 * revoke returned, then probes the target once.
			 */
			target = patient ? after : rand_r(&q->seed) % 4 != 0;
			if (!target) {
				st = access_one(q, q->srkey, q->soff, q->slen, n);
				q->ops++;
				if (st != IBV_WC_SUCCESS) {
					violation(q, "access to the stable window failed: %s (target: %s, revoking %d)",
						  mwpeer_status_str(st),
						  act_name[q->action],
						  LOAD(q->revoking));
					break;
				}
				q->ok++;
				continue;
			}
			st = access_one(q, rkey, off, len, n);
			q->ops++;
			q->probes += after;
			if (st == IBV_WC_SUCCESS) {
				q->ok++;
				if (after)
					violation(q, "access with rkey 0x%x posted after the revoking call returned succeeded",
						  rkey);
				continue;
			}
			if (st == IBV_WC_REM_INV_REQ_ERR && !after &&
			    LOAD(q->revoking)) {
				late(q, "an access racing the revoke (%s) was refused as an invalid request, not an access error",
				     act_name[q->action]);
				q->race_fails++;
			} else if (st != IBV_WC_REM_ACCESS_ERR)
				fail_err(q, "target access: %s (%s)",
				      mwpeer_status_str(st), mwpeer_errmsg(q->p));
			else if (!LOAD(q->revoking))
				violation(q, "access inside the valid target window failed");
			else if (!after)
				q->race_fails++;
			break;
		}
		/*
		 * Wait for the controller, then the area must be the shadow.
		 * A revoking call's bound (mwin.rst, "Bounded waits"):
		 * revoke_timeout_ms, then op_timeout_ms (10 s) for a rebind's
		 * REG_MR and as much for a cut-off peer's flush. A REG_MR on
		 * iWARP waits behind the peer's SENDs on its QP.
		 */
		for (k = 0; k < 25000 && !LOAD(q->tombstoned); k++)
			usleep(1000);
		if (!LOAD(q->tombstoned)) {
			fail_err(q, "controller did not revoke within 25 s");
			break;
		}
		memset(q->shadow + (off - area_base(q)), TOMB(q->i), len);
		if (st == IBV_WC_SUCCESS) {
			/*
			 * MAX_OPS all succeeded (should not happen: C acts
			 * within 3 ms); the connection still works, so one
			 * access with the old rkey must fail now.
			 */
			st = access_one(q, rkey, off, len, 0);
			q->probes++;
			if (st == IBV_WC_SUCCESS)
				violation(q, "rkey 0x%x works after the revoke returned",
					  rkey);
		}
		check_area(q, "after a round", off, len);
		/* name the revoke the first violation, late one or error raced */
		if (q->violations && q->first_round == q->rounds)
			name_revoke(q, q->first, sizeof(q->first));
		if (q->late && q->late_round == q->rounds)
			name_revoke(q, q->first_late, sizeof(q->first_late));
		if (q->errors && q->err_round == q->rounds)
			name_revoke(q, q->errmsg, sizeof(q->errmsg));
	}
	STORE(q->stop, 1);
	return NULL;
}

FIXTURE(races)
{
	int fd;
	uint32_t region;
	uint8_t *mem;
	size_t len;
};

FIXTURE_SETUP(races)
{
	self->fd = mwin_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, mwin_region_create(self->fd, REGION_LEN, 0, &self->region,
					NULL));
	self->mem = mwin_region_mmap(self->fd, self->region, &self->len);
	ASSERT_NE(NULL, self->mem);
}

FIXTURE_TEARDOWN(races)
{
	if (self->mem)
		munmap(self->mem, self->len);
	mwin_region_destroy(self->fd, self->region, MWIN_REGION_DESTROY_FORCE);
	close(self->fd);
}

TEST_F_TIMEOUT(races, revoke_under_traffic, 120)
{
	const char *env = getenv("MWIN_RACES_SECONDS");
	double secs = env ? atof(env) : 25;
	static struct pair pairs[NPAIRS];
	pthread_t pt[NPAIRS], ct[NPAIRS];
	unsigned int total[NACT] = { 0 }, rounds = 0, ops = 0, probes = 0;
	unsigned int races = 0, violations = 0, errors = 0, acterr = 0, lates = 0;
	bool strict = getenv("MWIN_RACES_STRICT") &&
		      atoi(getenv("MWIN_RACES_STRICT"));
	struct mwin_window_info wi;
	size_t k;
	int i, a;

	if (secs <= 0 || secs > 3600)
		secs = 25;
	for (i = 0; i < NPAIRS; i++) {
		struct pair *q = &pairs[i];

		memset(q, 0, sizeof(*q));
		q->i = i;
		q->fd = self->fd;
		q->region = self->region;
		q->mem = self->mem;
		q->deadline = test_now_s() + secs;
		q->seed = (unsigned int)time(NULL) * 7919 + i;
		ASSERT_EQ(0, pthread_create(&ct[i], NULL, controller, q));
		ASSERT_EQ(0, pthread_create(&pt[i], NULL, peer_thread, q));
	}
	for (i = 0; i < NPAIRS; i++) {
		struct pair *q = &pairs[i];

		pthread_join(pt[i], NULL);
		pthread_join(ct[i], NULL);
		rounds += q->rounds;
		ops += q->ops;
		probes += q->probes;
		races += q->race_fails;
		violations += q->violations;
		lates += q->late;
		errors += q->errors;
		acterr += q->act_errors;
		for (a = 0; a < NACT; a++)
			total[a] += q->acts[a];
		TH_LOG("pair %d: %u rounds, %u accesses (%u OK), %u probes after the revoke returned, %u failures while revoking, %u ioctl errors; slowest revoking call %.0f ms (%s, %d)",
		       i, q->rounds, q->ops, q->ok, q->probes, q->race_fails,
		       q->act_errors, q->slowest * 1000,
		       act_name[q->slowest_act], q->slowest_result);
		if (q->violations)
			TH_LOG("pair %d: %u violations, first: %s", i,
			       q->violations, q->first);
		if (q->errors)
			TH_LOG("pair %d: %u errors, first: %s", i, q->errors,
			       q->errmsg);
		if (q->late)
			TH_LOG("pair %d: %u late completions, first: %s", i,
			       q->late, q->first_late);
	}
	TH_LOG("%u rounds, %u accesses, %u probes after return, %u accesses failed mid-revoke; revokes: %u rebind, %u rebind elsewhere, %u rebind read-only, %u invalidate, %u destroy (%u returned an error)",
	       rounds, ops, probes, races, total[ACT_REBIND], total[ACT_MOVE],
	       total[ACT_RIGHTS], total[ACT_INVALIDATE], total[ACT_DESTROY],
	       acterr);

	/* the whole region: every area its shadow, the spare area zero */
	for (i = 0; i < NPAIRS; i++)
		EXPECT_EQ(0, memcmp(self->mem + (size_t)i * AREA,
				    pairs[i].shadow, AREA));
	for (k = (size_t)NPAIRS * AREA; k < REGION_LEN; k++)
		if (self->mem[k])
			break;
	EXPECT_EQ(REGION_LEN, k);
	EXPECT_EQ(0, violations);
	EXPECT_EQ(0, errors);
	EXPECT_LT(0, rounds);
	if (lates)
		TH_LOG("%u accesses accepted before a revoke moved data after it returned, or failed oddly: rxe's LOCAL_INV does not wait for requests it already checked (MWIN_RACES_STRICT=1 makes this fatal)",
		       lates);
	if (strict)
		EXPECT_EQ(0, lates);

	/* the windows are consistent, then gone with their peers */
	for (wi.id = 0; !mwin_window_get(self->fd, wi.id, MWIN_GET_NEXT, &wi);) {
		EXPECT_EQ(self->region, wi.region);
		EXPECT_GE(MWIN_WINDOW_BROKEN, wi.state);
	}
	for (i = 0; i < NPAIRS; i++)
		mwpeer_close(pairs[i].p);
}

struct creator {
	int fd;
	uint32_t region, peer;
	int stop;
	unsigned int made;
};

static void *create_windows(void *arg)
{
	struct creator *c = arg;
	unsigned int i;

	for (i = 0; !LOAD(c->stop); i++) {
		struct mwin_window_bind b = test_bind(c->region, c->peer,
						      (i % 64) * 4096, 4096,
						      MWIN_ACCESS_READ,
						      MWIN_WINDOW_OVERLAP);
		int r = mwin_window_create(c->fd, &b);

		if (r == -ENOENT)
			break;		/* the region is gone */
		c->made += !r;
	}
	return NULL;
}

TEST_F_TIMEOUT(races, force_destroy_vs_create, 90)
{
	struct mwpeer *p = test_connect();
	unsigned int round, orphans = 0, made = 0;
	unsigned int seed = time(NULL);
	double deadline = test_now_s() + 20;

	ASSERT_NE(NULL, p);
	for (round = 0; round < 100 && test_now_s() < deadline; round++) {
		struct creator c = { .fd = self->fd, .peer = mwpeer_id(p) };
		struct mwin_window_info wi;
		struct mwin_region_info ri;
		struct mwpeer_msg m;
		pthread_t t;
		int r;

		ASSERT_EQ(0, mwin_region_create(self->fd, 64 * 4096, 0,
						&c.region, NULL));
		ASSERT_EQ(0, pthread_create(&t, NULL, create_windows, &c));
		usleep(500 + rand_r(&seed) % 5000);
		r = mwin_region_destroy(self->fd, c.region,
					MWIN_REGION_DESTROY_FORCE);
		STORE(c.stop, 1);
		pthread_join(t, NULL);
		made += c.made;
		EXPECT_EQ(0, r);
		EXPECT_EQ(-ENOENT, mwin_region_get(self->fd, c.region, 0, &ri));
		for (wi.id = 0;
		     !mwin_window_get(self->fd, wi.id, MWIN_GET_NEXT, &wi);) {
			if (wi.region != c.region)
				continue;
			if (!orphans++)
				TH_LOG("round %u: REGION_DESTROY(FORCE) returned %d, but window %u of region %u is still there (%s, rkey 0x%x); READ through it: %s",
				       round, r, wi.id, c.region,
				       mwin_window_state_name(wi.state), wi.rkey,
				       wi.state == MWIN_WINDOW_BOUND ?
				       mwpeer_status_str(mwpeer_read(p, wi.rkey,
								     wi.iova, NULL, 8)) :
				       "not bound");
			mwin_window_destroy(self->fd, wi.id);
		}
		while (!mwpeer_next_msg(p, &m, 0))
			;
		if (orphans || mwpeer_qp_error(p))
			break;
	}
	TH_LOG("%u rounds, %u windows created, %u left behind by a forced region destroy",
	       round, made, orphans);
	EXPECT_EQ(0, orphans);
	mwpeer_close(p);
}

TEST_HARNESS_MAIN
