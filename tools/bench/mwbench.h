/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mwbench: what its files share. mwbench.c holds the options, the helpers,
 * the results and the rxe counters; peers.c the connections; rr.c the
 * round robin; each section (ctl.c, batch.c, data.c, trace.c, lease.c,
 * peerlib.c, parallel.c, scale.c) measures through them and adds its
 * results there; report.c prints them and the targets.
 */
#ifndef _MWBENCH_H
#define _MWBENCH_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <mwin/peer.h>

#include <mwin/mwin.h>

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

/* ------------------------------------------------------------ options */

struct mwbench_opts {
	const char *host;
	const char *dev;
	const char *out;
	int trials;		/* trials per figure */
	int ops;		/* operations per trial (control path) */
	unsigned int scale_max;	/* largest live-window count */
	unsigned int revoke_windows;
	int revoke_trials;
	unsigned int leases;	/* lateness: leases, each expiring alone */
	unsigned int expiry_windows;	/* mass expiry: windows */
	const char *only;	/* comma-separated sections, NULL for all */
	uint64_t max_size;	/* ctl's largest window, bytes */
};

extern struct mwbench_opts opt;
extern int mfd;			/* /dev/mwin */
extern unsigned int max_windows;

/* what the sections measure at, and the report prints */
#define NR_SIZES	6
#define NR_BATCH	4
#define NR_DP		8
#define NR_SCALE	3
extern const uint64_t ctl_sizes[NR_SIZES];	/* window sizes, ctl */
int nr_ctl_sizes(void);		/* those up to --max-size */
bool want(const char *section);	/* --only names it, or there is no --only */
extern const int batch_sizes[NR_BATCH];		/* operations per call */
extern const size_t dp_sizes[NR_DP];		/* message sizes, data */
extern const unsigned int scale_counts[NR_SCALE];	/* live windows */

#define MAX_TRIALS 64
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------ helpers */

uint64_t now_ns(void);
__attribute__((format(printf, 1, 2)))
void say(const char *fmt, ...);
__attribute__((format(printf, 1, 2), noreturn))
void die(const char *fmt, ...);
/* "4 KiB", "1 GiB", "64 B" */
const char *size_str(uint64_t b, char buf[24]);
/* a small deterministic generator: the same windows in every run */
uint32_t rng(void);
/* /proc/meminfo's @key in KiB, or -1 */
long meminfo_kb(const char *key);

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
/* take back the last results of @section with @batch */
void drop_results(const char *section, int batch);

/* every result so far, in the order added (the report reads them) */
extern struct result *results;
extern size_t nr_results;
/* times the module tore a peer down and a section made a new one */
extern unsigned int peer_losses;

/* ------------------------------------------------------ mwin and peers */

#define FLOOR_PATH	"/sys/kernel/debug/mwin_bench/rebind"
#define INV_FLOOR_PATH	"/sys/kernel/debug/mwin_bench/invalidate"

int region_create(uint64_t len, uint32_t *id);
/* WINDOW_CREATE with MWIN_WINDOW_OVERLAP; *@out: the bind made */
int win_create(uint32_t region, uint32_t peer, uint64_t off, uint64_t len,
	       uint32_t access, struct mwin_window_bind *out);
/* WINDOW_REBIND with MWIN_WINDOW_OVERLAP; *@rkey: the new rkey */
int win_rebind_key(uint32_t id, uint64_t off, uint64_t len, uint32_t access,
		   uint32_t *rkey);
int win_rebind(uint32_t id, uint64_t off, uint64_t len, uint32_t access);
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
/* messages the module sent @p against those its thread took in */
void peer_check(struct peer *p, const char *when);

/*
 * One side of a loopback RC connection made with RDMA CM (peers.c), for
 * the baselines the module is measured against (userspace memory windows
 * and MRs): not a peer of the module. The send CQ belongs to the thread
 * that posts.
 */
struct conn {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	bool own_pd;
	struct ibv_comp_channel *cc;
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *qp;
	uint8_t *mem;		/* data buffer, then the receive slots */
	size_t buf_size, mem_size;
	struct ibv_mr *mr;
	unsigned int recv_depth;
	uint64_t wr_seq;
	pthread_t pump;		/* conn_pump_start() */
	atomic_bool pump_stop;
	atomic_int pump_err;
};

/*
 * A loopback pair on the device: the client initiates, the server's buffer
 * is the target.
 */
struct loop {
	struct rdma_event_channel *lch;
	struct rdma_cm_id *listen;
	struct conn *cli, *srv;
};

/* a pair with buffers of @cli_buf and @srv_buf bytes: 0 or a -errno */
int loop_open(struct loop *l, size_t cli_buf, size_t srv_buf);
void loop_close(struct loop *l);
/* wait for the completion of wr_id @want on @c's send CQ (busy poll) */
int wait_send(struct conn *c, uint64_t want);
/*
 * Tell the other side of the pair: @len bytes of @msg in one signaled SEND
 * from @c's buffer, waited for. 0 or a -errno.
 */
