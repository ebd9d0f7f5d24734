// SPDX-License-Identifier: GPL-2.0
/*
 * mwctl's windows and peers, run as a program against the real module
 * with a real peer: window create, show, rebind, invalidate and destroy,
 * text and JSON, with the grants and revokes the peer receives; the
 * errors of each (overlap, leaving the region, larger than the device
 * maps, no such object); peer show and disconnect, and a window taken
 * over by a new peer; and the module's limits on windows and region
 * memory as mwctl reports them. FIXTURE(mw) and mk_window():
 * mwctl_fixture.h.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "mwctl_fixture.h"

/* @v as mwctl writes a size: in the largest unit that divides it */
static const char *human(uint64_t v, char *buf, size_t len)
{
	if (v && !(v & ((1ULL << 30) - 1)))
		snprintf(buf, len, "%llu GiB", (unsigned long long)(v >> 30));
	else if (v && !(v & ((1ULL << 20) - 1)))
		snprintf(buf, len, "%llu MiB", (unsigned long long)(v >> 20));
	else if (v && !(v & ((1ULL << 10) - 1)))
		snprintf(buf, len, "%llu KiB", (unsigned long long)(v >> 10));
	else
		snprintf(buf, len, "%llu bytes", (unsigned long long)v);
	return buf;
}

