// SPDX-License-Identifier: GPL-2.0
/*
 * repro_remap [SECONDS]: a peer READs its whole window, over and over,
 * while the operator rebinds the window (same peer, so the same MR)
 * between [2 MiB, 4 MiB) and [0, 64 KiB) of a 4 MiB region.
 *
 * A rebind that changes the range remaps the MR (ib_map_mr_sg). rxe takes
 * the bounds and page list of an MR from the MR object itself, and a
 * request that passed its rkey check before the LOCAL_INV still computes
 * its addresses afterwards, from the new iova and page list: an index
 * past the pages mapped, a wild pointer, a page fault in rxe_mr_copy()
 * in softirq context, a panic. Before ab44362 the MR was remapped before
 * its LOCAL_INV (panic within a minute); since, it is remapped after, and
 * the panic takes about two minutes here.
 *
 * Build: cc -O2 -Iuapi -Itools/lib -Ibuild/ksrc/tools/testing/selftests \
 *	-o build/conformance/repro_remap selftests/conformance/repro_remap.c \
 *	build/lib/libmwinpeer.a build/lib/libmwin.a -lrdmacm -libverbs -lcrypto -lpthread
 * Run:   tools/testing/vm/vm-run -- bash -c 'insmod build/vm/mwin.ko &&
 *	build/conformance/repro_remap 150'
 */
#include <pthread.h>
#include <time.h>
#include "../mwin_test.h"

/* not a kselftest: the harness is only here for the helpers */
static int (*unused_harness)(int, char **) __attribute__((unused)) = test_harness_run;
#define MB (1UL << 20)
static int fd; static uint32_t region, wid;
static volatile uint32_t cur_rkey, cur_peer; static volatile uint64_t cur_iova, cur_len = 2 * MB;
static volatile int stop; static unsigned long reads_ok, reads_failed, rebinds, rebind_err;
static void *reader(void *arg)
{
	struct mwpeer *p = arg;
	while (!stop) {
		if (mwpeer_qp_error(p) || mwpeer_state(p) != MWPEER_CONNECTED) {
			uint32_t old = mwpeer_id(p);
			test_wait_peer_gone(fd, old);
			if (mwpeer_reconnect(p)) { usleep(10000); continue; }
			cur_peer = mwpeer_id(p);
			usleep(20000);
			continue;
		}
		int st = mwpeer_read(p, cur_rkey, cur_iova, NULL, cur_len);
		if (st == IBV_WC_SUCCESS) reads_ok++; else if (reads_failed++ < 3) printf("read failed: %s (%s)\n", mwpeer_status_str(st), mwpeer_errmsg(p));
		mwpeer_poll(p, 0);
		while (mwpeer_next_msg(p, &(struct mwpeer_msg){0}, 0) == 0);
	}
	return NULL;
}
int main(int argc, char **argv)
{
	int secs = argc > 1 ? atoi(argv[1]) : 60;
	struct mwpeer_opts o = { .timeout_ms = 5000, .buf_size = 4 * MB };
	struct mwpeer *p = mwpeer_create(&o);
	time_t end = time(NULL) + secs;
	pthread_t t;
	int side = 0;

	fd = mwin_open();
	if (!p || fd < 0 || mwpeer_open(p, test_host(), 0)) return 2;
	mwin_region_create(fd, 4 * MB, 0, &region, NULL);
	struct mwin_window_bind b = test_bind(region, mwpeer_id(p), 2 * MB, 2 * MB, MWIN_ACCESS_ALL, 0);
	if (mwin_window_create(fd, &b)) return 3;
	wid = b.id; cur_rkey = b.rkey; cur_iova = b.iova; cur_peer = mwpeer_id(p);
	pthread_create(&t, NULL, reader, p);
	while (time(NULL) < end) {
		struct mwin_window_info wi;
		side ^= 1;
		mwin_window_get(fd, wid, 0, &wi);
		b = test_bind(0, wi.state == MWIN_WINDOW_UNBOUND ? cur_peer : 0, side ? 0 : 2 * MB, side ? 64 * 1024 : 2 * MB, MWIN_ACCESS_ALL, 0);
		b.id = wid;
		if (mwin_window_rebind(fd, &b)) { rebind_err++; usleep(5000); continue; }
		rebinds++;
		cur_iova = b.iova; cur_len = side ? 64 * 1024 : 2 * MB; cur_rkey = b.rkey;
		usleep(10000 + rand() % 30000);
	}
	stop = 1;
	pthread_join(t, NULL);
	printf("%lu rebinds (%lu failed), %lu reads OK, %lu failed\n", rebinds, rebind_err, reads_ok, reads_failed);
	return 0;
}
