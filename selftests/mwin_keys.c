// SPDX-License-Identifier: GPL-2.0
/*
 * Key unpredictability: rebind one window many times (10,000 by default,
 * MWIN_KEYS_REBINDS) and look at the key bytes it gets.
 *
 * mwin draws each key byte uniformly among the bytes its MR has not used
 * yet and replaces the MR after 256 binds: every MR hands out a random
 * permutation of the 256 bytes. So:
 *
 *  - asserted (cannot fail by chance): no key byte twice from one MR; at
 *    most 256 keys per MR; successors "previous + 1" (and any one fixed
 *    difference) far below 50% (expected 1/255 each: 10% would be
 *    hundreds of standard deviations away); the window still works;
 *  - reported: the histogram of key bytes and its chi-square against
 *    uniform (255 degrees of freedom; expected about 255 for independent
 *    draws, far less here because each MR is a permutation, which makes
 *    the histogram flatter than chance), the chi-square of the
 *    differences between successive keys of one MR (254 degrees of
 *    freedom: differences 1..255), the longest run of a fixed difference,
 *    and the number of MRs used.
 */
#include <time.h>

#include "mwin_test.h"

#define DEFAULT_REBINDS	10000

FIXTURE(keys)
{
	int fd;
	uint32_t region;
	struct mwpeer *p;
};

FIXTURE_SETUP(keys)
{
	self->fd = mwin_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, mwin_region_create(self->fd, 1 << 16, 0, &self->region,
					NULL));
	self->p = test_connect();
	ASSERT_NE(NULL, self->p);
}

FIXTURE_TEARDOWN(keys)
{
	mwpeer_close(self->p);
	mwin_region_destroy(self->fd, self->region, MWIN_REGION_DESTROY_FORCE);
	close(self->fd);
}

/* No libm in the suite's link line: Newton's square root. */
static double sqroot(double x)
{
	double r = x > 1 ? x : 1;
	int i;

	if (x <= 0)
		return 0;
	for (i = 0; i < 100; i++)
		r = (r + x / r) / 2;
	return r;
}

/* How many standard deviations a chi-square with @k dof is from its mean. */
static double chi2_z(double x, double k)
{
	return (x - k) / sqroot(2 * k);
}