TEST_F(mw, window_lifecycle)
{
	struct mwin_window_info wi;
	struct mwpeer_msg m;
	struct mwin_window_bind b;
	uint32_t w, rkey, rkey2;
	jv *j, *e;
	char want[512], text[512], *line;

	/* create, text output */
	RUN(&self->r, "window create region %u peer %u offset 4K len 8K access rw",
	    self->region, self->peer);
	EXPECT_OK(&self->r);
	w = first_id(self->r.out, "window");
	ASSERT_NE(0, w);
	ASSERT_EQ(0, mwin_window_get(self->fd, w, 0, &wi));
	rkey = wi.rkey;
	snprintf(want, sizeof(want),
		 "window %u region %u peer %u tenant - state bound rkey 0x%x iova 0x1000 len 8192 access rw\n",
		 w, self->region, self->peer, rkey);
	EXPECT_STREQ(want, self->r.out);
	EXPECT_EQ(MWIN_WINDOW_BOUND, wi.state);
	EXPECT_EQ(4096, wi.offset);
	EXPECT_EQ(8192, wi.length);
	EXPECT_EQ(MWIN_ACCESS_READ | MWIN_ACCESS_WRITE, wi.access);

	/* the peer got that rkey and can use it */
	ASSERT_EQ(0, mwpeer_next_msg(self->p, &m, TEST_TIMEOUT_MS));
	EXPECT_EQ(MWIN_WIRE_GRANT, m.type);
	EXPECT_EQ(w, m.window);
	EXPECT_EQ(rkey, m.rkey);
	EXPECT_EQ(4096, m.iova);
	ASSERT_EQ(IBV_WC_SUCCESS, mwpeer_write(self->p, rkey, m.iova + 16,
					       "via rdma", 8));
	RUN(&self->r, "-j region read %u offset 4112 len 8", self->region);
	j = jparse(self->r.out);
	ASSERT_NE(NULL, j);
	EXPECT_STREQ("7669612072646d61", jstr(j, "data"));
	jfree(j);

	/* show: text, abbreviated, JSON, details */
	RUN(&self->r, "window show %u", w);
	EXPECT_OK(&self->r);
	EXPECT_STREQ(want, self->r.out);
	RUN(&self->r, "win sh %u", w);
	EXPECT_STREQ(want, self->r.out);
	RUN(&self->r, "w");
	EXPECT_OK(&self->r);
	snprintf(text, sizeof(text), "window %u ", w);
	line = text_line(self->r.out, text);
	ASSERT_NE(NULL, line);
	strcat(line, "\n");
	EXPECT_STREQ(want, line);
	free(line);

	RUN(&self->r, "-j window show %u", w);
	EXPECT_OK(&self->r);
	j = jparse(self->r.out);
	ASSERT_NE(NULL, j);
	e = jfind(jget(j, "windows"), "id", w);
	ASSERT_NE(NULL, e);
	EXPECT_EQ(1, jlen(jget(j, "windows")));
	EXPECT_EQ(self->region, jnum(e, "region"));
	EXPECT_EQ(self->peer, jnum(e, "peer"));
	EXPECT_STREQ("-", jstr(e, "tenant"));
	EXPECT_EQ(0, jnum(e, "tenant_id"));
	EXPECT_STREQ("bound", jstr(e, "state"));
	EXPECT_EQ(rkey, jnum(e, "rkey"));
	snprintf(text, sizeof(text), "0x%x", rkey);
	EXPECT_STREQ(text, jstr(e, "rkey_hex"));
	EXPECT_EQ(4096, jnum(e, "iova"));
	EXPECT_STREQ("0x1000", jstr(e, "iova_hex"));
	EXPECT_EQ(8192, jnum(e, "len"));
	EXPECT_STREQ("rw", jstr(e, "access"));
	EXPECT_EQ(NULL, jget(e, "binds"));
	jfree(j);

	RUN(&self->r, "-d window show %u", w);
	EXPECT_OK(&self->r);
	snprintf(text, sizeof(text),
		 "window %u region %u peer %u tenant - state bound rkey 0x%x iova 0x1000 len 8192 access rw offset 4096 binds 1 invalidations 0 remote_invalidations 0\n",
		 w, self->region, self->peer, rkey);
	EXPECT_STREQ(text, self->r.out);
	RUN(&self->r, "-d -j window show %u", w);
	j = jparse(self->r.out);
	ASSERT_NE(NULL, j);
	e = jfind(jget(j, "windows"), "id", w);
	ASSERT_NE(NULL, e);
	EXPECT_EQ(4096, jnum(e, "offset"));
	EXPECT_EQ(1, jnum(e, "binds"));
	EXPECT_EQ(0, jnum(e, "invalidations"));
	EXPECT_EQ(0, jnum(e, "remote_invalidations"));
	EXPECT_EQ(0, jbool(e, "overlap"));
	EXPECT_EQ(0, jbool(e, "fd_owned"));
	jfree(j);

	/* rebind: only access changes; a new rkey, the old one revoked */
	RUN(&self->r, "window rebind %u access r", w);
	EXPECT_OK(&self->r);
	ASSERT_EQ(0, mwin_window_get(self->fd, w, 0, &wi));
	rkey2 = wi.rkey;
	EXPECT_NE(rkey, rkey2);
	EXPECT_EQ(MWIN_ACCESS_READ, wi.access);
	EXPECT_EQ(4096, wi.offset);
	EXPECT_EQ(8192, wi.length);
	EXPECT_EQ(self->peer, wi.peer);
	snprintf(want, sizeof(want),
		 "window %u region %u peer %u tenant - state bound rkey 0x%x iova 0x1000 len 8192 access r\n",
		 w, self->region, self->peer, rkey2);
	EXPECT_STREQ(want, self->r.out);
	EXPECT_MSG(self->p, MWIN_WIRE_REVOKE, w, rkey);
	EXPECT_MSG(self->p, MWIN_WIRE_GRANT, w, rkey2);

	/* rebind the range, JSON; access stays r */
	RUN(&self->r, "-j win reb %u off 0 len 0x800", w);
	EXPECT_OK(&self->r);
	j = jparse(self->r.out);
	ASSERT_NE(NULL, j);
	ASSERT_EQ(0, mwin_window_get(self->fd, w, 0, &wi));
	EXPECT_EQ(w, jnum(j, "id"));
	EXPECT_EQ(wi.rkey, jnum(j, "rkey"));
	EXPECT_EQ(0, jnum(j, "iova"));
	EXPECT_EQ(2048, jnum(j, "len"));
	EXPECT_STREQ("r", jstr(j, "access"));
	EXPECT_EQ(0, wi.offset);
	EXPECT_EQ(2048, wi.length);
	EXPECT_EQ(MWIN_ACCESS_READ, wi.access);
	jfree(j);
	EXPECT_MSG(self->p, MWIN_WIRE_REVOKE, w, rkey2);
	EXPECT_MSG(self->p, MWIN_WIRE_GRANT, w, wi.rkey);
	rkey = wi.rkey;

	/* invalidate */
	RUN(&self->r, "window invalidate %u", w);
	EXPECT_OK(&self->r);
	snprintf(want, sizeof(want),
		 "window %u region %u peer %u tenant - state invalidated rkey - iova 0x0 len 2048 access r\n",
		 w, self->region, self->peer);
	EXPECT_STREQ(want, self->r.out);
	EXPECT_EQ(MWIN_WINDOW_INVALIDATED, test_window_state(self->fd, w));
	EXPECT_MSG(self->p, MWIN_WIRE_REVOKE, w, rkey);
	RUN(&self->r, "-d -j window show %u", w);
	j = jparse(self->r.out);
	ASSERT_NE(NULL, j);
	e = jfind(jget(j, "windows"), "id", w);
	EXPECT_STREQ("invalidated", jstr(e, "state"));
	/* its rkey is dead: JSON has none */
	EXPECT_EQ(NULL, jget(e, "rkey"));
	EXPECT_EQ(NULL, jget(e, "rkey_hex"));
	EXPECT_EQ(3, jnum(e, "binds"));
	EXPECT_EQ(3, jnum(e, "invalidations"));
	jfree(j);

	/* destroy; then the id names nothing */
	RUN(&self->r, "window destroy %u", w);
	EXPECT_OK(&self->r);
	snprintf(want, sizeof(want), "window %u destroyed\n", w);
	EXPECT_STREQ(want, self->r.out);
	EXPECT_EQ(-ENOENT, mwin_window_get(self->fd, w, 0, &wi));
	RUN(&self->r, "window show %u", w);
	EXPECT_ERR(&self->r, 1, "mwctl: no window %u", w);
	RUN(&self->r, "window destroy %u", w);
	EXPECT_ERR(&self->r, 1, "mwctl: no window %u", w);

	/* JSON create and destroy */
	snprintf(text, sizeof(text), "region %u peer %u offset 100 len 10 access rwa",
		 self->region, self->peer);
	w = mk_window(_metadata, &self->r, text, &b);
	ASSERT_NE(0, w);
	ASSERT_EQ(0, mwin_window_get(self->fd, w, 0, &wi));
	EXPECT_EQ(wi.rkey, b.rkey);
	EXPECT_EQ(100, b.iova);
	EXPECT_EQ(10, b.length);
	EXPECT_EQ(MWIN_ACCESS_ALL, wi.access);
	RUN(&self->r, "-j window destroy %u", w);
	EXPECT_OK(&self->r);
	j = jparse(self->r.out);
	ASSERT_NE(NULL, j);
	EXPECT_EQ(w, jnum(j, "id"));
	EXPECT_EQ(1, jbool(j, "destroyed"));
	jfree(j);
}

