// SPDX-License-Identifier: GPL-2.0
/*
 * mwctl, the operator CLI, run as a program (build/tools/mwctl, or $MWCTL)
 * against the real module: its text and JSON output checked against each
 * other and against what the module reports through libmwin, its error
 * lines and exit statuses, and the event monitor, with a real peer where a
 * window needs one. Object ids are always taken from the output.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "mwctl_run.h"

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

/*
 * Drop the numbers of "peers" and "anon_peers" fields in place: peers of
 * earlier tests may still be going away while one compares two outputs of
 * dev show.
 */
static void unpeer(char *s)
{
	char *p = s, *out = s;

	while (*p) {
		bool word = p == s || (!isalnum((unsigned char)p[-1]) && p[-1] != '_');
		size_t n = !strncmp(p, "peers", 5) ? 5 :
			   !strncmp(p, "anon_peers", 10) ? 10 : 0;

		if (word && n) {
			memmove(out, p, n);
			out += n;
			p += n;
			while (*p == '"' || *p == ':' || *p == ' ')
				*out++ = *p++;
			while (isdigit((unsigned char)*p))
				p++;
			continue;
		}
		*out++ = *p++;
	}
	*out = '\0';
}

/* two outputs of dev show are the same but for the peer counts */
#define EXPECT_SAME_DEV(_a, _b) do {					\
	char *_x = strdup(_a), *_y = strdup(_b);			\
	unpeer(_x);							\
	unpeer(_y);							\
	EXPECT_STREQ(_x, _y);						\
	free(_x);							\
	free(_y);							\
} while (0)

/* ------------------------------------------------------ without module */

TEST(version_and_help)
{
	static const char *const helps[][2] = {
		{ "-h", "Usage: mwctl [OPTIONS] OBJECT" },
		{ "--help", "Usage: mwctl [OPTIONS] OBJECT" },
		{ "help", "Usage: mwctl [OPTIONS] OBJECT" },
		{ "", "Usage: mwctl [OPTIONS] OBJECT" },
		{ "h", "Usage: mwctl [OPTIONS] OBJECT" },
		{ "dev help", "Usage: mwctl dev" },
		{ "dev -h", "Usage: mwctl dev" },
		{ "peer help", "Usage: mwctl peer" },
		{ "region help", "Usage: mwctl region" },
		{ "reg cr help", "Usage: mwctl region" },
		{ "region destroy help", "Usage: mwctl region" },
		{ "window help", "Usage: mwctl window" },
		{ "win -h", "Usage: mwctl window" },
		{ "window create help", "Usage: mwctl window" },
		{ "window rebind --help", "Usage: mwctl window" },
		{ "window show help", "Usage: mwctl window" },
		{ "monitor help", "Usage: mwctl monitor" },
		{ "mon -h", "Usage: mwctl monitor" },
		{ "tenant help", "Usage: mwctl tenant" },
		{ "ten cr help", "Usage: mwctl tenant" },
		{ "tenant set x help", "Usage: mwctl tenant" },
		{ "t show -h", "Usage: mwctl tenant" },
	};
	struct run r = { 0 };
	size_t i;

	RUN(&r, "-V");
	EXPECT_OK(&r);
	EXPECT_EQ(0, strncmp(r.out, "mwctl ", 6));
	EXPECT_NE(NULL, strstr(r.out, "ABI 1"));
	RUN(&r, "--version");
	EXPECT_OK(&r);
	EXPECT_EQ(0, strncmp(r.out, "mwctl ", 6));

	for (i = 0; i < sizeof(helps) / sizeof(helps[0]); i++) {
		RUN(&r, "%s", helps[i][0]);
		EXPECT_OK(&r);
		if (strncmp(r.out, helps[i][1], strlen(helps[i][1])))
			TH_LOG("'mwctl %s' printed: %s", helps[i][0], r.out);
		EXPECT_EQ(0, strncmp(r.out, helps[i][1], strlen(helps[i][1])));
	}
	/* the usage names every command it has */
	RUN(&r, "window help");
	EXPECT_NE(NULL, strstr(r.out, "mwctl window rebind ID"));
	EXPECT_NE(NULL, strstr(r.out, "mwctl window invalidate ID"));
	RUN(&r, "region help");
	EXPECT_NE(NULL, strstr(r.out, "mwctl region read ID"));
	RUN(&r, "tenant help");
	EXPECT_NE(NULL, strstr(r.out, "mwctl tenant set { NAME | ID }"));
	EXPECT_NE(NULL, strstr(r.out, "mwctl tenant destroy { NAME | ID }"));
	RUN(&r, "help");
	EXPECT_NE(NULL, strstr(r.out, " tenant "));
	run_free(&r);
}

/* Usage errors: one line, status 2, checked before /dev/mwin is opened. */
TEST(usage_errors)
{
	static const char *const cases[][2] = {
		{ "foo", "mwctl: unknown object 'foo' (try 'mwctl help')" },
		{ "-z dev", "mwctl: unknown option '-z' (try 'mwctl help')" },
		{ "--bogus", "mwctl: unknown option '--bogus' (try 'mwctl help')" },
		{ "window frob", "mwctl: unknown command 'frob' for window (try 'mwctl window help')" },
		{ "region x", "mwctl: unknown command 'x' for region (try 'mwctl region help')" },
		{ "peer show 1 now", "mwctl: unexpected argument 'now' for peer show" },
		{ "window create region 1 peer 1 o 0 len 4096 access r",
		  "mwctl: 'o' is ambiguous for window create: offset, overlap, once" },
		{ "window rebind 1 o 0",
		  "mwctl: 'o' is ambiguous for window rebind: offset, overlap" },
		{ "window create region 1 peer 1 len 4096 access r bogus",
		  "mwctl: unknown keyword 'bogus' for window create (expected region, peer, tenant, offset, len, access, overlap, quiet, once, expires)" },
		{ "window create region 1 peer 1 tenant acme len 4096 access r",
		  "mwctl: window create takes 'peer ID' or 'tenant NAME', not both" },
		{ "window create region 1 ten 7 p 1 len 4096 access r",
		  "mwctl: window create takes 'peer ID' or 'tenant NAME', not both" },
		{ "window rebind 1 tenant acme peer 2",
		  "mwctl: window rebind takes 'peer ID' or 'tenant NAME', not both" },
		{ "window create region 1 len 4096 access r",
		  "mwctl: window create needs 'peer ID' or 'tenant NAME'" },
		{ "window create region 1 tenant a/b len 4096 access r",
		  "mwctl: bad tenant name 'a/b' (1 to 23 of A-Z a-z 0-9 . _ -)" },
		{ "window rebind 1 tenant",
		  "mwctl: 'tenant' needs a value (tenant NAME)" },
		{ "region destroy 1 forced",
		  "mwctl: unknown keyword 'forced' for region destroy (expected force)" },
		{ "window create region 1 peer 1 len 4096",
		  "mwctl: window create needs 'access ACCESS'" },
		{ "window create peer 1 len 4096 access r",
		  "mwctl: window create needs 'region ID'" },
		{ "window create region 1 peer 1 len 4096 access rx",
		  "mwctl: bad access 'rx' (letters r, w, a, e.g. rw)" },
		{ "window create region 1 peer 1 len 4096 access RW",
		  "mwctl: bad access 'RW' (letters r, w, a, e.g. rw)" },
		{ "window create region 1 peer 1 len 4096 access",
		  "mwctl: 'access' needs a value (access ACCESS)" },
		{ "window create region 1 peer x len 4096 access r",
		  "mwctl: bad peer id 'x' (a positive number)" },
		{ "window create region 1 peer 1 len 0 access r",
		  "mwctl: len must be at least 1 byte" },
		{ "window create region 1 peer 1 len 4Q access r",
		  "mwctl: bad size '4Q' for 'len' (bytes: 4096, 0x1000, 64K, 2M, 1G)" },
		{ "region create size 4X",
		  "mwctl: bad size '4X' for 'size' (bytes: 4096, 0x1000, 64K, 2M, 1G)" },
		{ "region create size 0xZ",
		  "mwctl: bad size '0xZ' for 'size' (bytes: 4096, 0x1000, 64K, 2M, 1G)" },
		{ "region create size -1",
		  "mwctl: bad size '-1' for 'size' (bytes: 4096, 0x1000, 64K, 2M, 1G)" },
		{ "region create size 99999999999999999999",
		  "mwctl: bad size '99999999999999999999' for 'size' (bytes: 4096, 0x1000, 64K, 2M, 1G)" },
		{ "region create size", "mwctl: 'size' needs a value (size SIZE)" },
		{ "region create", "mwctl: region create needs 'size SIZE'" },
		{ "region create size 5G",
		  "mwctl: size 5 GiB is over the 4 GiB limit of a region" },
		{ "region create size 0", "mwctl: size must be at least 1 byte" },
		{ "region create size 4K size 8K", "mwctl: 'size' given twice" },
		{ "window destroy", "mwctl: window destroy needs a window ID" },
		{ "window destroy abc", "mwctl: bad window id 'abc' (a positive number)" },
		{ "window invalidate 0", "mwctl: bad window id '0' (a positive number)" },
		{ "window show 1 2", "mwctl: unexpected argument '2' for window show" },
		{ "peer disconnect", "mwctl: peer disconnect needs a peer ID" },
		{ "region write 1 offset 0",
		  "mwctl: region write needs one of 'hex HEX' or 'file PATH'" },
		{ "region write 1 hex 00 file /dev/null",
		  "mwctl: region write needs one of 'hex HEX' or 'file PATH'" },
		{ "region write 1 hex 123",
		  "mwctl: bad hex '123' (an even number of hex digits, e.g. 68656c6c6f)" },
		{ "region write 1 hex zz",
		  "mwctl: bad hex 'zz' (an even number of hex digits, e.g. 68656c6c6f)" },
		{ "region read 1 offset 0", "mwctl: region read needs 'len LEN'" },
		{ "dev show rxe0", "mwctl: unexpected argument 'rxe0' for dev show" },
		{ "monitor now",
		  "mwctl: unexpected argument 'now' for monitor (try 'mwctl monitor help')" },
	};
	struct run r = { 0 };
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		RUN(&r, "%s", cases[i][0]);
		if (r.status != 2 || strncmp(r.err, cases[i][1], strlen(cases[i][1])))
			TH_LOG("'mwctl %s': status %d, stderr %s", cases[i][0],
			       r.status, r.err);
		EXPECT_ERR(&r, 2, "%s", cases[i][1]);
	}
	run_free(&r);
}

