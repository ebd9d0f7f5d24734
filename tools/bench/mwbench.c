// SPDX-License-Identifier: GPL-2.0
/*
 * mwbench - the mwin benchmark suite, run inside the test VM by
 * tools/bench/run.sh (make bench).
 *
 * One run, one device (rxe0), one process:
 *
 *  ctl     per window size: WINDOW_REBIND (rights alternate, and range
 *          alternates), WINDOW_INVALIDATE alone and with the rebind that
 *          re-validates it, WINDOW_CREATE + WINDOW_DESTROY; the in-kernel
 *          floor (mwin_bench_rebind() through mwin_bench.ko's debugfs file);
 *          userspace ibv_reg_mr + ibv_dereg_mr, ibv_rereg_mr, and userspace
 *          Type 2 memory windows (LOCAL_INV + BIND_MW) on the same device;
 *  batch   MWIN_WINDOW_BATCH with 1, 8, 64, 256 operations per call against
 *          the single calls, over 256 windows of one region;
 *  data    RDMA READ and WRITE latency and throughput through a window and
 *          through a plain userspace MR, from the same initiator code;
 *  trace   where a rebind's time goes: the function_graph tracer over
 *          single rebinds, the floor and a batch;
 *  scale   create, rebind and destroy rates and memory with 10, 1,000 and
 *          100,000 live windows; revoke-all (PEER_DISCONNECT) of a peer that
 *          holds 10,000 windows;
 *  lease   (lease.c) how late a lease's rkey dies past its deadline, against
 *          the in-kernel revoke floor, and the cost per window of 10,000
 *          leases running out together against single invalidations.
 *
 * Each figure is the median of repeated trials, with p10 and p90 of the
 * trials; a trial is a group of operations timed together (their mean).
 * The methods of a section take turns within each round of trials, so that
 * the host's noise (other guests, TCG) touches them alike, and ratios are
 * taken within rounds. Output: a table and the targets on stdout and in
 * OUT/summary.txt, every figure in OUT/results.csv. See
 * Documentation/performance.rst.
 *
 * The peers are this program's own RDMA CM connections (struct conn): a
 * thread per connection to the module takes the grant and revoke messages
 * and reposts the receives, so that long loops never run the module into
 * RNR. libmwinpeer (tools/lib/peer/) checks that a window really carries
 * data before the data path is measured.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "libmwin.h"
#include "mwbench.h"
#include <mwin/peer.h>

#define RECV_SIZE MWIN_WIRE_RECV_SIZE
#define FLOOR_PATH "/sys/kernel/debug/mwin_bench/rebind"
#define LOOP_PORT 18611

static const uint64_t ctl_sizes[] = {
	4 * KiB, 64 * KiB, 1 * MiB, 16 * MiB, 256 * MiB, 1 * GiB,
};
#define NR_SIZES (sizeof(ctl_sizes) / sizeof(ctl_sizes[0]))
static const int batch_sizes[] = { 1, 8, 64, 256 };
#define NR_BATCH (sizeof(batch_sizes) / sizeof(batch_sizes[0]))
static const size_t dp_sizes[] = {
	64, 256, 1 * KiB, 4 * KiB, 16 * KiB, 64 * KiB, 256 * KiB, 1 * MiB,
};
#define NR_DP (sizeof(dp_sizes) / sizeof(dp_sizes[0]))
static const unsigned int scale_counts[] = { 10, 1000, 100000 };
#define NR_SCALE (sizeof(scale_counts) / sizeof(scale_counts[0]))

/* ------------------------------------------------------------ options */

static struct {
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
} opt = {
	.host = "10.0.2.15",
	.dev = "rxe0",
	.out = "build/vm/out/bench",
	.trials = 21,
	.ops = 32,
	.scale_max = 100000,
	.revoke_windows = 10000,
	.revoke_trials = 3,
	.leases = 1000,
	.expiry_windows = 10000,
};

int mfd = -1;
static uint64_t t_start;
unsigned int max_windows;

/* ------------------------------------------------------------ helpers */

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void say(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "mwbench [%6.1fs] ", (now_ns() - t_start) / 1e9);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "mwbench: error: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static bool want(const char *section)
{
	const char *s = opt.only;
	size_t n = strlen(section);

	if (!s)
		return true;
	while (*s) {
		if (!strncmp(s, section, n) && (s[n] == ',' || !s[n]))
			return true;
		s = strchr(s, ',');
		if (!s)
			break;
		s++;
	}
	return false;
}

static const char *size_str(uint64_t b, char buf[24])
{
	if (b >= GiB && !(b % GiB))
		snprintf(buf, 24, "%" PRIu64 " GiB", b / GiB);
	else if (b >= MiB && !(b % MiB))
		snprintf(buf, 24, "%" PRIu64 " MiB", b / MiB);
	else if (b >= KiB && !(b % KiB))
		snprintf(buf, 24, "%" PRIu64 " KiB", b / KiB);
	else
		snprintf(buf, 24, "%" PRIu64 " B", b);
	return buf;
}

/* A small deterministic generator: the same windows in every run. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint32_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 11);
}

static long meminfo_kb(const char *key)
{
	char line[256];
	size_t n = strlen(key);
	long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ':') {
			v = strtol(line + n + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

/* --------------------------------------------------------- statistics */

int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double pct(const double *sorted, int n, double p)
{
	double pos = p * (n - 1);
	int i = (int)pos;

	if (i >= n - 1)
		return sorted[n - 1];
	return sorted[i] + (sorted[i + 1] - sorted[i]) * (pos - i);
}

struct stats stats_of(const double *v, int n)
{
	struct stats s = { .n = n };
	double *c, sum = 0;
	int i;

	if (n <= 0)
		return s;
	c = malloc(n * sizeof(*c));
	if (!c)
		die("out of memory");
	memcpy(c, v, n * sizeof(*c));
	qsort(c, n, sizeof(*c), cmp_double);
	for (i = 0; i < n; i++)
		sum += c[i];
	s.mean = sum / n;
	s.med = pct(c, n, 0.5);
	s.p10 = pct(c, n, 0.1);
	s.p90 = pct(c, n, 0.9);
	free(c);
	return s;
}

/* ------------------------------------------------------------ results */

static struct result *results;
static size_t nr_results, cap_results;

struct result *add_result(const char *section, const char *metric,
			  uint64_t size, int batch, const struct stats *s,
			  int ops, const char *unit, const char *status)
{
	struct result *r;

	if (nr_results == cap_results) {
		cap_results = cap_results ? 2 * cap_results : 64;
		results = realloc(results, cap_results * sizeof(*results));
		if (!results)
			die("out of memory");
	}
	r = &results[nr_results++];
	memset(r, 0, sizeof(*r));
	snprintf(r->section, sizeof(r->section), "%s", section);
	snprintf(r->metric, sizeof(r->metric), "%s", metric);
	r->size = size;
	r->batch = batch;
	if (s)
		r->s = *s;
	r->ops = ops;
	snprintf(r->unit, sizeof(r->unit), "%s", unit);
	snprintf(r->status, sizeof(r->status), "%s", status ? status : "ok");
	return r;
}

void add_failed(const char *section, const char *metric, uint64_t size,
		int batch, const char *unit, const char *fmt, ...)
{
	char buf[80];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	add_result(section, metric, size, batch, NULL, 0, unit, buf);
	say("%s %s %" PRIu64 ": %s", section, metric, size, buf);
}

const struct result *find(const char *section, const char *metric,
			  uint64_t size, int batch)
{
	size_t i;

	for (i = 0; i < nr_results; i++) {
		const struct result *r = &results[i];

		if (!strcmp(r->section, section) && !strcmp(r->metric, metric) &&
		    r->size == size && r->batch == batch &&
		    !strcmp(r->status, "ok") && r->s.n)
			return r;
	}
	return NULL;
}

double med(const char *section, const char *metric, uint64_t size, int batch)
{
	const struct result *r = find(section, metric, size, batch);

	return r ? r->s.med : NAN;
}

/* -------------------------------------------------------------- mwin */

int region_create(uint64_t len, uint32_t *id)
{
	return mwin_region_create(mfd, len, 0, id, NULL);
}

static int win_create(uint32_t region, uint32_t peer, uint64_t off,
		      uint64_t len, uint32_t access, struct mwin_window_bind *out)
{
	struct mwin_window_bind b = {
		.flags = MWIN_WINDOW_OVERLAP,
		.region = region,
		.peer = peer,
		.access = access,
		.offset = off,
		.length = len,
	};
	int ret = mwin_window_create(mfd, &b);

	if (out)
		*out = b;
	return ret;
}

static int win_rebind_key(uint32_t id, uint64_t off, uint64_t len,
			  uint32_t access, uint32_t *rkey)
{
	struct mwin_window_bind b = {
		.flags = MWIN_WINDOW_OVERLAP,
		.id = id,
		.access = access,
		.offset = off,
		.length = len,
	};
	int ret = mwin_window_rebind(mfd, &b);

	if (rkey)
		*rkey = b.rkey;
	return ret;
}

static int win_rebind(uint32_t id, uint64_t off, uint64_t len, uint32_t access)
{
	return win_rebind_key(id, off, len, access, NULL);
}

int win_batch(struct mwin_batch_op *ops, uint32_t n, uint32_t *failed)
{
	struct mwin_window_batch b = {
		.size = sizeof(b),
		.count = n,
		.op_size = sizeof(*ops),
		.ops = (uintptr_t)ops,
	};
	int ret = mwin_ioctl(mfd, MWIN_WINDOW_BATCH, &b);

	if (failed)
		*failed = ret ? n : b.failed;
	return ret;
}

/* ----------------------------------------------------- RDMA connections */

/*
 * One side of a loopback RC connection made with RDMA CM, for the
 * baselines the module is measured against (userspace memory windows and
 * MRs): not a peer of the module. The send CQ belongs to the thread that
 * posts.
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
};

static int cm_wait(struct rdma_event_channel *ch, enum rdma_cm_event_type want_ev,
		   struct rdma_cm_event **out, int timeout_ms)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	int ret;

	for (;;) {
		ret = poll(&pfd, 1, timeout_ms);
		if (ret <= 0)
			return ret ? -errno : -ETIMEDOUT;
		if (rdma_get_cm_event(ch, &ev))
			return -errno;
		if (ev->event == want_ev) {
			if (out)
				*out = ev;
			else
				rdma_ack_cm_event(ev);
			return 0;
		}
		say("rdma cm: %s while waiting for %s (status %d)",
		    rdma_event_str(ev->event), rdma_event_str(want_ev),
		    ev->status);
		ret = ev->event == RDMA_CM_EVENT_REJECTED ? -ECONNREFUSED :
		      -ECONNABORTED;
		rdma_ack_cm_event(ev);
		if (want_ev != RDMA_CM_EVENT_DISCONNECTED)
			return ret;
	}
}

static int post_recv(struct conn *c, unsigned int slot)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(c->mem + c->buf_size + slot * RECV_SIZE),
		.length = RECV_SIZE,
		.lkey = c->mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = slot, .sg_list = &sge, .num_sge = 1,
	}, *bad;

	return ibv_post_recv(c->qp, &wr, &bad);
}

/* PD, CQs, QP and memory of @c on @id; receives posted */
static int conn_setup_qp(struct conn *c, struct rdma_cm_id *id,
			 struct ibv_pd *pd)
{
	struct ibv_qp_init_attr qa = {};
	unsigned int i;

	c->id = id;
	c->pd = pd ? pd : ibv_alloc_pd(id->verbs);
	c->own_pd = !pd;
	c->cc = ibv_create_comp_channel(id->verbs);
	if (!c->pd || !c->cc)
		return -ENOMEM;
	c->scq = ibv_create_cq(id->verbs, 512, NULL, NULL, 0);
	c->rcq = ibv_create_cq(id->verbs, (int)c->recv_depth + 16, NULL, c->cc,
			       0);
	if (!c->scq || !c->rcq)
		return -ENOMEM;
	c->mem_size = c->buf_size + c->recv_depth * RECV_SIZE;
	c->mem = mmap(NULL, c->mem_size, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (c->mem == MAP_FAILED) {
		c->mem = NULL;
		return -ENOMEM;
	}
	c->mr = ibv_reg_mr(c->pd, c->mem, c->mem_size,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
			   IBV_ACCESS_REMOTE_WRITE);
	if (!c->mr)
		return -errno;
	qa.qp_type = IBV_QPT_RC;
	qa.send_cq = c->scq;
	qa.recv_cq = c->rcq;
	qa.cap.max_send_wr = 256;
	qa.cap.max_recv_wr = c->recv_depth;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	if (rdma_create_qp(id, c->pd, &qa))
		return -errno;
	c->qp = id->qp;
	for (i = 0; i < c->recv_depth; i++)
		if (post_recv(c, i))
			return -EIO;
	ibv_req_notify_cq(c->rcq, 0);
	return 0;
}

static void conn_rd_atom(struct conn *c, struct rdma_conn_param *cp)
{
	struct ibv_device_attr da;

	cp->initiator_depth = 16;
	cp->responder_resources = 16;
	if (!ibv_query_device(c->id->verbs, &da)) {
		if (da.max_qp_init_rd_atom < 16)
			cp->initiator_depth = (uint8_t)da.max_qp_init_rd_atom;
		if (da.max_qp_rd_atom < 16)
			cp->responder_resources = (uint8_t)da.max_qp_rd_atom;
	}
}

void conn_close(struct conn *c)
{
	if (!c)
		return;
	if (c->id && c->qp)
		rdma_disconnect(c->id);
	if (c->qp)
		rdma_destroy_qp(c->id);
	if (c->mr)
		ibv_dereg_mr(c->mr);
	if (c->mem)
		munmap(c->mem, c->mem_size);
	if (c->scq)
		ibv_destroy_cq(c->scq);
	if (c->rcq)
		ibv_destroy_cq(c->rcq);
	if (c->cc)
		ibv_destroy_comp_channel(c->cc);
	if (c->pd && c->own_pd)
		ibv_dealloc_pd(c->pd);
	if (c->id)
		rdma_destroy_id(c->id);
	if (c->ch)
		rdma_destroy_event_channel(c->ch);
	free(c);
}

static struct conn *conn_new(size_t buf_size, unsigned int recv_depth)
{
	struct conn *c = calloc(1, sizeof(*c));

