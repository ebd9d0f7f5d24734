// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libmwinpeer: the module's grant and revoke messages, and the grant table.
 */
#include "internal.h"

#include <endian.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ messages */

__attribute__((format(printf, 2, 3)))
static void proto_error(struct mwpeer *p, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (!p->proto_errors++)
		snprintf(p->proto_first, sizeof(p->proto_first), "%s", buf);
	peer_seterr(p, "bad message: %s", buf);
}

static void queue_msg(struct mwpeer *p, const struct mwpeer_msg *m)
{
	if (p->q_head + p->q_len == p->q_cap) {
		if (p->q_head) {
			memmove(p->q, p->q + p->q_head, p->q_len * sizeof(*p->q));
			p->q_head = 0;
		} else {
			size_t cap = p->q_cap ? p->q_cap * 2 : 64;
			struct mwpeer_msg *q;

			if (cap > MAX_QUEUED ||
			    !(q = realloc(p->q, cap * sizeof(*q)))) {
				proto_error(p, "message seq %u dropped: %zu messages queued and not taken",
					    m->seq, p->q_len);
				return;
			}
			p->q = q;
			p->q_cap = cap;
		}
	}
	p->q[p->q_head + p->q_len++] = *m;
}

/* ------------------------------------------------------ grant table */

static size_t grant_hash(const struct peer_grants *g, uint32_t window)
{
	return (size_t)(window * 2654435761U) & (g->cap - 1);
}

/* The slot of @window, or the free slot where it would go. */
static struct peer_grant *grant_slot(const struct peer_grants *g,
				     uint32_t window)
{
	size_t i = grant_hash(g, window);

	while (g->slot[i].m.window && g->slot[i].m.window != window)
		i = (i + 1) & (g->cap - 1);
	return &g->slot[i];
}

const struct peer_grant *peer_grant_find(const struct peer_grants *g,
					 uint32_t window)
{
	const struct peer_grant *e;

	if (!g->n || !window)
		return NULL;
	e = grant_slot(g, window);
	return e->m.window ? e : NULL;
}

static int grants_grow(struct peer_grants *g)
{
	struct peer_grants bigger = { .cap = g->cap ? 2 * g->cap : 64 };
	size_t i;

	bigger.slot = calloc(bigger.cap, sizeof(*bigger.slot));
	if (!bigger.slot)
		return -ENOMEM;
	for (i = 0; i < g->cap; i++)
		if (g->slot[i].m.window)
			*grant_slot(&bigger, g->slot[i].m.window) = g->slot[i];
	bigger.n = g->n;
	free(g->slot);
	*g = bigger;
	return 0;
}

/* Empty @e's slot, moving back the entries of its probe run behind it. */
static void grant_remove(struct peer_grants *g, const struct peer_grant *e)
{
	size_t hole = (size_t)(e - g->slot);
	size_t i = hole;

	for (;;) {
		size_t home;

		i = (i + 1) & (g->cap - 1);
		if (!g->slot[i].m.window)
			break;
		home = grant_hash(g, g->slot[i].m.window);
		/* moves unless its home lies cyclically in (hole, i] */
		if ((i - home) % g->cap >= (i - hole) % g->cap) {
			g->slot[hole] = g->slot[i];
			hole = i;
		}
	}
	memset(&g->slot[hole], 0, sizeof(g->slot[hole]));
	g->n--;
}

void peer_grants_free(struct peer_grants *g)
{
	free(g->slot);
	memset(g, 0, sizeof(*g));
}

/* mwpeer_post() handed @window back: no operation may use it any more. */
void peer_grant_forget(struct mwpeer *p, uint32_t window)
{
	const struct peer_grant *e = peer_grant_find(&p->grants, window);

	if (e)
		grant_remove(&p->grants, e);
}

static void apply_grant(struct mwpeer *p, const struct mwpeer_msg *m)
{
	struct peer_grant *e;

	if (2 * (p->grants.n + 1) > p->grants.cap &&
	    grants_grow(&p->grants)) {
		peer_seterr(p, "out of memory for the grant of window %u",
			    m->window);
		return;
	}
	e = grant_slot(&p->grants, m->window);
	if (!e->m.window)
		p->grants.n++;
	e->m = *m;
	e->expires_ms = m->lease_ms ? peer_now_ms() + m->lease_ms : 0;
}

