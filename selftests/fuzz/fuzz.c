// SPDX-License-Identifier: GPL-2.0
/*
 * The fuzzers, the traffic peers and the stranger of mwin_fuzz.c (see
 * fuzz.h, and mwin_fuzz.c's opening comment for what each does and what
 * the test checks afterwards).
 */
#define _GNU_SOURCE
#include <poll.h>
#include <stdarg.h>
#include <sys/ioctl.h>

#define MWIN_TEST_HELPER
#include "../mwin_test.h"
#include "fuzz.h"

#define MAX_REGION	(256 * 1024)

const char *const op_name[NOPS] = {
	"region_create", "region_destroy", "region_get", "mmap",
	"window_create", "window_rebind", "window_invalidate",
	"window_destroy", "window_get", "peer_get", "peer_disconnect",
	"info", "monitor", "raw", "reopen", "window_renew",
};

/* weights of the operations, out of their sum */
static const int op_weight[NOPS] = {
	8, 4, 4, 3, 20, 22, 8, 8, 6, 4, 1, 3, 2, 10, 1, 6,
};

const int errs[] = {
	0, ENOENT, EINVAL, ERANGE, EBUSY, E2BIG, ENOTCONN, ENOSPC, EFAULT,
	ENOTTY, EIO, ETIMEDOUT, ECONNABORTED, ENOMEM, EOPNOTSUPP, EAGAIN,
	ETIME, ESTALE, ENODEV, EACCES,
};
_Static_assert(sizeof(errs) / sizeof(errs[0]) == NERRS, "NERRS counts errs[]");

struct shared *sh;

static void tally(int op, int ret)
{
	unsigned int i;

	for (i = 0; i < NERRS; i++)
		if (errs[i] == -ret)
			break;
	if (i == NERRS)
		__atomic_compare_exchange_n(&sh->other[op], &(int){ 0 }, -ret,
					    false, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED);
	__atomic_add_fetch(&sh->count[op][i], 1, __ATOMIC_RELAXED);
}

__attribute__((format(printf, 1, 2)))
static void violation(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&sh->lock);
	if (!sh->violations++) {
		va_start(ap, fmt);
		vsnprintf(sh->first, sizeof(sh->first), fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&sh->lock);
}

/* ---------------------------------------------------------- fuzzers */

static unsigned int rnd(struct fuzzer *f, unsigned int n)
{
	return n ? rand_r(&f->seed) % n : 0;
}

static uint64_t rnd64(struct fuzzer *f)
{
	return ((uint64_t)rand_r(&f->seed) << 33) ^
	       ((uint64_t)rand_r(&f->seed) << 11) ^ rand_r(&f->seed);
}

static uint32_t pick_region(struct fuzzer *f, uint64_t *len)
{
	unsigned int r = rnd(f, 20), i = rnd(f, POOL);

	*len = MAX_REGION;
	if (r == 0)
		return rnd(f, 100);
	if (r == 1)
		return (uint32_t)rnd64(f);
	*len = LOAD(sh->rlen[i]);
	return LOAD(sh->regions[i]);
}

static uint32_t pick_window(struct fuzzer *f)
{
	unsigned int r = rnd(f, 20);

	if (r == 0)
		return rnd(f, 1000);
	if (r == 1)
		return (uint32_t)rnd64(f);
	return LOAD(sh->windows[rnd(f, WPOOL)]);
}

static uint32_t pick_peer(struct fuzzer *f)
{
	unsigned int r = rnd(f, 20);

	if (r == 0)
		return rnd(f, 50);
	if (r == 1)
		return 0;
	return LOAD(sh->peers[rnd(f, NTRAFFIC)]);
}

static void pool_put(uint32_t *pool, unsigned int n, uint32_t id,
		     struct fuzzer *f)
{
	unsigned int i, start = rnd(f, n);

	for (i = 0; i < n; i++) {
		uint32_t zero = 0;

		if (__atomic_compare_exchange_n(&pool[(start + i) % n], &zero,
						id, false, __ATOMIC_SEQ_CST,
						__ATOMIC_SEQ_CST))
			return;
	}
	/* full: replace a random one (it stays alive, unreferenced) */
	STORE(pool[start], id);
}