TEST_F(mw, window_errors)
{
	struct mwin_dev_info devs[8], *d = NULL;
	struct mwin_window_info wi;
	struct mwin_info info;
	uint32_t a, b, c, big, i;
	char args[256], size[32];
	uint64_t max;

	/* overlap, on create and rebind; 'overlap' allows it */
	snprintf(args, sizeof(args), "region %u peer %u offset 0 len 4096 access rw",
		 self->region, self->peer);
	a = mk_window(_metadata, &self->r, args, NULL);
	ASSERT_NE(0, a);
	RUN(&self->r, "window create region %u peer %u offset 2048 len 4096 access r",
	    self->region, self->peer);
	EXPECT_ERR(&self->r, 1, "mwctl: new window overlaps window %u (offset 0-4095); pass 'overlap' to allow",
		   a);
	snprintf(args, sizeof(args), "region %u peer %u offset 2048 len 4096 access r overlap",
		 self->region, self->peer);
	b = mk_window(_metadata, &self->r, args, NULL);
	ASSERT_NE(0, b);
	ASSERT_EQ(0, mwin_window_get(self->fd, b, 0, &wi));
	EXPECT_EQ(MWIN_WINDOW_OVERLAP, wi.wflags & MWIN_WINDOW_OVERLAP);
	RUN(&self->r, "-d window show %u", b);
	EXPECT_NE(NULL, strstr(self->r.out, " offset 2048 overlap binds 1 "));
	snprintf(args, sizeof(args), "region %u peer %u offset 8192 len 4096 access r",
		 self->region, self->peer);
	c = mk_window(_metadata, &self->r, args, NULL);
	ASSERT_NE(0, c);
	RUN(&self->r, "window rebind %u offset 5000 len 100", c);
	EXPECT_ERR(&self->r, 1, "mwctl: window %u overlaps window %u (offset 2048-6143); pass 'overlap' to allow",
		   c, b);
	ASSERT_EQ(0, mwin_window_get(self->fd, c, 0, &wi));
	EXPECT_EQ(8192, wi.offset);
	RUN(&self->r, "window rebind %u offset 5000 len 100 overlap", c);
	EXPECT_OK(&self->r);
	ASSERT_EQ(0, mwin_window_get(self->fd, c, 0, &wi));
	EXPECT_EQ(5000, wi.offset);
	EXPECT_EQ(100, wi.length);

	/* quiet: a flag of the window, shown with -d */
	snprintf(args, sizeof(args), "region %u peer %u offset 16384 len 4096 access r quiet",
		 self->region, self->peer);
	c = mk_window(_metadata, &self->r, args, NULL);
	ASSERT_NE(0, c);
	ASSERT_EQ(0, mwin_window_get(self->fd, c, 0, &wi));
	EXPECT_EQ(MWIN_WINDOW_QUIET, wi.wflags & MWIN_WINDOW_QUIET);
	RUN(&self->r, "-d window show %u", c);
	EXPECT_NE(NULL, strstr(self->r.out, " offset 16384 quiet binds 1 "));

	/* the region is busy until forced */
	RUN(&self->r, "region destroy %u", self->region);
	EXPECT_ERR(&self->r, 1, "mwctl: region %u has windows; pass 'force' to destroy them too",
		   self->region);
	EXPECT_EQ(MWIN_WINDOW_BOUND, test_window_state(self->fd, a));

	/* leaving the region */
	RUN(&self->r, "window create region %u peer %u offset 60K len 8K access r",
	    self->region, self->peer);
	EXPECT_ERR(&self->r, 1, "mwctl: offset 61440 len 8192 leaves region %u (65536 bytes)",
		   self->region);
	RUN(&self->r, "window rebind %u len 1M", a);
	EXPECT_ERR(&self->r, 1, "mwctl: offset 0 len 1048576 leaves region %u (65536 bytes)",
		   self->region);

	/* larger than the device maps (E2BIG), in bytes and in pages */
	ASSERT_EQ(0, mwin_info(self->fd, &info, devs, 8));
	for (i = 0; i < info.nr_devs && i < 8; i++)
		if (!strcmp(devs[i].name, mwpeer_dev_name(self->p)))
			d = &devs[i];
	ASSERT_NE(NULL, d);
	max = d->max_window_bytes;
	if (max <= (64ULL << 20)) {
		ASSERT_EQ(0, mwin_region_create(self->fd, 2 * max, 0, &big, NULL));
		RUN(&self->r, "window create region %u peer %u len %llu access rw",
		    big, self->peer, (unsigned long long)(2 * max));
		EXPECT_ERR(&self->r, 1, "mwctl: window larger than %s can map (at most %s); use a smaller len or several windows",
			   d->name, human(max, size, sizeof(size)));
		RUN(&self->r, "window create region %u peer %u offset 1 len %llu access rw",
		    big, self->peer, (unsigned long long)max);
		EXPECT_ERR(&self->r, 1, "mwctl: window spans %u pages, more than %s can map (at most %u); align offset to %ld or use a smaller len",
			   d->max_pages + 1, d->name, d->max_pages,
			   sysconf(_SC_PAGESIZE));
		EXPECT_EQ(0, mwin_region_destroy(self->fd, big, 0));
	} else {
		TH_LOG("%s maps %llu bytes per window: E2BIG not tested",
		       d->name, (unsigned long long)max);
	}

	/* objects that do not exist */
	RUN(&self->r, "window create region %u peer %u len 4096 access r",
	    NO_ID, self->peer);
	EXPECT_ERR(&self->r, 1, "mwctl: no region %u", NO_ID);
	RUN(&self->r, "window create region %u peer %u len 4096 access r",
	    self->region, NO_ID);
	EXPECT_ERR(&self->r, 1, "mwctl: no peer %u", NO_ID);
	RUN(&self->r, "window rebind %u access r", NO_ID);
	EXPECT_ERR(&self->r, 1, "mwctl: no window %u", NO_ID);
	RUN(&self->r, "window rebind %u peer %u", a, NO_ID);
	EXPECT_ERR(&self->r, 1, "mwctl: no peer %u", NO_ID);
	RUN(&self->r, "window invalidate %u", NO_ID);
	EXPECT_ERR(&self->r, 1, "mwctl: no window %u", NO_ID);
	RUN(&self->r, "-j window destroy %u", NO_ID);
	EXPECT_ERR(&self->r, 1, "mwctl: no window %u", NO_ID);
	RUN(&self->r, "-j window show %u", NO_ID);
	EXPECT_ERR(&self->r, 1, "mwctl: no window %u", NO_ID);

	/* force: the windows go with the region */
	RUN(&self->r, "region destroy %u force", self->region);
	EXPECT_OK(&self->r);
	EXPECT_EQ(-ENOENT, mwin_window_get(self->fd, a, 0, &wi));
	EXPECT_EQ(-ENOENT, mwin_window_get(self->fd, b, 0, &wi));
	EXPECT_EQ(-ENOENT, mwin_window_get(self->fd, c, 0, &wi));
	RUN(&self->r, "window show %u", a);
	EXPECT_ERR(&self->r, 1, "mwctl: no window %u", a);
}