TEST_F_TIMEOUT(keys, rebind_unpredictable, 300)
{
	const char *env = getenv("MWIN_KEYS_REBINDS");
	unsigned int n = env ? strtoul(env, NULL, 0) : DEFAULT_REBINDS;
	unsigned int hist[256] = { 0 }, diff[256] = { 0 };
	unsigned int i, mrs = 1, in_mr = 1, max_in_mr = 0, repeats = 0;
	unsigned int pairs = 0, succ = 0, run = 0, max_run = 0, full_mrs = 0;
	unsigned int dmax = 0, dmax_at = 0, hmin = ~0U, hmax = 0;
	uint8_t used[256 / 8];
	struct mwin_window_bind b;
	struct mwin_window_info wi;
	struct mwpeer_msg m;
	double chi = 0, chid = 0, e, t0, secs;
	uint32_t prev, prevd = 0;
	int msgs = 0;

	ASSERT_LT(0, n);
	b = test_bind(self->region, mwpeer_id(self->p), 0, 4096,
		      MWIN_ACCESS_READ | MWIN_ACCESS_WRITE, 0);
	ASSERT_EQ(0, mwin_window_create(self->fd, &b));
	prev = b.rkey;
	hist[prev & 0xff]++;
	memset(used, 0, sizeof(used));
	used[(prev & 0xff) / 8] |= 1 << (prev & 7);

	t0 = test_now_s();
	for (i = 0; i < n; i++) {
		uint8_t k;

		ASSERT_EQ(0, test_rebind(self->fd, &b, 0, 0, 4096,
					 MWIN_ACCESS_READ | MWIN_ACCESS_WRITE));
		/* take the revoke and grant messages as they come */
		while (!mwpeer_next_msg(self->p, &m, 0))
			msgs++;
		k = b.rkey & 0xff;
		hist[k]++;
		if ((b.rkey >> 8) != (prev >> 8)) {
			/* a new MR */
			if (in_mr == 256)
				full_mrs++;
			if (in_mr > max_in_mr)
				max_in_mr = in_mr;
			mrs++;
			in_mr = 1;
			memset(used, 0, sizeof(used));
			run = 0;
		} else {
			uint32_t d = (k - (prev & 0xff)) & 0xff;

			in_mr++;
			if (used[k / 8] & (1 << (k & 7)))
				repeats++;
			pairs++;
			diff[d]++;
			succ += d == 1;
			run = d == prevd ? run + 1 : 1;
			if (run > max_run)
				max_run = run;
			prevd = d;
		}
		used[k / 8] |= 1 << (k & 7);
		prev = b.rkey;
	}
	secs = test_now_s() - t0;
	if (in_mr > max_in_mr)
		max_in_mr = in_mr;

	/* the histogram of all n + 1 key bytes */
	e = (n + 1) / 256.0;
	for (i = 0; i < 256; i++) {
		chi += (hist[i] - e) * (hist[i] - e) / e;
		if (hist[i] < hmin)
			hmin = hist[i];
		if (hist[i] > hmax)
			hmax = hist[i];
	}
	/* successive differences within one MR: 1..255 */
	e = pairs / 255.0;
	for (i = 1; i < 256; i++) {
		chid += (diff[i] - e) * (diff[i] - e) / e;
		if (diff[i] > dmax) {
			dmax = diff[i];
			dmax_at = i;
		}
	}

	TH_LOG("%u rebinds in %.1f s (%.2f ms each), %d messages taken",
	       n, secs, 1000 * secs / n, msgs);
	TH_LOG("MRs used: %u (%u handed out all 256 keys; at most %u keys from one MR)",
	       mrs, full_mrs, max_in_mr);
	TH_LOG("key byte histogram: min %u, max %u, mean %.1f per byte",
	       hmin, hmax, (n + 1) / 256.0);
	TH_LOG("chi-square of the key bytes vs uniform: %.1f (255 dof; independent draws: 255 +- 22.6; z = %.1f)",
	       chi, chi2_z(chi, 255));
	TH_LOG("  (far below 255 is expected: each MR hands out a permutation of the 256 bytes)");
	TH_LOG("chi-square of successive differences within an MR: %.1f (254 dof: 254 +- 22.5; z = %.1f); difference 0: %u",
	       chid, chi2_z(chid, 254), diff[0]);
	TH_LOG("successor = previous + 1: %u of %u (%.2f%%; random: %.2f%%); commonest difference %u: %u (%.2f%%); longest run of one difference: %u",
	       succ, pairs, pairs ? 100.0 * succ / pairs : 0, 100.0 / 255,
	       dmax_at, dmax, pairs ? 100.0 * dmax / pairs : 0, max_run);
	TH_LOG("key bytes repeated within one MR: %u", repeats);

	EXPECT_EQ(0, repeats);
	EXPECT_EQ(0, diff[0]);
	EXPECT_LE(max_in_mr, 256);
	/* n + 1 keys, at most 256 per MR */
	EXPECT_LE((n + 1 + 255) / 256, mrs);
	EXPECT_LT(succ * 10, pairs);		/* < 10%, random: 0.4% */
	EXPECT_LT(dmax * 10, pairs);		/* no favourite step either */
	EXPECT_GT(20, max_run);

	ASSERT_EQ(0, mwin_window_get(self->fd, b.id, 0, &wi));
	EXPECT_EQ(n + 1, wi.binds);
	EXPECT_EQ(b.rkey, wi.rkey);
	EXPECT_EQ(0, mwpeer_proto_errors(self->p, NULL));
	ASSERT_EQ(0, mwpeer_wait_grant(self->p, b.id, 0, &m, TEST_TIMEOUT_MS));
	EXPECT_EQ(b.rkey, m.rkey);
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_read(self->p, b.rkey, 0, NULL, 8));
}

TEST_HARNESS_MAIN
