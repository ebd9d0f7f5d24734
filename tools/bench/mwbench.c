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
 *          and the told baselines, which send the other side the new rkey
 *          (or the end of the old) in one SEND, as the module tells a peer:
 *          MW rebind, MW invalidate, MR re-registration;
 *  batch   MWIN_WINDOW_BATCH with 1, 8, 64, 256 operations per call against
 *          the single calls and the floor, over 256 windows of one region;
 *  data    RDMA READ and WRITE latency and throughput through a window and
 *          through a plain userspace MR, from the same initiator code;
 *  trace   where a rebind's time goes: the function_graph tracer over
 *          single rebinds, the floor and a batch;
 *  parallel (parallel.c) rebinds of 4 peers by 4 callers at once against
 *          those of one peer by one caller;
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
 * Files: this one holds the options, main(), the helpers, the statistics,
 * the results and the rxe counters; peers.c the connections (the module's
 * peers on libmwinpeer, loopback pairs for the baselines) and the data
 * path's loop; rr.c the round robin; each section a file of its own (ctl.c,
 * batch.c, data.c, trace.c, lease.c, peerlib.c, parallel.c, scale.c);
 * report.c the CSV, the report and the table of targets. mwbench.h says
 * what they share.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mwbench.h"

const uint64_t ctl_sizes[NR_SIZES] = {
	4 * KiB, 64 * KiB, 1 * MiB, 16 * MiB, 256 * MiB, 1 * GiB,
};
/* ctl's sizes up to --max-size: at least the first */
int nr_ctl_sizes(void)
{
	int n = 1;

	while (n < NR_SIZES && ctl_sizes[n] <= opt.max_size)
		n++;
	return n;
}

const int batch_sizes[NR_BATCH] = { 1, 8, 64, 256 };
const size_t dp_sizes[NR_DP] = {
	64, 256, 1 * KiB, 4 * KiB, 16 * KiB, 64 * KiB, 256 * KiB, 1 * MiB,
};
const unsigned int scale_counts[NR_SCALE] = { 10, 1000, 100000 };

/* -------------------------------------------------------------- options */

struct mwbench_opts opt = {
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
	.max_size = 1 * GiB,
};

int mfd = -1;
static uint64_t t_start;
unsigned int max_windows;

/* -------------------------------------------------------------- helpers */

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

bool want(const char *section)
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

const char *size_str(uint64_t b, char buf[24])
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

uint32_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 11);
}

long meminfo_kb(const char *key)
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

/* ----------------------------------------------------------- statistics */

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

/* -------------------------------------------------------------- results */

struct result *results;
size_t nr_results;
static size_t cap_results;

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

/* take back the last results of @section with @batch, newest first */
void drop_results(const char *section, int batch)
{
	while (nr_results && results[nr_results - 1].batch == batch &&
	       !strcmp(results[nr_results - 1].section, section))
		nr_results--;
}

/* ----------------------------------------------------------------- mwin */

int region_create(uint64_t len, uint32_t *id)
{
	return mwin_region_create(mfd, len, 0, id, NULL);
}

int win_create(uint32_t region, uint32_t peer, uint64_t off, uint64_t len,
	       uint32_t access, struct mwin_window_bind *out)
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

int win_rebind_key(uint32_t id, uint64_t off, uint64_t len, uint32_t access,
		   uint32_t *rkey)
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

int win_rebind(uint32_t id, uint64_t off, uint64_t len, uint32_t access)
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

/* --------------------------------------------------------- rxe counters */

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
long long pkts_read(void)
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

/* the counters of each section as rows of results.csv */
void cnt_csv(FILE *f)
{
	size_t j;
	int k;

	for (k = 0; k < nr_cnt_log; k++)
		for (j = 0; j < NR_CNT; j++)
			fprintf(f, "rxe-%s,%s,0,0,%lld,%lld,%lld,%lld,1,1,count,\"ok\"\n",
				cnt_log[k].section, cnt_names[j],
				cnt_log[k].d[j], cnt_log[k].d[j],
				cnt_log[k].d[j], cnt_log[k].d[j]);
}

/* ... and as a table of the report */
void cnt_report(FILE *out)
{
	size_t i, j;

	if (!nr_cnt_log)
		return;
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

/* ----------------------------------------------------------------- main */

static void usage(void);

/* ctl's windows no larger than the device maps (siw: 1 MiB) */
static void cap_max_size(void)
{
	struct mwin_dev_info devs[16];
	struct mwin_info info;
	char b[24];
	uint32_t i;

	if (mwin_info(mfd, &info, devs, ARRAY_SIZE(devs)))
		return;
	for (i = 0; i < info.nr_devs && i < ARRAY_SIZE(devs); i++) {
		if (strcmp(devs[i].name, opt.dev) ||
		    devs[i].max_window_bytes >= opt.max_size)
			continue;
		opt.max_size = devs[i].max_window_bytes;
		say("%s maps windows of %s at most: the control path's sizes end there",
		    opt.dev, size_str(opt.max_size, b));
	}
}

/* BYTES with an optional K, M or G; 0 for anything else */
static uint64_t size_arg(const char *s)
{
	char *end;
	uint64_t v = strtoull(s, &end, 10);

	switch (*end) {
	case 'K': v *= KiB; end++; break;
	case 'M': v *= MiB; end++; break;
	case 'G': v *= GiB; end++; break;
	}
	return *end || *s == '-' ? 0 : v;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: mwbench [--out DIR] [--host ADDR] [--dev NAME] [--trials N] [--ops N]\n"
		"               [--scale-max N] [--revoke-windows N] [--revoke-trials N]\n"
		"               [--leases N] [--expiry-windows N]\n"
		"               [--only ctl,batch,data,scale,trace,lease,peerlib,parallel]\n"
		"               [--max-size BYTES[K|M|G]] [--quick]\n");
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
		{ "max-size", required_argument, NULL, 'm' },
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
		case 'm': opt.max_size = size_arg(optarg); break;
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
	    opt.revoke_trials > MAX_TRIALS || opt.max_size < ctl_sizes[0])
		usage();

	mfd = mwin_open();
	if (mfd < 0)
		die("%s: %s", MWIN_DEV_PATH, strerror(-mfd));
	if (mwin_info(mfd, &info, NULL, 0))
		die("MWIN_INFO failed");
	max_windows = info.max_windows;
	cap_max_size();
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
	if (want("parallel"))
		bench_parallel();
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