int conn_send(struct conn *c, const void *msg, size_t len);
/* take the receive a SEND completed on @c and post it again: 0 or -errno */
int conn_repost_recv(struct conn *c);
/*
 * Or leave that to a thread, as a module's peer does (struct peer): it
 * sleeps on @c's receive CQ's channel, and wakes for each SEND to take it
 * and post its receive again. stop: 0, or the thread's -errno.
 */
int conn_pump_start(struct conn *c);
int conn_pump_stop(struct conn *c);
/* the access flags of a baseline MR, remote write or not */
int mr_access(bool write);

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
/* ... and the loopback client @c's */
struct dp_qp conn_dp(struct conn *c);
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
/* the same through "rebind": LOCAL_INV + REG_MR */
int64_t floor_run(uint32_t win, int ops);

/* ------------------------------------------------------ rxe counters */

#define NR_CNT 9

void cnt_read(long long *v);
/* log the counters' growth since @before as @section's */
void cnt_section(const char *section, const long long *before);
void cnt_csv(FILE *f);
void cnt_report(FILE *out);
/* the device's sent_pkts alone: every packet rxe built, ACKs included */
long long pkts_read(void);

/* ----------------------------------------------------------------- rr.c */

/* A trial: @ops operations; returns the ns timed, or a negative errno. */
typedef int64_t (*trial_fn)(void *ctx, int ops);

struct rr_method {
	const char *metric;
	trial_fn fn;
	bool on;
	bool slow;	/* ibv_reg_mr: 8 ops a trial, 1 from 16 MiB */
};

#define RR_MAX 18	/* methods in one round robin */

/* whether the peer was lost; if so, a new one and the windows again: 0 */
typedef int (*recover_fn)(void *arg);

void round_robin(const char *section, void **ctxs, const uint64_t *sizes,
		 int nctx, struct rr_method *m, int nm, const int *trials,
		 const int *ops, double v[][RR_MAX][MAX_TRIALS],
		 int err[][RR_MAX], recover_fn recover, void *rarg);
void rr_results(const char *section, const uint64_t *sizes, int nctx,
		struct rr_method *m, int nm, const int *trials, const int *ops,
		double v[][RR_MAX][MAX_TRIALS], int err[][RR_MAX]);
void rr_ratio(const char *name, const uint64_t *sizes, int nctx, int a, int b,
	      const int *trials, double v[][RR_MAX][MAX_TRIALS],
	      int err[][RR_MAX]);
void rr_ratio_x(const char *name, uint64_t size, int ia, int a, int ib, int b,
		int trials, double v[][RR_MAX][MAX_TRIALS], int err[][RR_MAX]);
/* rxe packets per operation of @fn, as a "pkts" result named @metric */
void pkts_per_op(const char *metric, trial_fn fn, void *ctx, int ops);

/* ------------------------------------------------------------ sections */

void bench_ctl(void);
void bench_batch(void);
void bench_data(void);
void bench_trace(void);
void bench_parallel(void);
void bench_scale(void);
void trace_report(FILE *out);
void parallel_report(FILE *out);
void report(FILE *out);
void write_csv(const char *path);

/* batch.c's windows, which trace.c batches too */
#define BATCH_WINDOWS 256

struct batch_ctx {
	uint32_t region, peer;
	uint32_t ids[BATCH_WINDOWS];	/* for rebind and invalidate */
	uint32_t tmp[BATCH_WINDOWS];	/* created and destroyed */
	struct mwin_batch_op ops[BATCH_WINDOWS];
	uint32_t flip;
	int per_call;			/* 0: the single calls */
	int failed_errno;
};

/* the batch entry @o: @opcode on window @id (create: a new 4 KiB one) */
void op_fill(struct batch_ctx *c, struct mwin_batch_op *o, uint32_t opcode,
	     uint32_t id, uint32_t access);
/* @opcode over all of @ids, @per_call a call (0: single calls): ns or -errno */
int64_t batch_pass(struct batch_ctx *c, uint32_t *ids, uint32_t opcode,
		   int per_call);

/* ------------------------------------------------------------ lease.c */

#define LEASE_SLACK_US	50	/* kmod/lease.c's timer slack (LEASE_SLACK_NS) */
#define LEASE_P99_US	5000	/* the bound on the lateness's p99 */

void bench_lease(unsigned int leases, unsigned int expiry_windows);
void lease_report(FILE *out);

/* ---------------------------------------------------------- peerlib.c */

void bench_peerlib(int trials);
void peerlib_report(FILE *out);
/* what peerlib_worst() reads */
enum lib_worst {
	LIB_THROUGHPUT,		/* library/raw throughput, the smallest */
	LIB_LATENCY_US,		/* library - raw latency in us, to 4 KiB */
	LIB_LATENCY_PCT,	/* ... in % of raw, above 4 KiB */
};
#define LIB_LATENCY_US_MAX	(4 * KiB)

double peerlib_worst(enum lib_worst what, char *where, size_t len);

#endif /* _MWBENCH_H */
