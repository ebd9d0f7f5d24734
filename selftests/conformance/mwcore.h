/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mwcore: the reference side of the conformance suite. A userspace RDMA CM
 * responder in the test process that hands out rdma-core memory windows
 * (Type 2 bound with IBV_WR_BIND_MW, Type 1 bound with ibv_bind_mw) over
 * one parent MR, on the same rxe device the module uses. Requesters are
 * plain mwpeers: the responder accepts the mwin hello and answers with a
 * struct mwin_wire_accept whose peer id is the connection's number, so
 * mwpeer_connect() works against it unchanged. It never sends messages.
 *
 * Also a "raw" requester: a libmwinpeer peer whose atomics go through the
 * extended QP API, which, unlike ibv_post_send() on rxe, puts misaligned
 * atomics on the wire, so that the responder's answer can be observed.
 *
 * Declarations; mwcore.c holds the code, linked into
 * selftests/mwin_conformance.c and the crash-case program
 * selftests/conformance/crash_mw.c.
 *
 * Facts of rxe (Linux 6.1) and rdma-core 44 this code relies on:
 *  - ibv_post_send(IBV_WR_BIND_MW) does not update ibv_mw.rkey: the caller
 *    sets it to the rkey it bound (mwcore does);
 *  - ibv_bind_mw() (Type 1) picks the next key byte (key + 1) itself and
 *    updates ibv_mw.rkey;
 *  - a Type 2 MW in the free state must never be invalidated (local or
 *    remote): rxe 6.1 dereferences NULL (see crash_mw.c). mwcore tracks
 *    the state and refuses (-EALREADY) unless asked to do it anyway.
 */
#ifndef MWCORE_H
#define MWCORE_H

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <linux/mwin.h>
#include <mwin/peer.h>

#define MWCORE_MAX_CONNS	1024
#define MWCORE_RECVS		16
#define MWCORE_RECV_SIZE	64
#define MWCORE_OP_TIMEOUT_MS	5000

int64_t mwcore_now_ms(void);

/* One accepted connection: the responder's end of a requester's QP. */
struct mwcore_conn {
	uint32_t no;			/* "peer id" told in the accept */
	struct rdma_cm_id *id;
	struct ibv_cq *scq;		/* binds and invalidations */
	struct ibv_cq *rcq;		/* Send-with-Invalidate arrives here */
	struct ibv_qp *qp;
	struct ibv_mr *rmr;
	uint8_t *rbuf;
	int state;			/* MWCORE_CONN_* */
	uint64_t wr_seq;
};

enum {
	MWCORE_CONN_CONNECTING = 0,
	MWCORE_CONN_ESTABLISHED,
	MWCORE_CONN_DISCONNECTED,
	MWCORE_CONN_FAILED,
};

enum mwcore_mw_state {
	MWCORE_MW_FREE = 0,	/* Type 2 after alloc or invalidation */
	MWCORE_MW_BOUND,
	MWCORE_MW_DEAD,		/* deallocated */
};

/* A memory window of the reference side. */
struct mwcore_mw {
	struct ibv_mw *mw;
	enum ibv_mw_type type;
	enum mwcore_mw_state state;
	struct mwcore_conn *conn;	/* Type 2: the QP it is bound to */
	uint32_t rkey;
	uint64_t addr;
	uint64_t len;
	int access;			/* IBV_ACCESS_* */
};

struct mwcore_srv {
	uint16_t port;
	struct rdma_event_channel *ch;
	struct rdma_cm_id *listen;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	uint8_t *mem;
	size_t len;
	struct ibv_mr *mr;		/* parent MR: local write + MW bind */
	pthread_t thr;
	bool thr_started;
	volatile int stop;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct mwcore_conn *conns[MWCORE_MAX_CONNS];
	unsigned int nconns;
	/* every MW made, so that a remote invalidation can be traced */
	struct mwcore_mw *mws[1024];
	unsigned int nmws;
	char err[256];
};

const char *mwcore_qp_state_str(int s);

/* Stop the responder's thread and free everything it made. */
void mwcore_stop(struct mwcore_srv *s);

/*
 * Listen on @host:@port (port 0: pick one), with a zeroed buffer of @len
 * bytes registered as the parent MR of all windows.
 */
struct mwcore_srv *mwcore_start(const char *host, uint16_t port,
				size_t len, char *err, size_t errlen);

/* The connection whose accept told @no (= mwpeer_id() of its requester). */
struct mwcore_conn *mwcore_conn(struct mwcore_srv *s, uint32_t no,
				int timeout_ms);

/* The state of @c's QP (IBV_QPS_*), or -1. */
int mwcore_qp_state(struct mwcore_conn *c);

/* A new memory window of @type on the responder's PD, or NULL. */
struct mwcore_mw *mwcore_alloc_mw(struct mwcore_srv *s,
				  enum ibv_mw_type type);

/* A random key byte other than the current one (as mwin does). */
uint8_t mwcore_random_key(uint32_t cur);

/*
 * Bind (or rebind) @m through @c's QP to [@off, @off + @len) of the
 * buffer with MWIN_ACCESS_* @access and key byte @key. A bound Type 2 MW
 * is invalidated first, chained in the same post when it is bound to @c,
 * else on the QP it is bound to if that one still works, else on @c (rxe
 * accepts the invalidation of a Type 2 MW through any QP of its PD).
 * Type 1: ibv_bind_mw(), which picks the key itself (@key is ignored).
 * Returns the completion status (0 = IBV_WC_SUCCESS), or a negative errno.
 */
int mwcore_bind(struct mwcore_srv *s, struct mwcore_conn *c,
		struct mwcore_mw *m, uint64_t off, uint64_t len,
		uint32_t access, uint8_t key);

/*
 * IBV_WR_LOCAL_INV of @m's rkey through @c (NULL: the QP it is bound to).
 * A Type 2 MW that is not bound is refused with -EALREADY unless @force:
 * rxe 6.1 oopses on it.
 */
int mwcore_invalidate(struct mwcore_srv *s, struct mwcore_conn *c,
		      struct mwcore_mw *m, bool force);

/* ibv_dealloc_mw() of @m, which stays listed as dead. */
int mwcore_dealloc(struct mwcore_srv *s, struct mwcore_mw *m);

/*
 * A receive completion of @c: Send-with-Invalidate shows up here. The MW
 * it names is marked free (rxe really invalidated it when the completion
 * is successful). Returns 1 with @wc filled, 0 on timeout.
 */
int mwcore_wait_recv(struct mwcore_srv *s, struct mwcore_conn *c,
		     struct ibv_wc *wc, int timeout_ms);

/* ------------------------------------------------------------ rawpeer */

/*
 * The raw requester: a libmwinpeer peer whose atomics go through the
 * extended QP API (mwpeer_post_ex()), which rxe's provider does not check
 * for alignment: a misaligned atomic reaches the responder. An anonymous
 * peer, so it connects to the module as well as to a mwcore_srv.
 */

/*
 * One atomic; @cas: compare-and-swap, else fetch-and-add. Returns the wc
 * status or a negative errno; @old gets the original value on success.
 */
int rawpeer_atomic(struct mwpeer *r, bool cas, uint32_t rkey,
		   uint64_t raddr, uint64_t a, uint64_t b,
		   uint64_t *old);

#endif /* MWCORE_H */