/* Without /dev/mwin (an empty /dev in a mount namespace of its own). */
TEST(no_device)
{
	static const char want[] =
		"mwctl: cannot open /dev/mwin: No such file or directory (is the mwin module loaded?)";
	struct run r = { 0 };

	ASSERT_EQ(0, run_in(&r, NULL, 0, AS_NODEV, "dev show"));
	EXPECT_ERR(&r, 1, want);
	ASSERT_EQ(0, run_in(&r, NULL, 0, AS_NODEV, "-j window"));
	EXPECT_ERR(&r, 1, want);
	ASSERT_EQ(0, run_in(&r, NULL, 0, AS_NODEV, "monitor"));
	EXPECT_ERR(&r, 1, want);
	/* usage errors come first */
	ASSERT_EQ(0, run_in(&r, NULL, 0, AS_NODEV, "window destroy"));
	EXPECT_ERR(&r, 2, "mwctl: window destroy needs a window ID");
	run_free(&r);
}

/* /dev/mwin is root's only, unless a udev rule says otherwise. */
TEST(not_root)
{
	static const char want[] =
		"mwctl: cannot open /dev/mwin: Permission denied (run as root, or as a member of the group a udev rule opens it to)";
	struct run r = { 0 };

	ASSERT_EQ(0, run_in(&r, NULL, 0, AS_NOBODY, "region show"));
	EXPECT_ERR(&r, 1, want);
	ASSERT_EQ(0, run_in(&r, NULL, 0, AS_NOBODY, "-V"));
	EXPECT_EQ(0, r.status);
	run_free(&r);
}

/* --------------------------------------------------------- with module */

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
static uint32_t mk_window(struct __test_metadata *_metadata, struct run *r,
			  const char *args, struct mwin_window_bind *b)
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

TEST_F(mw, dev_show)
{
	struct mwin_dev_info devs[8], *d = NULL;
	struct mwin_info info;
	jv *j, *jd, *jp;
	const char *devname = mwpeer_dev_name(self->p);
	char *line, want[256], text[4096];
	uint32_t i;

	ASSERT_EQ(0, mwin_info(self->fd, &info, devs, 8));
	for (i = 0; i < info.nr_devs && i < 8; i++)
		if (!strcmp(devs[i].name, devname))
			d = &devs[i];
	ASSERT_NE(NULL, d);

	RUN(&self->r, "dev show");
	EXPECT_OK(&self->r);
	snprintf(text, sizeof(text), "%s", self->r.out);
	line = text_line(self->r.out, "module mwin ");
	ASSERT_NE(NULL, line);
	EXPECT_EQ(MWIN_ABI_VERSION, tnum(line, "abi"));
	EXPECT_EQ(info.port, tnum(line, "port"));
	EXPECT_EQ(info.max_windows, tnum(line, "max_windows"));
	EXPECT_EQ(info.max_peers, tnum(line, "max_peers"));
	EXPECT_EQ(info.max_region_bytes, tnum(line, "max_region_bytes"));
	free(line);
	snprintf(want, sizeof(want), "dev %s index %u max_window_bytes %llu max_pages %u caps ",
		 d->name, d->index, (unsigned long long)d->max_window_bytes,
		 d->max_pages);
	line = text_line(self->r.out, want);
	ASSERT_NE(NULL, line);
	EXPECT_NE(NULL, strstr(line, "fast_reg"));
	free(line);

	/* abbreviations print the same */
	RUN(&self->r, "d");
	EXPECT_OK(&self->r);
	EXPECT_SAME_DEV(text, self->r.out);
	RUN(&self->r, "de sh");
	EXPECT_SAME_DEV(text, self->r.out);

	RUN(&self->r, "-j dev show");
	EXPECT_OK(&self->r);
	j = jparse(self->r.out);
	ASSERT_NE(NULL, j);
	EXPECT_EQ(MWIN_ABI_VERSION, jnum(j, "abi_version"));
	EXPECT_EQ(info.port, jnum(j, "port"));
	EXPECT_EQ(info.max_region_bytes, jnum(j, "max_region_bytes"));
	EXPECT_EQ(info.max_windows, jnum(j, "max_windows"));
	EXPECT_EQ(info.max_peers, jnum(j, "max_peers"));
	EXPECT_NE(JMISSING, jnum(j, "regions"));
	EXPECT_NE(JMISSING, jnum(j, "region_bytes"));
	EXPECT_NE(JMISSING, jnum(j, "windows"));
	EXPECT_LE(1, jnum(j, "peers"));
	jd = jget(j, "devs");
	ASSERT_NE(NULL, jd);
	ASSERT_TRUE(jis_arr(jd));
	EXPECT_EQ(info.nr_devs, jlen(jd));
	jp = NULL;
	for (i = 0; i < jlen(jd); i++)
		if (!strcmp(jstr(jat(jd, i), "name"), devname))
			jp = jat(jd, i);
	ASSERT_NE(NULL, jp);
	EXPECT_EQ(d->max_window_bytes, jnum(jp, "max_window_bytes"));
	EXPECT_EQ(d->max_pages, jnum(jp, "max_pages"));
	EXPECT_EQ(d->index, jnum(jp, "index"));
	EXPECT_LE(1, jnum(jp, "peers"));
	ASSERT_NE(NULL, jget(jp, "caps"));
	EXPECT_TRUE(jis_arr(jget(jp, "caps")));
	EXPECT_EQ(!!(d->caps & MWIN_DEV_CAP_FAST_REG) +
		  !!(d->caps & MWIN_DEV_CAP_ATOMIC), jlen(jget(jp, "caps")));
	EXPECT_EQ(NULL, jget(jp, "page_size_cap"));
	EXPECT_EQ(NULL, jget(j, "rejects"));
	jfree(j);

	/* -d adds the page sizes; -p is the same document, indented */
	RUN(&self->r, "-d -p dev");
	EXPECT_OK(&self->r);
	EXPECT_NE(NULL, strstr(self->r.out, "\n  \"devs\": [\n"));
	j = jparse(self->r.out);
	ASSERT_NE(NULL, j);
	jp = jfind(jget(j, "devs"), "index", d->index);
	ASSERT_NE(NULL, jp);
	EXPECT_EQ(d->page_size_cap, jnum(jp, "page_size_cap"));
	snprintf(want, sizeof(want), "0x%llx", (unsigned long long)d->page_size_cap);
	EXPECT_STREQ(want, jstr(jp, "page_size_cap_hex"));
	/* and the module's tenants, anonymous peers, refusals by reason */
	EXPECT_EQ(info.nr_tenants, jnum(j, "tenants"));
	EXPECT_NE(JMISSING, jnum(j, "anon_peers"));
	ASSERT_NE(NULL, jget(j, "rejects"));
	EXPECT_TRUE(jis_obj(jget(j, "rejects")));
	EXPECT_EQ(MWIN_REJECT_NO_PROOF, jlen(jget(j, "rejects")));
	EXPECT_EQ(info.rejects[MWIN_REJECT_ADDRESS],
		  jnum(jget(j, "rejects"), "address"));
	jfree(j);
	RUN(&self->r, "-d dev");
	snprintf(want, sizeof(want), "page_size_cap 0x%llx",
		 (unsigned long long)d->page_size_cap);
	EXPECT_NE(NULL, strstr(self->r.out, want));
	snprintf(text, sizeof(text), "%s", self->r.out);
	RUN(&self->r, "--details dev");
	EXPECT_SAME_DEV(text, self->r.out);

	/* long options are the short ones */
	RUN(&self->r, "-p dev");
	snprintf(text, sizeof(text), "%s", self->r.out);
	RUN(&self->r, "--pretty dev");
	EXPECT_OK(&self->r);
	EXPECT_SAME_DEV(text, self->r.out);
	RUN(&self->r, "--json -p dev");
	EXPECT_SAME_DEV(text, self->r.out);
	RUN(&self->r, "-j dev");
	snprintf(text, sizeof(text), "%s", self->r.out);
	RUN(&self->r, "--json dev");
	EXPECT_SAME_DEV(text, self->r.out);
	EXPECT_EQ(NULL, strchr(text, ' '));
	EXPECT_EQ(strlen(text) - 1, (size_t)(strchr(text, '\n') - text));
}

