// SPDX-License-Identifier: GPL-2.0
/*
 * The state checker of mwin_faults: after a fault, and once things
 * settled, the module's peers, regions and windows must agree with what
 * the peer processes hold (compare_state()); then a pattern written into
 * every bound window through mmap must reach the peers, and their writes
 * the memory (verify_data()). At the end of a test what it made is
 * destroyed and the module's counts must be back at the start's.
 */
#define _GNU_SOURCE
#include "faults.h"

/* Unmap the regions region_mem() mapped. */
void unmap_all(FIXTURE_DATA(faults) *self)
{
	int i;

	for (i = 0; i < self->nmaps; i++)
		munmap(self->maps[i].mem, self->maps[i].len);
	self->nmaps = 0;
}

/*
 * Region @id mapped into the test (once, kept in self->maps until
 * unmap_all()), its length in @len; NULL if it cannot be.
 */
uint8_t *region_mem(FIXTURE_DATA(faults) *self, uint32_t id,
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

/* The windows made since the test started, into self->wins: how many. */
int list_windows(FIXTURE_DATA(faults) *self)
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

/*
 * Settle and compare; then, with CHECK_REBIND, bind the windows left
 * unbound and compare again; with CHECK_VERIFY, check the data of every
 * bound window. The peers run again afterwards.
 */
void settle_and_check(struct __test_metadata *_metadata,
		      FIXTURE_DATA(faults) *self, int from, int to,
		      int what, const char *when)
{
	int n = settle(_metadata, self, from, to, when);

	if (!n && (what & CHECK_REBIND)) {
		n = rebind_leftovers(_metadata, self, from, to);
		TH_LOG("%.2fs: %d windows bound again", t_rel(self), n);
		n = settle(_metadata, self, from, to, when);
	}
	if (n)		/* settle() said what disagrees */
		step_failed(_metadata, self);
	else if (what & CHECK_VERIFY)
		verify_data(_metadata, self, from, to);
	unmap_all(self);
	peers_cmd(self, from, to, CMD_RUN);
}

/* Destroy what the test made, then the counts must be the start's. */
void cleanup_and_count(struct __test_metadata *_metadata,
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
	       t_rel(self), slab_used_kb() - at_start.used_kb);
	EXPECT_EQ(self->info0.nr_peers, info.nr_peers);
	EXPECT_EQ(self->info0.nr_windows, info.nr_windows);
	EXPECT_EQ(self->info0.nr_regions, info.nr_regions);
	EXPECT_EQ(self->info0.region_bytes, info.region_bytes);
}

/* fd-owned windows and regions left (the first logged): none may be. */
int no_fd_owned(struct __test_metadata *_metadata,
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

/*
 * The newest window and region, and the module's counts, when the test
 * starts: the checks look at what comes after.
 */
void set_base(FIXTURE_DATA(faults) *self)
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

/*
 * One window per peer of @from..@to-1 in @region (made by the test, so no
 * controller destroys it): created when @ids[i] is 0, else rebound to the
 * peer's current connection. Returns how many calls succeeded.
 */
int bind_own(FIXTURE_DATA(faults) *self, uint32_t region, int from,
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

/* Each window's id, state, rkey, peer and binds: what a failed rmmod keeps. */
int snap_windows(FIXTURE_DATA(faults) *self, struct wsnap *out)
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
