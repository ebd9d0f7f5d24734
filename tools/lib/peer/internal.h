/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * libmwinpeer internals, shared by its files and by nothing else:
 *
 *   peer.c    errors, clocks, the epoll set, accessors
 *   conn.c    create, connect (RDMA CM), reconnect, close
 *   tenant.c  the version 3 hello, accept and proofs
 *   msgs.c    the module's messages and the grant table
 *   poll.c    completions and CM events; mwpeer_poll(), mwpeer_process()
 *   ops.c     operations: by rkey and waiting, by window and asynchronous
 */
#ifndef MWPEER_INTERNAL_H
#define MWPEER_INTERNAL_H

#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include <rdma/rdma_cma.h>

#include <mwin/peer.h>

#define MSG_SIZE	sizeof(struct mwin_wire_msg)
#define RECV_SIZE	MWIN_WIRE_RECV_SIZE
#define MAX_SEND_WR	128
#define MAX_RECV_DEPTH	MWPEER_MAX_RECV_DEPTH
#define MAX_RD_ATOM	16
#define MAX_QUEUED	(1U << 20)
/* how long an answer may trail the other side's DREQ: see answer_dreq() */
#define CLOSE_GRACE_MS	200
#define IB_CM_REJ_INVALID_SERVICE_ID	8
#define IB_CM_REJ_CONSUMER_DEFINED	28

/* what mwpeer_post_ex() may post, when the device has the extended API */
#define EX_SEND_OPS	(IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_READ | \
			 IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | \
			 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | \
			 IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_INV)

/* mwpeer_process() looks at the CM events once in this many calls */
#define CM_CHECK_EVERY	64

/* wr_id bit of the asynchronous operations' requests (ops.c) */
#define ASYNC_WR	(1ULL << 63)

_Static_assert(sizeof(struct mwin_wire_hello_tenant) == 48,
	       "the hello must fit in a REQ's 56 bytes of private data");
_Static_assert(sizeof(struct mwin_wire_accept_tenant) == 64, "wire layout");
_Static_assert(sizeof(struct mwin_wire_proof) == 64, "wire layout");
_Static_assert(sizeof(struct mwin_wire_reject) == 8, "wire layout");
_Static_assert(sizeof(struct mwin_wire_challenge) == 32, "wire layout");
_Static_assert(sizeof(struct mwin_wire_proof_req) == 56,
	       "the proof must fit in a REQ's 56 bytes of private data");


/*
 * The grant table: open addressing by window id (never 0), linear probing,
 * a power-of-two number of slots at most half full.
 */
struct peer_grant {
	struct mwpeer_msg m;		/* m.window 0: a free slot */
	int64_t expires_ms;		/* local deadline of its lease, or 0 */
};

struct peer_grants {
	struct peer_grant *slot;
	size_t cap;
	size_t n;
};

/* An asynchronous operation between its post and its event. */
struct peer_op {
	uint64_t wr_id;
	uint64_t cookie;
	const uint64_t *old;		/* atomics: the old value, when done */
	uint32_t window;
	uint8_t type;
	bool done;
	int status;
};

/* A range of the application's registered with mwpeer_reg_mem(). */
struct peer_mem {
	uint8_t *addr;
	size_t len;
	struct ibv_mr *mr;		/* on the connection's PD, when one */
};

struct mwpeer {
	/* options */
	char *dev;
	int timeout_ms;
	size_t buf_size;
	int recv_depth;		/* receives posted, 0 for none */
	uint8_t priv[256];
	size_t priv_len;
	bool raw_priv;
	uint8_t retry;
	uint8_t rnr_retry;
	/* a tenant's peer (wire version 4) when tenant[0] */
	char tenant[MWIN_TENANT_NAME_MAX];
	uint8_t key[MWIN_TENANT_KEY_MAX];
	size_t key_len;			/* 0: no key */
	bool no_proof;			/* ignored since wire version 4 */

	/* where mwpeer_open() connected to */
	char *host;
	uint16_t port;

	/*
	 * Memory, registered as one MR per connection:
	 * [0, buf_size) data | atomic result | send staging | receive slots
	 */
	uint8_t *mem;
	size_t mem_size;
	size_t atomic_off;
	size_t send_off;
	size_t recv_off;