TEST_F(mw, region_create_show_destroy)
{
	struct mwin_region_info ri;
	uint32_t a, b, c, o;
	jv *j, *e;
	char want[256], *line;

	/* the fixture's region, made by "region create size 64K" */
	snprintf(want, sizeof(want), "region %u size 65536 windows 0\n",
		 self->region);
	ASSERT_EQ(0, mwin_region_get(self->fd, self->region, 0, &ri));
	EXPECT_EQ(65536, ri.length);

	/* sizes: hex, suffixes, rounding to pages */
	RUN(&self->r, "region create size 0x3000");
	EXPECT_OK(&self->r);
	a = first_id(self->r.out, "region");
	ASSERT_NE(0, a);
	snprintf(want, sizeof(want), "region %u size 12288 windows 0\n", a);
	EXPECT_STREQ(want, self->r.out);
	ASSERT_EQ(0, mwin_region_get(self->fd, a, 0, &ri));
	EXPECT_EQ(12288, ri.length);

	RUN(&self->r, "-j region create size 5000");
	EXPECT_OK(&self->r);
	j = jparse(self->r.out);
	ASSERT_NE(NULL, j);
	b = (uint32_t)jnum(j, "id");
	EXPECT_LT(a, b);
	EXPECT_EQ(8192, jnum(j, "size"));
	EXPECT_EQ(0, jnum(j, "windows"));
	EXPECT_EQ(NULL, jget(j, "mmap_offset"));
	jfree(j);
	ASSERT_EQ(0, mwin_region_get(self->fd, b, 0, &ri));
	EXPECT_EQ(8192, ri.length);

	RUN(&self->r, "-d -j reg cr s 1M");
	EXPECT_OK(&self->r);
	j = jparse(self->r.out);
	ASSERT_NE(NULL, j);
	c = (uint32_t)jnum(j, "id");
	EXPECT_EQ(1 << 20, jnum(j, "size"));
	ASSERT_EQ(0, mwin_region_get(self->fd, c, 0, &ri));
	EXPECT_EQ(ri.mmap_offset, jnum(j, "mmap_offset"));
	snprintf(want, sizeof(want), "0x%llx", (unsigned long long)ri.mmap_offset);
	EXPECT_STREQ(want, jstr(j, "mmap_offset_hex"));
	EXPECT_EQ(0, jbool(j, "owned"));
	jfree(j);
	RUN(&self->r, "-d region show %u", c);
	EXPECT_OK(&self->r);
	snprintf(want, sizeof(want), "region %u size 1048576 windows 0 mmap_offset 0x%llx\n",
		 c, (unsigned long long)ri.mmap_offset);
	EXPECT_STREQ(want, self->r.out);

	/* owned: the region lives as long as the mwctl call */
	RUN(&self->r, "-d region create size 4K owned");
	EXPECT_OK(&self->r);
	o = first_id(self->r.out, "region");
	ASSERT_NE(0, o);
	EXPECT_NE(NULL, strstr(self->r.out, " owned\n"));
	EXPECT_EQ(-ENOENT, mwin_region_get(self->fd, o, 0, &ri));

	/* show: all, one, abbreviated; text and JSON agree */
	RUN(&self->r, "region show");
	EXPECT_OK(&self->r);
	snprintf(want, sizeof(want), "region %u ", b);
	line = text_line(self->r.out, want);
	ASSERT_NE(NULL, line);
	EXPECT_EQ(8192, tnum(line, "size"));
	free(line);
	snprintf(want, sizeof(want), "region %u ", o);
	EXPECT_EQ(NULL, text_line(self->r.out, want));
	RUN(&self->r, "-j region");
	EXPECT_OK(&self->r);
	j = jparse(self->r.out);
	ASSERT_NE(NULL, j);
	e = jfind(jget(j, "regions"), "id", a);
	ASSERT_NE(NULL, e);
	EXPECT_EQ(12288, jnum(e, "size"));
	EXPECT_NE(NULL, jfind(jget(j, "regions"), "id", self->region));
	EXPECT_EQ(NULL, jfind(jget(j, "regions"), "id", o));
	jfree(j);
	RUN(&self->r, "r s %u", a);
	EXPECT_OK(&self->r);
	snprintf(want, sizeof(want), "region %u size 12288 windows 0\n", a);
	EXPECT_STREQ(want, self->r.out);
	RUN(&self->r, "-j region show %u", a);
	j = jparse(self->r.out);
	ASSERT_NE(NULL, j);
	ASSERT_NE(NULL, jget(j, "regions"));
	EXPECT_EQ(1, jlen(jget(j, "regions")));
	EXPECT_EQ(12288, jnum(jfind(jget(j, "regions"), "id", a), "size"));
	jfree(j);

	/* destroy, text and JSON; then the ids name nothing */
	RUN(&self->r, "region destroy %u", a);
	EXPECT_OK(&self->r);
	snprintf(want, sizeof(want), "region %u destroyed\n", a);
	EXPECT_STREQ(want, self->r.out);
	EXPECT_EQ(-ENOENT, mwin_region_get(self->fd, a, 0, &ri));
	RUN(&self->r, "-j region destroy %u", b);
	EXPECT_OK(&self->r);
	j = jparse(self->r.out);
	ASSERT_NE(NULL, j);
	EXPECT_EQ(b, jnum(j, "id"));
	EXPECT_EQ(1, jbool(j, "destroyed"));
	jfree(j);
	RUN(&self->r, "reg d %u", c);
	EXPECT_OK(&self->r);

	RUN(&self->r, "region show %u", a);
	EXPECT_ERR(&self->r, 1, "mwctl: no region %u", a);
	RUN(&self->r, "-j region show %u", b);
	EXPECT_ERR(&self->r, 1, "mwctl: no region %u", b);
	RUN(&self->r, "region destroy %u", a);
	EXPECT_ERR(&self->r, 1, "mwctl: no region %u", a);
	RUN(&self->r, "region destroy %u force", NO_ID);
	EXPECT_ERR(&self->r, 1, "mwctl: no region %u", NO_ID);
}