	if (!c)
		die("out of memory");
	c->buf_size = buf_size;
	c->recv_depth = recv_depth;
	return c;
}

/* resolve @host:@port on a new id of @c; checks the device */
static int conn_resolve(struct conn *c, const char *host, uint16_t port)
{
	struct addrinfo hints = { .ai_family = AF_INET }, *ai;
	char portstr[8];
	int ret;

	c->ch = rdma_create_event_channel();
	if (!c->ch || rdma_create_id(c->ch, &c->id, NULL, RDMA_PS_TCP))
		return -errno;
	snprintf(portstr, sizeof(portstr), "%u", port);
	if (getaddrinfo(host, portstr, &hints, &ai))
		return -EHOSTUNREACH;
	ret = rdma_resolve_addr(c->id, NULL, ai->ai_addr, 2000);
	freeaddrinfo(ai);
	if (ret)
		return -errno;
	ret = cm_wait(c->ch, RDMA_CM_EVENT_ADDR_RESOLVED, NULL, 5000);
	if (ret)
		return ret;
	if (rdma_resolve_route(c->id, 2000))
		return -errno;
	ret = cm_wait(c->ch, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL, 5000);
	if (ret)
		return ret;
	if (strcmp(ibv_get_device_name(c->id->verbs->device), opt.dev)) {
		say("route to %s goes through %s, not %s", host,
		    ibv_get_device_name(c->id->verbs->device), opt.dev);
		return -ENODEV;
	}
	return 0;
}

/* ------------------------------------------------ peers of the module */

/*
 * The peer's thread, its libmwinpeer connection's only user while it
 * runs: takes in the grants and revokes and so reposts the receives.
 */
static void *pump(void *arg)
{
	struct peer *p = arg;
	struct mwpeer_event ev[64];
	int i, n;

	while (!atomic_load(&p->pump_stop)) {
		n = mwpeer_process(p->mp, ev, 64);
		for (i = 0; i < n; i++) {
			if (ev[i].type == MWPEER_EV_GRANT ||
			    ev[i].type == MWPEER_EV_REVOKE)
				atomic_fetch_add(&p->msgs, 1);
			else if (ev[i].type == MWPEER_EV_DISCONNECTED)
				atomic_fetch_add(&p->errors, 1);
		}
		if (!n)
			mwpeer_poll(p->mp, 5);
	}
	return NULL;
}

/* is the module's side of @p still connected? */
bool peer_alive(const struct peer *p)
{
	struct mwin_peer_info pi;

	return !mwin_peer_get(mfd, p->peer_id, 0, &pi) &&
	       pi.state == MWIN_PEER_CONNECTED;
}

/* messages the module sent this peer against those the pump took in */
static void peer_check(struct peer *p, const char *when)
{
	struct mwin_peer_info pi;

	if (mwin_peer_get(mfd, p->peer_id, 0, &pi))
		say("peer %u (%s): gone", p->peer_id, when);
	else
		say("peer %u (%s): module sent %llu messages, %lu received, %d errors",
		    p->peer_id, when, (unsigned long long)pi.msgs_sent,
		    atomic_load(&p->msgs), atomic_load(&p->errors));
}

/* Stop the thread: the caller may use @p->mp itself. */
void peer_pause(struct peer *p)
{
	if (!p->pumping)
		return;
	atomic_store(&p->pump_stop, true);
	pthread_join(p->pump, NULL);
	p->pumping = false;
}

void peer_close(struct peer *p)
{
	if (!p)
		return;
	peer_pause(p);
	mwpeer_close(p->mp);
	free(p);
}

/* A peer of the module on opt.dev, with a thread taking in its messages. */
struct peer *peer_connect(void)
{
	struct mwpeer_opts o = {
		.dev = opt.dev,
		.timeout_ms = 10000,
		.buf_size = 2 * MiB,
		.recv_depth = PEER_RECV_DEPTH,
		.retry_count = 3,
	};
	struct peer *p = calloc(1, sizeof(*p));
	struct mwin_peer_info pi;
	int ret, i;

	if (!p)
		die("out of memory");
	p->mp = mwpeer_create(&o);
	if (!p->mp)
		die("mwpeer_create: %s", strerror(errno));
	ret = mwpeer_open(p->mp, opt.host, 0);
	if (ret) {
		say("cannot connect to the module at %s: %s (%s)", opt.host,
		    strerror(-ret), mwpeer_errmsg(p->mp));
		peer_close(p);
		return NULL;
	}
	p->peer_id = mwpeer_id(p->mp);
	/* wait until the module, too, sees it established */
	for (i = 0; i < 5000; i++) {
		if (!mwin_peer_get(mfd, p->peer_id, 0, &pi) &&
		    pi.state == MWIN_PEER_CONNECTED)
			break;
		usleep(1000);
	}
	if (pthread_create(&p->pump, NULL, pump, p))
		die("pthread_create");
	p->pumping = true;
	return p;
}

/* The data path's view of the loopback client @c. */
static struct dp_qp conn_dp(struct conn *c)
{
	return (struct dp_qp){ c->qp, c->scq, c->mem, c->mr->lkey,
			       &c->wr_seq };
}

/* ... and of the peer @p, paused: the same QP and buffer libmwinpeer uses */
struct dp_qp peer_dp(struct peer *p)
{
	struct ibv_qp *qp = mwpeer_ibv_qp(p->mp);
	uint8_t *buf = mwpeer_buf(p->mp);

	peer_pause(p);
	return (struct dp_qp){ qp, qp->send_cq, buf,
			       mwpeer_lkey(p->mp, buf, 1), &p->wr_seq };
}

/*
 * A loopback pair on the device: the client initiates, the server's buffer
 * (@srv_buf bytes) is the target.
 */
struct loop {
	struct rdma_event_channel *lch;
	struct rdma_cm_id *listen;
	struct conn *cli, *srv;
};

static void loop_close(struct loop *l)
{
	conn_close(l->cli);
	conn_close(l->srv);
	if (l->listen)
		rdma_destroy_id(l->listen);
	if (l->lch)
		rdma_destroy_event_channel(l->lch);
	memset(l, 0, sizeof(*l));
}

static int loop_open(struct loop *l, size_t cli_buf, size_t srv_buf)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(LOOP_PORT) };
	struct rdma_conn_param cp = { .retry_count = 3, .rnr_retry_count = 7 };
	struct rdma_conn_param sp = { .retry_count = 3, .rnr_retry_count = 7 };
	struct rdma_cm_event *ev;
	int ret;

	memset(l, 0, sizeof(*l));
	inet_pton(AF_INET, opt.host, &sin.sin_addr);
	l->lch = rdma_create_event_channel();
	if (!l->lch || rdma_create_id(l->lch, &l->listen, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(l->listen, (struct sockaddr *)&sin) ||
	    rdma_listen(l->listen, 4)) {
		ret = -errno;
		goto fail;
	}
	l->cli = conn_new(cli_buf, 16);
	l->srv = conn_new(srv_buf, 16);
	ret = conn_resolve(l->cli, opt.host, LOOP_PORT);
	if (!ret)
		ret = conn_setup_qp(l->cli, l->cli->id, NULL);
	if (ret)
		goto fail;
	conn_rd_atom(l->cli, &cp);
	if (rdma_connect(l->cli->id, &cp)) {
		ret = -errno;
		goto fail;
	}
	ret = cm_wait(l->lch, RDMA_CM_EVENT_CONNECT_REQUEST, &ev, 10000);
	if (ret)
		goto fail;
	ret = conn_setup_qp(l->srv, ev->id, NULL);
	sp.responder_resources = ev->param.conn.initiator_depth;
	sp.initiator_depth = ev->param.conn.responder_resources;
	if (!ret && rdma_accept(ev->id, &sp))
		ret = -errno;
	rdma_ack_cm_event(ev);
	if (ret)
		goto fail;
	ret = cm_wait(l->cli->ch, RDMA_CM_EVENT_ESTABLISHED, NULL, 10000);
	if (!ret)
		ret = cm_wait(l->lch, RDMA_CM_EVENT_ESTABLISHED, NULL, 10000);
	if (ret)
		goto fail;
	return 0;
fail:
	say("cannot make a loopback connection on %s: %s", opt.dev,
	    strerror(-ret));
	loop_close(l);
	return ret;
}

/* Wait for the completion of wr_id @want on @c's send CQ (busy poll). */
static int wait_send(struct conn *c, uint64_t want)
{
	struct ibv_wc wc;
	uint64_t deadline = now_ns() + 10000000000ULL;
	int n, status = 0;

	for (;;) {
		n = ibv_poll_cq(c->scq, 1, &wc);
		if (n < 0)
			return -EIO;
		if (n) {
			if (wc.status != IBV_WC_SUCCESS && !status)
				status = wc.status;
			if (wc.wr_id == want)
				return status;
			continue;
		}
		if (now_ns() > deadline)
			return -ETIMEDOUT;
	}
}

/* ---------------------------------------------------------- data path */

/*
 * @count operations of @len bytes, @depth in flight, each signaled.
 * @lat_us: if not NULL (then @depth is 1), each operation's round trip.
 * Return: elapsed ns, or 0 on failure.
 */
uint64_t dp_run(const struct dp_qp *q, enum ibv_wr_opcode op, uint32_t rkey,
		uint64_t raddr, size_t len, int depth, int count,
		double *lat_us)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)q->buf, .length = (uint32_t)len,
		.lkey = q->lkey,
	};
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = raddr, .rkey = rkey },
	}, *bad;
	struct ibv_wc wc[16];
	int posted = 0, done = 0, n, i;
	uint64_t t0 = now_ns(), t_op = 0, deadline = t0 + 60000000000ULL;

	while (done < count) {
		while (posted < count && posted - done < depth) {
			wr.wr_id = ++*q->wr_seq;
			if (lat_us)
				t_op = now_ns();
			if (ibv_post_send(q->qp, &wr, &bad)) {
				say("post %s failed: %s",
				    op == IBV_WR_RDMA_READ ? "READ" : "WRITE",
				    strerror(errno));
				return 0;
			}
			posted++;
		}
		n = ibv_poll_cq(q->cq, 16, wc);
		if (n < 0)
			return 0;
		for (i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				say("%s of %zu bytes failed: %s",
				    op == IBV_WR_RDMA_READ ? "READ" : "WRITE",
				    len, ibv_wc_status_str(wc[i].status));
				return 0;
			}
			if (lat_us)
				lat_us[done] = (now_ns() - t_op) / 1e3;
			done++;
		}
		if (!n && now_ns() > deadline) {
			say("data path: no completion for 60 s");
			return 0;
		}
	}
	t0 = now_ns() - t0;
	return t0 ? t0 : 1;
}

/* ------------------------------------------------------ rxe counters */

/*
 * The device's own counters, per section: retransmissions (a request that
 * was not acknowledged in time) and RNR NAKs (no receive posted) tell when
 * the figures were made under trouble.
 */
static const char *const cnt_names[NR_CNT] = {
	"completer_retry_err", "retry_exceeded_err", "retry_rnr_exceeded_err",
	"rcvd_rnr_err", "send_rnr_err", "duplicate_request",
	"out_of_seq_request", "rcvd_seq_err", "sent_pkts",
};

static struct {
	char section[12];
	long long d[NR_CNT];
} cnt_log[8];
static int nr_cnt_log;

void cnt_read(long long *v)
{
	char path[256], buf[32];
	size_t i;
	int fd;
	ssize_t n;

	for (i = 0; i < NR_CNT; i++) {
		v[i] = -1;
		snprintf(path, sizeof(path),
			 "/sys/class/infiniband/%s/ports/1/hw_counters/%s",
			 opt.dev, cnt_names[i]);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n > 0) {
			buf[n] = '\0';
			v[i] = strtoll(buf, NULL, 10);
		}
	}
}

/* the device's sent_pkts alone: every packet rxe built, ACKs included */
static long long pkts_read(void)
{
	static int fd = -2;
	char buf[32];
	ssize_t n;

	if (fd == -2) {
		char path[256];

		snprintf(path, sizeof(path),
			 "/sys/class/infiniband/%s/ports/1/hw_counters/sent_pkts",
			 opt.dev);
		fd = open(path, O_RDONLY);
	}
	if (fd < 0)
		return -1;
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return strtoll(buf, NULL, 10);
}

void cnt_section(const char *section, const long long *before)
{
	long long after[NR_CNT];
	size_t i;

	if (nr_cnt_log >= 8)
		return;
	cnt_read(after);
	snprintf(cnt_log[nr_cnt_log].section, sizeof(cnt_log[0].section),
		 "%s", section);
	for (i = 0; i < NR_CNT; i++)
		cnt_log[nr_cnt_log].d[i] = before[i] < 0 || after[i] < 0 ? -1 :
					   after[i] - before[i];
	nr_cnt_log++;
}

/* ------------------------------------------------------ control path */

/* A trial: @ops operations; returns the ns timed, or a negative errno. */
typedef int64_t (*trial_fn)(void *ctx, int ops);

struct ctl_ctx {
	uint32_t region, peer, peer2;
	uint32_t win;		/* rights rebinds, invalidate, the floor */
	uint32_t win2;		/* range rebinds */
	uint32_t win3;		/* of peer2: rebinds taking turns with win */
	uint32_t win4;		/* quiet (no messages): rights rebinds */
	uint64_t size;
	uint32_t flip, flip2, flip3, flip4, mw_flip;
	struct conn *cli;	/* userspace MW / MR baselines */
	struct ibv_mr *parent;
	struct ibv_mw *mw;
	uint8_t *ubuf;
	int rereg_errno;
};

static int64_t t_rebind_rights(void *arg, int ops)
{
	struct ctl_ctx *c = arg;
	uint64_t t0 = now_ns();
	int i, ret;

	for (i = 0; i < ops; i++) {
		ret = win_rebind(c->win, 0, c->size,
				 ++c->flip & 1 ? MWIN_ACCESS_READ : RW);
		if (ret)
			return ret;
	}
	return (int64_t)(now_ns() - t0);
}

/* The same rebinds of a quiet window: the peer is sent nothing. */
static int64_t t_rebind_quiet(void *arg, int ops)
{
	struct ctl_ctx *c = arg;
	uint64_t t0 = now_ns();
	int i, ret;

	for (i = 0; i < ops; i++) {
		ret = win_rebind(c->win4, 0, c->size,
				 ++c->flip4 & 1 ? MWIN_ACCESS_READ : RW);
		if (ret)
			return ret;
	}
	return (int64_t)(now_ns() - t0);
}

static int64_t t_rebind_range(void *arg, int ops)
{
	struct ctl_ctx *c = arg;
	uint64_t t0 = now_ns();
	int i, ret;

	for (i = 0; i < ops; i++) {
		ret = win_rebind(c->win2, 0,
				 ++c->flip2 & 1 ? c->size / 2 : c->size, RW);
		if (ret)
			return ret;
	}
	return (int64_t)(now_ns() - t0);
}

/*
 * Rebinds that alternate between two windows of two peers (two QPs). On
 * rxe every LOCAL_INV waits until all earlier work requests of its send
 * queue completed, and the module posts its grant and revoke messages on
 * the same queue: a rebind right after another on the same QP waits for
 * the other's messages to be acknowledged by the peer; with two QPs taking
 * turns, those messages had a whole rebind's time to complete.
 */
static int64_t t_rebind_2peers(void *arg, int ops)
{
	struct ctl_ctx *c = arg;
	uint64_t t0 = now_ns();
	int i, ret;

	for (i = 0; i < ops; i++) {
		ret = win_rebind(i & 1 ? c->win3 : c->win, 0, c->size,
				 (++c->flip3 >> 1) & 1 ? MWIN_ACCESS_READ : RW);
		if (ret)
			return ret;
	}
	return (int64_t)(now_ns() - t0);
}