TEST_F(mw, peer_show_disconnect)
{
	struct mwin_peer_info pi;
	struct sockaddr_in sin;
	struct mwpeer *p2;
	uint32_t w, p2id;
	jv *j, *e;
	char want[512], host[INET_ADDRSTRLEN], args[128], *line;

	ASSERT_EQ(0, mwin_peer_get(self->fd, self->peer, 0, &pi));
	memcpy(&sin, pi.addr, sizeof(sin));
	ASSERT_EQ(AF_INET, sin.sin_family);
	inet_ntop(AF_INET, &sin.sin_addr, host, sizeof(host));
	EXPECT_STREQ(test_host(), host);

	RUN(&self->r, "peer show %u", self->peer);
	EXPECT_OK(&self->r);
	/* the fixture's peer is anonymous: tenant "-" */
	snprintf(want, sizeof(want),
		 "peer %u addr %s:%u tenant - dev %s qpn %u state connected windows 0\n",
		 self->peer, host, ntohs(sin.sin_port), pi.dev_name, pi.qpn);
	EXPECT_STREQ(want, self->r.out);
	RUN(&self->r, "p");
	EXPECT_OK(&self->r);
	snprintf(args, sizeof(args), "peer %u ", self->peer);
	line = text_line(self->r.out, args);
	ASSERT_NE(NULL, line);
	strcat(line, "\n");
	EXPECT_STREQ(want, line);
	free(line);

	RUN(&self->r, "-j peer show %u", self->peer);
	EXPECT_OK(&self->r);
	j = jparse(self->r.out);
	ASSERT_NE(NULL, j);
	e = jfind(jget(j, "peers"), "id", self->peer);
	ASSERT_NE(NULL, e);
	EXPECT_STREQ(host, jstr(e, "addr"));
	EXPECT_EQ(ntohs(sin.sin_port), jnum(e, "port"));
	EXPECT_STREQ("-", jstr(e, "tenant"));
	EXPECT_EQ(0, jnum(e, "tenant_id"));
	EXPECT_STREQ(pi.dev_name, jstr(e, "dev"));
	EXPECT_EQ(pi.qpn, jnum(e, "qpn"));
	EXPECT_STREQ("connected", jstr(e, "state"));
	EXPECT_EQ(0, jnum(e, "windows"));
	EXPECT_EQ(NULL, jget(e, "msgs_sent"));
	jfree(j);

	/* a window: counted, and the grant message shows in the counters */
	snprintf(args, sizeof(args), "region %u peer %u len 4096 access rw",
		 self->region, self->peer);
	w = mk_window(_metadata, &self->r, args, NULL);
	ASSERT_NE(0, w);
	ASSERT_EQ(0, mwin_peer_get(self->fd, self->peer, 0, &pi));
	RUN(&self->r, "-d -j peer");
	EXPECT_OK(&self->r);
	j = jparse(self->r.out);
	ASSERT_NE(NULL, j);
	e = jfind(jget(j, "peers"), "id", self->peer);
	ASSERT_NE(NULL, e);
	EXPECT_EQ(1, jnum(e, "windows"));
	EXPECT_EQ(pi.msgs_sent, jnum(e, "msgs_sent"));
	EXPECT_LE(1, jnum(e, "msgs_sent"));
	EXPECT_EQ(pi.msgs_received, jnum(e, "msgs_received"));
	EXPECT_EQ(pi.remote_invalidations, jnum(e, "remote_invalidations"));
	EXPECT_EQ(pi.rejected_invalidations, jnum(e, "rejected_invalidations"));
	jfree(j);
	RUN(&self->r, "-d peer show %u", self->peer);
	snprintf(want, sizeof(want), " windows 1 msgs_sent %llu msgs_received %llu remote_invalidations 0 rejected_invalidations 0\n",
		 (unsigned long long)pi.msgs_sent,
		 (unsigned long long)pi.msgs_received);
	EXPECT_NE(NULL, strstr(self->r.out, want));

	/* disconnect: the peer is gone, its window unbound */
	RUN(&self->r, "peer disconnect %u", self->peer);
	EXPECT_OK(&self->r);
	snprintf(want, sizeof(want), "peer %u disconnected\n", self->peer);
	EXPECT_STREQ(want, self->r.out);
	RUN(&self->r, "peer show %u", self->peer);
	EXPECT_ERR(&self->r, 1, "mwctl: no peer %u", self->peer);
	RUN(&self->r, "peer disconnect %u", self->peer);
	EXPECT_ERR(&self->r, 1, "mwctl: no peer %u", self->peer);
	RUN(&self->r, "-j peer show %u", NO_ID);
	EXPECT_ERR(&self->r, 1, "mwctl: no peer %u", NO_ID);
	EXPECT_EQ(MWIN_WINDOW_UNBOUND, test_window_state(self->fd, w));
	RUN(&self->r, "window show %u", w);
	EXPECT_NE(NULL, strstr(self->r.out,
			       " peer 0 tenant - state unbound rkey - "));
	RUN(&self->r, "window rebind %u", w);
	EXPECT_ERR(&self->r, 1, "mwctl: window %u is unbound (its peer is gone); pass 'peer ID' or 'tenant NAME'",
		   w);
	RUN(&self->r, "window create region %u peer %u len 4096 access r",
	    self->region, self->peer);
	EXPECT_ERR(&self->r, 1, "mwctl: no peer %u", self->peer);

	/* a new peer takes the window over */
	p2 = test_connect();
	ASSERT_NE(NULL, p2);
	p2id = mwpeer_id(p2);
	RUN(&self->r, "window rebind %u peer %u", w, p2id);
	EXPECT_OK(&self->r);
	EXPECT_NE(NULL, strstr(self->r.out, " state bound "));
	snprintf(want, sizeof(want), " peer %u ", p2id);
	EXPECT_NE(NULL, strstr(self->r.out, want));
	EXPECT_MSG(p2, MWIN_WIRE_GRANT, w, (uint32_t)tnum(self->r.out, "rkey"));
	mwpeer_close(p2);
}