TEST_F(mw, region_write_read)
{
	static const char dump[] =
		"00000000  00 00 00 00 68 65 6c 6c  6f 20 77 69 6e 64 6f 77  |....hello window|\n"
		"00000010  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00  |................|\n"
		"*\n"
		"00000030  00 00 00 00 00 00 00 00  00 00                    |..........|\n"
		"0000003a\n";
	const char path_in[] = "/tmp/mwctl-test.in", path_out[] = "/tmp/mwctl-test.out";
	uint8_t data[10000], *mem, back[10000];
	size_t len, i;
	jv *j;
	char want[256];
	FILE *f;

	mem = mwin_region_mmap(self->fd, self->region, &len);
	ASSERT_NE(NULL, mem);
	ASSERT_EQ(65536, len);

	/* hex in, hexdump and JSON out */
	RUN(&self->r, "region write %u offset 100 hex 68656c6c6f2077696e646f77",
	    self->region);
	EXPECT_OK(&self->r);
	snprintf(want, sizeof(want), "region %u offset 100 len 12\n", self->region);
	EXPECT_STREQ(want, self->r.out);
	EXPECT_EQ(0, memcmp(mem + 100, "hello window", 12));
	RUN(&self->r, "region read %u offset 96 len 58", self->region);
	EXPECT_OK(&self->r);
	EXPECT_STREQ(dump, self->r.out);
	RUN(&self->r, "-j region read %u offset 0x64 len 12", self->region);
	EXPECT_OK(&self->r);
	j = jparse(self->r.out);
	ASSERT_NE(NULL, j);
	EXPECT_STREQ("68656c6c6f2077696e646f77", jstr(j, "data"));
	EXPECT_EQ(100, jnum(j, "offset"));
	EXPECT_EQ(12, jnum(j, "len"));
	EXPECT_EQ(self->region, jnum(j, "id"));
	jfree(j);
	RUN(&self->r, "-j region write %u hex 0xCAFE", self->region);
	EXPECT_OK(&self->r);
	j = jparse(self->r.out);
	ASSERT_NE(NULL, j);
	EXPECT_EQ(0, jnum(j, "offset"));
	EXPECT_EQ(2, jnum(j, "len"));
	jfree(j);
	EXPECT_EQ(0xca, mem[0]);
	EXPECT_EQ(0xfe, mem[1]);

	/* files: written at 4K, read back to a file and to stdout */
	for (i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 131 + (i >> 7));
	f = fopen(path_in, "w");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(1, fwrite(data, sizeof(data), 1, f));
	fclose(f);
	RUN(&self->r, "region write %u offset 4K file %s", self->region, path_in);
	EXPECT_OK(&self->r);
	snprintf(want, sizeof(want), "region %u offset 4096 len 10000\n", self->region);
	EXPECT_STREQ(want, self->r.out);
	EXPECT_EQ(0, memcmp(mem + 4096, data, sizeof(data)));
	RUN(&self->r, "region read %u offset 0x1000 len 10000 file %s",
	    self->region, path_out);
	EXPECT_OK(&self->r);
	snprintf(want, sizeof(want), "region %u offset 4096 len 10000 file %s\n",
		 self->region, path_out);
	EXPECT_STREQ(want, self->r.out);
	f = fopen(path_out, "r");
	ASSERT_NE(NULL, f);
	EXPECT_EQ(1, fread(back, sizeof(back), 1, f));
	fclose(f);
	EXPECT_EQ(0, memcmp(back, data, sizeof(data)));
	RUN(&self->r, "region read %u offset 4K len 10000 file -", self->region);
	EXPECT_OK(&self->r);
	EXPECT_EQ(sizeof(data), self->r.out_len);
	EXPECT_EQ(0, memcmp(self->r.out, data, sizeof(data)));

	/* stdin in, across the end of the region */
	ASSERT_EQ(0, run_in(&self->r, "ABCDEFGH", 8, AS_ROOT,
			    "region write %u offset 65528 file -", self->region));
	EXPECT_OK(&self->r);
	EXPECT_EQ(0, memcmp(mem + 65528, "ABCDEFGH", 8));

	/* out of range, no such region, empty file */
	RUN(&self->r, "region write %u offset 65529 hex 0102030405060708",
	    self->region);
	EXPECT_ERR(&self->r, 1, "mwctl: offset 65529 len 8 leaves region %u (65536 bytes)",
		   self->region);
	RUN(&self->r, "region read %u offset 64K len 1", self->region);
	EXPECT_ERR(&self->r, 1, "mwctl: offset 65536 len 1 leaves region %u (65536 bytes)",
		   self->region);
	RUN(&self->r, "region read %u len 0x10001", self->region);
	EXPECT_ERR(&self->r, 1, "mwctl: offset 0 len 65537 leaves region %u (65536 bytes)",
		   self->region);
	RUN(&self->r, "region read %u len 4", NO_ID);
	EXPECT_ERR(&self->r, 1, "mwctl: no region %u", NO_ID);
	RUN(&self->r, "region write %u hex 00", NO_ID);
	EXPECT_ERR(&self->r, 1, "mwctl: no region %u", NO_ID);
	RUN(&self->r, "region write %u file /nonexistent", self->region);
	EXPECT_ERR(&self->r, 1, "mwctl: cannot open /nonexistent: No such file or directory");
	RUN(&self->r, "region write %u file /dev/null", self->region);
	EXPECT_ERR(&self->r, 1, "mwctl: file /dev/null is empty: nothing to write");

	munmap(mem, len);
	unlink(path_in);
	unlink(path_out);
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

/* ---------------------------------------------------------------- tenants */

/* Every tenant a test makes is named mwctl-*; the teardown destroys them. */
FIXTURE(tn)
{
	int fd;
	struct run r;
};

FIXTURE_SETUP(tn)
{
	memset(&self->r, 0, sizeof(self->r));
	self->fd = mwin_open();
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(tn)
{
	test_destroy_tenants(self->fd, "mwctl-");
	run_free(&self->r);
	close(self->fd);
	unlink("/tmp/mwctl-test.key");
}

/* A key file of @n bytes (the bytes of @key, or a pattern when NULL). */
static int put_key(const char *path, size_t n, const uint8_t *key)
{
	FILE *f = fopen(path, "w");
	size_t i;

	if (!f)
		return -errno;
	for (i = 0; i < n; i++)
		fputc(key ? key[i] : (int)(i * 37 + 11) & 0xff, f);
	return fclose(f) ? -errno : 0;
}

/* How mwctl names uid @uid: its user name, else the number. */
static const char *user_of(uid_t uid, char *buf, size_t len)
{
	const struct passwd *pw = getpwuid(uid);

	if (pw)
		return pw->pw_name;
	snprintf(buf, len, "%u", uid);
	return buf;
}

/* Every tenant with its counters ("-d -j tenant show"), to compare. */
static char *tenants_now(struct __test_metadata *_metadata, struct run *r)
{
	EXPECT_EQ(0, run_in(r, NULL, 0, AS_ROOT, "-d -j tenant show"));
	EXPECT_EQ(0, r->status);
	return strdup(r->out);
}

/* The id of tenant @name, 0 when there is none. */
static uint32_t tenant_id(int fd, const char *name)
{
	struct mwin_tenant_info t;

	return mwin_tenant_find(fd, name, &t) ? 0 : t.id;
}

TEST_F(tn, tenant_create_show_destroy)
{
	static const char key[] = "/tmp/mwctl-test.key";
	struct mwin_tenant_info ti;
	char want[512], wantd[512], owner[16], *line;
	const char *nobody = user_of(65534, owner, sizeof(owner));
	jv *j, *e, *a;
	uint32_t id, id2, i;

	/* every option */
	ASSERT_EQ(0, put_key(key, 32, NULL));
	RUN(&self->r, "tenant create mwctl-a key %s allow 10.0.2.0/24 allow fd00:1::/64 max-conns 4 max-windows 16 max-bytes 1M owner %s",
	    key, nobody);
	EXPECT_OK(&self->r);
	ASSERT_EQ(0, mwin_tenant_find(self->fd, "mwctl-a", &ti));
	id = ti.id;
	snprintf(want, sizeof(want),
		 "tenant mwctl-a id %u owner %s key yes allow 10.0.2.0/24,fd00:1::/64 max_conns 4 max_windows 16 max_bytes 1048576 conns 0 windows 0\n",
		 id, nobody);
	EXPECT_STREQ(want, self->r.out);
	EXPECT_EQ(32, ti.key_len);
	EXPECT_EQ(2, ti.nr_allow);
	EXPECT_EQ(4, ti.allow[0].family);
	EXPECT_EQ(24, ti.allow[0].prefix_len);
	EXPECT_EQ(0, memcmp(ti.allow[0].addr, "\x0a\x00\x02\x00", 4));
	EXPECT_EQ(6, ti.allow[1].family);
	EXPECT_EQ(64, ti.allow[1].prefix_len);
	EXPECT_EQ(4, ti.max_conns);
	EXPECT_EQ(16, ti.max_windows);
	EXPECT_EQ(1 << 20, ti.max_bytes);
	EXPECT_EQ(65534, ti.owner);

	/* show: by name, by id, abbreviated, all */
	RUN(&self->r, "tenant show mwctl-a");
	EXPECT_OK(&self->r);
	EXPECT_STREQ(want, self->r.out);
	RUN(&self->r, "tenant show %u", id);
	EXPECT_STREQ(want, self->r.out);
	RUN(&self->r, "ten sh %u", id);
	EXPECT_STREQ(want, self->r.out);
	RUN(&self->r, "tenant");
	EXPECT_OK(&self->r);
	line = text_line(self->r.out, "tenant mwctl-a ");
	ASSERT_NE(NULL, line);
	strcat(line, "\n");
	EXPECT_STREQ(want, line);
	free(line);

	/* JSON: the same fields; no counters without -d */
	RUN(&self->r, "-j tenant show mwctl-a");
	EXPECT_OK(&self->r);
	j = jparse(self->r.out);
	ASSERT_NE(NULL, j);
	ASSERT_NE(NULL, jget(j, "tenants"));
	EXPECT_EQ(1, jlen(jget(j, "tenants")));
	e = jfind(jget(j, "tenants"), "id", id);
	ASSERT_NE(NULL, e);
	EXPECT_STREQ("mwctl-a", jstr(e, "name"));
	EXPECT_STREQ(nobody, jstr(e, "owner"));
	EXPECT_EQ(65534, jnum(e, "owner_uid"));
	EXPECT_EQ(1, jbool(e, "key"));
	a = jget(e, "allow");
	ASSERT_NE(NULL, a);
	ASSERT_EQ(2, jlen(a));
	EXPECT_STREQ("10.0.2.0/24", jsval(jat(a, 0)));
	EXPECT_STREQ("fd00:1::/64", jsval(jat(a, 1)));
	EXPECT_EQ(4, jnum(e, "max_conns"));
	EXPECT_EQ(16, jnum(e, "max_windows"));
	EXPECT_EQ(1 << 20, jnum(e, "max_bytes"));
	EXPECT_EQ(0, jnum(e, "conns"));
	EXPECT_EQ(0, jnum(e, "windows"));
	EXPECT_EQ(NULL, jget(e, "connects"));
	EXPECT_EQ(NULL, jget(e, "grants"));
	EXPECT_EQ(NULL, jget(e, "bytes_granted"));
	EXPECT_EQ(NULL, jget(e, "rejects"));
	jfree(j);

	/* -d: the counters, and refusals: text only those not 0, JSON all */
	RUN(&self->r, "-d tenant show mwctl-a");
	EXPECT_OK(&self->r);
	snprintf(wantd, sizeof(wantd), "%.*s connects 0 grants 0 revokes 0 remote_invalidations 0 access_errors 0 bytes_granted 0 rejects -\n",
		 (int)strlen(want) - 1, want);
	EXPECT_STREQ(wantd, self->r.out);
	RUN(&self->r, "-d -j tenant show %u", id);
	j = jparse(self->r.out);
	ASSERT_NE(NULL, j);
	e = jfind(jget(j, "tenants"), "id", id);
	ASSERT_NE(NULL, e);
	EXPECT_EQ(0, jnum(e, "connects"));
	EXPECT_EQ(0, jnum(e, "grants"));
	EXPECT_EQ(0, jnum(e, "revokes"));
	EXPECT_EQ(0, jnum(e, "remote_invalidations"));
	EXPECT_EQ(0, jnum(e, "access_errors"));
	EXPECT_EQ(0, jnum(e, "bytes_granted"));
	a = jget(e, "rejects");
	ASSERT_NE(NULL, a);
	EXPECT_TRUE(jis_obj(a));
	EXPECT_EQ(MWIN_REJECT_NO_PROOF, jlen(a));
	for (i = 1; i <= MWIN_REJECT_NO_PROOF; i++)
		EXPECT_EQ(0, jnum(a, mwin_reject_reason_name(i)));
	jfree(j);

	/* no options: no key, any address, max_peers, no window limit */
	RUN(&self->r, "-j tenant create mwctl-b");
	EXPECT_OK(&self->r);
	j = jparse(self->r.out);
	ASSERT_NE(NULL, j);
	id2 = (uint32_t)jnum(j, "id");
	EXPECT_EQ(tenant_id(self->fd, "mwctl-b"), id2);
	EXPECT_STREQ("mwctl-b", jstr(j, "name"));
	EXPECT_STREQ("-", jstr(j, "owner"));
	EXPECT_EQ(NULL, jget(j, "owner_uid"));
	EXPECT_EQ(0, jbool(j, "key"));
	ASSERT_NE(NULL, jget(j, "allow"));
	EXPECT_EQ(0, jlen(jget(j, "allow")));
	EXPECT_EQ(test_param("max_peers"), jnum(j, "max_conns"));
	EXPECT_EQ(0, jnum(j, "max_windows"));
	jfree(j);
	RUN(&self->r, "tenant show mwctl-b");
	snprintf(want, sizeof(want),
		 "tenant mwctl-b id %u owner - key no allow any max_conns %lu max_windows - max_bytes - conns 0 windows 0\n",
		 id2, test_param("max_peers"));
	EXPECT_STREQ(want, self->r.out);

	/* destroy by name, by id; then the tenants are gone */
	RUN(&self->r, "tenant destroy mwctl-a");
	EXPECT_OK(&self->r);
	snprintf(want, sizeof(want), "tenant mwctl-a id %u destroyed\n", id);
	EXPECT_STREQ(want, self->r.out);
	EXPECT_EQ(-ENOENT, mwin_tenant_get(self->fd, id, 0, &ti));
	RUN(&self->r, "-j tenant destroy %u", id2);
	EXPECT_OK(&self->r);
	j = jparse(self->r.out);
	ASSERT_NE(NULL, j);
	EXPECT_STREQ("mwctl-b", jstr(j, "name"));
	EXPECT_EQ(id2, jnum(j, "id"));
	EXPECT_EQ(1, jbool(j, "destroyed"));
	jfree(j);
	EXPECT_EQ(0, tenant_id(self->fd, "mwctl-b"));
	RUN(&self->r, "tenant show mwctl-a");
	EXPECT_ERR(&self->r, 1, "mwctl: no tenant mwctl-a");
	RUN(&self->r, "tenant destroy %u", id);
	EXPECT_ERR(&self->r, 1, "mwctl: no tenant %u", id);
}

TEST_F(tn, tenant_set)
{
	static const char key[] = "/tmp/mwctl-test.key";
	struct mwin_tenant_info ti;
	char want[512], owner[16];
	jv *j;
	uint32_t id;

	RUN(&self->r, "tenant create mwctl-s allow 10.0.0.0/8 max-conns 3");
	ASSERT_OK(&self->r);
	id = tenant_id(self->fd, "mwctl-s");
	ASSERT_NE(0, id);

	/* one field: the others stay; set prints the tenant */
	RUN(&self->r, "tenant set mwctl-s max-conns 2");
	EXPECT_OK(&self->r);
	snprintf(want, sizeof(want),
		 "tenant mwctl-s id %u owner - key no allow 10.0.0.0/8 max_conns 2 max_windows - max_bytes - conns 0 windows 0\n",
		 id);
	EXPECT_STREQ(want, self->r.out);
	ASSERT_EQ(0, mwin_tenant_get(self->fd, id, 0, &ti));
	EXPECT_EQ(2, ti.max_conns);
	EXPECT_EQ(1, ti.nr_allow);
	EXPECT_EQ(0, ti.max_windows);

	RUN(&self->r, "tenant set %u max-windows 5", id);
	EXPECT_OK(&self->r);
	ASSERT_EQ(0, mwin_tenant_get(self->fd, id, 0, &ti));
	EXPECT_EQ(5, ti.max_windows);
	EXPECT_EQ(2, ti.max_conns);

	RUN(&self->r, "tenant set %u max-bytes 64K", id);
	EXPECT_OK(&self->r);
	ASSERT_EQ(0, mwin_tenant_get(self->fd, id, 0, &ti));
	EXPECT_EQ(65536, ti.max_bytes);
	EXPECT_EQ(5, ti.max_windows);

	RUN(&self->r, "tenant set mwctl-s owner 60001");
	EXPECT_OK(&self->r);
	snprintf(want, sizeof(want), " owner %s key no ",
		 user_of(60001, owner, sizeof(owner)));
	EXPECT_NE(NULL, strstr(self->r.out, want));
	ASSERT_EQ(0, mwin_tenant_get(self->fd, id, 0, &ti));
	EXPECT_EQ(60001, ti.owner);

	/* keys of the shortest and the longest lengths */
	ASSERT_EQ(0, put_key(key, MWIN_TENANT_KEY_MIN, NULL));
	RUN(&self->r, "tenant set mwctl-s key %s", key);
	EXPECT_OK(&self->r);
	EXPECT_NE(NULL, strstr(self->r.out, " key yes "));
	ASSERT_EQ(0, mwin_tenant_get(self->fd, id, 0, &ti));
	EXPECT_EQ(MWIN_TENANT_KEY_MIN, ti.key_len);
	ASSERT_EQ(0, put_key(key, MWIN_TENANT_KEY_MAX, NULL));
	RUN(&self->r, "tenant set mwctl-s key %s", key);
	EXPECT_OK(&self->r);
	ASSERT_EQ(0, mwin_tenant_get(self->fd, id, 0, &ti));
	EXPECT_EQ(MWIN_TENANT_KEY_MAX, ti.key_len);
	EXPECT_EQ(60001, ti.owner);

	/* allow replaces the whole list; one address is a /32 or a /128 */
	RUN(&self->r, "tenant set mwctl-s allow 192.0.2.0/24 allow 2001:db8::/32");
	EXPECT_OK(&self->r);
	EXPECT_NE(NULL, strstr(self->r.out, " allow 192.0.2.0/24,2001:db8::/32 "));
	ASSERT_EQ(0, mwin_tenant_get(self->fd, id, 0, &ti));
	EXPECT_EQ(2, ti.nr_allow);
	RUN(&self->r, "tenant set mwctl-s al 10.1.2.3 al ::1");
	EXPECT_OK(&self->r);
	EXPECT_NE(NULL, strstr(self->r.out, " allow 10.1.2.3/32,::1/128 "));
	ASSERT_EQ(0, mwin_tenant_get(self->fd, id, 0, &ti));
	EXPECT_EQ(2, ti.nr_allow);
	EXPECT_EQ(32, ti.allow[0].prefix_len);
	EXPECT_EQ(128, ti.allow[1].prefix_len);
	RUN(&self->r, "tenant set mwctl-s allow any");
	EXPECT_OK(&self->r);
	EXPECT_NE(NULL, strstr(self->r.out, " allow any "));
	ASSERT_EQ(0, mwin_tenant_get(self->fd, id, 0, &ti));
	EXPECT_EQ(0, ti.nr_allow);

	/* none: no key, no owner; several fields at once; JSON */
	RUN(&self->r, "-j tenant set mwctl-s key none owner none max-windows 0");
	EXPECT_OK(&self->r);
	j = jparse(self->r.out);
	ASSERT_NE(NULL, j);
	EXPECT_EQ(id, jnum(j, "id"));
	EXPECT_EQ(0, jbool(j, "key"));
	EXPECT_STREQ("-", jstr(j, "owner"));
	EXPECT_EQ(0, jnum(j, "max_windows"));
	EXPECT_EQ(2, jnum(j, "max_conns"));
	jfree(j);
	ASSERT_EQ(0, mwin_tenant_get(self->fd, id, 0, &ti));
	EXPECT_EQ(0, ti.key_len);
	EXPECT_EQ(MWIN_NO_OWNER, ti.owner);
	EXPECT_EQ(0, ti.max_windows);
	EXPECT_EQ(2, ti.max_conns);
}

/* Every bad input: one clear line, a non-zero status, no tenant changed. */
TEST_F(tn, tenant_bad_input)
{
	static const char *const cases[][3] = {
		{ "tenant create", "2", "mwctl: tenant create needs a tenant NAME" },
		{ "tenant create bad/name", "2",
		  "mwctl: bad tenant name 'bad/name' (1 to 23 of A-Z a-z 0-9 . _ -)" },
		{ "tenant create mwctl-0123456789abcdefgh", "2",	/* 24 */
		  "mwctl: bad tenant name 'mwctl-0123456789abcdefgh' (1 to 23 of A-Z a-z 0-9 . _ -)" },
		{ "tenant create mwctl-y key /tmp/mwctl-test.k15", "1",
		  "mwctl: key file /tmp/mwctl-test.k15 has 15 bytes: a key is 16 to 64 bytes (the file's bytes exactly, no newline stripped)" },
		{ "tenant create mwctl-y key /tmp/mwctl-test.k65", "1",
		  "mwctl: key file /tmp/mwctl-test.k65 has 65 bytes: a key is 16 to 64 bytes (the file's bytes exactly, no newline stripped)" },
		{ "tenant create mwctl-y key /nonexistent", "1",
		  "mwctl: cannot open key file /nonexistent: No such file or directory" },
		{ "tenant create mwctl-y allow 10.0.2.1/24", "2",
		  "mwctl: allow 10.0.2.1/24 has bits set past its /24 prefix (did you mean 10.0.2.0/24?)" },
		{ "tenant create mwctl-y allow fd00::1/64", "2",
		  "mwctl: allow fd00::1/64 has bits set past its /64 prefix (did you mean fd00::/64?)" },
		{ "tenant create mwctl-y allow 10.0.0.0/33", "2",
		  "mwctl: bad prefix length in '10.0.0.0/33' (0 to 32 for IPv4)" },
		{ "tenant create mwctl-y allow fd00::/129", "2",
		  "mwctl: bad prefix length in 'fd00::/129' (0 to 128 for IPv6)" },
		{ "tenant create mwctl-y allow 10.0.0.0/", "2",
		  "mwctl: bad prefix length in '10.0.0.0/' (0 to 32 for IPv4)" },
		{ "tenant create mwctl-y allow 10.0.0", "2",
		  "mwctl: bad address '10.0.0' for 'allow' (an IPv4 or IPv6 address, an optional /PREFIX, or any)" },
		{ "tenant create mwctl-y allow 1.0.0.1 allow 1.0.0.2 allow 1.0.0.3 allow 1.0.0.4 allow 1.0.0.5 allow 1.0.0.6 allow 1.0.0.7 allow 1.0.0.8 allow 1.0.0.9",
		  "2", "mwctl: at most 8 'allow' prefixes" },
		{ "tenant create mwctl-y allow any allow 10.0.0.0/8", "2",
		  "mwctl: 'allow any' cannot go with other 'allow' prefixes" },
		{ "tenant create mwctl-y owner mwctl-no-such-user", "2",
		  "mwctl: unknown user 'mwctl-no-such-user' for 'owner' (a user name, a numeric uid, or none)" },
		{ "tenant create mwctl-y owner 4294967295", "2",
		  "mwctl: unknown user '4294967295' for 'owner' (a user name, a numeric uid, or none)" },
		{ "tenant create mwctl-y max-conns 0", "2",
		  "mwctl: max-conns must be at least 1" },
		{ "tenant create mwctl-y max-windows 5x", "2",
		  "mwctl: bad count '5x' for 'max-windows' (a decimal number)" },
		{ "tenant create mwctl-y max-bytes 5Q", "2",
		  "mwctl: bad size '5Q' for 'max-bytes' (bytes: 4096, 0x1000, 64K, 2M, 1G)" },
		{ "tenant create mwctl-y m 3", "2",
		  "mwctl: 'm' is ambiguous for tenant create: max-conns, max-windows, max-bytes" },
		{ "tenant create mwctl-y max-conns 2 max-conns 3", "2",
		  "mwctl: 'max-conns' given twice" },
		{ "tenant create mwctl-y bogus 1", "2",
		  "mwctl: unknown keyword 'bogus' for tenant create (expected key, allow, max-conns, max-windows, max-bytes, owner)" },
		{ "tenant create mwctl-y allow", "2",
		  "mwctl: 'allow' needs a value (allow ADDR[/PREFIX])" },
		{ "tenant create mwctl-x", "1", "mwctl: a tenant mwctl-x exists" },
		{ "tenant set mwctl-x", "2",
		  "mwctl: tenant set needs something to change (key, allow, max-conns, max-windows, max-bytes, owner)" },
		{ "tenant set mwctl-x allow 10.0.0.1/8", "2",
		  "mwctl: allow 10.0.0.1/8 has bits set past its /8 prefix (did you mean 10.0.0.0/8?)" },
		{ "tenant set mwctl-x key /tmp/mwctl-test.k15", "1",
		  "mwctl: key file /tmp/mwctl-test.k15 has 15 bytes: a key is 16 to 64 bytes (the file's bytes exactly, no newline stripped)" },
		{ "tenant set mwctl-x owner mwctl-no-such-user", "2",
		  "mwctl: unknown user 'mwctl-no-such-user' for 'owner' (a user name, a numeric uid, or none)" },
		{ "tenant set mwctl-none max-conns 2", "1", "mwctl: no tenant mwctl-none" },
		{ "tenant set 4000000000 max-conns 2", "1", "mwctl: no tenant 4000000000" },
		{ "tenant set", "2", "mwctl: tenant set needs a tenant NAME or ID" },
		{ "tenant destroy mwctl-none", "1", "mwctl: no tenant mwctl-none" },
		{ "tenant destroy a/b", "2",
		  "mwctl: bad tenant name 'a/b' (1 to 23 of A-Z a-z 0-9 . _ -)" },
		{ "tenant destroy mwctl-x now", "2",
		  "mwctl: unexpected argument 'now' for tenant destroy" },
		{ "tenant show mwctl-none", "1", "mwctl: no tenant mwctl-none" },
		{ "-j tenant show 4000000000", "1", "mwctl: no tenant 4000000000" },
		{ "tenant show mwctl-x now", "2",
		  "mwctl: unexpected argument 'now' for tenant show" },
	};
	char *before, *after;
	size_t i;

	ASSERT_EQ(0, put_key("/tmp/mwctl-test.k15", 15, NULL));
	ASSERT_EQ(0, put_key("/tmp/mwctl-test.k65", 65, NULL));
	RUN(&self->r, "tenant create mwctl-x allow 10.0.0.0/8 max-conns 2");
	ASSERT_OK(&self->r);
	before = tenants_now(_metadata, &self->r);
	ASSERT_NE(NULL, strstr(before, "\"name\":\"mwctl-x\""));

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		RUN(&self->r, "%s", cases[i][0]);
		if (self->r.status != atoi(cases[i][1]) ||
		    strncmp(self->r.err, cases[i][2], strlen(cases[i][2])))
			TH_LOG("'mwctl %s': status %d, stderr %s", cases[i][0],
			       self->r.status, self->r.err);
		EXPECT_ERR(&self->r, atoi(cases[i][1]), "%s", cases[i][2]);
		after = tenants_now(_metadata, &self->r);
		EXPECT_STREQ(before, after);
		free(after);
	}

	/* over the module's max_peers: the module refuses, mwctl says why */
	RUN(&self->r, "tenant set mwctl-x max-conns %lu",
	    test_param("max_peers") + 1);
	EXPECT_ERR(&self->r, 1, "mwctl: max-conns %lu is over the module's max_peers %lu",
		   test_param("max_peers") + 1, test_param("max_peers"));
	after = tenants_now(_metadata, &self->r);
	EXPECT_STREQ(before, after);
	free(after);
	free(before);
	unlink("/tmp/mwctl-test.k15");
	unlink("/tmp/mwctl-test.k65");
}

/* Without CAP_SYS_ADMIN: create, set and destroy fail and change nothing. */
TEST_F(tn, tenant_not_admin)
{
	static const char *const cases[][2] = {
		{ "tenant create mwctl-n", "create" },
		{ "tenant set mwctl-own max-conns 1", "set" },
		{ "tenant set mwctl-other max-conns 1", "set" },	/* unseen */
		{ "tenant destroy mwctl-own", "destroy" },
		{ "tenant destroy mwctl-other", "destroy" },
	};
	char *before, *after;
	struct stat st;
	jv *j, *a;
	size_t i;

	RUN(&self->r, "tenant create mwctl-own owner 65534");
	ASSERT_OK(&self->r);
	RUN(&self->r, "tenant create mwctl-other");
	ASSERT_OK(&self->r);
	before = tenants_now(_metadata, &self->r);
	ASSERT_EQ(0, stat(MWIN_DEV_PATH, &st));
	ASSERT_EQ(0, chmod(MWIN_DEV_PATH, 0666));

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		EXPECT_EQ(0, run_in(&self->r, NULL, 0, AS_NOBODY, "%s",
				    cases[i][0]));
		EXPECT_ERR(&self->r, 1, "mwctl: tenant %s: Operation not permitted (needs CAP_SYS_ADMIN)",
			   cases[i][1]);
	}
	/* the owner sees its tenant, and no other */
	EXPECT_EQ(0, run_in(&self->r, NULL, 0, AS_NOBODY, "-j tenant show"));
	EXPECT_EQ(0, self->r.status);
	j = jparse(self->r.out);
	a = jget(j, "tenants");
	EXPECT_NE(NULL, a);
	if (a) {
		EXPECT_EQ(1, jlen(a));
		EXPECT_STREQ("mwctl-own", jstr(jat(a, 0), "name"));
	}
	jfree(j);
	EXPECT_EQ(0, run_in(&self->r, NULL, 0, AS_NOBODY,
			    "tenant show mwctl-other"));
	EXPECT_ERR(&self->r, 1, "mwctl: no tenant mwctl-other");

	chmod(MWIN_DEV_PATH, st.st_mode & 07777);
	after = tenants_now(_metadata, &self->r);
	EXPECT_STREQ(before, after);
	free(after);
	free(before);
}

