// SPDX-License-Identifier: GPL-2.0
/*
 * mwctl - operator CLI of mwin.ko, modelled on iproute2's rdma tool:
 *
 *   mwctl [OPTIONS] OBJECT COMMAND [ARGS]
 *
 * Each level (object, command) is a table of {name, func}; the first entry
 * runs when nothing is given, names may be abbreviated to any unambiguous
 * prefix, and "help" (or -h) prints the usage of that level. Every command
 * prints through one printer (tools/lib/print.c) that writes text lines or
 * one JSON document from the same calls. Errors print one line on stderr
 * and exit with status 1 (operation failed) or 2 (usage).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "libmwin.h"
#include "print.h"

#define MWCTL_VERSION	"1.0"

#define EXIT_FAIL	1
#define EXIT_USAGE	2

struct mw {
	int argc;
	char **argv;
	int fd;
	bool json;
	bool pretty;
	bool details;
	const char *obj;		/* "window", ... for messages */
	const char *cmd;		/* "create", ... */
	int (*usage)(struct mw *mw);	/* usage of the current object */
};

struct mw_cmd {
	const char *name;
	int (*func)(struct mw *mw);
};

static void name_cmd(struct mw *mw, const struct mw_cmd *cmds);

/* ---------------------------------------------------------------- errors */

static void vfail(int status, const char *fmt, va_list ap)
{
	char msg[512];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	fflush(stdout);
	fprintf(stderr, "mwctl: %s\n", msg);
	exit(status);
}

/* The operation failed: one line on stderr, exit 1. */
static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(EXIT_FAIL, fmt, ap);
	va_end(ap);
	exit(EXIT_FAIL);
}

/* The command line is wrong: one line on stderr, exit 2. */
static void __attribute__((noreturn, format(printf, 1, 2)))
usage_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(EXIT_USAGE, fmt, ap);
	va_end(ap);
	exit(EXIT_USAGE);
}

/* "2 MiB", "64 KiB", "12345 bytes" */
static const char *human(uint64_t v, char *buf, size_t len)
{
	if (v && !(v & ((1ULL << 30) - 1)))
		snprintf(buf, len, "%" PRIu64 " GiB", v >> 30);
	else if (v && !(v & ((1ULL << 20) - 1)))
		snprintf(buf, len, "%" PRIu64 " MiB", v >> 20);
	else if (v && !(v & ((1ULL << 10) - 1)))
		snprintf(buf, len, "%" PRIu64 " KiB", v >> 10);
	else
		snprintf(buf, len, "%" PRIu64 " bytes", v);
	return buf;
}

/* ---------------------------------------------------------------- usage */

static int usage_top(struct mw *mw)
{
	(void)mw;
	fputs("Usage: mwctl [OPTIONS] OBJECT { COMMAND | help }\n"
	      "       mwctl [OPTIONS] monitor\n"
	      "where  OBJECT := { dev | peer | region | window | monitor | help }\n"
	      "       OPTIONS := { -j[son] | -p[retty] | -d[etails] | -h[elp] | -V[ersion] }\n"
	      "  -j, --json     JSON output, one document per call (JSON lines for monitor)\n"
	      "  -p, --pretty   indented JSON (implies -j)\n"
	      "  -d, --details  more fields: counters, flags, mmap offsets\n"
	      "  -h, --help     this help; 'mwctl OBJECT help' for an object's commands\n"
	      "  -V, --version  print the version of mwctl\n"
	      "Objects, commands and keywords may be abbreviated: mwctl win sh = mwctl window show.\n",
	      stdout);
	return 0;
}

static int usage_dev(struct mw *mw)
{
	(void)mw;
	fputs("Usage: mwctl dev [ show ]\n"
	      "Module ABI version, listen port, limits and usage, and the RDMA devices\n"
	      "mwin uses with their window limits and capabilities.\n",
	      stdout);
	return 0;
}

static int usage_peer(struct mw *mw)
{
	(void)mw;
	fputs("Usage: mwctl peer [ show [ ID ] ]\n"
	      "       mwctl peer disconnect ID\n"
	      "Peers are RDMA CM connections made by remote hosts; disconnect tears one\n"
	      "down and unbinds its windows.\n",
	      stdout);
	return 0;
}

static int usage_region(struct mw *mw)
{
	(void)mw;
	fputs("Usage: mwctl region [ show [ ID ] ]\n"
	      "       mwctl region create size SIZE [ owned ]\n"
	      "       mwctl region destroy ID [ force ]\n"
	      "       mwctl region write ID [ offset OFF ] { hex HEX | file PATH }\n"
	      "       mwctl region read ID [ offset OFF ] len LEN [ file PATH ]\n"
	      "SIZE, OFF, LEN: bytes, decimal or 0x hex, with an optional K, M or G suffix.\n"
	      "owned: the region lives only as long as this mwctl call (a test of limits).\n"
	      "force: destroy the region's windows too (their rkeys are revoked first).\n"
	      "PATH '-' is stdin for write, stdout for read (raw bytes).\n",
	      stdout);
	return 0;
}

static int usage_window(struct mw *mw)
{
	(void)mw;
	fputs("Usage: mwctl window [ show [ ID ] ]\n"
	      "       mwctl window create region ID peer ID [ offset OFF ] len LEN access ACCESS\n"
	      "                           [ overlap ] [ quiet ]\n"
	      "       mwctl window rebind ID [ offset OFF ] [ len LEN ] [ access ACCESS ]\n"
	      "                           [ peer ID ] [ overlap ]\n"
	      "       mwctl window invalidate ID\n"
	      "       mwctl window destroy ID\n"
	      "ACCESS: letters r (read), w (write), a (atomic), e.g. rw.\n"
	      "OFF, LEN: bytes, decimal or 0x hex, with an optional K, M or G suffix.\n"
	      "overlap: allow the window to overlap other windows of its region.\n"
	      "quiet: send the peer no grant or revoke; hand the rkey out yourself.\n"
	      "rebind keeps the fields it is not given; the old rkey is dead when it returns.\n",
	      stdout);
	return 0;
}

static int usage_monitor(struct mw *mw)
{
	(void)mw;
	fputs("Usage: mwctl monitor\n"
	      "Prints one line per event (peer_up, peer_down, grant, revoke,\n"
	      "remote_invalidate, rejected_invalidate, lost) until SIGINT or SIGTERM.\n",
	      stdout);
	return 0;
}

/* ---------------------------------------------------------------- parsing */

static bool is_help(const char *s)
{
	return !strcmp(s, "help") || !strcmp(s, "-h") || !strcmp(s, "--help");
}

static bool prefix_of(const char *arg, const char *name)
{
	return *arg && !strncmp(arg, name, strlen(arg));
}

/*
 * The entry @arg names: an exact name, else the only name @arg is a prefix
 * of. @what is "object", "command" or "keyword"; @where for messages.
 */
