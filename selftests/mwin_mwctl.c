// SPDX-License-Identifier: GPL-2.0
/*
 * mwctl, the operator CLI, run as a program (build/tools/mwctl, or $MWCTL)
 * against the real module: its help and usage errors, what it says
 * without /dev/mwin or without the rights to it, and the module's devices
 * (dev show) and regions (create, show, destroy, write, read; of a tmpfs
 * file, and a user region as show prints it), text and
 * JSON checked against each other and against what the module reports
 * through libmwin. Object ids are always taken from the output.
 *
 * The rest of mwctl, each in a binary of its own: windows, peers and the
 * module's limits (mwin_mwctl_windows.c), the event monitor
 * (mwin_mwctl_monitor.c), tenants (mwin_mwctl_tenants.c) and leases
 * (mwin_mwctl_leases.c). Running mwctl and reading its output:
 * mwctl_run.h; FIXTURE(mw): mwctl_fixture.h.
 */
#define _GNU_SOURCE
#include <ctype.h>

#include "mwctl_fixture.h"

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
	EXPECT_EQ(MWIN_REJECT_CHALLENGE, jlen(jget(j, "rejects")));
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
	snprintf(want, sizeof(want), "region %u size 65536 windows 0 kind module\n",
		 self->region);
	ASSERT_EQ(0, mwin_region_get(self->fd, self->region, 0, &ri));
	EXPECT_EQ(65536, ri.length);

	/* sizes: hex, suffixes, rounding to pages */
	RUN(&self->r, "region create size 0x3000");
	EXPECT_OK(&self->r);
	a = first_id(self->r.out, "region");
	ASSERT_NE(0, a);
	snprintf(want, sizeof(want), "region %u size 12288 windows 0 kind module\n", a);
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
	snprintf(want, sizeof(want), "region %u size 1048576 windows 0 kind module mmap_offset 0x%llx\n",
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
	snprintf(want, sizeof(want), "region %u size 12288 windows 0 kind module\n", a);
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

/* ---------------------------------------------------------- region kinds */

#define SHM_PATH	"/dev/shm/mwctl-test"
#define SHM_LEN		(4 * 4096)

/* A tmpfs file of SHM_LEN bytes, page n holding byte 'a' + n. */
static void make_shm_file(struct __test_metadata *_metadata)
{
	uint8_t page[4096];
	int fd, i;

	fd = open(SHM_PATH, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ASSERT_LE(0, fd);
	for (i = 0; i < SHM_LEN / 4096; i++) {
		memset(page, 'a' + i, sizeof(page));
		ASSERT_EQ(sizeof(page), write(fd, page, sizeof(page)));
	}
	close(fd);
}

/* region create file: a tmpfs file's pages; show says the kind and where */
TEST_F(mw, region_create_file)
{
	struct mwin_window_bind b = { .size = sizeof(b) };
	struct mwin_region_info ri;
	uint32_t f, ro;
	char want[256];
	jv *j;

	make_shm_file(_metadata);
	RUN(&self->r, "region create file %s offset 4K len 8K", SHM_PATH);
	EXPECT_OK(&self->r);
	f = first_id(self->r.out, "region");
	ASSERT_NE(0, f);
	snprintf(want, sizeof(want),
		 "region %u size 8192 windows 0 kind file offset 4096\n", f);
	EXPECT_STREQ(want, self->r.out);
	/* the region holds the file's pages, and outlives mwctl */
	ASSERT_EQ(0, mwin_region_get(self->fd, f, 0, &ri));
	EXPECT_EQ(MWIN_REGION_KIND_FILE, ri.kind);
	EXPECT_EQ(4096, ri.addr);
	EXPECT_EQ(8192, ri.length);
	EXPECT_EQ(0, ri.rflags & MWIN_REGION_READ_ONLY);
	RUN(&self->r, "region show %u", f);
	EXPECT_STREQ(want, self->r.out);
	RUN(&self->r, "-j region show %u", f);
	j = jparse(self->r.out);
	ASSERT_NE(NULL, j);
	EXPECT_STREQ("file", jstr(jfind(jget(j, "regions"), "id", f), "kind"));
	EXPECT_EQ(4096, jnum(jfind(jget(j, "regions"), "id", f), "offset"));
	EXPECT_EQ(0, jbool(jfind(jget(j, "regions"), "id", f), "ro"));
	jfree(j);
	/* its bytes are the file's: mwctl does not map it */
	RUN(&self->r, "region read %u len 4", f);
	EXPECT_ERR(&self->r, 1, "mwctl: cannot map region %u: a user or file region: map the memory itself",
		   f);

	/* ro: the file opened read-only, no window may write */
	RUN(&self->r, "-j region create file %s len 4K ro", SHM_PATH);
	EXPECT_OK(&self->r);
	j = jparse(self->r.out);
	ASSERT_NE(NULL, j);
	ro = (uint32_t)jnum(j, "id");
	EXPECT_STREQ("file", jstr(j, "kind"));
	EXPECT_EQ(0, jnum(j, "offset"));
	EXPECT_EQ(1, jbool(j, "ro"));
	jfree(j);
	RUN(&self->r, "region show %u", ro);
	snprintf(want, sizeof(want),
		 "region %u size 4096 windows 0 kind file offset 0 ro\n", ro);
	EXPECT_STREQ(want, self->r.out);
	RUN(&self->r, "window create region %u peer %u len 4K access rw", ro,
	    self->peer);
	EXPECT_ERR(&self->r, 1, "mwctl: window create: write or atomic rights in a read-only region");
	b.region = ro;
	b.peer = self->peer;
	b.length = 4096;
	b.access = MWIN_ACCESS_WRITE;
	EXPECT_EQ(-EACCES, mwin_window_create(self->fd, &b));

	RUN(&self->r, "region destroy %u", ro);
	EXPECT_OK(&self->r);
	RUN(&self->r, "region destroy %u", f);
	EXPECT_OK(&self->r);
	unlink(SHM_PATH);
}

TEST_F(mw, region_create_file_errors)
{
	char path[64];
	int memfd;

	make_shm_file(_metadata);
	RUN(&self->r, "region create file /dev/shm/mwctl-none len 4K");
	EXPECT_ERR(&self->r, 1, "mwctl: cannot open /dev/shm/mwctl-none: No such file or directory");
	RUN(&self->r, "region create file %s len 20K", SHM_PATH);
	EXPECT_ERR(&self->r, 1, "mwctl: offset 0 len 20480 leaves file %s (16384 bytes)",
		   SHM_PATH);
	RUN(&self->r, "region create file %s offset 12K len 8K", SHM_PATH);
	EXPECT_ERR(&self->r, 1, "mwctl: offset 12288 len 8192 leaves file %s (16384 bytes)",
		   SHM_PATH);
	RUN(&self->r, "region create file %s offset 100 len 4K", SHM_PATH);
	EXPECT_ERR(&self->r, 2, "mwctl: offset 100 len 4096 of a file region must be whole pages (4096 bytes)");
	RUN(&self->r, "region create file %s len 5000", SHM_PATH);
	EXPECT_ERR(&self->r, 2, "mwctl: offset 0 len 5000 of a file region must be whole pages (4096 bytes)");
	RUN(&self->r, "region create file %s", SHM_PATH);
	EXPECT_ERR(&self->r, 2, "mwctl: region create file PATH needs 'len LEN'");
	RUN(&self->r, "region create file %s size 4K", SHM_PATH);
	EXPECT_ERR(&self->r, 2, "mwctl: region create file PATH takes 'len LEN', not 'size' or 'near'");
	RUN(&self->r, "region create size 4K len 4K");
	EXPECT_ERR(&self->r, 2, "mwctl: region create size SIZE takes no 'offset' or 'len' (a file region's)");
	RUN(&self->r, "region create file %s len 0", SHM_PATH);
	EXPECT_ERR(&self->r, 2, "mwctl: len must be at least 1 byte");
	RUN(&self->r, "region create file %s len 5G", SHM_PATH);
	EXPECT_ERR(&self->r, 2, "mwctl: len 5 GiB is over the 4 GiB limit of a region");

	/* not tmpfs: mwctl itself, on the root file system */
	RUN(&self->r, "region create file %s len 4K ro", prog_path(PROG_MWCTL));
	EXPECT_ERR(&self->r, 1, "mwctl: %s is not a tmpfs file: a file region needs one (in /dev/shm, say) or a memfd",
		   prog_path(PROG_MWCTL));

	/* a memfd sealed against writing, reached through /proc: ro only */
	memfd = memfd_create("mwctl-sealed", MFD_ALLOW_SEALING | MFD_CLOEXEC);
	ASSERT_LE(0, memfd);
	ASSERT_EQ(0, ftruncate(memfd, 4096));
	ASSERT_EQ(0, fcntl(memfd, F_ADD_SEALS, F_SEAL_WRITE));
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", getpid(), memfd);
	RUN(&self->r, "region create file %s len 4K", path);
	EXPECT_ERR(&self->r, 1, "mwctl: region create file %s: the memfd is sealed against writing: only a read-only region may have it",
		   path);
	RUN(&self->r, "region create file %s len 4K ro owned", path);
	EXPECT_OK(&self->r);
	EXPECT_NE(NULL, strstr(self->r.out, " kind file offset 0 ro\n"));
	close(memfd);
	unlink(SHM_PATH);
}

/* A user region is an application's (libmwin): show says whose and where. */
TEST_F(mw, region_show_user)
{
	size_t len = 2 * 4096;
	uint8_t *buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char want[256];
	uint32_t u;
	jv *j;

	ASSERT_NE(MAP_FAILED, buf);
	memset(buf, 0x5a, len);
	ASSERT_EQ(0, mwin_region_create_user(self->fd, buf, len,
					     MWIN_CREATE_FD_OWNED, &u));
	RUN(&self->r, "region show %u", u);
	EXPECT_OK(&self->r);
	snprintf(want, sizeof(want),
		 "region %u size 8192 windows 0 kind user pid %d addr %p\n",
		 u, getpid(), (void *)buf);
	EXPECT_STREQ(want, self->r.out);
	RUN(&self->r, "-j region show %u", u);
	j = jparse(self->r.out);
	ASSERT_NE(NULL, j);
	EXPECT_STREQ("user", jstr(jfind(jget(j, "regions"), "id", u), "kind"));
	EXPECT_EQ((uint64_t)getpid(), jnum(jfind(jget(j, "regions"), "id", u), "pid"));
	EXPECT_EQ((uintptr_t)buf, jnum(jfind(jget(j, "regions"), "id", u), "addr"));
	jfree(j);
	/* and the module's own, in the same list */
	RUN(&self->r, "region show");
	snprintf(want, sizeof(want), "region %u size 65536 windows 0 kind module\n",
		 self->region);
	EXPECT_NE(NULL, strstr(self->r.out, want));
	EXPECT_EQ(0, mwin_region_destroy(self->fd, u, 0));
	munmap(buf, len);
}

TEST_HARNESS_MAIN