/* A tenant's peers: peer show names the tenant; counters; destroy ends them. */
TEST_F(tn, tenant_peers)
{
	static const char key[] = "/tmp/mwctl-test.key";
	static const uint8_t bytes[32] = "mwctl tenant test key, 32 bytes";
	struct mwin_peer_info pi = { 0 };
	struct mwin_info info;
	struct mwpeer *p, *refused;
	uint32_t id, peer;
	uint64_t address;
	char want[256];
	jv *j, *e;
	int err, i;

	ASSERT_EQ(0, put_key(key, sizeof(bytes), bytes));
	RUN(&self->r, "tenant create mwctl-p key %s allow %s", key, test_host());
	ASSERT_OK(&self->r);
	id = tenant_id(self->fd, "mwctl-p");
	ASSERT_NE(0, id);
	p = mwpeer_connect_tenant(test_host(), 0, NULL, TEST_TIMEOUT_MS,
				  "mwctl-p", bytes, sizeof(bytes), &err);
	ASSERT_NE(NULL, p);
	peer = mwpeer_id(p);
	for (i = 0; i < TEST_TIMEOUT_MS; i++) {
		if (!mwin_peer_get(self->fd, peer, 0, &pi) &&
		    pi.state == MWIN_PEER_CONNECTED)
			break;
		usleep(1000);
	}
	EXPECT_EQ(id, pi.tenant);

	RUN(&self->r, "peer show %u", peer);
	EXPECT_OK(&self->r);
	EXPECT_NE(NULL, strstr(self->r.out, " tenant mwctl-p dev "));
	EXPECT_NE(NULL, strstr(self->r.out, " state connected "));
	RUN(&self->r, "-j peer show %u", peer);
	j = jparse(self->r.out);
	ASSERT_NE(NULL, j);
	e = jfind(jget(j, "peers"), "id", peer);
	ASSERT_NE(NULL, e);
	EXPECT_STREQ("mwctl-p", jstr(e, "tenant"));
	EXPECT_EQ(id, jnum(e, "tenant_id"));
	jfree(j);
	RUN(&self->r, "tenant show mwctl-p");
	EXPECT_NE(NULL, strstr(self->r.out, " key yes "));
	EXPECT_NE(NULL, strstr(self->r.out, " conns 1 windows 0\n"));

	/* refused from outside its prefixes: counted by reason */
	ASSERT_EQ(0, mwin_info(self->fd, &info, NULL, 0));
	address = info.rejects[MWIN_REJECT_ADDRESS];
	RUN(&self->r, "tenant set mwctl-p allow 192.0.2.0/24");
	EXPECT_OK(&self->r);
	refused = mwpeer_connect_tenant(test_host(), 0, NULL, TEST_TIMEOUT_MS,
					"mwctl-p", bytes, sizeof(bytes), &err);
	EXPECT_EQ(NULL, refused);
	EXPECT_EQ(-ECONNREFUSED, err);
	RUN(&self->r, "-d tenant show mwctl-p");
	EXPECT_OK(&self->r);
	EXPECT_NE(NULL, strstr(self->r.out, " conns 1 windows 0 connects 1 grants 0 revokes 0 remote_invalidations 0 access_errors 0 bytes_granted 0 rejects address:1\n"));
	RUN(&self->r, "-d -j tenant show mwctl-p");
	j = jparse(self->r.out);
	ASSERT_NE(NULL, j);
	e = jfind(jget(j, "tenants"), "id", id);
	ASSERT_NE(NULL, e);
	EXPECT_EQ(1, jnum(e, "connects"));
	EXPECT_EQ(1, jnum(jget(e, "rejects"), "address"));
	EXPECT_EQ(0, jnum(jget(e, "rejects"), "quota"));
	jfree(j);
	RUN(&self->r, "-d -j dev show");
	j = jparse(self->r.out);
	ASSERT_NE(NULL, j);
	EXPECT_EQ(address + 1, jnum(jget(j, "rejects"), "address"));
	jfree(j);
	RUN(&self->r, "-d dev show");
	snprintf(want, sizeof(want), "address:%llu",
		 (unsigned long long)address + 1);
	EXPECT_NE(NULL, strstr(self->r.out, want));

	/* destroy: its peer is disconnected */
	RUN(&self->r, "tenant destroy mwctl-p");
	EXPECT_OK(&self->r);
	EXPECT_EQ(0, test_wait_peer_gone(self->fd, peer));
	mwpeer_close(p);
}

