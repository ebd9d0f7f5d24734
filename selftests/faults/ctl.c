// SPDX-License-Identifier: GPL-2.0
/*
 * The controller process of mwin_faults: it opens /dev/mwin, makes a
 * module-owned and an fd-owned region and runs NTHREADS threads of window
 * calls on NWSLOTS shared slots (creates, rebinds, invalidations,
 * destroys, batches of them, regions force-destroyed or released with a
 * second file, listings, peer disconnects). Each thread publishes the call
 * it is in (for drive.c's hang watch and the fault log) and counts what
 * its calls returned; a result a call cannot return under this load is
 * recorded as bad, and drive.c's ctl_report() fails the test on it.
 */
#define _GNU_SOURCE
#include <pthread.h>

#include "faults.h"

#define NWSLOTS		48
#define MOD_REGION	(512 * 1024)
#define SCRATCH_REGION	(64 * 1024)

const char *const op_name[NOPS] = {
	"-", "create", "rebind", "invalidate", "destroy", "batch",
	"region", "fd-close", "query", "disconnect", "racy-invalidate",
};

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

/*
 * The controller process: its two regions, mapped, then NTHREADS threads
 * of calls until the test sets ctl_stop or kills it.
 */
void __attribute__((noreturn)) ctl_main(struct shared *sh, unsigned int seed)
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