/* invalidate alone (timed); the rebind after it is not */
static int64_t t_invalidate(void *arg, int ops)
{
	struct ctl_ctx *c = arg;
	uint64_t sum = 0, t0;
	int i, ret;

	for (i = 0; i < ops; i++) {
		t0 = now_ns();
		ret = mwin_window_invalidate(mfd, c->win);
		sum += now_ns() - t0;
		if (!ret)
			ret = win_rebind(c->win, 0, c->size, RW);
		if (ret)
			return ret;
	}
	return (int64_t)sum;
}

static int64_t t_invalidate_rebind(void *arg, int ops)
{
	struct ctl_ctx *c = arg;
	uint64_t t0 = now_ns();
	int i, ret;

	for (i = 0; i < ops; i++) {
		ret = mwin_window_invalidate(mfd, c->win);
		if (!ret)
			ret = win_rebind(c->win, 0, c->size, RW);
		if (ret)
			return ret;
	}
	return (int64_t)(now_ns() - t0);
}

static int64_t t_create_destroy(void *arg, int ops)
{
	struct ctl_ctx *c = arg;
	struct mwin_window_bind b;
	uint64_t t0 = now_ns();
	int i, ret;

	for (i = 0; i < ops; i++) {
		ret = win_create(c->region, c->peer, 0, c->size, RW, &b);
		if (!ret)
			ret = mwin_window_destroy(mfd, b.id);
		if (ret)
			return ret;
	}
	return (int64_t)(now_ns() - t0);
}

/*
 * The in-kernel floor, through mwin_bench.ko. One call makes fewer rebinds
 * than an MR has keys (mwin_bench_rebind() never repeats one): more are
 * made in several calls, and their times added up.
 */
#define FLOOR_MAX_CALL	200

static int64_t floor_call(const char *path, uint32_t win, int ops)
{
	char buf[64];
	unsigned int w, n;
	unsigned long long ns;
	int fd, len, ret = 0;

	fd = open(path, O_RDWR);
	if (fd < 0)
		return -errno;
	len = snprintf(buf, sizeof(buf), "%u %d\n", win, ops);
	if (write(fd, buf, len) != len)
		ret = -errno;
	if (!ret) {
		len = (int)pread(fd, buf, sizeof(buf) - 1, 0);
		if (len <= 0)
			ret = -EIO;
		else
			buf[len] = '\0';
	}
	close(fd);
	if (ret)
		return ret;
	if (sscanf(buf, "%u %u %llu", &w, &n, &ns) != 3 || w != win ||
	    n != (unsigned int)ops)
		return -EPROTO;
	return (int64_t)ns;
}

int64_t floor_run_at(const char *path, uint32_t win, int ops)
{
	int64_t ns, sum = 0;
	int n;

	for (; ops > 0; ops -= n) {
		n = ops < FLOOR_MAX_CALL ? ops : FLOOR_MAX_CALL;
		ns = floor_call(path, win, n);
		if (ns < 0)
			return ns;
		sum += ns;
	}
	return sum;
}

static int64_t floor_run(uint32_t win, int ops)
{
	return floor_run_at(FLOOR_PATH, win, ops);
}

static int64_t t_floor(void *arg, int ops)
{
	struct ctl_ctx *c = arg;

	return floor_run(c->win, ops);
}

static int mr_access(bool write)
{
	return IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
	       (write ? IBV_ACCESS_REMOTE_WRITE : 0);
}

static int64_t t_reg_dereg(void *arg, int ops)
{
	struct ctl_ctx *c = arg;
	uint64_t t0 = now_ns();
	struct ibv_mr *mr;
	int i;

	for (i = 0; i < ops; i++) {
		mr = ibv_reg_mr(c->cli->pd, c->ubuf, c->size, mr_access(true));
		if (!mr)
			return -errno;
		if (ibv_dereg_mr(mr))
			return -EIO;
	}
	return (int64_t)(now_ns() - t0);
}

static int64_t t_reg_only(void *arg, int ops)
{
	struct ctl_ctx *c = arg;
	struct ibv_mr *mr;
	uint64_t sum = 0, t0;
	int i;

	for (i = 0; i < ops; i++) {
		t0 = now_ns();
		mr = ibv_reg_mr(c->cli->pd, c->ubuf, c->size, mr_access(true));
		sum += now_ns() - t0;
		if (!mr)
			return -errno;
		ibv_dereg_mr(mr);
	}
	return (int64_t)sum;
}

static int64_t t_rereg(void *arg, int ops)
{
	struct ctl_ctx *c = arg;
	uint64_t sum = 0, t0;
	struct ibv_mr *mr;
	int i, ret = 0;

	mr = ibv_reg_mr(c->cli->pd, c->ubuf, c->size, mr_access(true));
	if (!mr)
		return -errno;
	for (i = 0; i < ops && !ret; i++) {
		t0 = now_ns();
		errno = 0;
		ret = ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
				   mr_access(++c->flip & 1));
		sum += now_ns() - t0;
		if (ret)
			c->rereg_errno = errno ? errno : EIO;
	}
	ibv_dereg_mr(mr);
	return ret ? -c->rereg_errno : (int64_t)sum;
}

/* userspace Type 2 MW: LOCAL_INV and/or BIND_MW, one post, wait for the last */
static int mw_bind(struct ctl_ctx *c, bool inv, bool bind)
{
	struct ibv_send_wr inv_wr = {}, bind_wr = {}, *bad;
	uint32_t rkey = ibv_inc_rkey(c->mw->rkey);
	int ret;

	inv_wr.opcode = IBV_WR_LOCAL_INV;
	inv_wr.invalidate_rkey = c->mw->rkey;
	inv_wr.wr_id = ++c->cli->wr_seq;
	inv_wr.send_flags = bind ? 0 : IBV_SEND_SIGNALED;
	inv_wr.next = bind ? &bind_wr : NULL;
	bind_wr.opcode = IBV_WR_BIND_MW;
	bind_wr.wr_id = ++c->cli->wr_seq;
	bind_wr.send_flags = IBV_SEND_SIGNALED;
	bind_wr.bind_mw.mw = c->mw;
	bind_wr.bind_mw.rkey = rkey;
	bind_wr.bind_mw.bind_info.mr = c->parent;
	bind_wr.bind_mw.bind_info.addr = (uintptr_t)c->ubuf;
	bind_wr.bind_mw.bind_info.length = c->size;
	bind_wr.bind_mw.bind_info.mw_access_flags =
		IBV_ACCESS_REMOTE_READ |
		(++c->mw_flip & 1 ? 0 : IBV_ACCESS_REMOTE_WRITE);
	if (ibv_post_send(c->cli->qp, inv ? &inv_wr : &bind_wr, &bad))
		return -errno;
	ret = wait_send(c->cli, bind ? bind_wr.wr_id : inv_wr.wr_id);
	if (ret)
		return ret < 0 ? ret : -EIO;
	if (bind)
		c->mw->rkey = rkey;	/* rxe's provider does not */
	return 0;
}

static int64_t t_mw_rebind(void *arg, int ops)
{
	struct ctl_ctx *c = arg;
	uint64_t t0 = now_ns();
	int i, ret;

	for (i = 0; i < ops; i++) {
		ret = mw_bind(c, true, true);
		if (ret)
			return ret;
	}
	return (int64_t)(now_ns() - t0);
}

static int64_t t_mw_invalidate(void *arg, int ops)
{
	struct ctl_ctx *c = arg;
	uint64_t sum = 0, t0;
	int i, ret;

	for (i = 0; i < ops; i++) {
		t0 = now_ns();
		ret = mw_bind(c, true, false);
		sum += now_ns() - t0;
		if (!ret)
			ret = mw_bind(c, false, true);
		if (ret)
			return ret;
	}
	return (int64_t)sum;
}

/*
 * Round robin: in each round every (context, method) pair makes one trial,
 * so that slow drifts of the host (other guests, TCG) touch all figures
 * alike. Round 0 is a warm-up. v[ctx][method][trial] in us per operation;
 * a method that failed once is left out from then on (err[][] < 0).
 */
struct rr_method {
	const char *metric;
	trial_fn fn;
	bool on;
	bool slow;	/* ibv_reg_mr: 8 ops a trial, 1 from 16 MiB */
};

/* the operations a trial of @m makes at @size */
static int rr_ops_of(const struct rr_method *m, uint64_t size, int ops)
{
	if (!m->slow)
		return ops;
	if (size >= 16 * MiB)
		return 1;
	return ops < 8 ? ops : 8;
}

/*
 * When a trial fails, @recover is asked whether the peer was lost (see
 * PEER_RECV_DEPTH); if it was, it connects a new one and rebuilds the
 * windows, and the round is made again from its start. Losses are counted
 * in peer_losses and reported.
 */
typedef int (*recover_fn)(void *arg);
static unsigned int peer_losses;
#define RR_MAX 13	/* methods in one round robin */

static void round_robin(const char *section, void **ctxs, const uint64_t *sizes,
			int nctx, struct rr_method *m, int nm,
			const int *trials, const int *ops,
			double v[][RR_MAX][MAX_TRIALS], int err[][RR_MAX],
			recover_fn recover, void *rarg)
{
	int t, i, k, n, tmax = 0, recoveries = 0;
	int64_t ns;

	for (i = 0; i < nctx; i++)
		if (trials[i] > tmax)
			tmax = trials[i];
	for (t = -1; t < tmax; t++) {
redo:
		for (i = 0; i < nctx; i++) {
			if (t >= trials[i])
				continue;
			for (k = 0; k < nm; k++) {
				if (!m[k].on || err[i][k])
					continue;
				if (getenv("MWBENCH_DEBUG"))
					say("round %d: %s %" PRIu64, t,
					    m[k].metric, sizes[i]);
				n = rr_ops_of(&m[k], sizes[i], ops[i]);
				ns = m[k].fn(ctxs[i], n);
				if (ns < 0 && recover && recoveries < 5 &&
				    !recover(rarg)) {
					recoveries++;
					peer_losses++;
					say("%s: the peer was lost during %s %" PRIu64 " (round %d): new peer, round again",
					    section, m[k].metric, sizes[i], t);
					goto redo;
				}
				if (ns < 0) {
					err[i][k] = (int)ns;
					say("%s %s %" PRIu64 ": %s", section,
					    m[k].metric, sizes[i],
					    strerror((int)-ns));
				} else if (t >= 0) {
					v[i][k][t] = ns / 1e3 / n;
				}
			}
		}
	}
}

/* record the round robin's figures */
static void rr_results(const char *section, const uint64_t *sizes, int nctx,
		       struct rr_method *m, int nm, const int *trials,
		       const int *ops, double v[][RR_MAX][MAX_TRIALS], int err[][RR_MAX])
{
	struct stats s;
	int i, k;

	for (k = 0; k < nm; k++) {
		for (i = 0; i < nctx; i++) {
			if (!m[k].on)
				continue;
			if (err[i][k]) {
				add_failed(section, m[k].metric, sizes[i], 0,
					   "us/op", "failed: %s",
					   strerror(-err[i][k]));
				continue;
			}
			s = stats_of(v[i][k], trials[i]);
			add_result(section, m[k].metric, sizes[i], 0, &s,
				   rr_ops_of(&m[k], sizes[i], ops[i]), "us/op",
				   NULL);
			say("%-5s %-26s %10" PRIu64 ": %9.1f us/op [%.1f-%.1f]",
			    section, m[k].metric, sizes[i], s.med, s.p10,
			    s.p90);
		}
	}
}

/* the per-round ratio a/b of two methods, as a figure of its own */
static void rr_ratio(const char *name, const uint64_t *sizes, int nctx,
		     int a, int b, const int *trials,
		     double v[][RR_MAX][MAX_TRIALS], int err[][RR_MAX])
{
	double r[MAX_TRIALS];
	struct stats s;
	int i, t;

	for (i = 0; i < nctx; i++) {
		if (err[i][a] || err[i][b])
			continue;
		for (t = 0; t < trials[i]; t++)
			r[t] = v[i][a][t] / v[i][b][t];
		s = stats_of(r, trials[i]);
		add_result("ratio", name, sizes[i], 0, &s, 1, "x", NULL);
	}
}

/* the same across contexts: method @a of context @ia over @b of @ib */
static void rr_ratio_x(const char *name, uint64_t size, int ia, int a, int ib,
		       int b, int trials, double v[][RR_MAX][MAX_TRIALS],
		       int err[][RR_MAX])
{
	double r[MAX_TRIALS];
	struct stats s;
	int t;

	if (err[ia][a] || err[ib][b])
		return;
	for (t = 0; t < trials; t++)
		r[t] = v[ia][a][t] / v[ib][b][t];
	s = stats_of(r, trials);
	add_result("ratio", name, size, 0, &s, 1, "x", NULL);
}

/*
 * rxe packets per operation of @fn: the device's sent_pkts (every packet,
 * ACKs included) around @ops operations. The counters are cached for
 * 10 ms by the RDMA core and messages complete after the call returns:
 * the readings wait for both.
 */
static void pkts_per_op(const char *metric, trial_fn fn, void *ctx, int ops)
{
	struct stats s = { .n = 1 };
	long long a, b;

	usleep(100000);
	a = pkts_read();
	if (a < 0 || fn(ctx, ops) < 0)
		return;
	usleep(100000);
	b = pkts_read();
	if (b < 0)
		return;
	s.med = s.p10 = s.p90 = s.mean = (double)(b - a) / ops;
	add_result("pkts", metric, 4 * KiB, 0, &s, ops, "pkts/op", NULL);
}

/*
 * One by one: single rebinds of a 4 KiB window. Every 256 binds the MR's
 * key bytes are spent and the module replaces the MR (the rkey's index
 * changes): those operations are told apart.
 */
static void rebind_detail(struct ctl_ctx *c)
{
	int n = 2048, i, nrep = 0, nother = 0, slow = 0, ret;
	double *v = calloc(n, sizeof(*v)), *rep = calloc(n, sizeof(*v));
	double *other = calloc(n, sizeof(*v));
	uint32_t rkey, prev = 0;
	struct stats s, sr, so;
	uint64_t t0;

	if (!v || !rep || !other)
		die("out of memory");
	for (i = 0; i < n; i++) {
		t0 = now_ns();
		ret = win_rebind_key(c->win, 0, c->size,
				     ++c->flip & 1 ? MWIN_ACCESS_READ : RW,
				     &rkey);
		v[i] = (now_ns() - t0) / 1e3;
		if (ret) {
			add_failed("detail", "rebind per-op", c->size, 0,
				   "us", "failed: %s", strerror(-ret));
			goto out;
		}
		if (i && (rkey >> 8) != (prev >> 8))
			rep[nrep++] = v[i];
		else if (i)
			other[nother++] = v[i];
		prev = rkey;
	}
	s = stats_of(v, n);
	for (i = 0; i < n; i++)
		slow += v[i] > 2 * s.med;
	add_result("detail", "rebind per-op", c->size, 0, &s, n, "us", NULL);
	sr = stats_of(rep, nrep);
	if (nrep)
		add_result("detail", "rebind MR replaced", c->size, 0, &sr,
			   nrep, "us", NULL);
	so = stats_of(other, nother);
	add_result("detail", "rebind same MR", c->size, 0, &so, nother, "us",
		   NULL);
	qsort(v, n, sizeof(*v), cmp_double);
	s.med = pct(v, n, 0.99);
	s.p10 = v[n - 1];
	s.p90 = slow;
	add_result("detail", "rebind p99/max/slow", c->size, 0, &s, n, "us",
		   NULL);
	say("detail: %d single rebinds of 4 KiB: median %.1f us, mean %.1f, p99 %.1f, max %.1f, %d over 2x the median; %d replaced the MR (median %.1f us), others median %.1f us",
	    n, pct(v, n, 0.5), s.mean, s.med, s.p10, slow, nrep, sr.med,
	    so.med);
out:
	free(v);
	free(rep);
	free(other);
}