static void pool_drop(uint32_t *pool, unsigned int n, uint32_t id)
{
	unsigned int i;

	for (i = 0; id && i < n; i++) {
		uint32_t want = id;

		__atomic_compare_exchange_n(&pool[i], &want, 0, false,
					    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	}
}

static unsigned int pool_count(uint32_t *pool, unsigned int n)
{
	unsigned int i, c = 0;

	for (i = 0; i < n; i++)
		c += LOAD(pool[i]) != 0;
	return c;
}

/*
 * Call @cmd with @arg (of @size bytes), or, sometimes, with something
 * wrong about it: its size field, a flag, the tail past the struct, or
 * the pointer itself. No bit flips unless @flips: a flipped bit could make
 * a region gigabytes long, or a devs pointer point into this stack.
 * Returns 0 or -errno.
 */
static int call(struct fuzzer *f, unsigned long cmd, void *arg, size_t size,
		bool flips)
{
	uint8_t buf[512] __attribute__((aligned(8)));
	uint32_t *hdr = (uint32_t *)buf;
	int r = rnd(f, 100);

	memset(buf, 0, sizeof(buf));
	memcpy(buf, arg, size);
	if (r < 88) {
		/* as it is */
	} else if (r < 90) {
		hdr[0] = rnd(f, 2) ? rnd(f, 8) : (uint32_t)size - 4;
	} else if (r < 92) {
		hdr[0] = size + 8 + rnd(f, 64);	/* newer caller, zero tail */
	} else if (r < 94) {
		hdr[0] = size + 8;
		buf[size + rnd(f, 8)] = 1;	/* newer caller, junk tail */
	} else if (r < 96) {
		hdr[1] |= 1U << rnd(f, 32);	/* an unknown flag, perhaps */
	} else if (r < 98) {
		if (flips)			/* one bit */
			buf[rnd(f, size)] ^= 1 << rnd(f, 8);
	} else {
		return ioctl(f->fd, cmd, rnd(f, 2) ? NULL : (void *)16) ?
		       -errno : 0;
	}
	if (ioctl(f->fd, cmd, buf))
		return -errno;
	memcpy(arg, buf, size);
	return 0;
}

static int op_region_create(struct fuzzer *f)
{
	struct mwin_region_create a = { .size = sizeof(a) };
	unsigned int r = rnd(f, 100);
	int ret;

	if (pool_count(sh->regions, POOL) >= POOL - 4)
		return -EAGAIN;		/* counted, not called */
	a.length = r < 90 ? 1 + rnd(f, MAX_REGION) :
		   r < 95 ? 0 : (5ULL << 30) + rnd64(f) % (1ULL << 40);
	r = rnd(f, 100);
	a.flags = r < 70 ? 0 : r < 95 ? MWIN_CREATE_FD_OWNED : rnd(f, 16);
	ret = call(f, MWIN_REGION_CREATE, &a, sizeof(a), false);
	if (!ret && a.id) {
		unsigned int i;

		for (i = 0; i < POOL; i++) {
			uint32_t zero = 0;

			if (__atomic_compare_exchange_n(&sh->regions[i], &zero,
							a.id, false,
							__ATOMIC_SEQ_CST,
							__ATOMIC_SEQ_CST)) {
				STORE(sh->rlen[i], (a.length + 4095) & ~4095ULL);
				break;
			}
		}
	}
	return ret;
}

static int op_region_destroy(struct fuzzer *f)
{
	struct mwin_destroy a = { .size = sizeof(a) };
	unsigned int r = rnd(f, 100);
	uint64_t len;
	int ret;

	a.id = pick_region(f, &len);
	a.flags = r < 50 ? MWIN_REGION_DESTROY_FORCE : r < 97 ? 0 : rnd(f, 8);
	ret = call(f, MWIN_REGION_DESTROY, &a, sizeof(a), true);
	if (!ret || ret == -ENOENT)
		pool_drop(sh->regions, POOL, a.id);
	return ret;
}

static int op_region_get(struct fuzzer *f)
{
	struct mwin_region_info a = { .size = sizeof(a) };
	uint64_t len;

	uint32_t id;
	int ret;

	a.id = id = rnd(f, 4) ? pick_region(f, &len) : 0;
	a.flags = rnd(f, 3) ? 0 : MWIN_GET_NEXT;
	ret = call(f, MWIN_REGION_GET, &a, sizeof(a), true);
	if (ret == -ENOENT && !a.flags)
		pool_drop(sh->regions, POOL, id);	/* destroyed meanwhile */
	return ret;
}

static int op_mmap(struct fuzzer *f)
{
	uint64_t len, off;
	uint32_t id = pick_region(f, &len);
	size_t maplen;
	void *p;

	off = (uint64_t)rnd(f, (len >> 12) + 2) << 12;
	maplen = (size_t)(rnd(f, (len >> 12) + 2) + (rnd(f, 8) ? 1 : 0)) << 12;
	p = mmap(NULL, maplen ? maplen : 4096, PROT_READ | PROT_WRITE,
		 rnd(f, 20) ? MAP_SHARED : MAP_PRIVATE, f->fd,
		 ((uint64_t)id << 32) + off);
	if (p == MAP_FAILED) {
		if (errno == ENOENT)
			pool_drop(sh->regions, POOL, id);
		return -errno;
	}
	((volatile uint8_t *)p)[0]++;
	munmap(p, maplen ? maplen : 4096);
	return 0;
}

static void random_range(struct fuzzer *f, uint64_t rlen, __u64 *off,
			 __u64 *len)
{
	unsigned int r = rnd(f, 100);

	if (!rlen)
		rlen = MAX_REGION;
	if (r < 85) {
		*len = 1 + rnd(f, rnd(f, 4) ? 8192 : (unsigned int)rlen);
		if (*len > rlen)
			*len = rlen;
		*off = rnd(f, (unsigned int)(rlen - *len + 1));
	} else if (r < 95) {
		*len = 1 + rnd(f, 8192);
		*off = rlen - rnd(f, (unsigned int)*len);	/* crosses the end */
	} else {
		*len = rnd(f, 2) ? 0 : rnd64(f);
		*off = rnd64(f);
	}
}

static uint32_t random_access(struct fuzzer *f)
{
	unsigned int r = rnd(f, 100);

	return r < 90 ? 1 + rnd(f, 7) : r < 95 ? 0 : rnd(f, 256);
}

/* a lease of at most LEASE_MAX_MS, or none */
static uint32_t random_lease(struct fuzzer *f)
{
	return rnd(f, 8) < 5 ? 0 : 1 + rnd(f, LEASE_MAX_MS);
}

static int op_window_create(struct fuzzer *f)
{
	struct mwin_window_bind a = { .size = sizeof(a) };
	unsigned int r = rnd(f, 100);
	uint64_t rlen;
	int ret;

	if (pool_count(sh->windows, WPOOL) >= WPOOL - 8)
		return -EAGAIN;
	a.region = pick_region(f, &rlen);
	a.peer = pick_peer(f);
	random_range(f, rlen, &a.offset, &a.length);
	a.access = random_access(f);
	a.flags = r < 40 ? 0 : r < 85 ? MWIN_WINDOW_OVERLAP :
		  r < 97 ? MWIN_WINDOW_OVERLAP | MWIN_CREATE_FD_OWNED :
		  rnd(f, 16);
	if (rnd(f, 8) == 0)
		a.flags |= MWIN_WINDOW_ONCE;
	a.expires_ms = random_lease(f);
	ret = call(f, MWIN_WINDOW_CREATE, &a, sizeof(a), true);
	if (!ret && a.id)
		pool_put(sh->windows, WPOOL, a.id, f);
	return ret;
}

static int op_window_rebind(struct fuzzer *f)
{
	struct mwin_window_bind a = { .size = sizeof(a) };
	struct mwin_window_info wi;
	uint64_t rlen = MAX_REGION;
	struct mwin_region_info ri;
	unsigned int r = rnd(f, 100);

	a.id = pick_window(f);
	if (mwin_window_get(f->fd, a.id, 0, &wi) == -ENOENT)
		pool_drop(sh->windows, WPOOL, a.id);
	else if (!mwin_region_get(f->fd, wi.region, 0, &ri))
		rlen = ri.length;
	a.peer = rnd(f, 2) ? 0 : pick_peer(f);
	random_range(f, rlen, &a.offset, &a.length);
	a.access = random_access(f);
	a.flags = r < 50 ? 0 : r < 97 ? MWIN_WINDOW_OVERLAP : rnd(f, 16);
	if (rnd(f, 50) == 0)
		a.region = 1 + rnd(f, 10);	/* must be 0 */
	a.expires_ms = random_lease(f);
	return call(f, MWIN_WINDOW_REBIND, &a, sizeof(a), true);
}

/* Push a lease back (or give one), whatever the window's state. */
static int op_window_renew(struct fuzzer *f)
{
	struct mwin_window_renew a = { .size = sizeof(a) };

	a.id = pick_window(f);
	a.expires_ms = rnd(f, 20) ? random_lease(f) ?: 1 : 0;
	return call(f, MWIN_WINDOW_RENEW, &a, sizeof(a), true);
}

static int op_destroy(struct fuzzer *f, unsigned long cmd, uint32_t id)
{
	struct mwin_destroy a = { .size = sizeof(a), .id = id };

	if (rnd(f, 30) == 0)
		a.flags = 1 + rnd(f, 7);
	if (rnd(f, 30) == 0)
		a.__reserved = 1;
	return call(f, cmd, &a, sizeof(a), true);
}

static int op_window_get(struct fuzzer *f)
{
	struct mwin_window_info a = { .size = sizeof(a) };

	uint32_t id;
	int ret;

	a.id = id = rnd(f, 4) ? pick_window(f) : 0;
	a.flags = rnd(f, 3) ? 0 : MWIN_GET_NEXT;
	ret = call(f, MWIN_WINDOW_GET, &a, sizeof(a), true);
	if (ret == -ENOENT && !a.flags)
		pool_drop(sh->windows, WPOOL, id);
	return ret;
}

static int op_peer_get(struct fuzzer *f)
{
	struct mwin_peer_info a = { .size = sizeof(a) };

	a.id = rnd(f, 2) ? pick_peer(f) : 0;
	a.flags = rnd(f, 2) ? 0 : MWIN_GET_NEXT;
	return call(f, MWIN_PEER_GET, &a, sizeof(a), true);
}

static int op_info(struct fuzzer *f)
{
	struct mwin_dev_info devs[4];
	struct mwin_info a = { .size = sizeof(a) };
	unsigned int r = rnd(f, 4);

	a.nr_devs = rnd(f, 5);
	a.dev_info_size = sizeof(devs[0]);
	if (r == 0) {
		a.devs = 0;
		a.nr_devs = (uint32_t)rnd64(f);
	} else if (r == 1) {
		a.devs = rnd(f, 2) ? 8 : 0xffff888000000000ULL;
	} else {
		a.devs = (uintptr_t)devs;
		if (r == 3)		/* an older, smaller entry */
			a.dev_info_size = rnd(f, sizeof(devs[0]) + 1);
	}
	return call(f, MWIN_INFO, &a, sizeof(a), false);
}

static int op_monitor(struct fuzzer *f)
{
	struct mwin_event ev[8];
	struct mwin_monitor m = { .size = sizeof(m) };
	size_t sz[] = { 0, 1, sizeof(ev[0]) - 1, sizeof(ev[0]), sizeof(ev) };
	ssize_t n;

	if (f->mon < 0) {
		f->mon = open(MWIN_DEV_PATH, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		if (f->mon < 0)
			return -errno;
		if (rnd(f, 4) && ioctl(f->mon, MWIN_MONITOR, &m))
			return -errno;
	}
	n = read(f->mon, ev, sz[rnd(f, 5)]);
	if (rnd(f, 50) == 0) {
		close(f->mon);
		f->mon = -1;
	}
	return n < 0 ? -errno : 0;
}

/* A random command number, direction and size; random bytes or pointer. */
/* The module takes only these numbers, whole: most raw calls use one. */
static const unsigned long real_cmds[] = {
	MWIN_INFO, MWIN_REGION_CREATE, MWIN_REGION_DESTROY, MWIN_REGION_GET,
	MWIN_WINDOW_CREATE, MWIN_WINDOW_REBIND, MWIN_WINDOW_INVALIDATE,
	MWIN_WINDOW_DESTROY, MWIN_WINDOW_GET, MWIN_PEER_GET,
	MWIN_PEER_DISCONNECT, MWIN_MONITOR, MWIN_WINDOW_BATCH, MWIN_STATS,
	MWIN_WINDOW_RENEW,
};

static int op_raw(struct fuzzer *f)
{
	uint8_t buf[512] __attribute__((aligned(8)));
	unsigned int nr = rnd(f, 10) ? rnd(f, 0x20) : rnd(f, 256);
	unsigned int size = rnd(f, 4) ? rnd(f, 200) : rnd(f, 0x4000);
	unsigned long cmd = _IOC(rnd(f, 4), rnd(f, 20) ? MWIN_IOCTL_MAGIC :
				 rnd(f, 256), nr, size & 0x3fff);
	uint32_t *w = (uint32_t *)buf;
	unsigned int i;
	void *arg = buf;

	if (rnd(f, 4)) {
		cmd = real_cmds[rnd(f, sizeof(real_cmds) / sizeof(real_cmds[0]))];
		nr = _IOC_NR(cmd);
	}
	for (i = 0; i < sizeof(buf) / 4; i++)
		w[i] = rnd(f, 3) ? (uint32_t)rnd64(f) : 0;
	/* a plausible size field most of the time */
	if (rnd(f, 4))
		w[0] = rnd(f, 2) ? 8 * (1 + rnd(f, 30)) : rnd(f, 512);
	/* never a valid region length: a random one could be gigabytes */
	if (nr == MWIN_CMD_REGION_CREATE) {
		w[2] = 0;
		w[3] = rnd(f, 2) ? 0 : 0x100;
	}
	/* ids mostly from the pools, so that calls get past the lookup */
	if (rnd(f, 2)) {
		uint64_t len;

		w[2] = nr == MWIN_CMD_REGION_CREATE ? 0 :
		       rnd(f, 2) ? pick_window(f) : pick_region(f, &len);
	}
	/* MWIN_INFO: devs (bytes 56..63) never points into this process */
	if (nr == MWIN_CMD_INFO && w[15] < 0xffff8000U)
		w[14] = w[15] = 0;
	if (rnd(f, 10) == 0)
		arg = rnd(f, 2) ? NULL : (void *)(uintptr_t)(0xffff888000000000ULL +
							   rnd64(f) % (1 << 30));
	if (ioctl(f->fd, cmd, arg))
		return -errno;
	return 0;
}

static int op_peer_disconnect(struct fuzzer *f)
{
	static int64_t last;
	int64_t now = (int64_t)test_now_s();
	uint32_t id = 100000 + rnd(f, 1000);	/* most of the time: none */

	/* a traffic peer at most every 3 s, so that traffic gets going */
	if (now - LOAD(last) >= 3) {
		STORE(last, now);
		id = pick_peer(f);
	}
	return op_destroy(f, MWIN_PEER_DISCONNECT, id);
}

void *fuzz_thread(void *arg)
{
	struct fuzzer *f = arg;
	int total = 0, i;

	for (i = 0; i < NOPS; i++)
		total += op_weight[i];
	while (test_now_s() < sh->deadline && !LOAD(sh->stop)) {
		int pick = rnd(f, total), op, ret;

		for (op = 0; pick >= op_weight[op]; op++)
			pick -= op_weight[op];
		switch (op) {
		case OP_REGION_CREATE: ret = op_region_create(f); break;
		case OP_REGION_DESTROY: ret = op_region_destroy(f); break;
		case OP_REGION_GET: ret = op_region_get(f); break;
		case OP_MMAP: ret = op_mmap(f); break;
		case OP_WINDOW_CREATE: ret = op_window_create(f); break;
		case OP_WINDOW_REBIND: ret = op_window_rebind(f); break;
		case OP_WINDOW_INVALIDATE:
			ret = op_destroy(f, MWIN_WINDOW_INVALIDATE, pick_window(f));
			break;
		case OP_WINDOW_DESTROY: {
			uint32_t id = pick_window(f);

			ret = op_destroy(f, MWIN_WINDOW_DESTROY, id);
			if (!ret || ret == -ENOENT)
				pool_drop(sh->windows, WPOOL, id);
			break;
		}
		case OP_WINDOW_GET: ret = op_window_get(f); break;
		case OP_PEER_GET: ret = op_peer_get(f); break;
		case OP_PEER_DISCONNECT: ret = op_peer_disconnect(f); break;
		case OP_INFO: ret = op_info(f); break;
		case OP_MONITOR: ret = op_monitor(f); break;
		case OP_RAW: ret = op_raw(f); break;
		case OP_WINDOW_RENEW: ret = op_window_renew(f); break;
		default:
			/* close: this fd's FD_OWNED objects go with it */
			close(f->fd);
			f->fd = mwin_open();
			ret = f->fd < 0 ? f->fd : 0;
			if (f->fd < 0) {
				violation("cannot reopen %s: %s", MWIN_DEV_PATH,
					  strerror(-ret));
				return NULL;
			}
			break;
		}
		tally(op, ret);
	}
	return NULL;
}

/* ----------------------------------------------------------- traffic */

static int traffic_connect(struct traffic *tr)
{
	struct mwin_peer_info pi;
	uint32_t old = tr->p ? mwpeer_id(tr->p) : 0;
	int k, r;

	for (k = 0; old && k < 5000; k++) {
		if (mwin_peer_get(tr->fd, old, 0, &pi) == -ENOENT)
			break;
		usleep(1000);
	}
	if (tr->p) {
		r = mwpeer_reconnect(tr->p);
	} else {
		tr->p = mwpeer_connect(test_host(), 0, NULL, TEST_TIMEOUT_MS, &r);
		if (!tr->p && !r)
			r = -ECONNREFUSED;
	}
	if (r)
		return r;
	mwpeer_set_timeout(tr->p, 5000);
	for (k = 0; k < 5000; k++) {
		if (!mwin_peer_get(tr->fd, mwpeer_id(tr->p), 0, &pi) &&
		    pi.state == MWIN_PEER_CONNECTED)
			break;
		usleep(1000);
	}
	tr->nseen = 0;
	tr->nrev = 0;
	STORE(sh->peers[tr->t], mwpeer_id(tr->p));
	return 0;
}

/* Take the messages; remember what revokes kill. */
static void traffic_messages(struct traffic *tr)
{
	struct mwpeer_msg m;
	size_t i;

	while (!mwpeer_next_msg(tr->p, &m, 0)) {
		if (m.type != MWIN_WIRE_REVOKE)
			continue;
		for (i = 0; i < tr->nseen; i++) {
			if (tr->seen[i].rkey != m.rkey)
				continue;
			tr->revoked[tr->nrev % 16].rkey = m.rkey;
			tr->revoked[tr->nrev % 16].iova = tr->seen[i].iova;
			tr->revoked[tr->nrev % 16].at = test_now_s();
			tr->nrev++;
			break;
		}
	}
	tr->nseen = mwpeer_grants(tr->p, tr->seen, WPOOL);
	if (tr->nseen > WPOOL)
		tr->nseen = WPOOL;
}

void *traffic_thread(void *arg)
{
	struct traffic *tr = arg;
	unsigned long n = 0;

	if (traffic_connect(tr)) {
		violation("traffic peer %d cannot connect", tr->t);
		return NULL;
	}
	while (!LOAD(sh->stop)) {
		struct mwpeer_msg g;
		uint64_t at, old;
		size_t i;
		int st, kind;

		if (mwpeer_state(tr->p) != MWPEER_CONNECTED ||
		    mwpeer_qp_error(tr->p)) {
			__atomic_add_fetch(&sh->reconnects, 1, __ATOMIC_RELAXED);
			if (traffic_connect(tr)) {
				usleep(100000);
				continue;
			}
		}
		traffic_messages(tr);
		n++;
		/* a probe: an rkey revoked less than 0.5 s ago must be dead */
		if (n % 32 == 0 && tr->nrev) {
			unsigned int k = (tr->nrev - 1) % 16;
			bool current = false;

			for (i = 0; i < tr->nseen; i++)
				current |= tr->seen[i].rkey == tr->revoked[k].rkey;
			if (!current && test_now_s() - tr->revoked[k].at < 0.5) {
				st = mwpeer_read(tr->p, tr->revoked[k].rkey,
						 tr->revoked[k].iova, NULL, 1);
				__atomic_add_fetch(&sh->probes, 1, __ATOMIC_RELAXED);
				if (st == IBV_WC_SUCCESS)
					violation("peer %u: rkey 0x%x worked after its revoke message",
						  mwpeer_id(tr->p),
						  tr->revoked[k].rkey);
				tr->nrev = 0;
				continue;
			}
		}
		if (!tr->nseen || !tr->access) {
			mwpeer_poll(tr->p, 5);
			continue;
		}
		g = tr->seen[rand_r(&tr->seed) % tr->nseen];
		at = g.iova + rand_r(&tr->seed) % g.length;
		kind = rand_r(&tr->seed) % 3;
		if (kind == 2 && !(g.access & MWIN_ACCESS_ATOMIC))
			kind = 0;
		if (kind == 0 && !(g.access & MWIN_ACCESS_READ))
			kind = 1;
		if (kind == 1 && !(g.access & MWIN_ACCESS_WRITE))
			kind = g.access & MWIN_ACCESS_READ ? 0 : 2;
		if (kind == 2) {
			at = (at + 7) & ~7ULL;
			if (at + 8 > g.iova + g.length)
				continue;
			st = mwpeer_fadd(tr->p, g.rkey, at, 1, &old);
		} else {
			size_t len = 1 + rand_r(&tr->seed) % 64;

			if (at + len > g.iova + g.length)
				len = g.iova + g.length - at;
			st = kind ? mwpeer_write(tr->p, g.rkey, at, NULL, len) :
				    mwpeer_read(tr->p, g.rkey, at, NULL, len);
		}
		if (st == IBV_WC_SUCCESS)
			__atomic_add_fetch(&sh->traffic_ok, 1, __ATOMIC_RELAXED);
		else
			__atomic_add_fetch(&sh->traffic_fail, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

/* ------------------------------------------------------------ checks */

void meminfo(char *out, size_t len)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];
	size_t n = 0;

	out[0] = '\0';
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long kb;
		char key[32];

		if (sscanf(line, "%31[^:]: %lu", key, &kb) != 2)
			continue;
		if (!strcmp(key, "MemFree") || !strcmp(key, "Slab") ||
		    !strcmp(key, "SReclaimable") || !strcmp(key, "SUnreclaim"))
			n += snprintf(out + n, len - n, "%s %lu kB ", key, kb);
		if (n >= len)
			break;
	}
	fclose(f);
}

/* ---------------------------------------------------------- stranger */

/* One call of the stranger's at root's object @id: what it must get. */
static int stranger_call(struct fuzzer *f, int fd, uint32_t id, int *want)
{
	struct mwin_window_bind b = test_bind(0, 0, 0, 4096, MWIN_ACCESS_READ,
					      0);
	struct mwin_region_info ri;
	struct mwin_window_info wi;
	void *mem;

	*want = -ENOENT;
	b.id = id;
	switch (rnd(f, 9)) {
	case 0:
		return mwin_region_get(fd, id, 0, &ri);
	case 1:
		return mwin_region_destroy(fd, id, MWIN_REGION_DESTROY_FORCE);
	case 2:
		mem = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd,
			   (off_t)id << 32);
		if (mem != MAP_FAILED)
			munmap(mem, 4096);
		return mem == MAP_FAILED ? -errno : 0;
	case 3:
		return mwin_window_get(fd, id, 0, &wi);
	case 4:
		return mwin_window_rebind(fd, &b);
	case 5:
		return mwin_window_invalidate(fd, id);
	case 6:
		return mwin_window_destroy(fd, id);
	case 7:
		return mwin_window_renew(fd, id, 1, NULL);
	default:
		*want = -EPERM;
		return mwin_peer_disconnect(fd, id);
	}
}

/* The stranger, in a process of its own as STRANGER_UID, until the end. */
int stranger(void)
{
	struct fuzzer f = { .seed = (unsigned int)time(NULL) * 7 };
	gid_t gid = STRANGER_UID;
	uint64_t len;
	uint32_t id;
	int fd, ret, want;

	if (setgroups(1, &gid) || setresgid(gid, gid, gid) ||
	    setresuid(STRANGER_UID, STRANGER_UID, STRANGER_UID))
		return 1;
	fd = mwin_open();
	if (fd < 0)
		return 2;
	while (!LOAD(sh->stop) && test_now_s() < sh->deadline) {
		switch (rnd(&f, 3)) {
		case 0:
			id = pick_region(&f, &len);
			break;
		case 1:
			id = pick_window(&f);
			break;
		default:
			id = pick_peer(&f);
			break;
		}
		if (!id)
			continue;
		ret = stranger_call(&f, fd, id, &want);
		sh->stranger_calls++;
		if (ret != want && !sh->stranger_bad++)
			snprintf(sh->stranger_first, sizeof(sh->stranger_first),
				 "id %u: %d, not %d", id, ret, want);
	}
	close(fd);
	return 0;
}
