/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mwbench: what its sections share across files. mwbench.c holds the
 * helpers, the peers, the results and the report; a section in a file of
 * its own (lease.c) measures through them and adds its results there.
 */
#ifndef _MWBENCH_H
#define _MWBENCH_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <mwin/peer.h>

#include "libmwin.h"

#define KiB ((uint64_t)1 << 10)
#define MiB ((uint64_t)1 << 20)
#define GiB ((uint64_t)1 << 30)

#define RW (MWIN_ACCESS_READ | MWIN_ACCESS_WRITE)
/*
 * Receives each peer keeps posted. Far more than the protocol's 64: on rxe
 * (6.1) an RNR NAK or a retransmission of a grant or revoke makes the
 * requester run the REG_MR and LOCAL_INV queued behind it a second time
 * ("rxe_reg_fast_mr: ... not free"), the peer's QP fails and the module
 * tears the peer down. Plenty of receives keep RNR away even when the
 * thread that reposts them is slow to be scheduled.
 */
#define PEER_RECV_DEPTH 8192	/* MWPEER_MAX_RECV_DEPTH */

extern int mfd;			/* /dev/mwin */
extern unsigned int max_windows;

uint64_t now_ns(void);
__attribute__((format(printf, 1, 2)))
void say(const char *fmt, ...);
__attribute__((format(printf, 1, 2), noreturn))
void die(const char *fmt, ...);

/* --------------------------------------------------------- statistics */

struct stats {
	double med, p10, p90, mean;
	int n;
};

int cmp_double(const void *a, const void *b);
/* the @p quantile (0..1) of @n sorted values */
double pct(const double *sorted, int n, double p);
struct stats stats_of(const double *v, int n);

/* ------------------------------------------------------------ results */

struct result {
	char section[12];
	char metric[48];
	uint64_t size;		/* bytes: window, buffer or message size */
	int batch;		/* operations per call, or live windows */
	struct stats s;
	int ops;		/* operations per trial */
	char unit[12];
	char status[80];	/* "ok", "unsupported ...", "failed ..." */
};

struct result *add_result(const char *section, const char *metric,
			  uint64_t size, int batch, const struct stats *s,
			  int ops, const char *unit, const char *status);
__attribute__((format(printf, 6, 7)))
void add_failed(const char *section, const char *metric, uint64_t size,
		int batch, const char *unit, const char *fmt, ...);
const struct result *find(const char *section, const char *metric,
			  uint64_t size, int batch);
/* the median, or NAN when there is no such figure */
double med(const char *section, const char *metric, uint64_t size, int batch);

/* ------------------------------------------------------ mwin and peers */

int region_create(uint64_t len, uint32_t *id);
/* MWIN_WINDOW_BATCH: the call's result; per-entry failures in *failed */
int win_batch(struct mwin_batch_op *ops, uint32_t n, uint32_t *failed);

/*
 * A peer of the module: a libmwinpeer connection whose messages a thread
 * takes in (keeping the receives posted) while the benchmark's thread
 * calls the module. That thread is the connection's only user until
 * peer_pause().
 */
struct peer {
	struct mwpeer *mp;
	uint32_t peer_id;
	pthread_t pump;
	bool pumping;
	atomic_bool pump_stop;
	atomic_ulong msgs;	/* grants and revokes taken in */
	atomic_int errors;	/* disconnects */
	uint64_t wr_seq;	/* of dp_run() on its QP */
};

struct peer *peer_connect(void);
void peer_pause(struct peer *p);
void peer_close(struct peer *p);
bool peer_alive(const struct peer *p);

/* What the data path posts on and polls: a QP, its send CQ, a buffer. */
struct dp_qp {
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	uint8_t *buf;
	uint32_t lkey;
	uint64_t *wr_seq;
};

/* the paused peer @p's QP and buffer, those libmwinpeer posts on */
struct dp_qp peer_dp(struct peer *p);
/*
 * @count RDMA READs or WRITEs of @len bytes on @q, @depth in flight, each
 * signaled, with ibv_post_send() and ibv_poll_cq(). @lat_us: if not NULL
 * (then @depth is 1), each one's round trip. Return: ns, 0 on failure.
 */
uint64_t dp_run(const struct dp_qp *q, enum ibv_wr_opcode op, uint32_t rkey,
		uint64_t raddr, size_t len, int depth, int count,
		double *lat_us);

/*
 * mwin_bench.ko's debugfs file @path ("rebind", "invalidate"): @ops
 * iterations of window @win in the kernel. Return: the ns they took, or a
 * negative errno.
 */
int64_t floor_run_at(const char *path, uint32_t win, int ops);

/* ------------------------------------------------------ rxe counters */

#define NR_CNT 9

void cnt_read(long long *v);
void cnt_section(const char *section, const long long *before);

#define MAX_TRIALS 64

/* ------------------------------------------------------------ lease.c */

#define LEASE_SLACK_US	50	/* kmod/lease.c's timer slack (LEASE_SLACK_NS) */
#define LEASE_P99_US	5000	/* the bound on the lateness's p99 */

void bench_lease(unsigned int leases, unsigned int expiry_windows);
void lease_report(FILE *out);

/* ---------------------------------------------------------- peerlib.c */

void bench_peerlib(int trials);
void peerlib_report(FILE *out);
/* the worst library/raw throughput ratio, or lib - raw latency (us) */
double peerlib_worst(bool latency, char *where, size_t len);

#endif /* _MWBENCH_H */