/* the windows of every size: two each, on the region, for the peer */
static int ctl_windows(struct ctl_ctx *ctx, int n)
{
	struct mwin_window_bind b;
	int i, ret;

	for (i = 0; i < n; i++) {
		struct ctl_ctx *c = &ctx[i];

		ret = win_create(c->region, c->peer, 0, c->size, RW, &b);
		c->win = b.id;
		if (!ret)
			ret = win_create(c->region, c->peer, 0, c->size, RW, &b);
		c->win2 = b.id;
		if (!ret)
			ret = win_create(c->region, c->peer2, 0, c->size, RW, &b);
		c->win3 = b.id;
		if (!ret) {
			b = (struct mwin_window_bind){
				.flags = MWIN_WINDOW_OVERLAP | MWIN_WINDOW_QUIET,
				.region = c->region, .peer = c->peer,
				.access = RW, .length = c->size,
			};
			ret = mwin_window_create(mfd, &b);
		}
		c->win4 = b.id;
		if (ret) {
			say("WINDOW_CREATE of %" PRIu64 " bytes: %s", c->size,
			    strerror(-ret));
			return ret;
		}
	}
	return 0;
}

struct ctl_env {
	struct peer *p, *p2;
	struct ctl_ctx *ctx;
	int n;
};

static int ctl_recover(void *arg)
{
	struct ctl_env *e = arg;
	int i;

	if (peer_alive(e->p) && peer_alive(e->p2))
		return -1;
	peer_close(e->p);
	peer_close(e->p2);
	e->p = peer_connect();
	e->p2 = peer_connect();
	if (!e->p || !e->p2)
		die("no peer");
	for (i = 0; i < e->n; i++) {
		mwin_window_destroy(mfd, e->ctx[i].win);
		mwin_window_destroy(mfd, e->ctx[i].win2);
		mwin_window_destroy(mfd, e->ctx[i].win3);
		mwin_window_destroy(mfd, e->ctx[i].win4);
		e->ctx[i].peer = e->p->peer_id;
		e->ctx[i].peer2 = e->p2->peer_id;
	}
	return ctl_windows(e->ctx, e->n);
}

