// SPDX-License-Identifier: GPL-2.0
/*
 * mwbench's data section: RDMA READ and WRITE latency and throughput
 * through a window and through a plain userspace MR, from the same
 * initiator code (dp_run()), the two taking turns.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "mwbench.h"

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

/* The data path's window: 2 MiB, or the most opt.dev maps (1 MiB on siw). */
static uint64_t data_window_len(void)
{
	struct mwin_dev_info devs[8];
	struct mwin_info info;
	uint64_t len = 2 * MiB;
	uint32_t i;

	if (mwin_info(mfd, &info, devs, 8))
		return len;
	for (i = 0; i < info.nr_devs && i < 8; i++)
		if (!strcmp(devs[i].name, opt.dev) &&
		    devs[i].max_window_bytes < len)
			len = devs[i].max_window_bytes;
	if (len < dp_sizes[NR_DP - 1])
		die("%s maps at most %" PRIu64 " bytes per window, the data path needs %zu",
		    opt.dev, len, dp_sizes[NR_DP - 1]);
	return len;
}

void bench_data(void)
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
	ret = win_create(region, p->peer_id, 0, data_window_len(), RW, &b);
	if (ret)
		die("WINDOW_CREATE for the data path: %s", strerror(-ret));
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
