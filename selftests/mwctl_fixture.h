/* SPDX-License-Identifier: GPL-2.0 */
/*
 * FIXTURE(mw), the bed of the mwctl tests that need objects: an open
 * /dev/mwin, a connected peer and a 64 KiB region made with mwctl (the
 * teardown destroys it, and the windows in it); and mk_window(), which
 * makes a window with "mwctl -j window create". Shared by mwin_mwctl.c,
 * mwin_mwctl_windows.c, mwin_mwctl_monitor.c and mwin_mwctl_leases.c.
 */
#ifndef _MWCTL_FIXTURE_H
#define _MWCTL_FIXTURE_H

#include "mwctl_run.h"

FIXTURE(mw)
{
	int fd;
	struct mwpeer *p;
	uint32_t peer;
	uint32_t region;	/* 64 KiB, made with mwctl */
	struct run r;
};

FIXTURE_SETUP(mw)
{
	memset(&self->r, 0, sizeof(self->r));
	self->fd = mwin_open();
	ASSERT_LE(0, self->fd);
	self->p = test_connect();
	ASSERT_NE(NULL, self->p);
	self->peer = mwpeer_id(self->p);
	RUN(&self->r, "region create size 64K");
	ASSERT_OK(&self->r);
	self->region = first_id(self->r.out, "region");
	ASSERT_NE(0, self->region);
}

FIXTURE_TEARDOWN(mw)
{
	mwin_region_destroy(self->fd, self->region, MWIN_REGION_DESTROY_FORCE);
	mwpeer_close(self->p);
	run_free(&self->r);
	close(self->fd);
}

/* Create a window with mwctl -j; returns its id, fills @b from the output. */
static inline uint32_t mk_window(struct __test_metadata *_metadata,
				 struct run *r, const char *args,
				 struct mwin_window_bind *b)
{
	jv *j;
	uint32_t id;

	EXPECT_EQ(0, run_in(r, NULL, 0, AS_ROOT, "-j window create %s", args));
	EXPECT_EQ(0, r->status);
	EXPECT_STREQ("", r->err);
	j = jparse(r->out);
	EXPECT_NE(NULL, j);
	if (!j)
		return 0;
	id = (uint32_t)jnum(j, "id");
	if (b) {
		memset(b, 0, sizeof(*b));
		b->id = id;
		b->region = (uint32_t)jnum(j, "region");
		b->peer = (uint32_t)jnum(j, "peer");
		b->rkey = (uint32_t)jnum(j, "rkey");
		b->iova = jnum(j, "iova");
		b->length = jnum(j, "len");
	}
	jfree(j);
	return id;
}

#endif /* _MWCTL_FIXTURE_H */