static void bench_ctl(void)
{
	static struct ctl_ctx ctx[NR_SIZES];
	static double v[NR_SIZES][RR_MAX][MAX_TRIALS];
	static int err[NR_SIZES][RR_MAX];
	struct rr_method m[] = {
		{ "mwin rebind", t_rebind_rights, true, false },		/* 0 */
		{ "floor rebind", t_floor, true, false },			/* 1 */
		{ "userspace MW inv+bind", t_mw_rebind, true, false },		/* 2 */
		{ "mwin rebind (new range)", t_rebind_range, true, false },	/* 3 */
		{ "mwin invalidate", t_invalidate, true, false },		/* 4 */
		{ "mwin invalidate+rebind", t_invalidate_rebind, true, false },	/* 5 */
		{ "mwin create+destroy", t_create_destroy, true, false },	/* 6 */
		{ "userspace MW invalidate", t_mw_invalidate, true, false },	/* 7 */
		{ "mwin rebind 2 peers", t_rebind_2peers, true, false },	/* 8 */
		{ "ibv_reg_mr+dereg", t_reg_dereg, true, true },	/* 9 */
		{ "ibv_reg_mr", t_reg_only, true, true },		/* 10 */
		{ "ibv_rereg_mr", t_rereg, false, true },		/* 11 */
		{ "mwin rebind, quiet", t_rebind_quiet, true, false },	/* 12 */
	};
	void *ctxp[NR_SIZES];
	int trials[NR_SIZES], ops[NR_SIZES];
	struct ctl_env env = { .ctx = ctx, .n = NR_SIZES };
	long long cnt0[NR_CNT];
	struct ibv_mr *parent;
	struct peer *p, *p2;
	struct loop lp;
	uint32_t region;
	uint8_t *ubuf;
	bool mw_ok = true;
	size_t i;
	int ret;

	say("control path: one region of 1 GiB, windows of 4 KiB .. 1 GiB, %d rounds of %d ops (ibv_reg_mr: 8, or 1 from 16 MiB)",
	    opt.trials, opt.ops);
	cnt_read(cnt0);
	p = peer_connect();
	p2 = peer_connect();
	if (!p || !p2)
		die("no peer");
	if (loop_open(&lp, 64 * KiB, 64 * KiB))
		die("no loopback connection");
	ret = region_create(1 * GiB, &region);
	if (ret)
		die("REGION_CREATE 1 GiB: %s", strerror(-ret));
	/* the userspace buffer of the baselines: 1 GiB, populated */
	ubuf = mmap(NULL, 1 * GiB, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (ubuf == MAP_FAILED)
		die("mmap 1 GiB: %s", strerror(errno));
	parent = ibv_reg_mr(lp.cli->pd, ubuf, 1 * GiB,
			    mr_access(true) | IBV_ACCESS_MW_BIND);
	if (!parent)
		say("ibv_reg_mr 1 GiB with MW_BIND: %s", strerror(errno));

	for (i = 0; i < NR_SIZES; i++) {
		struct ctl_ctx *c = &ctx[i];

		c->region = region;
		c->peer = p->peer_id;
		c->peer2 = p2->peer_id;
		c->size = ctl_sizes[i];
		c->cli = lp.cli;
		c->parent = parent;
		c->ubuf = ubuf;
		ctxp[i] = c;
		trials[i] = opt.trials;
		ops[i] = opt.ops;
		if (parent && mw_ok) {
			c->mw = ibv_alloc_mw(lp.cli->pd, IBV_MW_TYPE_2);
			ret = c->mw ? mw_bind(c, false, true) : -errno;
			if (ret) {
				say("userspace Type 2 MW unusable: %s",
				    strerror(-ret));
				mw_ok = false;
			}
		}
	}
	if (ctl_windows(ctx, NR_SIZES))
		die("cannot create the windows");
	env.p = p;
	env.p2 = p2;
	if (!mw_ok) {
		m[2].on = m[7].on = false;
		add_failed("ctl", "userspace MW inv+bind", 0, 0, "us/op",
			   "unsupported");
	}
	if (access(FLOOR_PATH, W_OK)) {
		say("%s: %s (is mwin_bench.ko loaded?)", FLOOR_PATH,
		    strerror(errno));
		m[1].on = false;
		add_failed("ctl", "floor rebind", 0, 0, "us/op",
			   "unavailable (mwin_bench.ko not loaded)");
	}

	/* ibv_rereg_mr: rxe on 6.1 has none; then it stays out */
	if (t_rereg(&ctx[0], 1) < 0) {
		add_failed("ctl", "ibv_rereg_mr", 0, 0, "us/op",
			   "unsupported (%s)", strerror(ctx[0].rereg_errno));
	} else {
		m[11].on = true;
	}
	round_robin("ctl", ctxp, ctl_sizes, NR_SIZES, m, 13, trials, ops, v,
		    err, ctl_recover, &env);
	p = env.p;
	p2 = env.p2;
	peer_check(p, "after the control path");
	rr_results("ctl", ctl_sizes, NR_SIZES, m, 13, trials, ops, v, err);
	/* ratios within each round: both figures saw the same host */
	if (m[1].on)
		rr_ratio("mwin/floor", ctl_sizes, NR_SIZES, 0, 1, trials, v, err);
	if (m[2].on)
		rr_ratio("mwin/userspace MW", ctl_sizes, NR_SIZES, 0, 2, trials,
			 v, err);
	if (m[1].on)
		rr_ratio("quiet/floor", ctl_sizes, NR_SIZES, 12, 1, trials, v,
			 err);
	if (m[2].on)
		rr_ratio("quiet/userspace MW", ctl_sizes, NR_SIZES, 12, 2,
			 trials, v, err);
	rr_ratio("2 peers/1 peer", ctl_sizes, NR_SIZES, 8, 0, trials, v, err);
	rr_ratio("reg+dereg/mwin", ctl_sizes, NR_SIZES, 9, 0, trials, v, err);
	rr_ratio("range/rights", ctl_sizes, NR_SIZES, 3, 0, trials, v, err);
	rr_ratio_x("rebind 1 GiB/4 KiB", 1 * GiB, NR_SIZES - 1, 0, 0, 0,
		   trials[0], v, err);

	/* packets on the wire per operation, 4 KiB windows */
	pkts_per_op("floor rebind", t_floor, &ctx[0], 256);
	pkts_per_op("mwin rebind", t_rebind_rights, &ctx[0], 256);
	pkts_per_op("mwin rebind, quiet", t_rebind_quiet, &ctx[0], 256);
	pkts_per_op("mwin invalidate+rebind", t_invalidate_rebind, &ctx[0],
		    256);
	pkts_per_op("mwin create+destroy", t_create_destroy, &ctx[0], 256);
	if (m[2].on)
		pkts_per_op("userspace MW inv+bind", t_mw_rebind, &ctx[0], 256);
	rebind_detail(&ctx[0]);

	for (i = 0; i < NR_SIZES; i++) {
		mwin_window_destroy(mfd, ctx[i].win);
		mwin_window_destroy(mfd, ctx[i].win2);
		mwin_window_destroy(mfd, ctx[i].win3);
		mwin_window_destroy(mfd, ctx[i].win4);
		if (ctx[i].mw)
			ibv_dealloc_mw(ctx[i].mw);
	}
	if (parent)
		ibv_dereg_mr(parent);
	munmap(ubuf, 1 * GiB);
	mwin_region_destroy(mfd, region, MWIN_REGION_DESTROY_FORCE);
	loop_close(&lp);
	peer_close(p);
	peer_close(p2);
	cnt_section("ctl", cnt0);
}

/* -------------------------------------------------------------- batch */

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

static void op_fill(struct batch_ctx *c, struct mwin_batch_op *o,
		    uint32_t opcode, uint32_t id, uint32_t access)
{
	memset(o, 0, sizeof(*o));
	o->opcode = opcode;
	switch (opcode) {
	case MWIN_BATCH_CREATE:
		o->flags = MWIN_WINDOW_OVERLAP;
		o->region = c->region;
		o->peer = c->peer;
		o->access = access;
		o->length = 4 * KiB;
		break;
	case MWIN_BATCH_REBIND:
		o->flags = MWIN_WINDOW_OVERLAP;
		o->id = id;
		o->access = access;
		o->length = 4 * KiB;
		break;
	default:
		o->id = id;
		break;
	}
}

/*
 * Every window of @ids once, in calls of @per_call entries (0: the single
 * ioctls). Returns the ns spent in the calls.
 */
static int64_t batch_pass(struct batch_ctx *c, uint32_t *ids, uint32_t opcode,
			  int per_call)
{
	uint32_t access = ++c->flip & 1 ? MWIN_ACCESS_READ : RW;
	struct mwin_window_bind b;
	uint64_t sum = 0, t0;
	unsigned int i, j, n;
	uint32_t failed;
	int ret = 0;

	if (!per_call) {
		t0 = now_ns();
		for (i = 0; i < BATCH_WINDOWS && !ret; i++) {
			switch (opcode) {
			case MWIN_BATCH_CREATE:
				ret = win_create(c->region, c->peer, 0, 4 * KiB,
						 access, &b);
				ids[i] = b.id;
				break;
			case MWIN_BATCH_REBIND:
				ret = win_rebind(ids[i], 0, 4 * KiB, access);
				break;
			case MWIN_BATCH_INVALIDATE:
				ret = mwin_window_invalidate(mfd, ids[i]);
				break;
			default:
				ret = mwin_window_destroy(mfd, ids[i]);
				break;
			}
		}
		return ret ? ret : (int64_t)(now_ns() - t0);
	}
	for (i = 0; i < BATCH_WINDOWS; i += n) {
		n = BATCH_WINDOWS - i < (unsigned int)per_call ?
		    BATCH_WINDOWS - i : (unsigned int)per_call;
		for (j = 0; j < n; j++)
			op_fill(c, &c->ops[j], opcode, ids[i + j], access);
		t0 = now_ns();
		ret = win_batch(c->ops, n, &failed);
		sum += now_ns() - t0;
		if (ret)
			return ret;
		for (j = 0; j < n; j++) {
			if (c->ops[j].result) {
				c->failed_errno = -c->ops[j].result;
				return -EREMOTEIO;
			}
			if (opcode == MWIN_BATCH_CREATE)
				ids[i + j] = c->ops[j].id;
		}
	}
	return (int64_t)sum;
}

static int64_t t_batch_rebind(void *arg, int ops)
{
	struct batch_ctx *c = arg;

	(void)ops;
	return batch_pass(c, c->ids, MWIN_BATCH_REBIND, c->per_call);
}

/* invalidate all (timed), then re-validate all (untimed) */
static int64_t t_batch_invalidate(void *arg, int ops)
{
	struct batch_ctx *c = arg;
	int64_t ns, r;

	(void)ops;
	ns = batch_pass(c, c->ids, MWIN_BATCH_INVALIDATE, c->per_call);
	if (ns < 0)
		return ns;
	r = batch_pass(c, c->ids, MWIN_BATCH_REBIND, c->per_call);
	return r < 0 ? r : ns;
}

/* create all (timed), then destroy all (untimed) */
static int64_t t_batch_create(void *arg, int ops)
{
	struct batch_ctx *c = arg;
	int64_t ns, r;

	(void)ops;
	ns = batch_pass(c, c->tmp, MWIN_BATCH_CREATE, c->per_call);
	if (ns < 0)
		return ns;
	r = batch_pass(c, c->tmp, MWIN_BATCH_DESTROY, c->per_call);
	return r < 0 ? r : ns;
}

/* create all (untimed), then destroy all (timed) */
static int64_t t_batch_destroy(void *arg, int ops)
{
	struct batch_ctx *c = arg;
	int64_t ns;

	(void)ops;
	ns = batch_pass(c, c->tmp, MWIN_BATCH_CREATE, c->per_call);
	if (ns < 0)
		return ns;
	return batch_pass(c, c->tmp, MWIN_BATCH_DESTROY, c->per_call);
}

static void bench_batch(void)
{
	static const char *const kinds[] = {
		"rebind", "invalidate", "create", "destroy",
	};
	static const trial_fn fns[] = {
		t_batch_rebind, t_batch_invalidate, t_batch_create,
		t_batch_destroy,
	};
	/* modes: the single calls, then 1, 8, 64, 256 per call */
	static double v[4][1 + NR_BATCH][MAX_TRIALS];
	int err[4][1 + NR_BATCH] = {};
	int errno_entry[4][1 + NR_BATCH] = {};
	int trials = opt.trials < 11 ? opt.trials : 11;
	struct batch_ctx *c = calloc(1, sizeof(*c));
	long long cnt0[NR_CNT];
	bool supported = true;
	unsigned int k, mo, i;
	int recoveries = 0;
	uint32_t failed;
	struct peer *p;
	struct stats s;
	char name[48];
	int64_t ns;
	int ret, t;

	if (!c)
		die("out of memory");
	say("batch: %d windows of 4 KiB on one region, single calls and 1..256 per call, %d rounds",
	    BATCH_WINDOWS, trials);
	cnt_read(cnt0);
	p = peer_connect();
	if (!p)
		die("no peer");
	c->peer = p->peer_id;
	ret = region_create(2 * MiB, &c->region);
	if (ret)
		die("REGION_CREATE: %s", strerror(-ret));
	ret = (int)batch_pass(c, c->ids, MWIN_BATCH_CREATE, 0);
	if (ret < 0)
		die("creating %d windows: %s", BATCH_WINDOWS, strerror(-ret));

	/* is MWIN_WINDOW_BATCH there? one rebind */
	op_fill(c, &c->ops[0], MWIN_BATCH_REBIND, c->ids[0], RW);
	ret = win_batch(c->ops, 1, &failed);
	if (ret == -ENOTTY || ret == -EOPNOTSUPP) {
		say("MWIN_WINDOW_BATCH: %s: batched figures unsupported",
		    strerror(-ret));
		supported = false;
	} else if (ret || failed) {
		say("MWIN_WINDOW_BATCH probe: call: %s, entry: %s",
		    strerror(-ret), strerror(-c->ops[0].result));
	}

	for (t = -1; t < trials; t++) {
redo:
		for (k = 0; k < 4; k++) {
			for (mo = 0; mo <= NR_BATCH; mo++) {
				if (err[k][mo] || (mo && !supported))
					continue;
				c->per_call = mo ? batch_sizes[mo - 1] : 0;
				c->failed_errno = 0;
				ns = fns[k](c, BATCH_WINDOWS);
				if (ns < 0 && recoveries < 5 && !peer_alive(p)) {
					/* see PEER_RECV_DEPTH */
					recoveries++;
					peer_losses++;
					say("batch: the peer was lost during %s %d/call (round %d): new peer, round again",
					    kinds[k], c->per_call, t);
					for (i = 0; i < BATCH_WINDOWS; i++) {
						mwin_window_destroy(mfd, c->ids[i]);
						mwin_window_destroy(mfd, c->tmp[i]);
					}
					peer_close(p);
					p = peer_connect();
					if (!p)
						die("no peer");
					c->peer = p->peer_id;
					if (batch_pass(c, c->ids, MWIN_BATCH_CREATE,
						       0) < 0)
						die("creating %d windows",
						    BATCH_WINDOWS);
					goto redo;
				}
				if (ns < 0) {
					err[k][mo] = (int)ns;
					errno_entry[k][mo] = c->failed_errno;
					say("batch %s %d/call: %s%s%s", kinds[k],
					    c->per_call, strerror((int)-ns),
					    c->failed_errno ? ": " : "",
					    c->failed_errno ?
					    strerror(c->failed_errno) : "");
				} else if (t >= 0) {
					v[k][mo][t] = ns / 1e3 / BATCH_WINDOWS;
				}
			}
		}
	}
	for (k = 0; k < 4; k++) {
		for (mo = 0; mo <= NR_BATCH; mo++) {
			int per = mo ? batch_sizes[mo - 1] : 1;

			snprintf(name, sizeof(name), "%s %s",
				 mo ? "batched" : "single", kinds[k]);
			if (mo && !supported) {
				add_failed("batch", name, 4 * KiB, per, "us/op",
					   "unsupported (ENOTTY)");
				continue;
			}
			if (err[k][mo]) {
				add_failed("batch", name, 4 * KiB, per, "us/op",
					   "failed: %s",
					   strerror(errno_entry[k][mo] ?
						    errno_entry[k][mo] :
						    -err[k][mo]));
				continue;
			}
			s = stats_of(v[k][mo], trials);
			add_result("batch", name, 4 * KiB, per, &s,
				   BATCH_WINDOWS, "us/op", NULL);

			say("batch %-20s %3d/call: %8.1f us/op [%.1f-%.1f]",
			    name, per, s.med, s.p10, s.p90);
		}
	}
	/* the rate ratio within each round, and the packets per rebind */
	if (supported && !err[0][0] && !err[0][3]) {
		double r[MAX_TRIALS];

		for (t = 0; t < trials; t++)
			r[t] = v[0][0][t] / v[0][3][t];
		s = stats_of(r, trials);
		add_result("ratio", "batched 64/single rebind rate", 4 * KiB, 64,
			   &s, 1, "x", NULL);
		c->per_call = 64;
		pkts_per_op("batched rebind (64/call)", t_batch_rebind, c,
			    BATCH_WINDOWS);
	}
	c->per_call = 0;
	pkts_per_op("single rebind (256 windows)", t_batch_rebind, c,
		    BATCH_WINDOWS);
	batch_pass(c, c->ids, MWIN_BATCH_DESTROY, 0);
	mwin_region_destroy(mfd, c->region, MWIN_REGION_DESTROY_FORCE);
	if (atomic_load(&p->errors))
		say("peer: %d errors", atomic_load(&p->errors));
	peer_close(p);
	free(c);
	cnt_section("batch", cnt0);
}

/* ---------------------------------------------------------- data path */

/* mwpeer's view of a window: the bytes written through the region's mmap */
static bool check_window_with_mwpeer(uint32_t region, const uint8_t *map)
{
	struct mwin_window_bind b = {};
	struct mwpeer_msg g;
	struct mwpeer *mp;
	uint8_t buf[64];
	int err = 0, ret;
	bool ok = false;

	mp = mwpeer_connect(opt.host, 0, opt.dev, 10000, &err);
	if (!mp) {
		say("mwpeer: cannot connect: %s", strerror(-err));
		return false;
	}
	ret = win_create(region, mwpeer_id(mp), 4096, 64, MWIN_ACCESS_READ, &b);
	if (!ret && !mwpeer_wait_grant(mp, b.id, 0, &g, 10000) &&
	    g.rkey == b.rkey) {
		ret = mwpeer_read(mp, b.rkey, b.iova, buf, sizeof(buf));
		ok = !ret && !memcmp(buf, map + 4096, sizeof(buf));
		if (!ok)
			say("mwpeer: read through window %u: %s", b.id,
			    ret ? mwpeer_status_str(ret) : "wrong bytes");
	}
	if (b.id)
		mwin_window_destroy(mfd, b.id);
	mwpeer_close(mp);
	return ok;
}

struct dp_target {
	const char *name;
	struct dp_qp q;
	uint32_t rkey;
	uint64_t raddr;
};

/*
 * Latency (depth 1) and throughput (16 in flight) of READ and WRITE, the
 * targets taking turns within each figure.
 */
static void dp_measure(struct dp_target *tg, int ntg)
{
	static const struct {
		const char *name;
		enum ibv_wr_opcode op;
	} ops[] = {
		{ "READ", IBV_WR_RDMA_READ }, { "WRITE", IBV_WR_RDMA_WRITE },
	};
	enum { ROUNDS = 5 };
	int trials = opt.trials < 15 ? opt.trials : 15;
	double lat[2][200], tput[2][MAX_TRIALS];
	char metric[64];
	size_t i, o;
	int g, r, t;

	for (o = 0; o < 2; o++) {
		for (i = 0; i < NR_DP; i++) {
			size_t len = dp_sizes[i];
			int per = len >= 256 * KiB ? 4 : 30;	/* per round */
			/* about 1 MiB per throughput trial, 16..1024 ops */
			int count = (int)(1 * MiB / len);
			struct stats sl[2], st[2];
			bool bad[2] = {};
			uint64_t ns;

			if (count < 16)
				count = 16;
			if (count > 1024)
				count = 1024;
			for (g = 0; g < ntg; g++)
				dp_run(&tg[g].q, ops[o].op, tg[g].rkey,
				       tg[g].raddr, len, 4, 16, NULL);
			for (r = 0; r < ROUNDS; r++)
				for (g = 0; g < ntg; g++)
					if (!bad[g] &&
					    !dp_run(&tg[g].q, ops[o].op,
						    tg[g].rkey, tg[g].raddr, len,
						    1, per, lat[g] + r * per))
						bad[g] = true;
			for (g = 0; g < ntg; g++) {
				snprintf(metric, sizeof(metric), "%s %s latency",
					 tg[g].name, ops[o].name);
				if (bad[g]) {
					add_failed("data", metric, len, 1, "us",
						   "failed");
					continue;
				}
				sl[g] = stats_of(lat[g], ROUNDS * per);
				add_result("data", metric, len, 1, &sl[g], 1,
					   "us", NULL);
			}
			for (t = 0; t < trials; t++) {
				for (r = 0; r < ntg; r++) {
					/* who goes first alternates */
					g = t & 1 ? ntg - 1 - r : r;
					if (bad[g])
						continue;
					ns = dp_run(&tg[g].q, ops[o].op,
						    tg[g].rkey, tg[g].raddr, len,
						    16, count, NULL);
					if (!ns)
						bad[g] = true;
					else
						tput[g][t] = (double)len * count /
							     (ns / 1e9) / 1e6;
				}
			}
			if (ntg == 2 && !bad[0] && !bad[1]) {
				/* the pairs taken back to back */
				double rt[MAX_TRIALS];
				struct stats sr;

				for (t = 0; t < trials; t++)
					rt[t] = tput[0][t] / tput[1][t];
				sr = stats_of(rt, trials);
				snprintf(metric, sizeof(metric),
					 "%s/%s %s throughput", tg[0].name,
					 tg[1].name, ops[o].name);
				add_result("ratio", metric, len, 16, &sr, 1, "x",
					   NULL);
			}
			for (g = 0; g < ntg; g++) {
				snprintf(metric, sizeof(metric),
					 "%s %s throughput", tg[g].name,
					 ops[o].name);
				if (bad[g]) {
					add_failed("data", metric, len, 16,
						   "MB/s", "failed");
					continue;
				}
				st[g] = stats_of(tput[g], trials);
				add_result("data", metric, len, 16, &st[g],
					   count, "MB/s", NULL);
				say("data  %-9s %-5s %8zu B: latency %8.1f us, %7.1f MB/s [%.1f-%.1f]",
				    tg[g].name, ops[o].name, len, sl[g].med,
				    st[g].med, st[g].p10, st[g].p90);
			}
		}
	}
}

static void bench_data(void)
{
	struct mwin_window_bind b;
	struct dp_target tg[2];
	long long cnt0[NR_CNT];
	struct ibv_mr *mr;
	struct peer *p;
	struct loop lp;
	uint32_t region;
	uint8_t *map;
	size_t maplen;
	int ret, i;

	say("data path: READ/WRITE %zu B .. %zu B, window vs plain MR, taking turns",
	    dp_sizes[0], dp_sizes[NR_DP - 1]);
	cnt_read(cnt0);
	ret = region_create(2 * MiB, &region);
	if (ret)
		die("REGION_CREATE: %s", strerror(-ret));
	map = mwin_region_mmap(mfd, region, &maplen);
	if (map) {
		for (i = 0; i < 8192; i++)
			map[i] = (uint8_t)(i * 7 + 3);
		if (check_window_with_mwpeer(region, map))
			say("mwpeer read the region's bytes through a window");
		else
			say("mwpeer could not read the bytes through a window");
		munmap(map, maplen);
	}

	p = peer_connect();
	if (!p)
		die("no peer");
	ret = win_create(region, p->peer_id, 0, 2 * MiB, RW, &b);
	if (ret)
		die("WINDOW_CREATE 2 MiB: %s", strerror(-ret));
	if (loop_open(&lp, 2 * MiB, 2 * MiB))
		die("no loopback connection");
	/* a plain MR of its own, of the window's size */
	mr = ibv_reg_mr(lp.srv->pd, lp.srv->mem, 2 * MiB, mr_access(true));
	if (!mr)
		die("ibv_reg_mr: %s", strerror(errno));
	tg[0] = (struct dp_target){ "window", peer_dp(p), b.rkey, b.iova };
	tg[1] = (struct dp_target){ "plain MR", conn_dp(lp.cli), mr->rkey,
				    (uintptr_t)lp.srv->mem };
	dp_measure(tg, 2);
	ibv_dereg_mr(mr);
	loop_close(&lp);
	mwin_window_destroy(mfd, b.id);
	mwin_region_destroy(mfd, region, MWIN_REGION_DESTROY_FORCE);
	peer_close(p);
	cnt_section("data", cnt0);
}

/* -------------------------------------------------------------- scale */

/* /proc/slabinfo: bytes and objects in use, per cache */
struct slabent {
	char name[40];
	long long objs, bytes;
};

static int slab_read(struct slabent *v, int max)
{
	FILE *f = fopen("/proc/slabinfo", "r");
	char line[512];
	int n = 0;
	long long act, num, size;

	if (!f)
		return 0;
	while (n < max && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%39s %lld %lld %lld", v[n].name, &act, &num,
			   &size) != 4 || line[0] == '#')
			continue;
		v[n].objs = act;
		v[n].bytes = act * size;
		n++;
	}
	fclose(f);
	return n;
}

static int slab_cmp(const void *a, const void *b)
{
	const struct slabent *x = a, *y = b;

	return x->bytes < y->bytes ? 1 : x->bytes > y->bytes ? -1 : 0;
}

/* the caches that grew most between @a and @b, as "slab" results */
static void slab_growth(struct slabent *a, int na, struct slabent *b, int nb,
			unsigned int windows)
{
	static struct slabent d[512];
	struct stats s = { .n = 1 };
	int i, j, nd = 0;

	for (j = 0; j < nb && nd < 512; j++) {
		d[nd] = b[j];
		for (i = 0; i < na; i++) {
			if (!strcmp(a[i].name, b[j].name)) {
				d[nd].objs -= a[i].objs;
				d[nd].bytes -= a[i].bytes;
				break;
			}
		}
		nd++;
	}
	qsort(d, nd, sizeof(d[0]), slab_cmp);
	for (i = 0; i < nd && i < 6 && d[i].bytes > 0; i++) {
		s.med = s.mean = d[i].bytes / 1024.0;
		s.p10 = s.p90 = (double)d[i].objs;
		add_result("slab", d[i].name, 4 * KiB, (int)windows, &s, 1,
			   "KiB", NULL);
	}
}

/*
 * @n windows of 4 KiB on @region for the peer *@pp: create rate, memory,
 * random rebinds, destroy rate. Return: 0, or -ENOTCONN when the peer was
 * lost (then *@pp is closed and NULL).
 */
