// SPDX-License-Identifier: GPL-2.0
/*
 * The conformance case "key_guess" (selftests/mwin_conformance.c): all 255
 * other key bytes of a live window's rkey tried against it, by threads of
 * their own, each with its own requester.
 */
#define _GNU_SOURCE
#define MWIN_TEST_HELPER
#include <pthread.h>

#include "side.h"

#define GUESS_THREADS	4

struct guess {
	struct side *s;
	int t;
	int from, to;		/* deltas [from, to) */
	int tried, failed, succeeded, errors;
	char err[160];
	volatile int *stop;
};

/*
 * One thread: its own requester and window; for each delta d, the rkey
 * with key byte (key + d) & 0xff is tried once against the live window
 * through the window's own connection (the only one where the right key
 * works). Each failure kills the connection: reconnect, regrant (a new MR
 * or MW: a new index and key), next delta.
 */
static void *guess_thread(void *arg)
{
	struct guess *g = arg;
	struct side *s = g->s;
	uint64_t off = 4096 * (uint64_t)(g->t + 1);
	struct mwpeer *p = NULL;
	struct mwcore_mw *m = NULL;
	uint32_t wid = 0, rkey = 0, pid;
	int d, err = 0, st;
	bool refused;

	p = mwpeer_connect(test_host(), s->kind == SIDE_MWIN ? 0 : s->srv->port,
			   NULL, TEST_TIMEOUT_MS, &err);
	if (!p) {
		snprintf(g->err, sizeof(g->err), "connect: %d", err);
		g->errors++;
		return NULL;
	}
	mwpeer_set_timeout(p, 5000);
	for (d = g->from; d < g->to && !*g->stop; d++) {
		uint32_t guess;

		pid = mwpeer_id(p);
		/* grant a fresh window to the current connection */
		if (s->kind == SIDE_MWIN) {
			struct mwin_window_bind b;

			if (module_peer_wait(s->fd, pid, MWIN_PEER_CONNECTED, 5000)) {
				snprintf(g->err, sizeof(g->err), "peer %u not up", pid);
				g->errors++;
				break;
			}
			b = test_bind(s->region, pid, off, 4096, RW, 0);
			if (wid) {
				b.region = 0;
				b.id = wid;
				err = mwin_window_rebind(s->fd, &b);
			} else {
				err = mwin_window_create(s->fd, &b);
			}
			if (err) {
				snprintf(g->err, sizeof(g->err), "grant: %s",
					 errname(-err));
				g->errors++;
				break;
			}
			wid = b.id;
			rkey = b.rkey;
		} else {
			struct mwcore_conn *c = mwcore_conn(s->srv, pid, 5000);

			if (!m)
				m = mwcore_alloc_mw(s->srv, IBV_MW_TYPE_2);
			err = m ? mwcore_bind(s->srv, c, m, off, 4096, RW,
					      mwcore_random_key(m->rkey)) : -ENOMEM;
			if (err) {
				snprintf(g->err, sizeof(g->err), "bind: %s",
					 rname(err));
				g->errors++;
				break;
			}
			rkey = m->rkey;
		}
		guess = (rkey & ~0xffU) | ((rkey + d) & 0xff);
		memset(s->mem + off, 0, 8);
		st = mwpeer_write(p, guess, s->base + off, "GUESSED!", 8);
		g->tried++;
		/* on iWARP this waits for the connection's end (side.h) */
		refused = test_refused_status(p, st) == IBV_WC_REM_ACCESS_ERR;
		if (s->mem[off] || (st == IBV_WC_SUCCESS && !refused)) {
			g->succeeded++;
			*g->stop = 1;
			snprintf(g->err, sizeof(g->err),
				 "rkey 0x%x (live 0x%x) worked: %s", guess, rkey,
				 rname(st));
			break;
		}
		if (refused)
			g->failed++;
		else
			g->errors++;
		/* the connection is dead: wait for the teardown, reconnect */
		if (s->kind == SIDE_MWIN)
			module_peer_wait(s->fd, pid, 0, 5000);
		err = mwpeer_reconnect(p);
		if (err) {
			snprintf(g->err, sizeof(g->err), "reconnect: %d", err);
			g->errors++;
			break;
		}
	}
	mwpeer_close(p);
	return NULL;
}

void c_key_guess(struct side *s, struct res *r)
{
	struct guess g[GUESS_THREADS];
	pthread_t t[GUESS_THREADS];
	volatile int stop = 0;
	int i, tried = 0, failed = 0, ok = 0, errors = 0;
	int64_t t0 = mwcore_now_ms();

	for (i = 0; i < GUESS_THREADS; i++) {
		g[i] = (struct guess){ .s = s, .t = i, .stop = &stop,
			.from = 1 + i * 255 / GUESS_THREADS,
			.to = 1 + (i + 1) * 255 / GUESS_THREADS };
		pthread_create(&t[i], NULL, guess_thread, &g[i]);
	}
	for (i = 0; i < GUESS_THREADS; i++) {
		pthread_join(t[i], NULL);
		tried += g[i].tried;
		failed += g[i].failed;
		ok += g[i].succeeded;
		errors += g[i].errors;
	}
	rp(r, "%d of 255 tried, %d %s, %d succeeded (%.1f s)", tried, failed,
	   s->iwarp ? "refused" : "REM_ACCESS_ERR", ok,
	   (mwcore_now_ms() - t0) / 1000.0);
	for (i = 0; i < GUESS_THREADS; i++)
		if (g[i].err[0])
			rp(r, "; %s", g[i].err);
	CHECK(r, tried == 255 && failed == 255 && !ok && !errors);
}
