// SPDX-License-Identifier: GPL-2.0
/*
 * mwbench's scale section: create, rebind and destroy rates and memory
 * with 10, 1,000 and 100,000 live windows; revoke-all (PEER_DISCONNECT) of
 * a peer that holds 10,000 windows.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mwbench.h"

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
		drop_results("scale", (int)n);
		add_failed("scale", "create", 4 * KiB, (int)n, "us/op",
			   "failed after %u: %s", made, strerror(-ret));
	}
	return ret;
}

void bench_scale(void)
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