static int scale_one(unsigned int n, uint32_t region, struct peer **pp,
		     uint32_t *ids, bool last_try)
{
	int trials = opt.trials < 9 ? opt.trials : 9, ops = 64, ret = 0, t, k;
	static struct slabent sl0[512], sl1[512];
	int ns0 = 0, ns1;
	long slab0, avail0, slab1, avail1;
	struct mwin_window_bind b;
	struct peer *p = *pp;
	double v[MAX_TRIALS];
	unsigned int i, made;
	struct stats s = { .n = 1 };
	uint64_t t0;

	sync();
	usleep(200000);
	if (n == opt.scale_max || n == scale_counts[NR_SCALE - 1])
		ns0 = slab_read(sl0, 512);
	slab0 = meminfo_kb("Slab");
	avail0 = meminfo_kb("MemAvailable");
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		ret = win_create(region, p->peer_id, 0, 4 * KiB, RW, &b);
		if (ret)
			break;
		ids[i] = b.id;
	}
	made = i;
	if (ret)
		goto fail;
	s.med = s.p10 = s.p90 = s.mean = (now_ns() - t0) / 1e3 / n;
	add_result("scale", "create", 4 * KiB, (int)n, &s, (int)n, "us/op",
		   NULL);
	usleep(200000);
	slab1 = meminfo_kb("Slab");
	avail1 = meminfo_kb("MemAvailable");
	if (ns0) {
		ns1 = slab_read(sl1, 512);
		slab_growth(sl0, ns0, sl1, ns1, n);
	}
	s.med = s.p10 = s.p90 = s.mean = (double)(slab1 - slab0) / n;
	add_result("scale", "slab per window", 4 * KiB, (int)n, &s, (int)n,
		   "KiB", NULL);
	s.med = s.p10 = s.p90 = s.mean = (double)(avail0 - avail1) / n;
	add_result("scale", "MemAvailable per window", 4 * KiB, (int)n, &s,
		   (int)n, "KiB", NULL);

	/* rebinds of windows drawn at random among the live ones */
	for (t = -1; t < trials && !ret; t++) {
		t0 = now_ns();
		for (k = 0; k < ops && !ret; k++)
			ret = win_rebind(ids[rng() % n], 0, 4 * KiB,
					 k & 1 ? MWIN_ACCESS_READ : RW);
		if (t >= 0)
			v[t] = (now_ns() - t0) / 1e3 / ops;
	}
	if (ret)
		goto fail;
	s = stats_of(v, trials);
	add_result("scale", "rebind", 4 * KiB, (int)n, &s, ops, "us/op", NULL);
	say("scale %6u windows: create %.1f us/op, rebind %.1f us/op, slab %+.2f KiB/window, MemAvailable %+.2f KiB/window",
	    n, find("scale", "create", 4 * KiB, (int)n)->s.med, s.med,
	    (double)(slab1 - slab0) / n, (double)(avail0 - avail1) / n);

	t0 = now_ns();
	for (i = 0; i < n; i++)
		mwin_window_destroy(mfd, ids[i]);
	s = (struct stats){ .n = 1 };
	s.med = s.p10 = s.p90 = s.mean = (now_ns() - t0) / 1e3 / n;
	add_result("scale", "destroy", 4 * KiB, (int)n, &s, (int)n, "us/op",
		   NULL);
	usleep(500000);
	say("scale %6u windows: destroy %.1f us/op; then slab %+ld KiB, MemAvailable %+ld KiB against before",
	    n, s.med, meminfo_kb("Slab") - slab0,
	    meminfo_kb("MemAvailable") - avail0);
	return 0;

fail:
	say("scale %u windows: %s after %u windows (peer state: %s)", n,
	    strerror(-ret), made, ret == -ENOTCONN ? "lost" : "?");
	for (i = 0; i < made; i++)
		mwin_window_destroy(mfd, ids[i]);
	if (ret == -ENOTCONN) {
		peer_losses++;
		peer_close(p);
		*pp = NULL;
	}
	if (last_try || ret != -ENOTCONN) {
		/* drop what this count recorded, then say why */
		while (nr_results && results[nr_results - 1].batch == (int)n &&
		       !strcmp(results[nr_results - 1].section, "scale"))
			nr_results--;
		add_failed("scale", "create", 4 * KiB, (int)n, "us/op",
			   "failed after %u: %s", made, strerror(-ret));
	}
	return ret;
}

static void bench_scale(void)
{
	long long cnt0[NR_CNT];
	unsigned int si, i, n;
	struct peer *p;
	struct mwin_window_bind b;
	double v[MAX_TRIALS];
	uint32_t region, *ids;
	struct stats s;
	int ret = 0, t, nt = 0, try;
	uint64_t t0;

	say("scale: windows of 4 KiB on one region of 2 MiB");
	cnt_read(cnt0);
	ret = region_create(2 * MiB, &region);
	if (ret)
		die("REGION_CREATE: %s", strerror(-ret));
	ids = calloc(opt.scale_max > opt.revoke_windows ? opt.scale_max :
		     opt.revoke_windows, sizeof(*ids));
	if (!ids)
		die("out of memory");
	p = NULL;
	for (si = 0; si < NR_SCALE; si++) {
		n = scale_counts[si];
		if (n > opt.scale_max)
			continue;
		if (n + 300 > max_windows) {
			add_failed("scale", "create", 4 * KiB, (int)n, "us/op",
				   "skipped: max_windows %u", max_windows);
			continue;
		}
		for (try = 0; try < 2; try++) {
			if (!p)
				p = peer_connect();
			if (!p)
				die("no peer");
			ret = scale_one(n, region, &p, ids, try == 1);
			if (ret != -ENOTCONN)
				break;
			say("scale: the peer was lost (see dmesg); trying %u windows again with a new one",
			    n);
		}
	}
	peer_close(p);

	/* revoke-all: PEER_DISCONNECT of a peer with many windows */
	n = opt.revoke_windows;
	if (n + 300 > max_windows)
		n = max_windows - 300;
	for (t = 0; t < opt.revoke_trials; t++) {
		p = peer_connect();
		if (!p)
			die("no peer");
		for (i = 0; i < n; i++) {
			ret = win_create(region, p->peer_id, 0, 4 * KiB, RW, &b);
			if (ret)
				break;
			ids[i] = b.id;
		}
		if (ret) {
			say("revoke-all: create %u: %s", i, strerror(-ret));
			if (ret == -ENOTCONN)
				peer_losses++;
		} else {
			t0 = now_ns();
			ret = mwin_peer_disconnect(mfd, p->peer_id);
			if (!ret)
				v[nt++] = (now_ns() - t0) / 1e6;
			say("scale revoke-all of %u windows: %.1f ms%s", n,
			    ret ? NAN : v[nt - 1], ret ? " (failed)" : "");
		}
		while (i--)
			mwin_window_destroy(mfd, ids[i]);
		peer_close(p);
	}
	if (nt) {
		s = stats_of(v, nt);
		add_result("scale", "revoke-all", 4 * KiB, (int)n, &s, (int)n,
			   "ms", NULL);
	} else if (opt.revoke_trials > 0) {
		add_failed("scale", "revoke-all", 4 * KiB, (int)n, "ms",
			   "failed: %s", strerror(-ret));
	}
	mwin_region_destroy(mfd, region, MWIN_REGION_DESTROY_FORCE);
	free(ids);
	cnt_section("scale", cnt0);
}

/* -------------------------------------------------------------- trace */

/*
 * Where the time of a rebind goes: the function_graph tracer on this
 * process, from mwin_ioctl (the ioctl rebind) and from mwin_bench_rebind
 * (the floor), limited to mwin's functions and a few it calls. The tracer
 * slows every traced call down, so only the shares mean something.
 */
#define TRACEFS "/sys/kernel/tracing"

struct tnode {
	int part;
	char path[200];
	unsigned long calls;
	double us;
	double *v;		/* each call's us */
	size_t cap;
};

#define TRACE_PARTS 3
static struct tnode *tnodes;
static size_t nr_tnodes, cap_tnodes;
static double trace_root_us[TRACE_PARTS];
static unsigned long trace_root_calls[TRACE_PARTS];
static unsigned long trace_ops[TRACE_PARTS];
/* 0: ioctl rebind, 1: the floor, 2: batched rebind, 64 per call */
static int trace_part;

/* write @val to tracefs @file; the kernel may take it a word at a time */
static int tracefs_write(const char *file, const char *val, int flags)
{
	size_t len = strlen(val), done = 0;
	char path[128];
	int fd, ret = 0;
	ssize_t n;

	snprintf(path, sizeof(path), TRACEFS "/%s", file);
	fd = open(path, O_WRONLY | flags);
	if (fd < 0)
		return -errno;
	while (done < len) {
		n = write(fd, val + done, len - done);
		if (n <= 0) {
			ret = n < 0 ? -errno : -EIO;
			break;
		}
		done += (size_t)n;
	}
	close(fd);
	return ret;
}

static int tracefs(const char *file, const char *val)
{
	return tracefs_write(file, val, O_TRUNC);
}

static int tracefs_append(const char *file, const char *val)
{
	return tracefs_write(file, val, O_APPEND);
}

static void tnode_add(const char *path, double us)
{
	size_t i;

	for (i = 0; i < nr_tnodes; i++)
		if (tnodes[i].part == trace_part && !strcmp(tnodes[i].path, path))
			break;
	if (i == nr_tnodes) {
		if (nr_tnodes == cap_tnodes) {
			cap_tnodes = cap_tnodes ? 2 * cap_tnodes : 64;
			tnodes = realloc(tnodes, cap_tnodes * sizeof(*tnodes));
			if (!tnodes)
				die("out of memory");
		}
		memset(&tnodes[i], 0, sizeof(tnodes[i]));
		tnodes[i].part = trace_part;
		snprintf(tnodes[i].path, sizeof(tnodes[i].path), "%s", path);
		nr_tnodes++;
	}
	if (tnodes[i].calls == tnodes[i].cap) {
		tnodes[i].cap = tnodes[i].cap ? 2 * tnodes[i].cap : 16;
		tnodes[i].v = realloc(tnodes[i].v,
				      tnodes[i].cap * sizeof(double));
		if (!tnodes[i].v)
			die("out of memory");
	}
	tnodes[i].v[tnodes[i].calls++] = us;
	tnodes[i].us += us;
}

/*
 * Lines of the function_graph tracer: "CPU) DURATION | FUNCTION", where
 * FUNCTION is "name() {", "name();" or "} /+ name +/" indented two spaces
 * a level. The depth is taken from the indentation, which stays right when
 * the task moves to another CPU (the tracer then may print a call as a
 * leaf and close it again later: a close without its open is skipped).
 */
#define TDEPTH 16

static void trace_parse(const char *file, const char *out_copy)
{
	char stack[TDEPTH][48], line[512], path[200], name[48];
	bool isopen[TDEPTH] = {};
	FILE *f = fopen(file, "r"), *o = fopen(out_copy, "w");
	int d, k;

	if (!f) {
		if (o)
			fclose(o);
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		char *bar = strchr(line, '|'), *fn, *p;
		double us = 0;
		size_t len;
		int sp;

		if (o)
			fputs(line, o);
		if (line[0] == '#' || !bar)
			continue;
		p = strchr(line, ')');
		if (p && p < bar) {
			for (p++; *p == ' ' || strchr("+!#*@$", *p); p++)
				;
			if (p < bar)
				us = strtod(p, NULL);
		}
		for (fn = bar + 1, sp = 0; *fn == ' '; fn++)
			sp++;
		d = (sp - 2) / 2;
		if (d < 0 || d >= TDEPTH)
			continue;
		len = strlen(fn);
		while (len && (fn[len - 1] == '\n' || fn[len - 1] == ' '))
			fn[--len] = '\0';
		if (fn[0] == '}') {
			const char *cm = strstr(fn, "/* ");

			if (!cm)
				continue;
			snprintf(name, sizeof(name), "%.*s",
				 (int)strcspn(cm + 3, " *"), cm + 3);
			if (!isopen[d] || strcmp(name, stack[d]))
				continue;	/* an echo, see above */
			isopen[d] = false;
		} else if (len && fn[len - 1] == '{') {
			snprintf(stack[d], sizeof(stack[d]), "%.*s",
				 (int)strcspn(fn, " ("), fn);
			isopen[d] = true;
			for (k = d + 1; k < TDEPTH; k++)
				isopen[k] = false;
			continue;
		} else if (len >= 3 && !strcmp(fn + len - 3, "();")) {
			snprintf(name, sizeof(name), "%.*s",
				 (int)strcspn(fn, " ("), fn);
		} else {
			continue;
		}
		path[0] = '\0';
		for (k = 0; k < d; k++) {
			strncat(path, stack[k], sizeof(path) - strlen(path) - 1);
			strncat(path, " > ", sizeof(path) - strlen(path) - 1);
		}
		strncat(path, name, sizeof(path) - strlen(path) - 1);
		tnode_add(path, us);
		if (!d) {
			trace_root_us[trace_part] += us;
			trace_root_calls[trace_part]++;
		}
	}
	fclose(f);
	if (o)
		fclose(o);
}