/* -d tenant show's counters, as the module has them */
static void expect_counters(struct __test_metadata *_metadata, struct run *r,
			    int fd, uint32_t id)
{
	struct mwin_tenant_info ti;
	char want[256];
	jv *j, *e;

	ASSERT_EQ(0, mwin_tenant_get(fd, id, 0, &ti));
	ASSERT_EQ(0, run_in(r, NULL, 0, AS_ROOT, "-d tenant show %u", id));
	EXPECT_EQ(0, r->status);
	snprintf(want, sizeof(want), " connects %llu grants %llu revokes %llu remote_invalidations %llu access_errors %llu bytes_granted %llu rejects ",
		 (unsigned long long)ti.connects,
		 (unsigned long long)ti.grants,
		 (unsigned long long)ti.revokes,
		 (unsigned long long)ti.remote_invalidations,
		 (unsigned long long)ti.access_errors,
		 (unsigned long long)ti.bytes_granted);
	EXPECT_NE(NULL, strstr(r->out, want));
	ASSERT_EQ(0, run_in(r, NULL, 0, AS_ROOT, "-d -j tenant show %u", id));
	j = jparse(r->out);
	ASSERT_NE(NULL, j);
	e = jfind(jget(j, "tenants"), "id", id);
	EXPECT_NE(NULL, e);
	if (e) {
		EXPECT_EQ(ti.grants, jnum(e, "grants"));
		EXPECT_EQ(ti.revokes, jnum(e, "revokes"));
		EXPECT_EQ(ti.remote_invalidations,
			  jnum(e, "remote_invalidations"));
		EXPECT_EQ(ti.access_errors, jnum(e, "access_errors"));
		EXPECT_EQ(ti.bytes_granted, jnum(e, "bytes_granted"));
	}
	jfree(j);
}