static void apply_msg(struct mwpeer *p, const struct mwpeer_msg *m)
{
	const struct peer_grant *e;

	if (!m->window)
		return;
	if (m->type == MWIN_WIRE_GRANT) {
		apply_grant(p, m);
		return;
	}
	e = peer_grant_find(&p->grants, m->window);
	if (!e) {
		proto_error(p, "seq %u revokes rkey 0x%x of window %u, which has no grant",
			    m->seq, m->rkey, m->window);
		return;
	}
	if (e->m.rkey != m->rkey) {
		proto_error(p, "seq %u revokes rkey 0x%x of window %u, whose grant is rkey 0x%x",
			    m->seq, m->rkey, m->window, e->m.rkey);
		return;
	}
	grant_remove(&p->grants, e);
}

static bool all_zero(const void *buf, size_t len)
{
	const uint8_t *b = buf;

	while (len--)
		if (*b++)
			return false;
	return true;
}

static void handle_msg(struct mwpeer *p, const void *raw,
		       const struct ibv_wc *wc)
{
	struct mwin_wire_msg w;
	struct mwpeer_msg m;
	unsigned int before = p->proto_errors;

	memcpy(&w, raw, sizeof(w));
	if (le32toh(w.magic) != MWIN_WIRE_MAGIC) {
		proto_error(p, "bad magic 0x%08x", le32toh(w.magic));
		return;
	}
	if (w.version != MWIN_WIRE_VERSION) {
		proto_error(p, "bad version %u", w.version);
		return;
	}
	if (w.type != MWIN_WIRE_GRANT && w.type != MWIN_WIRE_REVOKE) {
		proto_error(p, "bad type %u (seq %u)", w.type, le32toh(w.seq));
		return;
	}
	memset(&m, 0, sizeof(m));
	m.type = w.type;
	m.access = le16toh(w.access);
	m.seq = le32toh(w.seq);
	m.window = le32toh(w.window);
	m.rkey = le32toh(w.rkey);
	m.iova = le64toh(w.iova);
	m.length = le64toh(w.length);
	m.lease_ms = le32toh(w.lease_ms);
	m.flags = le32toh(w.flags);
	m.recv = p->recvs;

	if (m.seq != p->last_seq + 1) {
		proto_error(p, "seq %u after seq %u", m.seq, p->last_seq);
		if (m.seq > p->last_seq)
			m.missed = m.seq - p->last_seq - 1;
	}
	p->last_seq = m.seq;
	if (w.__reserved1 || !all_zero(w.__reserved, sizeof(w.__reserved)))
		proto_error(p, "seq %u: reserved bytes not zero", m.seq);
	if (wc->wc_flags & (IBV_WC_WITH_IMM | IBV_WC_WITH_INV))
		proto_error(p, "seq %u: sent with immediate data or invalidate",
			    m.seq);
	if (!m.window)
		proto_error(p, "seq %u: window id 0", m.seq);
	if (m.type == MWIN_WIRE_GRANT) {
		if (!m.access || (m.access & ~MWIN_ACCESS_ALL))
			proto_error(p, "seq %u: grant with access 0x%x",
				    m.seq, m.access);
		if (!m.length)
			proto_error(p, "seq %u: grant of 0 bytes", m.seq);
		if (m.flags & ~MWIN_WIRE_GRANT_ONCE)
			proto_error(p, "seq %u: grant flags 0x%x", m.seq, m.flags);
	} else if (m.access < MWIN_REVOKE_INVALIDATE ||
		   m.access > MWIN_REVOKE_EXPIRED) {
		proto_error(p, "seq %u: revoke reason %u", m.seq, m.access);
	} else if (m.lease_ms || m.flags) {
		proto_error(p, "seq %u: revoke with a lease or flags", m.seq);
	}
	m.valid = p->proto_errors == before;
	apply_msg(p, &m);
	if (p->proto_errors != before)
		m.valid = false;
	queue_msg(p, &m);
}