static void bench_trace(void)
{
	static const char *const also[] = {
		"rxe_post_send", "wait_for_completion_timeout",
		"schedule_timeout", "down_timeout", "mutex_lock",
	};
	const int n = 200;
	static struct batch_ctx bc;
	struct mwin_window_bind b;
	char pid[16], out[512];
	uint32_t region, ids[64], failed;
	struct peer *p;
	uint64_t t0;
	int i, k, ret;

	if (access(TRACEFS "/current_tracer", W_OK)) {
		say("trace: no tracefs at %s: skipped", TRACEFS);
		return;
	}
	say("trace: function_graph over %d ioctl rebinds, %d floor rebinds and 4 batches of 64 rebinds",
	    n, n);
	p = peer_connect();
	if (!p)
		die("no peer");
	ret = region_create(2 * MiB, &region);
	for (i = 0; !ret && i < 64; i++) {
		ret = win_create(region, p->peer_id, 0, 4 * KiB, RW, &b);
		ids[i] = b.id;
	}
	if (ret)
		die("trace: setup: %s", strerror(-ret));
	bc.region = region;
	bc.peer = p->peer_id;

	snprintf(pid, sizeof(pid), "%d\n", getpid());
	tracefs("tracing_on", "0");
	tracefs("current_tracer", "nop");
	/* one at a time: a name the kernel cannot trace fails alone */
	ret = tracefs("set_ftrace_filter", ":mod:mwin\n");
	for (i = 0; !ret && i < (int)(sizeof(also) / sizeof(also[0])); i++)
		if (tracefs_append("set_ftrace_filter", also[i]) ||
		    tracefs_append("set_ftrace_filter", "\n"))
			say("trace: cannot trace %s", also[i]);
	if (ret) {
		say("trace: set_ftrace_filter: %s", strerror(-ret));
		goto out;
	}
	ret = tracefs("set_graph_function", "mwin_ioctl mwin_bench_rebind\n");
	if (ret) {
		say("trace: set_graph_function: %s", strerror(-ret));
		goto out;
	}
	ret = tracefs("set_ftrace_pid", pid);
	if (ret) {
		say("trace: set_ftrace_pid: %s", strerror(-ret));
		goto out;
	}
	tracefs("max_graph_depth", "8");
	tracefs("buffer_size_kb", "16384");
	tracefs("options/funcgraph-irqs", "0");
	tracefs("options/funcgraph-tail", "1");
	tracefs("options/funcgraph-proc", "0");
	tracefs("options/funcgraph-abstime", "0");
	ret = tracefs("current_tracer", "function_graph");
	if (ret) {
		say("trace: function_graph: %s", strerror(-ret));
		goto out;
	}

	for (trace_part = 0; trace_part < TRACE_PARTS; trace_part++) {
		static const char *const names[] = {
			"rebind", "floor", "batch",
		};
		struct stats s = { .n = 1 };
		double user_us;

		tracefs("trace", "");
		tracefs("tracing_on", "1");
		t0 = now_ns();
		if (trace_part == 0) {
			for (i = 0; i < n && !ret; i++)
				ret = win_rebind(ids[0], 0, 4 * KiB,
						 i & 1 ? MWIN_ACCESS_READ : RW);
		} else if (trace_part == 1) {
			ret = floor_run(ids[0], n) < 0 ? -EIO : 0;
		} else {
			for (i = 0; i < 4 && !ret; i++) {
				for (k = 0; k < 64; k++)
					op_fill(&bc, &bc.ops[k],
						MWIN_BATCH_REBIND, ids[k],
						i & 1 ? MWIN_ACCESS_READ : RW);
				ret = win_batch(bc.ops, 64, &failed);
				if (!ret && failed)
					ret = -EREMOTEIO;
			}
		}
		trace_ops[trace_part] = trace_part == 2 ? 256 : n;
		user_us = (now_ns() - t0) / 1e3 / trace_ops[trace_part];
		tracefs("tracing_on", "0");
		if (ret) {
			say("trace: %s failed: %s", names[trace_part],
			    strerror(-ret));
			ret = 0;
			continue;
		}
		snprintf(out, sizeof(out), "%s/trace-%s.txt", opt.out,
			 names[trace_part]);
		trace_parse(TRACEFS "/trace", out);
		say("trace: %s: %.1f us per rebind seen from userspace (traced)",
		    names[trace_part], user_us);
		s.med = s.p10 = s.p90 = s.mean = user_us;
		add_result("trace", names[trace_part], 4 * KiB, 0, &s,
			   (int)trace_ops[trace_part], "us/op", NULL);
	}
out:
	tracefs("tracing_on", "0");
	tracefs("current_tracer", "nop");
	tracefs("set_graph_function", "");
	tracefs("set_ftrace_filter", "");
	tracefs("set_ftrace_pid", "");
	tracefs("trace", "");
	for (i = 0; i < 64; i++)
		mwin_window_destroy(mfd, ids[i]);
	mwin_region_destroy(mfd, region, MWIN_REGION_DESTROY_FORCE);
	peer_close(p);
}

static int tnode_cmp(const void *a, const void *b)
{
	const struct tnode *x = a, *y = b;

	if (x->part != y->part)
		return x->part - y->part;
	return strcmp(x->path, y->path);
}

static void trace_report(FILE *out)
{
	static const char *const titles[] = {
		"mwin_ioctl: single WINDOW_REBIND",
		"mwin_bench_rebind: the floor (one call of 200 rebinds)",
		"mwin_ioctl: MWIN_WINDOW_BATCH of 64 rebinds (4 calls)",
	};
	size_t i;
	int part;

	if (!nr_tnodes)
		return;
	qsort(tnodes, nr_tnodes, sizeof(*tnodes), tnode_cmp);
	fprintf(out, "\nWhere a rebind's time goes: function_graph on mwbench alone; per rebind: mean inclusive time\n");
	fprintf(out, "and share; per call: median. Tracing slows every traced call down (TCG): read the shares.\n");
	fprintf(out, "Calls under 2%% of the total are left out.\n");
	for (part = 0; part < TRACE_PARTS; part++) {
		double total = trace_root_us[part];
		unsigned long per = trace_ops[part];

		if (!trace_root_calls[part] || !per || total <= 0)
			continue;
		fprintf(out, "  %s: %.1f us per rebind traced\n", titles[part],
			total / per);
		for (i = 0; i < nr_tnodes; i++) {
			const struct tnode *t = &tnodes[i];
			const char *q, *leaf = t->path;
			int d = 0;

			if (t->part != part || t->us < total / 50)
				continue;
			for (q = t->path; (q = strstr(q, " > ")); q += 3) {
				d++;
				leaf = q + 3;
			}
			fprintf(out, "    %*s%-*s %8.1f us %5.1f%%  %5.2f calls, median %7.1f us a call\n",
				2 * d, "", 36 - 2 * d, leaf, t->us / per,
				100 * t->us / total, (double)t->calls / per,
				stats_of(t->v, (int)t->calls).med);
		}
	}
}

/* ------------------------------------------------------------ report */

static void write_csv(const char *path)
{
	FILE *f = fopen(path, "w");
	size_t i, j;
	int k;

	if (!f)
		die("%s: %s", path, strerror(errno));
	fprintf(f, "section,metric,size_bytes,batch,median,p10,p90,mean,trials,ops_per_trial,unit,status\n");
	for (i = 0; i < nr_results; i++) {
		const struct result *r = &results[i];

		char metric[sizeof(r->metric)], *q;

		/* a comma would shift the columns */
		snprintf(metric, sizeof(metric), "%s", r->metric);
		for (q = metric; (q = strchr(q, ',')); )
			*q = ';';
		fprintf(f, "%s,%s,%" PRIu64 ",%d,%.3f,%.3f,%.3f,%.3f,%d,%d,%s,\"%s\"\n",
			r->section, metric, r->size, r->batch, r->s.med,
			r->s.p10, r->s.p90, r->s.mean, r->s.n, r->ops, r->unit,
			r->status);
	}
	for (k = 0; k < nr_cnt_log; k++)
		for (j = 0; j < NR_CNT; j++)
			fprintf(f, "rxe-%s,%s,0,0,%lld,%lld,%lld,%lld,1,1,count,\"ok\"\n",
				cnt_log[k].section, cnt_names[j],
				cnt_log[k].d[j], cnt_log[k].d[j],
				cnt_log[k].d[j], cnt_log[k].d[j]);
	fclose(f);
}

/* "12.3 [11.0-14.1]" or the status */
static const char *cell(const char *section, const char *metric,
			uint64_t size, int batch, char *buf, size_t len)
{
	const struct result *r = find(section, metric, size, batch);
	size_t i;

	if (r) {
		if (r->s.med >= 1000)
			snprintf(buf, len, "%.0f [%.0f-%.0f]", r->s.med,
				 r->s.p10, r->s.p90);
		else
			snprintf(buf, len, "%.1f [%.1f-%.1f]", r->s.med,
				 r->s.p10, r->s.p90);
		return buf;
	}
	for (i = 0; i < nr_results; i++) {
		r = &results[i];
		if (!strcmp(r->section, section) &&
		    !strcmp(r->metric, metric) &&
		    (r->size == size || !r->size) && r->batch == batch) {
			snprintf(buf, len, "%.*s",
				 (int)strcspn(r->status, " ("), r->status);
			return buf;
		}
	}
	snprintf(buf, len, "-");
	return buf;
}

