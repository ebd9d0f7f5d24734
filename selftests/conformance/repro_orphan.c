// SPDX-License-Identifier: GPL-2.0
/*
 * repro_orphan: REGION_DESTROY with MWIN_REGION_DESTROY_FORCE while
 * another thread creates windows in the region. region_destroy() marks the
 * region dead and destroys the windows it finds in its range tree by id;
 * a window that window_create() inserted in the tree but has not yet
 * published has id 0, which ends region_destroy()'s loop early. The call
 * returns 0, the region is gone from the listing, and the window (and any
 * published window behind it in the tree) lives on, bound, its rkey
 * working, holding the region's pages (counted in region_bytes).
 *
 * Build: cc -O2 -Iuapi -Itools/lib -Ibuild/ksrc/tools/testing/selftests \
 *	-o build/conformance/repro_orphan selftests/conformance/repro_orphan.c \
 *	build/lib/libmwinpeer.a build/lib/libmwin.a -lrdmacm -libverbs -lcrypto -lpthread
 * Run:   tools/testing/vm/vm-run -- bash -c 'insmod build/vm/mwin.ko &&
 *	build/conformance/repro_orphan'
 * The same race is the test races.force_destroy_vs_create (mwin_races).
 */
#include <pthread.h>
#include "../mwin_test.h"

static int (*unused_harness)(int, char **) __attribute__((unused)) = test_harness_run;
static int fd; static uint32_t region, peer; static volatile int stop;
static void *creator(void *arg)
{
	for (int i = 0; !stop; i++) {
		struct mwin_window_bind b = test_bind(region, peer, (i % 200) * 4096, 4096, MWIN_ACCESS_READ, 0);
		if (mwin_window_create(fd, &b) == -ENOENT) break;
	}
	return NULL;
}
int main(void)
{
	struct mwpeer *p = test_connect();
	int round, orphans = 0;
	fd = mwin_open();
	if (!p || fd < 0) return 2;
	peer = mwpeer_id(p);
	for (round = 0; round < 50 && !orphans; round++) {
		pthread_t t; struct mwin_window_info wi; struct mwin_region_info ri; struct mwin_info in;
		mwin_region_create(fd, 1 << 20, 0, &region, NULL);
		stop = 0;
		pthread_create(&t, NULL, creator, NULL);
		usleep(1000 + rand() % 5000);
		int r = mwin_region_destroy(fd, region, MWIN_REGION_DESTROY_FORCE);
		stop = 1;
		pthread_join(t, NULL);
		for (wi.id = 0; !mwin_window_get(fd, wi.id, MWIN_GET_NEXT, &wi);) {
			if (wi.region == region && mwin_region_get(fd, region, 0, &ri) == -ENOENT) {
				orphans++;
				if (orphans == 1) {
					mwin_info(fd, &in, NULL, 0);
					printf("round %d: destroy(FORCE) = %d, but window %u (state %s, rkey 0x%x) of region %u lives on; nr_regions %u region_bytes %llu\n",
					       round, r, wi.id, mwin_window_state_name(wi.state), wi.rkey, region, in.nr_regions, (unsigned long long)in.region_bytes);
					if (wi.state == MWIN_WINDOW_BOUND)
						printf("  READ through it: %s\n", mwpeer_status_str(mwpeer_read(p, wi.rkey, wi.iova, NULL, 8)));
				}
			}
		}
		while (!mwin_window_get(fd, 0, MWIN_GET_NEXT, &wi))
			mwin_window_destroy(fd, wi.id);
		while (mwpeer_next_msg(p, &(struct mwpeer_msg){0}, 0) == 0);
	}
	printf("%d rounds, %d orphan windows\n", round, orphans);
	return orphans ? 1 : 0;
}
