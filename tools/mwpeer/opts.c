// SPDX-License-Identifier: GPL-2.0
/*
 * mwpeer: the command line. Every option has a long name, most a short
 * one too (getopt_long); a bad value is named with its option and what
 * the option takes, so that a script's mistake shows without the usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "opts.h"

#define MWPEER_VERSION	"1.0"

static const char usage_text[] =
	"usage: mwpeer [-p PORT] [-d DEVICE] [-t TIMEOUT_MS] [-b BUF_BYTES] [-r RETRY]\n"
	"              [--tenant NAME [--key FILE]] HOST\n"
	"  -p, --port PORT           RDMA CM port of mwin (default $MWIN_PORT, else 18520)\n"
	"  -d, --device DEVICE       RDMA device to use (e.g. rxe0) or local IP address\n"
	"  -t, --timeout TIMEOUT_MS  bound for connecting and each operation (default 10000)\n"
	"  -b, --buffer BUF_BYTES    local buffer size, largest transfer (default 4 MiB)\n"
	"  -r, --retry RETRY         transport retries, 1..7 (default 2; rxe: 7 = forever)\n"
	"      --tenant NAME         connect as a peer of tenant NAME (wire version 4)\n"
	"      --key FILE            the tenant's key: the file's bytes, 16 to 64 of them\n"
	"  -h, --help                this help\n"
	"  -V, --version             mwpeer's version and the wire versions it speaks\n"
	"Reads commands on stdin, answers one JSON object per line; \"help\" lists them.\n";

enum { OPT_TENANT = 256, OPT_KEY };

static const struct option long_opts[] = {
	{ "port", required_argument, NULL, 'p' },
	{ "device", required_argument, NULL, 'd' },
	{ "timeout", required_argument, NULL, 't' },
	{ "buffer", required_argument, NULL, 'b' },
	{ "retry", required_argument, NULL, 'r' },
	{ "tenant", required_argument, NULL, OPT_TENANT },
	{ "key", required_argument, NULL, OPT_KEY },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

bool parse_u64(const char *s, uint64_t *out)
{
	int base = 10;
	char *end;

	if (!s || !*s)
		return false;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
		if (!*s)
			return false;
	}
	if (*s < '0' || (*s > '9' && base == 10) ||
	    (base == 16 && !strchr("0123456789abcdefABCDEF", *s)))
		return false;
	errno = 0;
	*out = strtoull(s, &end, base);
	return !errno && !*end;
}

bool parse_u32(const char *s, uint32_t *out)
{
	uint64_t v;

	if (!parse_u64(s, &v) || v > UINT32_MAX)
		return false;
	*out = (uint32_t)v;
	return true;
}

/* The command line is wrong: one line on stderr, exit 2. */
static void __attribute__((noreturn, format(printf, 1, 2)))
usage_err(const char *fmt, ...)
{
	va_list ap;

	fputs("mwpeer: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

/* The long name of option @val, for messages: "timeout" for -t too. */
static const char *opt_name(int val)
{
	const struct option *o;

	for (o = long_opts; o->name; o++)
		if (o->val == val)
			return o->name;
	return "?";
}

/* The value of numeric option @val: 1 to @max, or exit saying what it takes. */
static uint64_t num_value(int val, const char *arg, uint64_t max,
			  const char *takes)
{
	uint64_t v;

	if (!parse_u64(arg, &v) || !v || v > max)
		usage_err("bad value '%s' for --%s (%s)", arg, opt_name(val),
			  takes);
	return v;
}

/* a name mwpeer_create() takes: 1 to 23 bytes of [A-Za-z0-9._-] */
static bool tenant_ok(const char *name)
{
	size_t len = strlen(name);

	return len && len < MWIN_TENANT_NAME_MAX &&
	       strspn(name, "abcdefghijklmnopqrstuvwxyz"
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == len;
}

/* The key in @path into @c: the file's bytes exactly, 16 to 64 of them. */
static bool read_key(const char *path, struct cmdline *c)
{
	uint8_t buf[MWIN_TENANT_KEY_MAX + 1];
	size_t n = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		fprintf(stderr, "mwpeer: key file %s: %s\n", path, strerror(errno));
		return false;
	}
	while (n < sizeof(buf)) {
		ssize_t r = read(fd, buf + n, sizeof(buf) - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			fprintf(stderr, "mwpeer: key file %s: %s\n", path,
				strerror(errno));
			close(fd);
			OPENSSL_cleanse(buf, sizeof(buf));
			return false;
		}
		if (!r)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (n < MWIN_TENANT_KEY_MIN || n > MWIN_TENANT_KEY_MAX) {
		fprintf(stderr, "mwpeer: key file %s has %s%zu bytes: a key is %d to %d bytes (the file's bytes exactly, no newline stripped)\n",
			path, n > MWIN_TENANT_KEY_MAX ? "more than " : "",
			n > MWIN_TENANT_KEY_MAX ? (size_t)MWIN_TENANT_KEY_MAX : n,
			MWIN_TENANT_KEY_MIN, MWIN_TENANT_KEY_MAX);
		OPENSSL_cleanse(buf, sizeof(buf));
		return false;
	}
	memcpy(c->key, buf, n);
	c->o.key = c->key;
	c->o.key_len = n;
	OPENSSL_cleanse(buf, sizeof(buf));
	return true;
}

/*
 * Option @opt with value @arg into @c, a key file's name into @key_file;
 * false when @opt takes no value.
 */
static bool take_opt(int opt, const char *arg, struct cmdline *c,
		     const char **key_file)
{
	switch (opt) {
	case 'p':
		c->port = (uint16_t)num_value(opt, arg, 65535, "1 to 65535");
		break;
	case 'd':
		c->o.dev = arg;
		break;
	case 't':
		c->o.timeout_ms = (int)num_value(opt, arg, INT32_MAX,
						 "milliseconds");
		break;
	case 'b':
		c->o.buf_size = (size_t)num_value(opt, arg, 1ULL << 32,
						  "bytes, 1 to 4 GiB");
		break;
	case 'r':
		c->o.retry_count = (uint8_t)num_value(opt, arg, 7, "1 to 7");
		break;
	case OPT_TENANT:
		if (!tenant_ok(arg))
			usage_err("bad value '%s' for --tenant (1 to %d of A-Z a-z 0-9 . _ -)",
				  arg, MWIN_TENANT_NAME_MAX - 1);
		c->o.tenant = arg;
		break;
	case OPT_KEY:
		*key_file = arg;
		break;
	default:
		return false;
	}
	return true;
}

/* What getopt_long() did not take: help, version, or a mistake. */
static void other_opt(int opt, char **argv)
{
	switch (opt) {
	case 'h':
		fputs(usage_text, stdout);
		exit(0);
	case 'V':
		printf("mwpeer %s (mwin wire versions %u and %u)\n",
		       MWPEER_VERSION, (unsigned int)MWIN_WIRE_VERSION,
		       (unsigned int)MWIN_WIRE_VERSION_PROOF);
		exit(0);
	case ':':
		usage_err("option --%s needs a value (try 'mwpeer --help')",
			  opt_name(optopt));
	}
	if (optopt)
		usage_err("unknown option '-%c' (try 'mwpeer --help')", optopt);
	usage_err("unknown or ambiguous option '%s' (try 'mwpeer --help')",
		  argv[optind - 1]);
}

void parse_cmdline(int argc, char **argv, struct cmdline *c)
{
	const char *key_file = NULL;
	int opt;

	c->port = mwpeer_default_port();
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":p:d:t:b:r:hV", long_opts,
				  NULL)) != -1) {
		if (!take_opt(opt, optarg, c, &key_file))
			other_opt(opt, argv);
	}
	if (optind == argc)
		usage_err("no HOST to connect to (try 'mwpeer --help')");
	if (optind < argc - 1)
		usage_err("unexpected argument '%s' after HOST %s",
			  argv[optind + 1], argv[optind]);
	c->host = argv[optind];
	if (key_file && !c->o.tenant)
		usage_err("--key needs --tenant");
	if (key_file && !read_key(key_file, c))
		exit(2);
}