static int match_name(const char *arg, const char *const *names, size_t n,
		      const char *what, const char *where, const char *hint)
{
	char list[256] = "";
	size_t i, len = 0;
	int found = -1, nfound = 0;

	for (i = 0; i < n; i++)
		if (!strcmp(arg, names[i]))
			return (int)i;
	for (i = 0; i < n; i++) {
		if (!prefix_of(arg, names[i]))
			continue;
		found = (int)i;
		nfound++;
		len += snprintf(list + len, sizeof(list) - len, "%s%s",
				nfound > 1 ? ", " : "", names[i]);
		if (len >= sizeof(list))
			len = sizeof(list) - 1;
	}
	if (nfound == 1)
		return found;
	if (nfound > 1)
		usage_err("'%s' is ambiguous%s%s: %s", arg, where ? " for " : "",
			  where ? where : "", list);
	usage_err("unknown %s '%s'%s%s (try '%s')", what, arg,
		  where ? " for " : "", where ? where : "", hint);
}

static int mw_exec(struct mw *mw, const struct mw_cmd *cmds)
{
	const char *names[16];
	char hint[64];
	size_t n;
	int i;

	for (n = 0; n < 16 && cmds[n].name; n++)
		names[n] = cmds[n].name;
	if (!mw->argc)
		return cmds[0].func(mw);
	if (is_help(mw->argv[0]))
		return mw->usage(mw);
	snprintf(hint, sizeof(hint), "mwctl %s%shelp", mw->obj ? mw->obj : "",
		 mw->obj ? " " : "");
	i = match_name(mw->argv[0], names, n, mw->obj ? "command" : "object",
		       mw->obj, hint);
	mw->argc--;
	mw->argv++;
	return cmds[i].func(mw);
}

/* decimal or 0x hex, optional K/M/G/T suffix (powers of 1024, "KiB" too) */
static bool parse_size(const char *s, uint64_t *out)
{
	const char *p = s;
	uint64_t v = 0, mult = 1;
	bool hex = false;
	int digits = 0;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		hex = true;
		p += 2;
	}
	for (; hex ? isxdigit((unsigned char)*p) : isdigit((unsigned char)*p); p++) {
		unsigned int d = isdigit((unsigned char)*p) ? (unsigned int)(*p - '0') :
				 (unsigned int)(tolower((unsigned char)*p) - 'a' + 10);
		unsigned int base = hex ? 16 : 10;

		if (v > (UINT64_MAX - d) / base)
			return false;
		v = v * base + d;
		digits++;
	}
	if (!digits)
		return false;
	if (*p) {
		switch (toupper((unsigned char)*p)) {
		case 'K':
			mult = 1ULL << 10;
			break;
		case 'M':
			mult = 1ULL << 20;
			break;
		case 'G':
			mult = 1ULL << 30;
			break;
		case 'T':
			mult = 1ULL << 40;
			break;
		default:
			return false;
		}
		p++;
		if (!strcmp(p, "iB"))
			p += 2;
		if (*p)
			return false;
	}
	if (v > UINT64_MAX / mult)
		return false;
	*out = v * mult;
	return true;
}

/* a positive 32-bit id, decimal or 0x hex */
static bool parse_id(const char *s, uint32_t *id)
{
	int base = 10;
	uint64_t v;
	char *end;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!isxdigit((unsigned char)*s) || (base == 10 && !isdigit((unsigned char)*s)))
		return false;
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno || *end || !v || v > UINT32_MAX)
		return false;
	*id = (uint32_t)v;
	return true;
}

/* the positional ID of a command */
static uint32_t take_id(struct mw *mw, const char *kind)
{
	uint32_t id;

	if (!mw->argc)
		usage_err("%s %s needs a %s ID", mw->obj, mw->cmd, kind);
	if (is_help(mw->argv[0])) {
		mw->usage(mw);
		exit(0);
	}
	if (!parse_id(mw->argv[0], &id))
		usage_err("bad %s id '%s' (a positive number)", kind, mw->argv[0]);
	mw->argc--;
	mw->argv++;
	return id;
}

enum kw_type { KW_FLAG, KW_ID, KW_SIZE, KW_ACCESS, KW_STR };

struct kw {
	const char *name;
	enum kw_type type;
	const char *meta;	/* "ID", "LEN"... for messages */
	bool required;
	bool set;
	uint64_t u;
	const char *s;
};

#define KW(_name, _type, _meta, _required) \
	{ .name = _name, .type = _type, .meta = _meta, .required = _required }

static struct kw *kw_find(struct kw *kws, const char *name)
{
	for (; kws->name; kws++)
		if (!strcmp(kws->name, name))
			return kws;
	return NULL;
}

static bool kw_set(struct kw *kws, const char *name)
{
	return kw_find(kws, name)->set;
}

static uint64_t kw_u(struct kw *kws, const char *name)
{
	return kw_find(kws, name)->u;
}

/* keyword [value] pairs in any order; exits on any mistake */
static void parse_kws(struct mw *mw, struct kw *kws)
{
	const char *names[16];
	char where[64], expected[160] = "";
	size_t n, len = 0;

	for (n = 0; n < 16 && kws[n].name; n++) {
		names[n] = kws[n].name;
		len += snprintf(expected + len, sizeof(expected) - len, "%s%s",
				n ? ", " : "", kws[n].name);
		if (len >= sizeof(expected))
			len = sizeof(expected) - 1;
	}
	snprintf(where, sizeof(where), "%s %s", mw->obj, mw->cmd);

	while (mw->argc) {
		const char *arg = mw->argv[0], *val;
		struct kw *k;
		int i;
		int a;

		if (is_help(arg)) {
			mw->usage(mw);
			exit(0);
		}
		if (!n)
			usage_err("unexpected argument '%s' for %s", arg, where);
		for (i = -1, a = 0; a < (int)n; a++)
			if (!strcmp(arg, names[a]))
				i = a;
		if (i < 0) {
			int nfound = 0;

			for (a = 0; a < (int)n; a++)
				if (prefix_of(arg, names[a]))
					nfound++;
			if (!nfound)
				usage_err("unknown keyword '%s' for %s (expected %s)",
					  arg, where, expected);
			i = match_name(arg, names, n, "keyword", where, "");
		}
		k = &kws[i];
		if (k->set)
			usage_err("'%s' given twice", k->name);
		k->set = true;
		mw->argc--;
		mw->argv++;
		if (k->type == KW_FLAG)
			continue;
		if (!mw->argc)
			usage_err("'%s' needs a value (%s %s)", k->name, k->name,
				  k->meta);
		val = mw->argv[0];
		mw->argc--;
		mw->argv++;
		switch (k->type) {
		case KW_ID: {
			uint32_t id;

			if (!parse_id(val, &id))
				usage_err("bad %s id '%s' (a positive number)",
					  k->name, val);
			k->u = id;
			break;
		}
		case KW_SIZE:
			if (!parse_size(val, &k->u))
				usage_err("bad size '%s' for '%s' (bytes: 4096, 0x1000, 64K, 2M, 1G)",
					  val, k->name);
			break;
		case KW_ACCESS: {
			int acc = mwin_access_parse(val);

			if (acc < 0)
				usage_err("bad access '%s' (letters r, w, a, e.g. rw)",
					  val);
			k->u = (uint64_t)acc;
			break;
		}
		case KW_STR:
			k->s = val;
			break;
		case KW_FLAG:
			break;
		}
	}
	for (n = 0; kws[n].name; n++)
		if (kws[n].required && !kws[n].set)
			usage_err("%s needs '%s %s'", where, kws[n].name,
				  kws[n].meta);
}

/* no arguments allowed but help */
static void no_args(struct mw *mw)
{
	struct kw none[] = { { 0 } };

	parse_kws(mw, none);
}

/* ---------------------------------------------------------------- device */

