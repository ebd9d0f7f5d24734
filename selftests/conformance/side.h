/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The two sides a conformance case runs on (selftests/mwin_conformance.c):
 * mwin windows (libmwin ioctls, requesters connected to the module) and
 * rdma-core memory windows (conformance/mwcore.h, the same requesters
 * connected to a responder in the test process). A case is written once
 * against struct side and struct win and runs on both; what it observes
 * goes into a struct res: a line of text and a verdict.
 *
 * Declarations; side.c holds the code.
 */
#ifndef MWIN_CONF_SIDE_H
#define MWIN_CONF_SIDE_H

#include "../mwin_test.h"
#include "mwcore.h"

#define REGION_LEN	(64 * 1024UL)
#define NPEERS		2		/* requesters A and B */
#define RAW		NPEERS		/* index of the rawpeer */
#define PA		0
#define PB		1

enum { SIDE_MWIN, SIDE_CORE };

struct side {
	int kind;
	enum ibv_mw_type mwtype;
	uint8_t *mem;
	uint64_t base;			/* remote address of byte 0 */
	struct mwpeer *p[NPEERS];
	struct mwpeer *raw;
	/* mwin */
	int fd;
	int mon;
	uint32_t region;
	size_t maplen;
	/* rdma-core */
	struct mwcore_srv *srv;
	char err[256];
	/* the device's: its remote atomics; iWARP refuses differently */
	bool atomics;
	bool iwarp;
};

struct win {
	int peer;
	uint32_t id;			/* mwin window */
	struct mwcore_mw *m;		/* rdma-core MW */
	uint32_t rkey;
	uint64_t iova;
	uint64_t off, len;
	uint32_t access;
};

/* Verdicts */
enum {
	V_NOTRUN = 0,	/* not run (crash case: its own boot) */
	V_OK,		/* as the expected IB behaviour */
	V_DOC,		/* differs from IB as mwin documents (stricter) */
	V_DIFF,		/* differs */
	V_INFO,		/* informational, nothing to compare */
	V_SETUP,	/* the case could not be set up */
	V_DEFECT,	/* a named defect of the device, which mwin cannot mend */
};

struct res {
	int verdict;
	char text[400];
};

#define RW	(MWIN_ACCESS_READ | MWIN_ACCESS_WRITE)
#define RD	MWIN_ACCESS_READ
#define WR	MWIN_ACCESS_WRITE
#define AT	MWIN_ACCESS_ATOMIC

/* Appends to the result's text. */
__attribute__((format(printf, 2, 3)))
void rp(struct res *r, const char *fmt, ...);

/* A check of the IB behaviour: a miss makes the result differ. */
#define CHECK(r, cond) do {						\
	if (!(cond) && (r)->verdict == V_OK)				\
		(r)->verdict = V_DIFF;					\
} while (0)

/*
 * Give up on a case whose preparation failed. mwin refusing a window with
 * EOPNOTSUPP is its documented answer to rights the device cannot enforce
 * (atomics where it has none, write without read on siw): the case ends
 * there, as mwin documents.
 */
#define SETUP(r, s, expr) do {						\
	int _e = (expr);						\
	if (_e == -EOPNOTSUPP && (s)->kind == SIDE_MWIN) {		\
		rp(r, "window refused: -EOPNOTSUPP, rights the device cannot enforce"); \
		(r)->verdict = V_DOC;					\
		return;							\
	}								\
	if (_e) {							\
		rp(r, "setup failed: %s = %s %s", #expr, rname(_e),	\
		   (s)->err);						\
		(r)->verdict = V_SETUP;					\
		return;							\
	}								\
} while (0)

/*
 * The rights of @s's device but @no: a window without one right, with
 * every other the device can grant.
 */
static inline uint32_t all_but(const struct side *s, uint32_t no)
{
	uint32_t all = MWIN_ACCESS_READ | MWIN_ACCESS_WRITE |
		       (s->atomics ? MWIN_ACCESS_ATOMIC : 0);

	return all & ~no;
}

/* Names for the text of a result. */
const char *errname(int e);
const char *wcname(int st);
const char *rname(int st);
const char *statename(uint32_t st);

/* Opening, closing: requesters A and B connect in side_open(). */
int side_open(struct side *s, int kind, enum ibv_mw_type type);
void side_close(struct side *s);
/* The rawpeer (index RAW), for what ibv_post_send() will not send. */
int raw_open(struct side *s);
uint32_t peer_id(struct side *s, int i);
struct mwcore_conn *conn_of(struct side *s, int i);
int module_peer_wait(int fd, uint32_t id, uint32_t state, int ms);
int monitor_start(struct side *s);
int monitor_wait(struct side *s, uint32_t type, uint32_t window,
		 struct mwin_event *out, int ms);
int next_revoke(struct mwpeer *p, struct mwpeer_msg *m, int ms);

/* Windows, the same calls on both sides. */
int win_make(struct side *s, int i, uint64_t off, uint64_t len,
	     uint32_t access, uint32_t flags, struct win *w);
int win_rebind(struct side *s, struct win *w, int i, uint64_t off,
	       uint64_t len, uint32_t access);
int win_invalidate(struct side *s, struct win *w);
int win_destroy(struct side *s, struct win *w);

/*
 * Observations: accesses that must fail or work, each judged in @r. An
 * access the rkey check refuses fails as its transport fails it: on RoCE
 * with Remote Access Error, the requester's QP in error; on iWARP with a
 * TERMINATE that ends the connection, where a READ completes in error and
 * a WRITE, done once TCP has it, completes OK (test_refused_status()).
 */
void after_fail(struct side *s, struct res *r, int i, uint32_t pid,
		const struct win *w);
void must_fail_write(struct side *s, struct res *r, int i,
		     const struct win *w, uint32_t rkey, uint64_t off,
		     size_t len);
void must_fail_read(struct side *s, struct res *r, int i,
		    const struct win *w, uint32_t rkey, uint64_t off,
		    size_t len);
/* A WRITE, and whether its bytes are in place when it returns. */
int write_landed(struct side *s, int i, uint32_t rkey, uint64_t off,
		 const char *data, size_t len, bool *landed);
bool write_ok(struct side *s, struct res *r, int i, uint32_t rkey,
	      uint64_t off, const char *data, size_t len);
bool read_ok(struct side *s, struct res *r, int i, uint32_t rkey,
	     uint64_t off, size_t len);

/* The case with threads of its own, in key_guess.c. */
void c_key_guess(struct side *s, struct res *r);

#endif