	int epfd;

	/* the connection */
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_comp_channel *cc;
	struct ibv_cq *scq;
	struct ibv_cq *rcq;
	struct ibv_mr *mr;
	struct ibv_qp_ex *qpx;		/* NULL: no extended API */
	enum mwpeer_state state;
	bool qp_error;
	bool dreq_unanswered;	/* see answer_dreq() */
	int64_t closed_ms;	/* when the other side closed it */
	unsigned int process_calls;	/* see CM_CHECK_EVERY */
	uint32_t peer_id;
	uint32_t tenant_id;
	struct mwpeer_handshake hs;
	uint32_t qp_num;
	uint32_t max_inline;
	unsigned int max_send;
	char devname[64];

	/* the operation being waited for */
	uint64_t wr_seq;
	uint64_t wait_wr;
	bool wait_done;
	int wait_status;
	const char *wait_what;
	unsigned int send_outstanding;

	/* messages */
	struct mwpeer_msg *q;
	size_t q_cap;
	size_t q_head;
	size_t q_len;
	struct peer_grants grants;
	uint32_t last_seq;
	uint64_t recvs;			/* SENDs taken from the module */
	unsigned int proto_errors;
	char proto_first[256];

	/* asynchronous operations (ops.c), completed in the order posted */
	struct peer_op ops[MWPEER_MAX_INFLIGHT];
	unsigned int ops_head;		/* oldest not yet handed back */
	unsigned int ops_len;
	unsigned int ops_old;		/* of the connection before */
	/* the application's memory (mwpeer_reg_mem()) */
	struct peer_mem *mems;
	unsigned int n_mems;
	/* events for mwpeer_process() not tied to a message or operation */
	bool ev_connected;
	bool ev_down_sent;
	int ev_down;			/* why, once the connection broke */

	char errmsg[256];
	struct mwpeer_reject reject;
};


/* peer.c */
__attribute__((format(printf, 2, 3)))
void peer_seterr(struct mwpeer *p, const char *fmt, ...);
int64_t peer_now_ms(void);
int peer_ms_left(int64_t deadline);
int peer_set_nonblock(int fd);
int peer_ep_add(struct mwpeer *p, int fd);
void peer_ep_del(struct mwpeer *p, int fd);
void peer_ep_wait(struct mwpeer *p, int timeout_ms);

/* msgs.c */
void peer_handle_recv(struct mwpeer *p, const uint8_t *raw, uint32_t len,
		      const struct ibv_wc *wc);
void peer_reset_msgs(struct mwpeer *p);
bool peer_take_msg(struct mwpeer *p, struct mwpeer_msg *out);
const struct peer_grant *peer_grant_find(const struct peer_grants *g,
					 uint32_t window);
void peer_grant_forget(struct mwpeer *p, uint32_t window);
void peer_grants_free(struct peer_grants *g);

/* poll.c */
int peer_post_recv(struct mwpeer *p, unsigned int slot);
void peer_answer_dreq(struct mwpeer *p);
void peer_went_down(struct mwpeer *p, int why);

/* tenant.c */
bool peer_tenant_name_ok(const char *name);
int peer_tenant_request(struct mwpeer *p);
int peer_tenant_challenge(struct mwpeer *p, const void *data, size_t len);
int peer_tenant_accept(struct mwpeer *p, const void *data, size_t len);

/* ops.c */
int peer_send_op(struct mwpeer *p, bool inv, uint32_t rkey,
		 const void *buf, size_t len);
int peer_mems_register(struct mwpeer *p);
/* Is the connection iWARP's? */
bool peer_iwarp(const struct mwpeer *p);
int peer_mr_access(const struct mwpeer *p);
void peer_mems_deregister(struct mwpeer *p);
void peer_op_completed(struct mwpeer *p, const struct ibv_wc *wc);
void peer_ops_reset(struct mwpeer *p);
bool peer_op_event(struct mwpeer *p, struct mwpeer_event *ev);

#endif /* MWPEER_INTERNAL_H */