/*
 * Windows granted to a tenant as a whole: create and rebind name it by
 * NAME or ID, show prints it, each refusal is one line in mwctl's terms
 * and makes no window, -d tenant show has the tenant's counters, and
 * tenant destroy leaves the windows unbound and without a tenant.
 */
TEST_F(tn, tenant_windows)
{
	static const char key[] = "/tmp/mwctl-test.key";
	static const uint8_t bytes[32] = "mwctl tenant test key, 32 bytes";
	struct mwin_window_info wi;
	struct mwin_tenant_info ti;
	struct mwpeer_msg m;
	struct mwpeer *p;
	uint32_t id, region, mine, w, w2, n;
	char want[512];
	struct stat st;
	jv *j, *e;
	int err;

	ASSERT_EQ(0, put_key(key, sizeof(bytes), bytes));
	RUN(&self->r, "tenant create mwctl-g key %s", key);
	ASSERT_OK(&self->r);
	RUN(&self->r, "tenant create mwctl-e");
	ASSERT_OK(&self->r);
	id = tenant_id(self->fd, "mwctl-g");
	ASSERT_NE(0, id);
	/* the region goes with the fixture's file, its windows with it */
	ASSERT_EQ(0, mwin_region_create(self->fd, 1 << 16, MWIN_CREATE_FD_OWNED,
					&region, NULL));
	p = mwpeer_connect_tenant(test_host(), 0, NULL, TEST_TIMEOUT_MS,
				  "mwctl-g", bytes, sizeof(bytes), &err);
	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, test_wait_peer_state(self->fd, mwpeer_id(p),
					  MWIN_PEER_CONNECTED));

	/* by name: the tenant's connection carries it, and is granted it */
	RUN(&self->r, "window create region %u tenant mwctl-g len 4K access rw",
	    region);
	EXPECT_OK(&self->r);
	w = first_id(self->r.out, "window");
	ASSERT_EQ(0, mwin_window_get(self->fd, w, 0, &wi));
	EXPECT_EQ(id, wi.tenant);
	EXPECT_EQ(mwpeer_id(p), wi.peer);
	snprintf(want, sizeof(want),
		 "window %u region %u peer %u tenant mwctl-g state bound rkey 0x%x iova 0x0 len 4096 access rw\n",
		 w, region, wi.peer, wi.rkey);
	EXPECT_STREQ(want, self->r.out);
	ASSERT_EQ(0, mwpeer_wait_grant(p, w, 0, &m, TEST_TIMEOUT_MS));
	EXPECT_EQ(wi.rkey, m.rkey);
	RUN(&self->r, "window show %u", w);
	EXPECT_STREQ(want, self->r.out);
	RUN(&self->r, "-j window show %u", w);
	EXPECT_OK(&self->r);
	j = jparse(self->r.out);
	ASSERT_NE(NULL, j);
	e = jfind(jget(j, "windows"), "id", w);
	ASSERT_NE(NULL, e);
	EXPECT_STREQ("mwctl-g", jstr(e, "tenant"));
	EXPECT_EQ(id, jnum(e, "tenant_id"));
	EXPECT_EQ(wi.peer, jnum(e, "peer"));
	jfree(j);

	/* by id; a rebind that names no grantee keeps the tenant */
	RUN(&self->r, "window create region %u tenant %u offset 8K len 4K access r",
	    region, id);
	EXPECT_OK(&self->r);
	w2 = first_id(self->r.out, "window");
	EXPECT_NE(NULL, strstr(self->r.out, " tenant mwctl-g state bound "));
	RUN(&self->r, "window rebind %u access r", w);
	EXPECT_OK(&self->r);
	EXPECT_NE(NULL, strstr(self->r.out, " tenant mwctl-g state bound "));
	ASSERT_EQ(0, mwin_window_get(self->fd, w, 0, &wi));
	EXPECT_EQ(id, wi.tenant);
	EXPECT_EQ(0, mwpeer_wait_grant(p, w, m.rkey, &m, TEST_TIMEOUT_MS));
	EXPECT_EQ(wi.rkey, m.rkey);

	/* refusals: one line each, and no window made */
	n = test_nr_windows(self->fd);
	RUN(&self->r, "window create region %u tenant mwctl-none len 4K access r",
	    region);
	EXPECT_ERR(&self->r, 1, "mwctl: no tenant mwctl-none");
	RUN(&self->r, "window create region %u tenant %u len 4K access r",
	    region, NO_ID);
	EXPECT_ERR(&self->r, 1, "mwctl: no tenant %u", NO_ID);
	RUN(&self->r, "window create region %u tenant mwctl-e offset 16K len 4K access r",
	    region);
	EXPECT_ERR(&self->r, 1, "mwctl: tenant mwctl-e has no connection that proved its key");
	EXPECT_EQ(n, test_nr_windows(self->fd));

	/* another user's region: to that user the tenant does not exist */
	ASSERT_EQ(0, stat(MWIN_DEV_PATH, &st));
	ASSERT_EQ(0, chmod(MWIN_DEV_PATH, 0666));
	EXPECT_EQ(0, run_in(&self->r, NULL, 0, AS_NOBODY,
			    "region create size 4K"));
	mine = first_id(self->r.out, "region");
	EXPECT_NE(0, mine);
	EXPECT_EQ(0, run_in(&self->r, NULL, 0, AS_NOBODY,
			    "window create region %u tenant %u len 4K access r",
			    mine, id));
	EXPECT_ERR(&self->r, 1, "mwctl: no tenant %u", id);
	/* by its name either */
	EXPECT_EQ(0, run_in(&self->r, NULL, 0, AS_NOBODY,
			    "window create region %u tenant mwctl-g len 4K access r",
			    mine));
	EXPECT_ERR(&self->r, 1, "mwctl: no tenant mwctl-g");
	chmod(MWIN_DEV_PATH, st.st_mode & 07777);
	EXPECT_EQ(n, test_nr_windows(self->fd));
	if (mine)
		EXPECT_EQ(0, mwin_region_destroy(self->fd, mine, 0));

	/* the counters: two windows of 4 KiB, granted and rebound once */
	ASSERT_EQ(0, mwin_tenant_get(self->fd, id, 0, &ti));
	EXPECT_EQ(3, ti.grants);
	EXPECT_EQ(1, ti.revokes);
	EXPECT_EQ(8192, ti.bytes_granted);
	EXPECT_EQ(2, ti.nr_windows);
	expect_counters(_metadata, &self->r, self->fd, id);

	/* destroy: its windows are unbound, and granted to no one */
	RUN(&self->r, "tenant destroy mwctl-g");
	EXPECT_OK(&self->r);
	EXPECT_EQ(0, test_wait_peer_gone(self->fd, mwpeer_id(p)));
	RUN(&self->r, "window show %u", w2);
	EXPECT_OK(&self->r);
	EXPECT_NE(NULL, strstr(self->r.out, " peer 0 tenant - state unbound "));
	RUN(&self->r, "window rebind %u", w2);
	EXPECT_ERR(&self->r, 1, "mwctl: window %u is unbound (its peer is gone); pass 'peer ID' or 'tenant NAME'",
		   w2);
	mwpeer_close(p);
}