static const char *ratio(double a, double b, char *buf, size_t len)
{
	if (isnan(a) || isnan(b) || b <= 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.2fx", a / b);
	return buf;
}

struct target {
	const char *what;
	const char *bound;
	double value;		/* the worst observed */
	double limit;
	bool at_most;		/* value must be <= limit, else >= */
	char where[48];
	const char *unit;	/* of value and limit; NULL: a ratio */
};

static void target_line(FILE *out, const struct target *t)
{
	char verdict[64], value[24];

	if (isnan(t->value))
		snprintf(verdict, sizeof(verdict), "not measured");
	else if (t->at_most ? t->value <= t->limit : t->value >= t->limit)
		snprintf(verdict, sizeof(verdict), "met");
	else if (t->at_most)
		snprintf(verdict, sizeof(verdict), "missed by %.2fx",
			 t->value / t->limit);
	else
		snprintf(verdict, sizeof(verdict), "missed by %.2fx",
			 t->limit / t->value);
	if (t->unit)
		snprintf(value, sizeof(value), "%.*f %s",
			 fabs(t->value) < 10 ? 2 : 0, t->value, t->unit);
	else
		snprintf(value, sizeof(value), "%.2fx", t->value);
	fprintf(out, "  %-52s %-10s %8s %-18s %s\n", t->what, t->bound, value,
		t->where, verdict);
}

/* the worst (largest, or smallest) median of a ratio over the sizes */
static double worst_ratio(const char *name, bool largest, char *where,
			  size_t len)
{
	double worst = NAN, x;
	char sb[24];
	size_t i;

	for (i = 0; i < NR_SIZES; i++) {
		x = med("ratio", name, ctl_sizes[i], 0);
		if (isnan(x))
			continue;
		if (isnan(worst) || (largest ? x > worst : x < worst)) {
			worst = x;
			snprintf(where, len, "(%s)", size_str(ctl_sizes[i], sb));
		}
	}
	return worst;
}

static void report(FILE *out)
{
	char a[48], b[48], c[48], d[48], e[48], f[48], sb[24], lb[24];
	struct target tg[13];
	struct utsname un;
	size_t i, j;
	double w;

	uname(&un);
	fprintf(out, "mwin benchmark: kernel %s, device %s, %ld CPUs; control path: %d rounds of %d ops\n",
		un.release, opt.dev, sysconf(_SC_NPROCESSORS_ONLN), opt.trials,
		opt.ops);
	fprintf(out, "Figures: median [p10-p90] over the rounds, microseconds per operation unless noted.\n");
	fprintf(out, "All methods take turns within each round (so host noise hits them alike).\n\n");

	fprintf(out, "Control path: mwin ioctls and the in-kernel floor\n");
	fprintf(out, "%-8s %-19s %-19s %-19s %-19s %-19s %-19s %-19s %-19s\n",
		"size", "floor (in-kernel)", "ioctl rebind", "rebind, quiet",
		"rebind, 2 peers", "rebind, new range", "invalidate",
		"invalidate+rebind", "create+destroy");
	for (i = 0; i < NR_SIZES; i++) {
		uint64_t s = ctl_sizes[i];
		char g[48], q[48];

		fprintf(out, "%-8s %-19s %-19s %-19s %-19s %-19s %-19s %-19s %-19s\n",
			size_str(s, sb),
			cell("ctl", "floor rebind", s, 0, a, sizeof(a)),
			cell("ctl", "mwin rebind", s, 0, b, sizeof(b)),
			cell("ctl", "mwin rebind, quiet", s, 0, q, sizeof(q)),
			cell("ctl", "mwin rebind 2 peers", s, 0, g, sizeof(g)),
			cell("ctl", "mwin rebind (new range)", s, 0, c, sizeof(c)),
			cell("ctl", "mwin invalidate", s, 0, d, sizeof(d)),
			cell("ctl", "mwin invalidate+rebind", s, 0, e, sizeof(e)),
			cell("ctl", "mwin create+destroy", s, 0, f, sizeof(f)));
	}
	fprintf(out, "(quiet: the same rebinds of a MWIN_WINDOW_QUIET window, no messages to the peer;\n");
	fprintf(out, " 2 peers: the same rebinds alternating between windows of two peers, so two QPs take turns)\n");
	fprintf(out, "\nBaselines on the same device (userspace verbs)\n");
	fprintf(out, "%-8s %-24s %-24s %-14s %-20s %-20s\n", "size",
		"ibv_reg_mr+dereg", "ibv_reg_mr", "ibv_rereg_mr",
		"MW LOCAL_INV+BIND", "MW LOCAL_INV");
	for (i = 0; i < NR_SIZES; i++) {
		uint64_t s = ctl_sizes[i];

		fprintf(out, "%-8s %-24s %-24s %-14s %-20s %-20s\n",
			size_str(s, sb),
			cell("ctl", "ibv_reg_mr+dereg", s, 0, a, sizeof(a)),
			cell("ctl", "ibv_reg_mr", s, 0, b, sizeof(b)),
			cell("ctl", "ibv_rereg_mr", s, 0, c, sizeof(c)),
			cell("ctl", "userspace MW inv+bind", s, 0, d, sizeof(d)),
			cell("ctl", "userspace MW invalidate", s, 0, e, sizeof(e)));
	}
	fprintf(out, "(ibv_reg_mr: %d ops a round below 16 MiB, 1 op a round from 16 MiB, in the same %d rounds)\n",
		opt.ops < 8 ? opt.ops : 8, opt.trials);

	fprintf(out, "\nRatios within each round (both figures taken back to back): median [p10-p90] over the rounds\n");
	fprintf(out, "%-8s %-20s %-20s %-20s %-20s %-22s %-20s %-20s\n",
		"size", "mwin/floor", "mwin/userspace MW", "quiet/floor",
		"quiet/userspace MW", "reg+dereg/mwin", "2 peers/1 peer",
		"new range/rights");
	for (i = 0; i < NR_SIZES; i++) {
		uint64_t s = ctl_sizes[i];
		char qf[48], qm[48];

		fprintf(out, "%-8s %-20s %-20s %-20s %-20s %-22s %-20s %-20s\n",
			size_str(s, sb),
			cell("ratio", "mwin/floor", s, 0, a, sizeof(a)),
			cell("ratio", "mwin/userspace MW", s, 0, b, sizeof(b)),
			cell("ratio", "quiet/floor", s, 0, qf, sizeof(qf)),
			cell("ratio", "quiet/userspace MW", s, 0, qm, sizeof(qm)),
			cell("ratio", "reg+dereg/mwin", s, 0, c, sizeof(c)),
			cell("ratio", "2 peers/1 peer", s, 0, d, sizeof(d)),
			cell("ratio", "range/rights", s, 0, e, sizeof(e)));
	}
	fprintf(out, "rebind at 1 GiB over rebind at 4 KiB: %s\n",
		cell("ratio", "rebind 1 GiB/4 KiB", 1 * GiB, 0, a, sizeof(a)));

	fprintf(out, "\nrxe packets sent per operation (the device's sent_pkts: every packet, ACKs included):\n");
	{
		static const char *const pm[] = {
			"floor rebind", "mwin rebind", "mwin rebind, quiet",
			"mwin invalidate+rebind",
			"mwin create+destroy", "userspace MW inv+bind",
			"single rebind (256 windows)", "batched rebind (64/call)",
		};
		const struct result *r;

		for (i = 0; i < sizeof(pm) / sizeof(pm[0]); i++) {
			r = find("pkts", pm[i], 4 * KiB, 0);
			if (r)
				fprintf(out, "  %-28s %5.2f\n", pm[i], r->s.med);
		}
	}

	fprintf(out, "\nBatches: 256 windows of 4 KiB, us per operation; last column: rate at 64/call over the single calls\n");
	fprintf(out, "%-11s %-20s", "op", "single ioctl");
	for (j = 0; j < NR_BATCH; j++) {
		char h[24];

		snprintf(h, sizeof(h), "%d/call", batch_sizes[j]);
		fprintf(out, " %-20s", h);
	}
	fprintf(out, " %s\n", "64/call vs single");
	{
		static const char *const kinds[] = {
			"rebind", "invalidate", "create", "destroy",
		};

		for (i = 0; i < 4; i++) {
			char sn[48], bn[48];

			snprintf(sn, sizeof(sn), "single %s", kinds[i]);
			snprintf(bn, sizeof(bn), "batched %s", kinds[i]);
			fprintf(out, "%-11s %-20s", kinds[i],
				cell("batch", sn, 4 * KiB, 1, a, sizeof(a)));
			for (j = 0; j < NR_BATCH; j++)
				fprintf(out, " %-20s",
					cell("batch", bn, 4 * KiB,
					     batch_sizes[j], b, sizeof(b)));
			fprintf(out, " %s\n",
				ratio(med("batch", sn, 4 * KiB, 1),
				      med("batch", bn, 4 * KiB, 64), c,
				      sizeof(c)));
		}
	}

	fprintf(out, "\nData path: latency (us, 1 in flight) and throughput (MB/s, 16 in flight), window vs plain MR;\n");
	fprintf(out, "window/MR: median [p10-p90] of the ratios of trials taken back to back\n");
	fprintf(out, "%-8s %-6s %-11s %-11s %-22s %-22s %s\n", "size", "op",
		"lat window", "lat MR", "MB/s window", "MB/s MR", "window/MR");
	for (j = 0; j < 2; j++) {
		const char *op = j ? "WRITE" : "READ";

		for (i = 0; i < NR_DP; i++) {
			char m1[48], m2[48], m3[48], m4[48];
			size_t s = dp_sizes[i];

			snprintf(m1, sizeof(m1), "window %s latency", op);
			snprintf(m2, sizeof(m2), "plain MR %s latency", op);
			snprintf(m3, sizeof(m3), "window %s throughput", op);
			snprintf(m4, sizeof(m4), "plain MR %s throughput", op);
			snprintf(a, sizeof(a), "%.1f", med("data", m1, s, 1));
			snprintf(b, sizeof(b), "%.1f", med("data", m2, s, 1));
			snprintf(m1, sizeof(m1), "window/plain MR %s throughput",
				 op);
			fprintf(out, "%-8s %-6s %-11s %-11s %-22s %-22s %s\n",
				size_str(s, sb), op, a, b,
				cell("data", m3, s, 16, c, sizeof(c)),
				cell("data", m4, s, 16, d, sizeof(d)),
				cell("ratio", m1, s, 16, e, sizeof(e)));
		}
	}

	fprintf(out, "\nScale: windows of 4 KiB sharing one region; create/destroy: mean of all, rebind: random live windows\n");
	fprintf(out, "%-8s %-12s %-20s %-12s %-14s %-16s\n", "windows",
		"create us", "rebind us", "destroy us", "slab KiB/win",
		"MemAvail KiB/win");
	for (i = 0; i < NR_SCALE; i++) {
		int n = (int)scale_counts[i];

		if (!find("scale", "create", 4 * KiB, n)) {
			cell("scale", "create", 4 * KiB, n, a, sizeof(a));
			if (strcmp(a, "-"))
				fprintf(out, "%-8d %s\n", n, a);
			continue;
		}
		fprintf(out, "%-8d %-12.1f %-20s %-12.1f %-14.2f %-16.2f\n", n,
			med("scale", "create", 4 * KiB, n),
			cell("scale", "rebind", 4 * KiB, n, a, sizeof(a)),
			med("scale", "destroy", 4 * KiB, n),
			med("scale", "slab per window", 4 * KiB, n),
			med("scale", "MemAvailable per window", 4 * KiB, n));
	}
	for (i = 0; i < nr_results; i++) {
		const struct result *r = &results[i];

		if (!strcmp(r->metric, "revoke-all") && r->s.n)
			fprintf(out, "revoke-all (PEER_DISCONNECT until it returns) of a peer with %d windows: %.1f ms [%.1f-%.1f], %d trials (%.2f us per window)\n",
				r->batch, r->s.med, r->s.p10, r->s.p90,
				r->s.n, r->s.med * 1000 / r->batch);
	}
	for (i = 0; i < nr_results; i++) {
		const struct result *r = &results[i];

		if (strcmp(r->section, "slab"))
			continue;
		fprintf(out, "  slab cache %-22s +%9.0f KiB, +%8.0f objects with %d windows: %.2f KiB and %.2f objects per window\n",
			r->metric, r->s.med, r->s.p10, r->batch,
			r->s.med / r->batch, r->s.p10 / r->batch);
	}
	if (peer_losses)
		fprintf(out, "The module tore the benchmark's peer down %u time(s) (QP error, see dmesg): the round\nor window count was made again with a new peer; the figures above are from complete rounds.\n",
			peer_losses);
	{
		const struct result *q = find("detail", "rebind per-op", 4 * KiB, 0);
		const struct result *r = find("detail", "rebind p99/max/slow",
					      4 * KiB, 0);
		const struct result *x = find("detail", "rebind MR replaced",
					      4 * KiB, 0);
		const struct result *y = find("detail", "rebind same MR",
					      4 * KiB, 0);

		if (q && r)
			fprintf(out, "\n%d single rebinds of 4 KiB, timed one by one: median %.1f us, mean %.1f, p99 %.1f, max %.1f; %.0f over 2x the median\n",
				q->ops, q->s.med, q->s.mean, r->s.med, r->s.p10,
				r->s.p90);
		if (x && y)
			fprintf(out, "  of which %d replaced the MR (256 key bytes spent): median %.1f us [%.1f-%.1f]; the other %d: median %.1f us [%.1f-%.1f]\n",
				x->ops, x->s.med, x->s.p10, x->s.p90, y->ops,
				y->s.med, y->s.p10, y->s.p90);
	}
	lease_report(out);
	peerlib_report(out);
	trace_report(out);
	if (nr_cnt_log) {
		fprintf(out, "\nrxe0 counters during each section (retries: requests not acknowledged in time)\n");
		fprintf(out, "%-8s", "section");
		for (j = 0; j < NR_CNT; j++)
			fprintf(out, " %s", cnt_names[j]);
		fprintf(out, "\n");
		for (i = 0; i < (size_t)nr_cnt_log; i++) {
			fprintf(out, "%-8s", cnt_log[i].section);
			for (j = 0; j < NR_CNT; j++)
				fprintf(out, " %*lld", (int)strlen(cnt_names[j]),
					cnt_log[i].d[j]);
			fprintf(out, "\n");
		}
	}

	/* targets: from the ratios within each round */
	memset(tg, 0, sizeof(tg));
	tg[0] = (struct target){ "ioctl rebind / in-kernel floor, worst size",
				 "<= 1.3x", NAN, 1.3, true, "", NULL };
	tg[0].value = worst_ratio("mwin/floor", true, tg[0].where,
				  sizeof(tg[0].where));
	tg[1] = (struct target){ "rebind cost, 1 GiB over 4 KiB", "<= 2x",
				 med("ratio", "rebind 1 GiB/4 KiB", 1 * GiB, 0),
				 2, true, "", NULL };
	tg[2] = (struct target){ "ibv_reg_mr+dereg / mwin rebind at 256 MiB",
				 ">= 100x",
				 med("ratio", "reg+dereg/mwin", 256 * MiB, 0),
				 100, false, "", NULL };
	tg[3] = (struct target){ "ioctl rebind / userspace MW inv+bind, worst",
				 "<= 1.2x", NAN, 1.2, true, "", NULL };
	tg[3].value = worst_ratio("mwin/userspace MW", true, tg[3].where,
				  sizeof(tg[3].where));
	tg[4] = (struct target){ "batched rebind rate, 64/call over single",
				 ">= 3x",
				 med("ratio", "batched 64/single rebind rate",
				     4 * KiB, 64),
				 3, false, "", NULL };
	tg[5] = (struct target){ "window / plain MR throughput, worst",
				 ">= 0.95x", NAN, 0.95, false, "", NULL };
	for (j = 0; j < 2; j++) {
		for (i = 0; i < NR_DP; i++) {
			char m3[48];

			snprintf(m3, sizeof(m3), "window/plain MR %s throughput",
				 j ? "WRITE" : "READ");
			w = med("ratio", m3, dp_sizes[i], 16);
			if (!isnan(w) && (isnan(tg[5].value) || w < tg[5].value)) {
				tg[5].value = w;
				snprintf(tg[5].where, sizeof(tg[5].where),
					 "(%s %s)", j ? "WRITE" : "READ",
					 size_str(dp_sizes[i], sb));
			}
		}
	}
	/* the first and fourth again, for a quiet window (no messages) */
	tg[6] = (struct target){ "quiet rebind / in-kernel floor, worst size",
				 "<= 1.3x", NAN, 1.3, true, "", NULL };
	tg[6].value = worst_ratio("quiet/floor", true, tg[6].where,
				  sizeof(tg[6].where));
	tg[7] = (struct target){ "quiet rebind / userspace MW inv+bind, worst",
				 "<= 1.2x", NAN, 1.2, true, "", NULL };
	tg[7].value = worst_ratio("quiet/userspace MW", true, tg[7].where,
				  sizeof(tg[7].where));
	/*
	 * leases (lease.c): the lateness in us, against 2x the revoke floor
	 * plus the timer's slack and against 5 ms; mass expiry as a ratio
	 */
	w = 2 * med("lease", "revoke floor", 4 * KiB, 0) + LEASE_SLACK_US;
	snprintf(lb, sizeof(lb), "<= %.0f us", w);
	tg[8] = (struct target){ "lease lateness, median", lb,
				 med("lease", "lateness", 4 * KiB, 0), w, true,
				 "", "us" };
	snprintf(tg[8].where, sizeof(tg[8].where), "(floor %.1f us)",
		 (w - LEASE_SLACK_US) / 2);
	if (isnan(w))
		tg[8].value = NAN;	/* no floor, no bound */
	tg[9] = (struct target){ "lease lateness, p99", "<= 5000 us",
				 med("lease", "lateness p99", 4 * KiB, 0),
				 LEASE_P99_US, true, "", "us" };
	tg[10] = (struct target){ "single invalidate / lease expiry, per window",
				  ">= 3x",
				  med("ratio", "single invalidate/expiry",
				      4 * KiB, 0),
				  3, false, "", NULL };
	/* libmwinpeer (peerlib.c) against raw verbs on its own connection */
	tg[11] = (struct target){ "library / raw verbs throughput, worst",
				  ">= 0.95x", NAN, 0.95, false, "", NULL };
	tg[11].value = peerlib_worst(false, tg[11].where,
				     sizeof(tg[11].where));
	tg[12] = (struct target){ "library - raw verbs latency, worst",
				  "<= 1 us", NAN, 1, true, "", "us" };
	tg[12].value = peerlib_worst(true, tg[12].where,
				     sizeof(tg[12].where));
	fprintf(out, "\nTargets (medians of the ratios within rounds; leases: one run, see above)\n");
	for (i = 0; i < sizeof(tg) / sizeof(tg[0]); i++)
		target_line(out, &tg[i]);
}

/* --------------------------------------------------------------- main */

static void usage(void)
{
	fprintf(stderr,
		"usage: mwbench [--out DIR] [--host ADDR] [--dev NAME] [--trials N] [--ops N]\n"
		"               [--scale-max N] [--revoke-windows N] [--revoke-trials N]\n"
		"               [--leases N] [--expiry-windows N]\n"
		"               [--only ctl,batch,data,scale,trace,lease,peerlib] [--quick]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "host", required_argument, NULL, 'H' },
		{ "dev", required_argument, NULL, 'd' },
		{ "trials", required_argument, NULL, 't' },
		{ "ops", required_argument, NULL, 'n' },
		{ "scale-max", required_argument, NULL, 's' },
		{ "revoke-windows", required_argument, NULL, 'r' },
		{ "revoke-trials", required_argument, NULL, 'R' },
		{ "leases", required_argument, NULL, 'l' },
		{ "expiry-windows", required_argument, NULL, 'x' },
		{ "only", required_argument, NULL, 'O' },
		{ "quick", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct mwin_info info;
	char path[512];
	FILE *f;
	int ch;

	t_start = now_ns();
	while ((ch = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (ch) {
		case 'o': opt.out = optarg; break;
		case 'H': opt.host = optarg; break;
		case 'd': opt.dev = optarg; break;
		case 't': opt.trials = atoi(optarg); break;
		case 'n': opt.ops = atoi(optarg); break;
		case 's': opt.scale_max = (unsigned int)atoi(optarg); break;
		case 'r': opt.revoke_windows = (unsigned int)atoi(optarg); break;
		case 'R': opt.revoke_trials = atoi(optarg); break;
		case 'l': opt.leases = (unsigned int)atoi(optarg); break;
		case 'x': opt.expiry_windows = (unsigned int)atoi(optarg); break;
		case 'O': opt.only = optarg; break;
		case 'q':
			opt.trials = 5;
			opt.ops = 8;
			opt.scale_max = 1000;
			opt.revoke_windows = 1000;
			opt.revoke_trials = 1;
			opt.leases = 200;
			opt.expiry_windows = 2000;
			break;
		default: usage();
		}
	}
	if (opt.trials < 1 || opt.trials > MAX_TRIALS || opt.ops < 1 ||
	    opt.revoke_trials > MAX_TRIALS)
		usage();

	mfd = mwin_open();
	if (mfd < 0)
		die("%s: %s", MWIN_DEV_PATH, strerror(-mfd));
	if (mwin_info(mfd, &info, NULL, 0))
		die("MWIN_INFO failed");
	max_windows = info.max_windows;
	say("mwin ABI %u, max_windows %u, max_region_bytes %llu",
	    info.abi_version, info.max_windows,
	    (unsigned long long)info.max_region_bytes);
	mkdir(opt.out, 0755);

	if (want("ctl"))
		bench_ctl();
	if (want("batch"))
		bench_batch();
	if (want("data"))
		bench_data();
	if (want("trace"))
		bench_trace();
	if (want("lease"))
		bench_lease(opt.leases, opt.expiry_windows);
	if (want("peerlib"))
		bench_peerlib(opt.trials < 15 ? opt.trials : 15);
	if (want("scale"))
		bench_scale();

	snprintf(path, sizeof(path), "%s/results.csv", opt.out);
	write_csv(path);
	snprintf(path, sizeof(path), "%s/summary.txt", opt.out);
	f = fopen(path, "w");
	if (!f)
		die("%s: %s", path, strerror(errno));
	report(f);
	fclose(f);
	report(stdout);
	say("done in %.0f s; results in %s/", (now_ns() - t_start) / 1e9,
	    opt.out);
	close(mfd);
	return 0;
}
