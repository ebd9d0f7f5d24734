// SPDX-License-Identifier: GPL-2.0
/*
 * crash_mw MODE: the rdma-core side of the conformance cases that oops
 * rxe on Linux 6.1, one per VM boot (selftests/conformance.sh runs it with
 * tools/testing/vm/vm-run and reads the guest's console).
 *
 *   local   LOCAL_INV of a Type 2 MW that is already invalidated (free)
 *   remote  Send-with-Invalidate of a Type 2 MW that is already
 *           invalidated (free), by the peer it was bound for
 *
 * rxe_check_invalidate_mw() refuses only MWs in the INVALID state, so a
 * FREE one reaches rxe_do_invalidate_mw(), which drops the references of
 * the QP and MR a bound MW holds: both are NULL.
 *
 * Prints "crash_mw: <step>" lines as it goes and, if the kernel survives,
 * "crash_mw: RESULT <text>". Exit status 0 when it got that far. Needs
 * rxe0 on eth0 (MWIN_TEST_HOST, default 10.0.2.15); not the module.
 *
 * Built by selftests/conformance.sh (not matched by the Makefile's
 * selftests/mwin_*.c pattern on purpose: it must never run in the suite).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mwin/peer.h>
#include "mwcore.h"

static void step(const char *fmt, const char *a, int b)
{
	printf("crash_mw: ");
	printf(fmt, a, b);
	printf("\n");
	fflush(stdout);
	sync();
}

int main(int argc, char **argv)
{
	const char *host = getenv("MWIN_TEST_HOST") ? : "10.0.2.15";
	const char *mode = argc > 1 ? argv[1] : "";
	struct mwcore_srv *s;
	struct mwcore_conn *c;
	struct mwcore_mw *m;
	struct mwpeer *p;
	char err[256];
	int r, e = 0;

	if (strcmp(mode, "local") && strcmp(mode, "remote")) {
		fprintf(stderr, "usage: crash_mw local|remote\n");
		return 2;
	}
	s = mwcore_start(host, 0, 65536, err, sizeof(err));
	if (!s) {
		fprintf(stderr, "crash_mw: %s\n", err);
		return 1;
	}
	p = mwpeer_connect(host, s->port, NULL, 10000, &e);
	c = p ? mwcore_conn(s, mwpeer_id(p), 5000) : NULL;
	if (!c) {
		fprintf(stderr, "crash_mw: connect failed: %d\n", e);
		return 1;
	}
	m = mwcore_alloc_mw(s, IBV_MW_TYPE_2);
	if (!m) {
		perror("crash_mw: ibv_alloc_mw");
		return 1;
	}
	r = mwcore_bind(s, c, m, 4096, 4096,
			MWIN_ACCESS_READ | MWIN_ACCESS_WRITE, 0x42);
	step("bind Type 2 MW: %s (%d)", r ? "failed" : "OK", r);
	if (r)
		return 1;
	r = mwpeer_write(p, m->rkey, m->addr, "x", 1);
	step("WRITE through it: %s (%d)", mwpeer_status_str(r), r);

	if (!strcmp(mode, "local")) {
		r = mwcore_invalidate(s, c, m, false);
		step("LOCAL_INV: %s (%d)", r ? "failed" : "OK", r);
		step("LOCAL_INV again, the MW is free now%s%d", "", 0);
		r = mwcore_invalidate(s, c, m, true);
		step("second LOCAL_INV completed: %s (%d)",
		     r == 0 ? "OK" : r > 0 ? "error completion" : "not posted", r);
		printf("crash_mw: RESULT second LOCAL_INV: %s, QP %s\n",
		       r >= 0 ? (r ? "error completion" : "OK") : "not posted",
		       mwcore_qp_state_str(mwcore_qp_state(c)));
	} else {
		struct ibv_wc wc;

		r = mwpeer_send_inv(p, m->rkey);
		step("Send-with-Invalidate: %s (%d)", mwpeer_status_str(r), r);
		if (mwcore_wait_recv(s, c, &wc, 3000))
			step("receiver: %s (%d)", ibv_wc_status_str(wc.status),
			     wc.status);
		step("Send-with-Invalidate again, the MW is free now%s%d", "", 0);
		r = mwpeer_send_inv(p, m->rkey);
		step("second Send-with-Invalidate: sender %s (%d)",
		     mwpeer_status_str(r), r);
		if (mwcore_wait_recv(s, c, &wc, 3000))
			step("receiver: %s (%d)", ibv_wc_status_str(wc.status),
			     wc.status);
		sleep(1);
		printf("crash_mw: RESULT second Send-with-Invalidate: sender %s, responder QP %s\n",
		       mwpeer_status_str(r),
		       mwcore_qp_state_str(mwcore_qp_state(c)));
	}
	fflush(stdout);
	mwpeer_close(p);
	mwcore_stop(s);
	return 0;
}