/* write a module parameter; returns its old value */
static long set_param(const char *name, long val)
{
	char path[128];
	long old = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/mwin/parameters/%s", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &old) != 1)
		old = -1;
	fclose(f);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "%ld\n", val);
	if (fclose(f))
		return -1;
	return old;
}

/* ENOSPC: the module's limits on windows and region memory */
TEST_F(mw, limits)
{
	struct mwin_info info;
	char args[128], a[32], b[32];
	long old;

	ASSERT_EQ(0, mwin_info(self->fd, &info, NULL, 0));
	old = set_param("max_windows", info.nr_windows);
	ASSERT_LE(0, old);
	RUN(&self->r, "window create region %u peer %u len 4096 access r",
	    self->region, self->peer);
	EXPECT_EQ(info.nr_windows, set_param("max_windows", old));
	EXPECT_ERR(&self->r, 1, "mwctl: window limit reached (%u of max_windows %u)",
		   info.nr_windows, info.nr_windows);
	snprintf(args, sizeof(args), "region %u peer %u len 4096 access r",
		 self->region, self->peer);
	EXPECT_NE(0, mk_window(_metadata, &self->r, args, NULL));

	ASSERT_EQ(0, mwin_info(self->fd, &info, NULL, 0));
	old = set_param("max_region_mb", (long)(info.region_bytes >> 20) + 1);
	ASSERT_LE(0, old);
	RUN(&self->r, "region create size 2M");
	EXPECT_EQ((long)(info.region_bytes >> 20) + 1,
		  set_param("max_region_mb", old));
	EXPECT_ERR(&self->r, 1, "mwctl: no room for a region of 2 MiB: regions hold %s of %s (module parameter max_region_mb)",
		   human(info.region_bytes, a, sizeof(a)),
		   human(((info.region_bytes >> 20) + 1) << 20, b, sizeof(b)));
}

TEST_HARNESS_MAIN
