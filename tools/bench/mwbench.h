/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mwbench: what its sections share across files. mwbench.c holds the
 * helpers, the peers, the results and the report; a section in a file of
 * its own (lease.c) measures through them and adds its results there.
 */
#ifndef _MWBENCH_H
#define _MWBENCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

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
#define PEER_RECV_DEPTH 8192

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

/* one of mwbench's own RDMA CM connections to the module: a peer */
struct conn;

struct conn *peer_connect(unsigned int recv_depth);
void conn_close(struct conn *c);
bool peer_alive(const struct conn *c);
uint32_t conn_peer_id(const struct conn *c);

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

/* ------------------------------------------------------------ lease.c */

#define LEASE_SLACK_US	50	/* kmod/lease.c's timer slack (LEASE_SLACK_NS) */
#define LEASE_P99_US	5000	/* the bound on the lateness's p99 */

void bench_lease(unsigned int leases, unsigned int expiry_windows);
void lease_report(FILE *out);

#endif /* _MWBENCH_H */