/* ---------------------------------------------------------------- monitor */

struct bg {
	pid_t pid;
	int out;	/* its stdout and stderr */
};

static int bg_start(struct bg *bg, const char *args)
{
	char line[256], *argv[16];
	int po[2];

	snprintf(line, sizeof(line), "%s", args);
	split(line, "mwctl", argv, 16);
	if (pipe2(po, O_CLOEXEC))
		return -errno;
	bg->pid = fork();
	if (bg->pid < 0)
		return -errno;
	if (!bg->pid) {
		int null = open("/dev/null", O_RDONLY);

		dup2(null, 0);
		dup2(po[1], 1);
		dup2(po[1], 2);
		execv(prog_path(PROG_MWCTL), argv);
		_exit(127);
	}
	close(po[1]);
	bg->out = po[0];
	return 0;
}

/* wait until @pid sleeps in poll(): MWIN_MONITOR is done */
static int bg_wait_polling(pid_t pid)
{
	char path[64], buf[128];
	int i;

	snprintf(path, sizeof(path), "/proc/%d/syscall", pid);
	for (i = 0; i < 1000; i++) {
		FILE *f = fopen(path, "r");
		bool in_poll = false;

		if (!f)
			return -ENOENT;
		if (fgets(buf, sizeof(buf), f))
			in_poll = isdigit((unsigned char)buf[0]) &&
				  (atol(buf) == SYS_poll ||
				   atol(buf) == SYS_ppoll);
		fclose(f);
		if (in_poll)
			return 0;
		usleep(10000);
	}
	return -ETIMEDOUT;
}

/* stop with @sig; its output in @out, its exit status returned */
static int bg_stop(struct bg *bg, int sig, char **out)
{
	int st;

	kill(bg->pid, sig);
	*out = read_all(bg->out);
	close(bg->out);
	if (waitpid(bg->pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* the lines of @out that name window @w or peer @p */
static char *relevant(const char *out, bool json, uint32_t w, uint32_t p)
{
	const char *s = out;
	char *res = NULL;
	size_t len = 0;

	buf_add(&res, &len, "", 0);
	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) + 1 : strlen(s);
		char *line = strndup(s, n);
		bool hit;

		if (json) {
			jv *j = jparse(line);

			hit = j && (jnum(j, "window") == w || jnum(j, "peer") == p);
			jfree(j);
		} else {
			hit = tnum(line, "window") == w || tnum(line, "peer") == p;
		}
		if (hit)
			buf_add(&res, &len, s, n);
		free(line);
		s += n;
	}
	return res;
}

TEST_F_TIMEOUT(mw, monitor, 120)
{
	struct bg mj, mt, md;
	uint32_t w, p2id, r1, r2, r3;
	struct mwin_window_info wi;
	struct mwpeer *p2;
	char *outj, *outt, *outd, *got, want[2048], args[128];
	size_t len = 0;
	uint64_t seq = 0;
	jv *j;
	const char *s;

	/* nothing happens, then SIGINT: no output, status 0 */
	ASSERT_EQ(0, bg_start(&mj, "monitor"));
	ASSERT_EQ(0, bg_wait_polling(mj.pid));
	EXPECT_EQ(0, bg_stop(&mj, SIGINT, &outj));
	/* only peers of earlier tests may still be going away */
	for (s = outj; *s; s = strchr(s, '\n') + 1) {
		EXPECT_EQ(0, strncmp(s, "peer_down peer ", 15));
		if (!strchr(s, '\n'))
			break;
	}
	free(outj);

	ASSERT_EQ(0, bg_start(&mj, "-j monitor"));
	ASSERT_EQ(0, bg_start(&mt, "mon"));
	ASSERT_EQ(0, bg_start(&md, "-d -j monitor"));
	ASSERT_EQ(0, bg_wait_polling(mj.pid));
	ASSERT_EQ(0, bg_wait_polling(mt.pid));
	ASSERT_EQ(0, bg_wait_polling(md.pid));

	/* a peer comes, a window lives and dies, the peer goes */
	p2 = test_connect();
	ASSERT_NE(NULL, p2);
	p2id = mwpeer_id(p2);
	snprintf(args, sizeof(args), "region %u peer %u len 4096 access rw",
		 self->region, p2id);
	w = mk_window(_metadata, &self->r, args, NULL);
	ASSERT_NE(0, w);
	ASSERT_EQ(0, mwin_window_get(self->fd, w, 0, &wi));
	r1 = wi.rkey;
	RUN(&self->r, "window rebind %u access r", w);
	ASSERT_OK(&self->r);
	ASSERT_EQ(0, mwin_window_get(self->fd, w, 0, &wi));
	r2 = wi.rkey;
	RUN(&self->r, "window invalidate %u", w);
	ASSERT_OK(&self->r);
	RUN(&self->r, "window rebind %u", w);
	ASSERT_OK(&self->r);
	ASSERT_EQ(0, mwin_window_get(self->fd, w, 0, &wi));
	r3 = wi.rkey;
	RUN(&self->r, "window destroy %u", w);
	ASSERT_OK(&self->r);
	RUN(&self->r, "peer disconnect %u", p2id);
	ASSERT_OK(&self->r);

	EXPECT_EQ(0, bg_stop(&mj, SIGINT, &outj));
	EXPECT_EQ(0, bg_stop(&mt, SIGTERM, &outt));
	EXPECT_EQ(0, bg_stop(&md, SIGINT, &outd));

	/* JSON lines, in order */
	snprintf(want, sizeof(want),
		 "{\"event\":\"peer_up\",\"peer\":%u}\n"
		 "{\"event\":\"grant\",\"window\":%u,\"peer\":%u,\"rkey\":%u,\"rkey_hex\":\"0x%x\"}\n"
		 "{\"event\":\"revoke\",\"window\":%u,\"peer\":%u,\"rkey\":%u,\"rkey_hex\":\"0x%x\",\"reason\":\"rebind\"}\n"
		 "{\"event\":\"grant\",\"window\":%u,\"peer\":%u,\"rkey\":%u,\"rkey_hex\":\"0x%x\"}\n"
		 "{\"event\":\"revoke\",\"window\":%u,\"peer\":%u,\"rkey\":%u,\"rkey_hex\":\"0x%x\",\"reason\":\"invalidate\"}\n"
		 "{\"event\":\"grant\",\"window\":%u,\"peer\":%u,\"rkey\":%u,\"rkey_hex\":\"0x%x\"}\n"
		 "{\"event\":\"revoke\",\"window\":%u,\"peer\":%u,\"rkey\":%u,\"rkey_hex\":\"0x%x\",\"reason\":\"destroy\"}\n"
		 "{\"event\":\"peer_down\",\"peer\":%u,\"reason\":\"operator\"}\n",
		 p2id, w, p2id, r1, r1, w, p2id, r1, r1, w, p2id, r2, r2,
		 w, p2id, r2, r2, w, p2id, r3, r3, w, p2id, r3, r3, p2id);
	got = relevant(outj, true, w, p2id);
	EXPECT_STREQ(want, got);
	free(got);

	/* the same events as text lines */
	snprintf(want, sizeof(want),
		 "peer_up peer %u\n"
		 "grant window %u peer %u rkey 0x%x\n"
		 "revoke window %u peer %u rkey 0x%x reason rebind\n"
		 "grant window %u peer %u rkey 0x%x\n"
		 "revoke window %u peer %u rkey 0x%x reason invalidate\n"
		 "grant window %u peer %u rkey 0x%x\n"
		 "revoke window %u peer %u rkey 0x%x reason destroy\n"
		 "peer_down peer %u reason operator\n",
		 p2id, w, p2id, r1, w, p2id, r1, w, p2id, r2, w, p2id, r2,
		 w, p2id, r3, w, p2id, r3, p2id);
	got = relevant(outt, false, w, p2id);
	EXPECT_STREQ(want, got);
	free(got);

	/* -d: every line a JSON document, seq from 1 without gaps */
	s = outd;
	while (*s) {
		const char *nl = strchr(s, '\n');
		char *doc;

		ASSERT_NE(NULL, nl);
		doc = strndup(s, nl - s);
		j = jparse(doc);
		ASSERT_NE(NULL, j);
		EXPECT_EQ(++seq, jnum(j, "seq"));
		EXPECT_NE(JMISSING, jnum(j, "time_ns"));
		jfree(j);
		free(doc);
		s = nl + 1;
		len++;
	}
	EXPECT_LE(8, len);

	free(outj);
	free(outt);
	free(outd);
	mwpeer_close(p2);
}

TEST_HARNESS_MAIN