/* One SEND from the module: 1 to MWIN_WIRE_MSGS_PER_SEND messages. */
void peer_handle_recv(struct mwpeer *p, const uint8_t *raw, uint32_t len,
			const struct ibv_wc *wc)
{
	uint32_t off;

	if (!len || len % MSG_SIZE) {
		proto_error(p, "receive of %u bytes, not a multiple of %zu",
			    len, MSG_SIZE);
		return;
	}
	p->recvs++;
	for (off = 0; off < len; off += MSG_SIZE)
		handle_msg(p, raw + off, wc);
}

bool peer_take_msg(struct mwpeer *p, struct mwpeer_msg *out)
{
	if (!p->q_len)
		return false;
	*out = p->q[p->q_head];
	p->q_head++;
	if (!--p->q_len)
		p->q_head = 0;
	return true;
}

/*
 * Take in what comes until @found(@p, @arg), for @timeout_ms (negative: the
 * peer's timeout). Return: 0, -ETIMEDOUT, or -ENOTCONN (not found and not
 * connected).
 */
static int wait_for(struct mwpeer *p, int timeout_ms,
		    bool (*found)(struct mwpeer *p, void *arg), void *arg)
{
	int64_t deadline;

	if (timeout_ms < 0)
		timeout_ms = p->timeout_ms;
	deadline = peer_now_ms() + timeout_ms;
	for (;;) {
		int left;

		if (found(p, arg))
			return 0;
		if (p->state != MWPEER_CONNECTED)
			return -ENOTCONN;
		left = peer_ms_left(deadline);
		if (!left)
			return -ETIMEDOUT;
		peer_ep_wait(p, left);
	}
}

static bool msg_taken(struct mwpeer *p, void *out)
{
	if (!p->q_len)
		mwpeer_poll(p, 0);
	return peer_take_msg(p, out);
}

int mwpeer_next_msg(struct mwpeer *p, struct mwpeer_msg *out, int timeout_ms)
{
	return wait_for(p, timeout_ms, msg_taken, out);
}

int mwpeer_grant(const struct mwpeer *p, uint32_t window,
		 struct mwpeer_msg *out)
{
	const struct peer_grant *e = peer_grant_find(&p->grants, window);

	if (!e)
		return -ENOENT;
	if (out)
		*out = e->m;
	return 0;
}

struct new_grant {
	uint32_t window;
	uint32_t old_rkey;
	struct mwpeer_msg *out;
};

static bool grant_seen(struct mwpeer *p, void *arg)
{
	struct new_grant *w = arg;
	struct mwpeer_msg g;

	mwpeer_poll(p, 0);
	if (mwpeer_grant(p, w->window, &g) ||
	    (w->old_rkey && g.rkey == w->old_rkey))
		return false;
	if (w->out)
		*w->out = g;
	return true;
}

int mwpeer_wait_grant(struct mwpeer *p, uint32_t window, uint32_t old_rkey,
		      struct mwpeer_msg *out, int timeout_ms)
{
	struct new_grant w = { window, old_rkey, out };

	return wait_for(p, timeout_ms, grant_seen, &w);
}

static int by_window(const void *a, const void *b)
{
	uint32_t x = ((const struct mwpeer_msg *)a)->window;
	uint32_t y = ((const struct mwpeer_msg *)b)->window;

	return x < y ? -1 : x > y;
}

size_t mwpeer_grants(const struct mwpeer *p, struct mwpeer_msg *out,
		     size_t max)
{
	struct mwpeer_msg *all;
	size_t i, n = 0;

	if (!max || !p->grants.n)
		return p->grants.n;
	all = malloc(p->grants.n * sizeof(*all));
	if (!all)
		return p->grants.n;
	for (i = 0; i < p->grants.cap; i++)
		if (p->grants.slot[i].m.window)
			all[n++] = p->grants.slot[i].m;
	qsort(all, n, sizeof(*all), by_window);
	memcpy(out, all, (n < max ? n : max) * sizeof(*out));
	free(all);
	return n;
}

void peer_reset_msgs(struct mwpeer *p)
{
	p->q_head = 0;
	p->q_len = 0;
	peer_grants_free(&p->grants);
	p->last_seq = 0;
	p->recvs = 0;
	p->proto_errors = 0;
	p->proto_first[0] = '\0';
}