static void mw_open(struct mw *mw)
{
	int fd;

	if (mw->fd >= 0)
		return;
	fd = mwin_open();
	if (fd == -ENOENT || fd == -ENODEV || fd == -ENXIO)
		die("cannot open %s: %s (is the mwin module loaded?)",
		    MWIN_DEV_PATH, strerror(-fd));
	if (fd == -EACCES || fd == -EPERM)
		die("cannot open %s: %s (run as root, or as a member of the group a udev rule opens it to)",
		    MWIN_DEV_PATH, strerror(-fd));
	if (fd < 0)
		die("cannot open %s: %s", MWIN_DEV_PATH, strerror(-fd));
	mw->fd = fd;
}

/* failures every command may see */
static void common_errors(int err, const char *what)
{
	if (err == -EPERM)
		die("%s: %s (needs CAP_SYS_ADMIN)", what, strerror(-err));
	if (err == -ENOTTY)
		die("%s: the loaded mwin module does not know this command (ABI %u expected)",
		    what, (unsigned int)MWIN_ABI_VERSION);
}

/* all devices; *n set to their number; free() the result */
static struct mwin_dev_info *get_info(struct mw *mw, struct mwin_info *info,
				      uint32_t *n)
{
	struct mwin_dev_info *devs = NULL;
	uint32_t cap = 4;

	for (;;) {
		int ret;

		free(devs);
		devs = calloc(cap, sizeof(*devs));
		if (!devs)
			die("out of memory");
		ret = mwin_info(mw->fd, info, devs, cap);
		if (ret) {
			common_errors(ret, "dev show");
			die("cannot read module info: %s", strerror(-ret));
		}
		if (info->nr_devs <= cap)
			break;
		cap = info->nr_devs + 4;
	}
	*n = info->nr_devs;
	return devs;
}

/* the device info named @name, or false */
static bool find_dev(struct mw *mw, const char *name, struct mwin_dev_info *out)
{
	struct mwin_info info;
	struct mwin_dev_info *devs;
	uint32_t n, i;
	bool found = false;

	devs = get_info(mw, &info, &n);
	for (i = 0; i < n; i++) {
		if (!strncmp(devs[i].name, name, sizeof(devs[i].name))) {
			*out = devs[i];
			found = true;
			break;
		}
	}
	free(devs);
	return found;
}

static void read_sysfs(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (!f)
		return;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

static int dev_show(struct mw *mw)
{
	struct mwin_dev_info *devs;
	struct mwin_info info;
	char version[64], srcversion[64];
	uint32_t n, i;

	no_args(mw);
	mw_open(mw);
	devs = get_info(mw, &info, &n);
	read_sysfs("/sys/module/mwin/version", version, sizeof(version));
	read_sysfs("/sys/module/mwin/srcversion", srcversion, sizeof(srcversion));

	pr_doc_begin();
	pr_label("module");
	pr_str(PR_TEXT, "module", "mwin");
	if (*version)
		pr_str(PR_ANY, "version", version);
	pr_label("abi");
	pr_uint(PR_ANY, "abi_version", info.abi_version);
	pr_uint(PR_ANY, "port", info.port);
	pr_uint(PR_ANY, "regions", info.nr_regions);
	pr_uint(PR_ANY, "region_bytes", info.region_bytes);
	pr_uint(PR_ANY, "max_region_bytes", info.max_region_bytes);
	pr_uint(PR_ANY, "windows", info.nr_windows);
	pr_uint(PR_ANY, "max_windows", info.max_windows);
	pr_uint(PR_ANY, "peers", info.nr_peers);
	pr_uint(PR_ANY, "max_peers", info.max_peers);
	if (mw->details && *srcversion)
		pr_str(PR_ANY, "srcversion", srcversion);
	pr_nl();
	pr_array_begin(PR_ANY, "devs");
	for (i = 0; i < n; i++) {
		const struct mwin_dev_info *d = &devs[i];
		const char *caps[2];
		size_t nc = 0;
		char name[sizeof(d->name) + 1];

		memcpy(name, d->name, sizeof(d->name));
		name[sizeof(d->name)] = '\0';
		if (d->caps & MWIN_DEV_CAP_FAST_REG)
			caps[nc++] = "fast_reg";
		if (d->caps & MWIN_DEV_CAP_ATOMIC)
			caps[nc++] = "atomic";
		pr_obj_begin(PR_ANY, NULL);
		pr_label("dev");
		pr_str(PR_ANY, "name", name);
		pr_uint(PR_ANY, "index", d->index);
		pr_uint(PR_ANY, "max_window_bytes", d->max_window_bytes);
		pr_uint(PR_ANY, "max_pages", d->max_pages);
		pr_strlist(PR_ANY, "caps", caps, nc);
		pr_uint(PR_ANY, "peers", d->nr_peers);
		if (mw->details)
			pr_hex(PR_ANY, "page_size_cap", d->page_size_cap, 0);
		pr_obj_end(PR_ANY);
	}
	pr_array_end(PR_ANY);
	pr_doc_end();
	free(devs);
	return 0;
}

static int cmd_dev(struct mw *mw)
{
	static const struct mw_cmd cmds[] = {
		{ "show", dev_show },
		{ "help", usage_dev },
		{ 0 },
	};

	mw->obj = "dev";
	mw->usage = usage_dev;
	name_cmd(mw, cmds);
	return mw_exec(mw, cmds);
}

/* ---------------------------------------------------------------- peer */

static void peer_addr(const uint8_t *addr, char *host, size_t len,
		      unsigned int *port)
{
	sa_family_t family;

	memcpy(&family, addr, sizeof(family));
	*port = 0;
	snprintf(host, len, "-");
	if (family == AF_INET) {
		struct sockaddr_in sin;

		memcpy(&sin, addr, sizeof(sin));
		inet_ntop(AF_INET, &sin.sin_addr, host, (socklen_t)len);
		*port = ntohs(sin.sin_port);
	} else if (family == AF_INET6) {
		struct sockaddr_in6 sin6;

		memcpy(&sin6, addr, sizeof(sin6));
		inet_ntop(AF_INET6, &sin6.sin6_addr, host, (socklen_t)len);
		*port = ntohs(sin6.sin6_port);
	}
}

static void print_peer(struct mw *mw, const struct mwin_peer_info *p)
{
	char host[INET6_ADDRSTRLEN + 8], hostport[INET6_ADDRSTRLEN + 16];
	char dev[sizeof(p->dev_name) + 1];
	unsigned int port;

	peer_addr(p->addr, host, sizeof(host), &port);
	if (strchr(host, ':'))
		snprintf(hostport, sizeof(hostport), "[%s]:%u", host, port);
	else
		snprintf(hostport, sizeof(hostport), "%s:%u", host, port);
	memcpy(dev, p->dev_name, sizeof(p->dev_name));
	dev[sizeof(p->dev_name)] = '\0';

	pr_label("peer");
	pr_uint(PR_ANY, "id", p->id);
	pr_str(PR_TEXT, "addr", hostport);
	pr_str(PR_JSON, "addr", host);
	pr_uint(PR_JSON, "port", port);
	pr_str(PR_ANY, "dev", dev);
	pr_uint(PR_ANY, "qpn", p->qpn);
	pr_str(PR_ANY, "state", mwin_peer_state_name(p->state));
	pr_uint(PR_ANY, "windows", p->nr_windows);
	if (mw->details) {
		pr_uint(PR_ANY, "msgs_sent", p->msgs_sent);
		pr_uint(PR_ANY, "msgs_received", p->msgs_received);
		pr_uint(PR_ANY, "remote_invalidations", p->remote_invalidations);
		pr_uint(PR_ANY, "rejected_invalidations",
			p->rejected_invalidations);
	}
}

static int peer_show(struct mw *mw)
{
	struct mwin_peer_info p;
	uint32_t id = 0;
	int ret;

	if (mw->argc && !is_help(mw->argv[0]))
		id = take_id(mw, "peer");
	no_args(mw);
	mw_open(mw);

	pr_doc_begin();
	pr_array_begin(PR_ANY, "peers");
	if (id) {
		ret = mwin_peer_get(mw->fd, id, 0, &p);
		if (ret == -ENOENT)
			die("no peer %u", id);
		if (ret) {
			common_errors(ret, "peer show");
			die("peer show: %s", strerror(-ret));
		}
		pr_obj_begin(PR_ANY, NULL);
		print_peer(mw, &p);
		pr_obj_end(PR_ANY);
	} else {
		while (!(ret = mwin_peer_get(mw->fd, id, MWIN_GET_NEXT, &p))) {
			pr_obj_begin(PR_ANY, NULL);
			print_peer(mw, &p);
			pr_obj_end(PR_ANY);
			id = p.id;
		}
		if (ret != -ENOENT) {
			common_errors(ret, "peer show");
			die("peer show: %s", strerror(-ret));
		}
	}
	pr_array_end(PR_ANY);
	pr_doc_end();
	return 0;
}

static int peer_disconnect(struct mw *mw)
{
	uint32_t id = take_id(mw, "peer");
	int ret;

	no_args(mw);
	mw_open(mw);
	ret = mwin_peer_disconnect(mw->fd, id);
	if (ret == -ENOENT)
		die("no peer %u", id);
	if (ret) {
		common_errors(ret, "peer disconnect");
		die("peer disconnect %u: %s", id, strerror(-ret));
	}
	pr_doc_begin();
	pr_label("peer");
	pr_uint(PR_ANY, "id", id);
	pr_bool(PR_ANY, "disconnected", true);
	pr_doc_end();
	return 0;
}

static int cmd_peer(struct mw *mw)
{
	static const struct mw_cmd cmds[] = {
		{ "show", peer_show },
		{ "disconnect", peer_disconnect },
		{ "help", usage_peer },
		{ 0 },
	};

	mw->obj = "peer";
	mw->usage = usage_peer;
	name_cmd(mw, cmds);
	return mw_exec(mw, cmds);
}

/* ---------------------------------------------------------------- region */

static void get_region(struct mw *mw, uint32_t id, struct mwin_region_info *r,
		       const char *what)
{
	int ret = mwin_region_get(mw->fd, id, 0, r);

	if (ret == -ENOENT)
		die("no region %u", id);
	if (ret) {
		common_errors(ret, what);
		die("%s: %s", what, strerror(-ret));
	}
}

static void print_region(struct mw *mw, const struct mwin_region_info *r)
{
	pr_label("region");
	pr_uint(PR_ANY, "id", r->id);
	pr_uint(PR_ANY, "size", r->length);
	pr_uint(PR_ANY, "windows", r->nr_windows);
	if (mw->details) {
		pr_hex(PR_ANY, "mmap_offset", r->mmap_offset, 0);
		pr_bool(PR_ANY, "owned", r->rflags & MWIN_CREATE_FD_OWNED);
	}
}

static int region_show(struct mw *mw)
{
	struct mwin_region_info r;
	uint32_t id = 0;

	if (mw->argc && !is_help(mw->argv[0]))
		id = take_id(mw, "region");
	no_args(mw);
	mw_open(mw);

	pr_doc_begin();
	pr_array_begin(PR_ANY, "regions");
	if (id) {
		get_region(mw, id, &r, "region show");
		pr_obj_begin(PR_ANY, NULL);
		print_region(mw, &r);
		pr_obj_end(PR_ANY);
	} else {
		int ret;

		while (!(ret = mwin_region_get(mw->fd, id, MWIN_GET_NEXT, &r))) {
			pr_obj_begin(PR_ANY, NULL);
			print_region(mw, &r);
			pr_obj_end(PR_ANY);
			id = r.id;
		}
		if (ret != -ENOENT) {
			common_errors(ret, "region show");
			die("region show: %s", strerror(-ret));
		}
	}
	pr_array_end(PR_ANY);
	pr_doc_end();
	return 0;
}

static int region_create(struct mw *mw)
{
	struct kw kws[] = {
		KW("size", KW_SIZE, "SIZE", true),
		KW("owned", KW_FLAG, "", false),
		{ 0 },
	};
	struct mwin_region_info r;
	struct mwin_info info;
	uint64_t size, off;
	uint32_t id;
	char a[32];
	int ret;

	parse_kws(mw, kws);
	size = kw_u(kws, "size");
	if (!size)
		usage_err("size must be at least 1 byte");
	if (size > (1ULL << 32))
		usage_err("size %s is over the 4 GiB limit of a region",
			  human(size, a, sizeof(a)));
	mw_open(mw);
	ret = mwin_region_create(mw->fd, size,
				 kw_set(kws, "owned") ? MWIN_CREATE_FD_OWNED : 0,
				 &id, &off);
	if (ret == -ENOSPC) {
		if (!mwin_info(mw->fd, &info, NULL, 0)) {
			char b[32], c[32];

			die("no room for a region of %s: regions hold %s of %s (module parameter max_region_mb)",
			    human(size, a, sizeof(a)),
			    human(info.region_bytes, b, sizeof(b)),
			    human(info.max_region_bytes, c, sizeof(c)));
		}
		die("no room for a region of %s", human(size, a, sizeof(a)));
	}
	if (ret == -ENOMEM)
		die("out of memory for a region of %s", human(size, a, sizeof(a)));
	if (ret) {
		common_errors(ret, "region create");
		die("region create: %s", strerror(-ret));
	}
	if (mwin_region_get(mw->fd, id, 0, &r)) {
		/* destroyed at once by someone else: say what we made */
		memset(&r, 0, sizeof(r));
		r.id = id;
		r.length = (size + 4095) & ~4095ULL;
		r.mmap_offset = off;
	}
	pr_doc_begin();
	print_region(mw, &r);
	pr_doc_end();
	return 0;
}

static int region_destroy(struct mw *mw)
{
	struct kw kws[] = {
		KW("force", KW_FLAG, "", false),
		{ 0 },
	};
	uint32_t id;
	int ret;

	id = take_id(mw, "region");
	parse_kws(mw, kws);
	mw_open(mw);
	ret = mwin_region_destroy(mw->fd, id, kw_set(kws, "force") ?
				  MWIN_REGION_DESTROY_FORCE : 0);
	if (ret == -ENOENT)
		die("no region %u", id);
	if (ret == -EBUSY)
		die("region %u has windows; pass 'force' to destroy them too", id);
	if (ret) {
		common_errors(ret, "region destroy");
		die("region destroy %u: %s", id, strerror(-ret));
	}
	pr_doc_begin();
	pr_label("region");
	pr_uint(PR_ANY, "id", id);
	pr_bool(PR_ANY, "destroyed", true);
	pr_doc_end();
	return 0;
}

/* map bytes [off, off + len) of region @r; *base gets the mapping */
static uint8_t *map_range(struct mw *mw, const struct mwin_region_info *r,
			  uint64_t off, uint64_t len, void **base,
			  size_t *maplen)
{
	uint64_t ps = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t first = off & ~(ps - 1);
	uint64_t end = (off + len + ps - 1) & ~(ps - 1);
	void *p;

	*maplen = (size_t)(end - first);
	p = mmap(NULL, *maplen, PROT_READ | PROT_WRITE, MAP_SHARED, mw->fd,
		 (off_t)(r->mmap_offset + first));
	if (p == MAP_FAILED)
		die("cannot map region %u: %s", r->id, strerror(errno));
	*base = p;
	return (uint8_t *)p + (off - first);
}

static void check_range(const struct mwin_region_info *r, uint64_t off,
			uint64_t len)
{
	if (off > r->length || len > r->length - off)
		die("offset %" PRIu64 " len %" PRIu64 " leaves region %u (%" PRIu64 " bytes)",
		    off, len, r->id, (uint64_t)r->length);
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static uint8_t *read_all(int fd, const char *path, size_t *len)
{
	size_t cap = 65536, n = 0;
	uint8_t *buf = malloc(cap);

	if (!buf)
		die("out of memory");
	for (;;) {
		ssize_t r;

		if (n == cap) {
			uint8_t *nb;

			if (cap > (1ULL << 33))
				die("file %s is larger than any region", path);
			nb = realloc(buf, cap * 2);
			if (!nb)
				die("out of memory");
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			die("cannot read %s: %s", path, strerror(errno));
		if (!r)
			break;
		n += (size_t)r;
	}
	*len = n;
	return buf;
}

static int region_write(struct mw *mw)
{
	struct kw kws[] = {
		KW("offset", KW_SIZE, "OFF", false),
		KW("hex", KW_STR, "HEX", false),
		KW("file", KW_STR, "PATH", false),
		{ 0 },
	};
	struct mwin_region_info r;
	const char *hex, *path;
	uint8_t *data, *dst;
	uint64_t off;
	size_t len = 0, maplen;
	void *base;
	uint32_t id;

	id = take_id(mw, "region");
	parse_kws(mw, kws);
	hex = kw_find(kws, "hex")->s;
	path = kw_find(kws, "file")->s;
	off = kw_u(kws, "offset");
	if (!hex == !path)
		usage_err("region write needs one of 'hex HEX' or 'file PATH'");
	if (hex) {
		const char *h = hex;
		size_t i;

		if (h[0] == '0' && (h[1] == 'x' || h[1] == 'X'))
			h += 2;
		len = strlen(h);
		if (!len || len % 2)
			usage_err("bad hex '%s' (an even number of hex digits, e.g. 68656c6c6f)",
				  hex);
		len /= 2;
		data = malloc(len);
		if (!data)
			die("out of memory");
		for (i = 0; i < len; i++) {
			int hi = hexval((unsigned char)h[2 * i]);
			int lo = hexval((unsigned char)h[2 * i + 1]);

			if (hi < 0 || lo < 0)
				usage_err("bad hex '%s' (an even number of hex digits, e.g. 68656c6c6f)",
					  hex);
			data[i] = (uint8_t)(hi << 4 | lo);
		}
	} else {
		int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) :
					     STDIN_FILENO;

		if (fd < 0)
			die("cannot open %s: %s", path, strerror(errno));
		data = read_all(fd, path, &len);
		if (fd != STDIN_FILENO)
			close(fd);
		if (!len)
			die("file %s is empty: nothing to write", path);
	}
	mw_open(mw);
	get_region(mw, id, &r, "region write");
	check_range(&r, off, len);
	dst = map_range(mw, &r, off, len, &base, &maplen);
	memcpy(dst, data, len);
	munmap(base, maplen);
	free(data);

	pr_doc_begin();
	pr_label("region");
	pr_uint(PR_ANY, "id", id);
	pr_uint(PR_ANY, "offset", off);
	pr_uint(PR_ANY, "len", len);
	pr_doc_end();
	return 0;
}

/* hexdump -C style; offsets relative to the first byte shown */
static void hexdump(const uint8_t *d, size_t n)
{
	const uint8_t *prev = NULL;
	bool star = false;
	size_t off;

	if (!n)
		return;
	for (off = 0; off < n; off += 16) {
		const uint8_t *line = d + off;
		size_t m = 16, j;

		if (off + 16 > n)
			m = n - off;	/* the last, short line */

		/* a full line like the one before: one "*" for the run */
		if (prev && m == 16 && !memcmp(line, prev, 16)) {
			if (!star)
				pr_text("*\n");
			star = true;
			continue;
		}
		prev = line;
		star = false;
		pr_text("%08zx ", off);
		for (j = 0; j < 16; j++) {
			if (j == 8)
				pr_text(" ");
			if (j < m)
				pr_text(" %02x", line[j]);
			else
				pr_text("   ");
		}
		pr_text("  |");
		for (j = 0; j < m; j++)
			pr_text("%c", isprint(line[j]) ? line[j] : '.');
		pr_text("|\n");
	}
	pr_text("%08zx\n", n);
}

static void write_all(int fd, const uint8_t *d, size_t n, const char *path)
{
	while (n) {
		ssize_t w = write(fd, d, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			die("cannot write %s: %s", path, strerror(errno));
		d += w;
		n -= (size_t)w;
	}
}

static int region_read(struct mw *mw)
{
	struct kw kws[] = {
		KW("offset", KW_SIZE, "OFF", false),
		KW("len", KW_SIZE, "LEN", true),
		KW("file", KW_STR, "PATH", false),
		{ 0 },
	};
	struct mwin_region_info r;
	const char *path;
	uint64_t off, len;
	size_t maplen;
	uint8_t *src;
	void *base;
	uint32_t id;

	id = take_id(mw, "region");
	parse_kws(mw, kws);
	off = kw_u(kws, "offset");
	len = kw_u(kws, "len");
	path = kw_find(kws, "file")->s;
	if (!len)
		usage_err("len must be at least 1 byte");
	mw_open(mw);
	get_region(mw, id, &r, "region read");
	check_range(&r, off, len);
	src = map_range(mw, &r, off, len, &base, &maplen);

	if (path) {
		bool out = !strcmp(path, "-");
		int fd = out ? STDOUT_FILENO :
			 open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

		if (fd < 0)
			die("cannot create %s: %s", path, strerror(errno));
		write_all(fd, src, (size_t)len, path);
		if (!out && close(fd))
			die("cannot write %s: %s", path, strerror(errno));
		munmap(base, maplen);
		if (out)
			return 0;
		pr_doc_begin();
		pr_label("region");
		pr_uint(PR_ANY, "id", id);
		pr_uint(PR_ANY, "offset", off);
		pr_uint(PR_ANY, "len", len);
		pr_str(PR_ANY, "file", path);
		pr_doc_end();
		return 0;
	}

	pr_doc_begin();
	if (pr_json()) {
		static const char hx[] = "0123456789abcdef";
		char *s = malloc((size_t)len * 2 + 1);
		size_t i;

		if (!s)
			die("out of memory");
		for (i = 0; i < len; i++) {
			s[2 * i] = hx[src[i] >> 4];
			s[2 * i + 1] = hx[src[i] & 15];
		}
		s[2 * len] = '\0';
		pr_uint(PR_JSON, "id", id);
		pr_uint(PR_JSON, "offset", off);
		pr_uint(PR_JSON, "len", len);
		pr_str(PR_JSON, "data", s);
		free(s);
	} else {
		hexdump(src, (size_t)len);
	}
	pr_doc_end();
	munmap(base, maplen);
	return 0;
}

/* ---------------------------------------------------------------- window */

static void print_window(struct mw *mw, const struct mwin_window_info *w)
{
	char acc[5];

	pr_label("window");
	pr_uint(PR_ANY, "id", w->id);
	pr_uint(PR_ANY, "region", w->region);
	pr_uint(PR_ANY, "peer", w->peer);
	pr_str(PR_ANY, "state", mwin_window_state_name(w->state));
	pr_hex(PR_ANY, "rkey", w->rkey, 8);
	pr_hex(PR_ANY, "iova", w->iova, 0);
	pr_uint(PR_ANY, "len", w->length);
	pr_str(PR_ANY, "access", mwin_access_str(w->access, acc));
	if (mw->details) {
		pr_uint(PR_ANY, "offset", w->offset);
		pr_bool(PR_ANY, "overlap", w->wflags & MWIN_WINDOW_OVERLAP);
		pr_bool(PR_ANY, "fd_owned", w->wflags & MWIN_CREATE_FD_OWNED);
		pr_bool(PR_ANY, "quiet", w->wflags & MWIN_WINDOW_QUIET);
		pr_uint(PR_ANY, "binds", w->binds);
		pr_uint(PR_ANY, "invalidations", w->invalidations);
		pr_uint(PR_ANY, "remote_invalidations", w->remote_invalidations);
	}
}

static void get_window(struct mw *mw, uint32_t id, struct mwin_window_info *w,
		       const char *what)
{
	int ret = mwin_window_get(mw->fd, id, 0, w);

	if (ret == -ENOENT)
		die("no window %u", id);
	if (ret) {
		common_errors(ret, what);
		die("%s: %s", what, strerror(-ret));
	}
}

static int window_show(struct mw *mw)
{
	struct mwin_window_info w;
	uint32_t id = 0;

	if (mw->argc && !is_help(mw->argv[0]))
		id = take_id(mw, "window");
	no_args(mw);
	mw_open(mw);

	pr_doc_begin();
	pr_array_begin(PR_ANY, "windows");
	if (id) {
		get_window(mw, id, &w, "window show");
		pr_obj_begin(PR_ANY, NULL);
		print_window(mw, &w);
		pr_obj_end(PR_ANY);
	} else {
		int ret;

		while (!(ret = mwin_window_get(mw->fd, id, MWIN_GET_NEXT, &w))) {
			pr_obj_begin(PR_ANY, NULL);
			print_window(mw, &w);
			pr_obj_end(PR_ANY);
			id = w.id;
		}
		if (ret != -ENOENT) {
			common_errors(ret, "window show");
			die("window show: %s", strerror(-ret));
		}
	}
	pr_array_end(PR_ANY);
	pr_doc_end();
	return 0;
}

/* print one window as the whole document */
static void window_result(struct mw *mw, uint32_t id,
			  const struct mwin_window_bind *b)
{
	struct mwin_window_info w;

	if (mwin_window_get(mw->fd, id, 0, &w)) {
		/* gone already (its peer left, or someone destroyed it) */
		memset(&w, 0, sizeof(w));
		w.id = id;
		if (b) {
			w.region = b->region;
			w.peer = b->peer;
			w.state = MWIN_WINDOW_BOUND;
			w.access = b->access;
			w.rkey = b->rkey;
			w.offset = b->offset;
			w.length = b->length;
			w.iova = b->iova;
		}
	}
	pr_doc_begin();
	print_window(mw, &w);
	pr_doc_end();
}

/* the first other window of @region that meets [off, off + len) */
static bool find_overlap(struct mw *mw, uint32_t region, uint32_t self,
			 uint64_t off, uint64_t len,
			 struct mwin_window_info *out)
{
	struct mwin_window_info w;
	uint32_t id = 0;

	while (!mwin_window_get(mw->fd, id, MWIN_GET_NEXT, &w)) {
		id = w.id;
		if (w.region != region || w.id == self)
			continue;
		if (w.offset <= off + len - 1 && off <= w.offset + w.length - 1) {
			*out = w;
			return true;
		}
	}
	return false;
}

/*
 * Explain a failed WINDOW_CREATE (@id 0) or WINDOW_REBIND of window @id in
 * this module's terms, and exit. @region is the window's region, @peer the
 * peer it was to be granted to (0: a rebind that kept an unknown peer).
 */
static void __attribute__((noreturn))
bind_failed(struct mw *mw, int err, uint32_t id, uint32_t region,
	    uint32_t peer, const struct mwin_window_bind *b)
{
	const char *what = id ? "window rebind" : "window create";
	char who[32];
	struct mwin_region_info r;
	struct mwin_peer_info p;
	struct mwin_window_info w;
	struct mwin_dev_info d;
	struct mwin_info info;
	bool have_dev = false;
	char dev[sizeof(p.dev_name) + 1] = "the device";

	if (id)
		snprintf(who, sizeof(who), "window %u", id);
	else
		snprintf(who, sizeof(who), "new window");

	if (peer && !mwin_peer_get(mw->fd, peer, 0, &p)) {
		memcpy(dev, p.dev_name, sizeof(p.dev_name));
		dev[sizeof(p.dev_name)] = '\0';
		have_dev = find_dev(mw, dev, &d);
	}

	switch (err) {
	case -ENOENT:
		if (id && mwin_window_get(mw->fd, id, 0, &w) == -ENOENT)
			die("no window %u", id);
		if (region && mwin_region_get(mw->fd, region, 0, &r) == -ENOENT)
			die("no region %u", region);
		if (peer && mwin_peer_get(mw->fd, peer, 0, &p) == -ENOENT)
			die("no peer %u", peer);
		break;
	case -ENOTCONN:
		if (peer)
			die("peer %u is gone", peer);
		die("%s is unbound (its peer is gone); pass 'peer ID'", who);
	case -EBUSY:
		if (find_overlap(mw, region, id, b->offset, b->length, &w))
			die("%s overlaps window %u (offset %" PRIu64 "-%" PRIu64 "); pass 'overlap' to allow",
			    who, w.id, (uint64_t)w.offset,
			    (uint64_t)(w.offset + w.length - 1));
		die("%s overlaps another window of region %u; pass 'overlap' to allow",
		    who, region);
	case -E2BIG:
		if (have_dev) {
			uint64_t ps = (uint64_t)sysconf(_SC_PAGESIZE);
			uint64_t pages = ((b->offset + b->length - 1) / ps) -
					 b->offset / ps + 1;

			if (b->length > d.max_window_bytes) {
				char a[32];

				die("window larger than %s can map (at most %s); use a smaller len or several windows",
				    dev, human(d.max_window_bytes, a, sizeof(a)));
			}
			die("window spans %" PRIu64 " pages, more than %s can map (at most %u); align offset to %" PRIu64 " or use a smaller len",
			    pages, dev, d.max_pages, ps);
		}
		die("window larger than the peer's device can map; use a smaller len");
	case -ERANGE:
		if (!mwin_region_get(mw->fd, region, 0, &r))
			die("offset %" PRIu64 " len %" PRIu64 " leaves region %u (%" PRIu64 " bytes)",
			    (uint64_t)b->offset, (uint64_t)b->length, region,
			    (uint64_t)r.length);
		die("offset %" PRIu64 " len %" PRIu64 " leaves region %u",
		    (uint64_t)b->offset, (uint64_t)b->length, region);
	case -EOPNOTSUPP:
		if (have_dev && !(d.caps & MWIN_DEV_CAP_FAST_REG))
			die("%s cannot map windows (no fast registration)", dev);
		if (b->access & MWIN_ACCESS_ATOMIC)
			die("%s has no atomics; drop 'a' from access", dev);
		die("%s cannot map this window: %s", dev, strerror(-err));
	case -ENOSPC:
		if (!mwin_info(mw->fd, &info, NULL, 0))
			die("window limit reached (%u of max_windows %u)",
			    info.nr_windows, info.max_windows);
		die("window limit reached");
	case -EIO:
		if (id && !mwin_window_get(mw->fd, id, 0, &w))
			die("%s failed in the device (%s); window %u is now %s and its peer is being torn down",
			    what, strerror(-err), id, mwin_window_state_name(w.state));
		die("%s failed in the device (%s); the peer is being torn down",
		    what, strerror(-err));
	case -ETIMEDOUT:
		die("%s: %s did not answer in time; the window is broken and its peer is being torn down",
		    what, dev);
	case -ENOMEM:
		die("%s: out of memory", what);
	}
	common_errors(err, what);
	die("%s: %s", what, strerror(-err));
}

static int window_create(struct mw *mw)
{
	struct kw kws[] = {
		KW("region", KW_ID, "ID", true),
		KW("peer", KW_ID, "ID", true),
		KW("offset", KW_SIZE, "OFF", false),
		KW("len", KW_SIZE, "LEN", true),
		KW("access", KW_ACCESS, "ACCESS", true),
		KW("overlap", KW_FLAG, "", false),
		KW("quiet", KW_FLAG, "", false),
		{ 0 },
	};
	struct mwin_window_bind b = { 0 };
	int ret;

	parse_kws(mw, kws);
	b.region = (uint32_t)kw_u(kws, "region");
	b.peer = (uint32_t)kw_u(kws, "peer");
	b.offset = kw_u(kws, "offset");
	b.length = kw_u(kws, "len");
	b.access = (uint32_t)kw_u(kws, "access");
	b.flags = (kw_set(kws, "overlap") ? MWIN_WINDOW_OVERLAP : 0) |
		  (kw_set(kws, "quiet") ? MWIN_WINDOW_QUIET : 0);
	if (!b.length)
		usage_err("len must be at least 1 byte");
	mw_open(mw);
	ret = mwin_window_create(mw->fd, &b);
	if (ret)
		bind_failed(mw, ret, 0, b.region, b.peer, &b);
	window_result(mw, b.id, &b);
	return 0;
}

static int window_rebind(struct mw *mw)
{
	struct kw kws[] = {
		KW("offset", KW_SIZE, "OFF", false),
		KW("len", KW_SIZE, "LEN", false),
		KW("access", KW_ACCESS, "ACCESS", false),
		KW("peer", KW_ID, "ID", false),
		KW("overlap", KW_FLAG, "", false),
		{ 0 },
	};
	struct mwin_window_bind b = { 0 };
	struct mwin_window_info w;
	uint32_t id;
	int ret;

	id = take_id(mw, "window");
	parse_kws(mw, kws);
	if (kw_set(kws, "len") && !kw_u(kws, "len"))
		usage_err("len must be at least 1 byte");
	mw_open(mw);
	get_window(mw, id, &w, "window rebind");
	if (w.state == MWIN_WINDOW_BROKEN)
		die("window %u is broken: it can only be destroyed", id);
	b.id = id;
	b.offset = kw_set(kws, "offset") ? kw_u(kws, "offset") : w.offset;
	b.length = kw_set(kws, "len") ? kw_u(kws, "len") : w.length;
	b.access = kw_set(kws, "access") ? (uint32_t)kw_u(kws, "access") :
					   w.access;
	b.peer = kw_set(kws, "peer") ? (uint32_t)kw_u(kws, "peer") : 0;
	b.flags = kw_set(kws, "overlap") ? MWIN_WINDOW_OVERLAP : 0;
	if (!b.peer && !w.peer)
		die("window %u is unbound (its peer is gone); pass 'peer ID'", id);
	ret = mwin_window_rebind(mw->fd, &b);
	if (ret)
		bind_failed(mw, ret, id, w.region, b.peer ? b.peer : w.peer, &b);
	b.region = w.region;
	if (!b.peer)
		b.peer = w.peer;
	window_result(mw, id, &b);
	return 0;
}

static int window_invalidate(struct mw *mw)
{
	struct mwin_window_info w;
	uint32_t id;
	int ret;

	id = take_id(mw, "window");
	no_args(mw);
	mw_open(mw);
	ret = mwin_window_invalidate(mw->fd, id);
	if (ret == -ENOENT)
		die("no window %u", id);
	if (ret == -ENOTCONN) {
		if (!mwin_window_get(mw->fd, id, 0, &w) && w.peer)
			die("peer %u of window %u is gone", w.peer, id);
		die("window %u: its peer is gone", id);
	}
	if (ret == -EIO && !mwin_window_get(mw->fd, id, 0, &w) &&
	    w.state == MWIN_WINDOW_BROKEN)
		die("window %u is broken: it can only be destroyed", id);
	if (ret == -EIO || ret == -ETIMEDOUT)
		die("window invalidate: the device failed (%s); window %u's peer is being torn down",
		    strerror(-ret), id);
	if (ret) {
		common_errors(ret, "window invalidate");
		die("window invalidate %u: %s", id, strerror(-ret));
	}
	window_result(mw, id, NULL);
	return 0;
}

static int window_destroy(struct mw *mw)
{
	uint32_t id;
	int ret;

	id = take_id(mw, "window");
	no_args(mw);
	mw_open(mw);
	ret = mwin_window_destroy(mw->fd, id);
	if (ret == -ENOENT)
		die("no window %u", id);
	if (ret) {
		common_errors(ret, "window destroy");
		die("window destroy %u: %s", id, strerror(-ret));
	}
	pr_doc_begin();
	pr_label("window");
	pr_uint(PR_ANY, "id", id);
	pr_bool(PR_ANY, "destroyed", true);
	pr_doc_end();
	return 0;
}

/* set mw->cmd to the full name of the command argv[0] names */
static void name_cmd(struct mw *mw, const struct mw_cmd *cmds)
{
	const char *names[16];
	char hint[64];
	size_t n;

	mw->cmd = cmds[0].name;
	if (!mw->argc || is_help(mw->argv[0]))
		return;
	for (n = 0; n < 16 && cmds[n].name; n++)
		names[n] = cmds[n].name;
	snprintf(hint, sizeof(hint), "mwctl %s help", mw->obj);
	mw->cmd = names[match_name(mw->argv[0], names, n, "command", mw->obj,
				   hint)];
}

static int cmd_region(struct mw *mw)
{
	static const struct mw_cmd cmds[] = {
		{ "show", region_show },
		{ "create", region_create },
		{ "destroy", region_destroy },
		{ "write", region_write },
		{ "read", region_read },
		{ "help", usage_region },
		{ 0 },
	};

	mw->obj = "region";
	mw->usage = usage_region;
	name_cmd(mw, cmds);
	return mw_exec(mw, cmds);
}

static int cmd_window(struct mw *mw)
{
	static const struct mw_cmd cmds[] = {
		{ "show", window_show },
		{ "create", window_create },
		{ "rebind", window_rebind },
		{ "invalidate", window_invalidate },
		{ "destroy", window_destroy },
		{ "help", usage_window },
		{ 0 },
	};

	mw->obj = "window";
	mw->usage = usage_window;
	name_cmd(mw, cmds);
	return mw_exec(mw, cmds);
}

/* ---------------------------------------------------------------- monitor */

static const char *event_name(uint32_t type)
{
	switch (type) {
	case MWIN_EVENT_PEER_UP:
		return "peer_up";
	case MWIN_EVENT_PEER_DOWN:
		return "peer_down";
	case MWIN_EVENT_GRANT:
		return "grant";
	case MWIN_EVENT_REVOKE:
		return "revoke";
	case MWIN_EVENT_REMOTE_INVALIDATE:
		return "remote_invalidate";
	case MWIN_EVENT_REJECTED_INVALIDATE:
		return "rejected_invalidate";
	case MWIN_EVENT_LOST:
		return "lost";
	}
	return "unknown";
}


static void print_event(struct mw *mw, const struct mwin_event *ev)
{
	pr_doc_begin();
	pr_label("");
	pr_str(PR_ANY, "event", event_name(ev->type));
	switch (ev->type) {
	case MWIN_EVENT_PEER_UP:
	case MWIN_EVENT_PEER_DOWN:
		pr_uint(PR_ANY, "peer", ev->peer);
		break;
	case MWIN_EVENT_LOST:
		pr_uint(PR_ANY, "events", ev->rkey);
		break;
	case MWIN_EVENT_GRANT:
	case MWIN_EVENT_REVOKE:
	case MWIN_EVENT_REMOTE_INVALIDATE:
	case MWIN_EVENT_REJECTED_INVALIDATE:
	default:
		pr_uint(PR_ANY, "window", ev->window);
		pr_uint(PR_ANY, "peer", ev->peer);
		pr_hex(PR_ANY, "rkey", ev->rkey, 8);
		if (ev->type == MWIN_EVENT_REVOKE)
			pr_str(PR_ANY, "reason", mwin_revoke_reason_name(ev->reason));
		if (ev->type > MWIN_EVENT_LOST)
			pr_uint(PR_ANY, "type", ev->type);
		break;
	}
	if (mw->details) {
		pr_uint(PR_ANY, "seq", ev->seq);
		pr_uint(PR_ANY, "time_ns", ev->time_ns);
	}
	pr_doc_end();
	if (ferror(stdout))
		die("cannot write events: %s", strerror(errno));
}

/* print the records in @buf (@n bytes) */
static void print_events(struct mw *mw, const uint8_t *buf, size_t n)
{
	const size_t min = offsetof(struct mwin_event, reason) + sizeof(uint32_t);

	while (n) {
		struct mwin_event ev = { 0 };
		uint32_t size;

		if (n < sizeof(size))
			die("bad event record: %zu stray bytes", n);
		memcpy(&size, buf, sizeof(size));
		if (size < min || size > n)
			die("bad event record of %u bytes", size);
		memcpy(&ev, buf, size < sizeof(ev) ? size : sizeof(ev));
		print_event(mw, &ev);
		buf += size;
		n -= size;
	}
}

static int cmd_monitor(struct mw *mw)
{
	struct mwin_monitor mon = { .size = sizeof(mon) };
	uint8_t buf[64 * sizeof(struct mwin_event)];
	bool stop = false;
	sigset_t set;
	int sfd, ret;

	mw->obj = "monitor";
	mw->cmd = "";
	mw->usage = usage_monitor;
	if (mw->argc && is_help(mw->argv[0]))
		return usage_monitor(mw);
	if (mw->argc)
		usage_err("unexpected argument '%s' for monitor (try 'mwctl monitor help')",
			  mw->argv[0]);
	mw_open(mw);
	ret = mwin_ioctl(mw->fd, MWIN_MONITOR, &mon);
	if (ret == -ENOTTY || ret == -EINVAL)
		die("the loaded mwin module has no event monitor (MWIN_MONITOR: %s)",
		    strerror(-ret));
	if (ret) {
		common_errors(ret, "monitor");
		die("monitor: %s", strerror(-ret));
	}

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sfd = signalfd(-1, &set, SFD_CLOEXEC);
	if (sfd < 0)
		die("signalfd: %s", strerror(errno));
	signal(SIGPIPE, SIG_IGN);

	/* events go out as they come: one line (one JSON document) each */
	pr_init(stdout, mw->json, mw->pretty, false);
	while (!stop) {
		struct pollfd pfd[2] = {
			{ .fd = mw->fd, .events = POLLIN },
			{ .fd = sfd, .events = POLLIN },
		};

		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			die("poll: %s", strerror(errno));
		}
		if (pfd[1].revents & POLLIN) {
			/* print what is queued, then stop */
			stop = true;
			fcntl(mw->fd, F_SETFL, fcntl(mw->fd, F_GETFL) | O_NONBLOCK);
		} else if (pfd[0].revents & (POLLERR | POLLHUP | POLLNVAL)) {
			die("the event stream of %s failed", MWIN_DEV_PATH);
		} else if (!(pfd[0].revents & POLLIN)) {
			continue;
		}
		for (;;) {
			ssize_t n = read(mw->fd, buf, sizeof(buf));

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && errno == EAGAIN)
				break;
			if (n < 0)
				die("reading events: %s", strerror(errno));
			print_events(mw, buf, (size_t)n);
			if (!stop || !n)
				break;
		}
	}
	close(sfd);
	return 0;
}

/* ---------------------------------------------------------------- main */

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "details", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	static const struct mw_cmd cmds[] = {
		{ "help", usage_top },
		{ "dev", cmd_dev },
		{ "peer", cmd_peer },
		{ "region", cmd_region },
		{ "window", cmd_window },
		{ "monitor", cmd_monitor },
		{ 0 },
	};
	struct mw mw = { .fd = -1, .usage = usage_top };
	int c, ret, err;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+jpdhV", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			mw.json = true;
			break;
		case 'p':
			mw.json = true;
			mw.pretty = true;
			break;
		case 'd':
			mw.details = true;
			break;
		case 'h':
			return usage_top(&mw);
		case 'V':
			printf("mwctl %s (mwin ABI %u)\n", MWCTL_VERSION,
			       (unsigned int)MWIN_ABI_VERSION);
			return 0;
		default:
			if (optopt)
				usage_err("unknown option '-%c' (try 'mwctl help')",
					  optopt);
			usage_err("unknown option '%s' (try 'mwctl help')",
				  argv[optind - 1]);
		}
	}
	mw.argc = argc - optind;
	mw.argv = argv + optind;

	pr_init(stdout, mw.json, mw.pretty, true);
	ret = mw_exec(&mw, cmds);
	err = pr_flush();
	if (err)
		die("cannot write output: %s", strerror(-err));
	if (mw.fd >= 0)
		close(mw.fd);
	return ret;
}
