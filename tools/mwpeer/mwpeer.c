// SPDX-License-Identifier: GPL-2.0
/*
 * mwpeer - a remote RDMA peer of mwin.ko, driven by commands on stdin.
 *
 *   mwpeer [-p PORT] [-d DEVICE] [-t TIMEOUT_MS] [-b BUF_BYTES] [-r RETRY]
 *          [--tenant NAME [--key FILE]] HOST
 *
 * (opts.c has the command line: every option has a long name too, and
 * --help and --version.) Connects to mwin on HOST, anonymously (wire
 * version 2) or as a peer of tenant NAME (wire version 3; with the
 * tenant's key in FILE, both sides prove they hold it), prints
 * {"event":"connected","peer":N}, then reads one command per line on stdin
 * and answers each with exactly one JSON object on one line of stdout.
 * Messages from the module print as events when they arrive
 * ({"event":"grant",...}, {"event":"revoke",...},
 * {"event":"disconnected"}, {"event":"error",...} for a bad message or a
 * failed receive). Run "help" for the commands. Numbers are decimal or 0x
 * hex. Exit status: 0 after "quit" or end of input, 1 if the first
 * connection fails, 2 on a usage error.
 *
 * Answers: {"cmd":NAME,"status":S,...} where S is rdma-core's completion
 * status name ("success", "remote access error", "Work Request Flushed
 * Error", ...) or "timeout", "not connected"; "qp":"error" is added once
 * the QP is in the error state and "detail" says what failed. A bad line
 * gets {"error":"..."} (with "cmd" when the command was known).
 * "write RKEY IOVA @LEN" writes LEN bytes of a fixed pattern, and a read of
 * more than 4096 bytes prints no data: both report "bytes", "usec", "mbps"
 * (megabits per second) and "fnv1a" (FNV-1a hash of the bytes). "wait"
 * answers with the oldest message of that type not yet claimed by a wait
 * (events already printed count), else waits for the next one.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "opts.h"

#define MAX_LINE	(64U << 20)
#define SMALL_READ	4096

static const char *const help_lines[] = {
	"write RKEY IOVA HEX|@LEN",
	"read RKEY IOVA LEN",
	"cas RKEY IOVA COMPARE SWAP",
	"fadd RKEY IOVA ADD",
	"inv RKEY [HEX]",
	"send HEX|@LEN",
	"grants",
	"wait grant|revoke|any [TIMEOUT_MS]",
	"sleep MS",
	"timeout MS",
	"state",
	"reconnect",
	"quit",
};

/* ------------------------------------------------------------- output */

struct json {
	char *s;
	size_t len;
	size_t cap;
	bool first;
};

static void die_oom(void)
{
	fputs("mwpeer: out of memory\n", stderr);
	exit(1);
}

static void j_put(struct json *j, const char *s, size_t n)
{
	if (j->len + n + 2 > j->cap) {
		size_t cap = j->cap ? j->cap : 256;
		char *ns;

		while (j->len + n + 2 > cap)
			cap *= 2;
		ns = realloc(j->s, cap);
		if (!ns)
			die_oom();
		j->s = ns;
		j->cap = cap;
	}
	memcpy(j->s + j->len, s, n);
	j->len += n;
	j->s[j->len] = '\0';
}

__attribute__((format(printf, 2, 3)))
static void j_fmt(struct json *j, const char *fmt, ...)
{
	char buf[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0)
		j_put(j, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

static void j_begin(struct json *j)
{
	j->len = 0;
	j->first = true;
	j_put(j, "{", 1);
}

static void j_key(struct json *j, const char *key)
{
	if (!j->first)
		j_put(j, ",", 1);
	j->first = false;
	j_fmt(j, "\"%s\":", key);
}

static void j_strval(struct json *j, const char *v)
{
	const unsigned char *c;

	j_put(j, "\"", 1);
	for (c = (const unsigned char *)v; *c; c++) {
		if (*c == '"' || *c == '\\')
			j_fmt(j, "\\%c", *c);
		else if (*c == '\n')
			j_put(j, "\\n", 2);
		else if (*c < 0x20 || *c >= 0x7f)
			j_fmt(j, "\\u%04x", *c);
		else
			j_put(j, (const char *)c, 1);
	}
	j_put(j, "\"", 1);
}

static void j_str(struct json *j, const char *key, const char *v)
{
	j_key(j, key);
	j_strval(j, v);
}

static void j_u64(struct json *j, const char *key, uint64_t v)
{
	j_key(j, key);
	j_fmt(j, "%" PRIu64, v);
}

static void j_hex64(struct json *j, const char *key, uint64_t v)
{
	j_key(j, key);
	j_fmt(j, "\"0x%" PRIx64 "\"", v);
}

static void j_hexdata(struct json *j, const char *key, const uint8_t *d,
		      size_t n)
{
	static const char hx[] = "0123456789abcdef";
	size_t i;

	j_key(j, key);
	j_put(j, "\"", 1);
	for (i = 0; i < n; i++) {
		char two[2] = { hx[d[i] >> 4], hx[d[i] & 15] };

		j_put(j, two, 2);
	}
	j_put(j, "\"", 1);
}

static void j_end(struct json *j)
{
	j_put(j, "}\n", 2);
	if (fwrite(j->s, 1, j->len, stdout) != j->len || fflush(stdout)) {
		/* nobody reads our answers any more */
		exit(1);
	}
}

/* --------------------------------------------------------------- state */

struct cli {
	struct mwpeer *p;
	struct json j;
	bool disc_reported;
	bool qp_err_reported;
	unsigned int proto_reported;
	/* messages printed as events and not yet claimed by "wait" */
	struct mwpeer_msg *unclaimed;
	size_t n_unclaimed;
	size_t cap_unclaimed;
};

static void msg_fields(struct json *j, const struct mwpeer_msg *m)
{
	j_u64(j, "window", m->window);
	j_u64(j, "rkey", m->rkey);
	j_hex64(j, "rkey_hex", m->rkey);
	if (m->type == MWIN_WIRE_GRANT) {
		char acc[8];

		j_u64(j, "iova", m->iova);
		j_u64(j, "len", m->length);
		j_str(j, "access", mwpeer_access_str(m->access, acc));
		/* only when set: grants without either read as before */
		if (m->lease_ms)
			j_u64(j, "lease_ms", m->lease_ms);
		if (m->flags & MWIN_WIRE_GRANT_ONCE) {
			j_key(j, "once");
			j_put(j, "true", 4);
		}
	} else {
		j_str(j, "reason", mwpeer_reason_str(m->access));
	}
	j_u64(j, "seq", m->seq);
	if (!m->valid) {
		j_key(j, "valid");
		j_put(j, "false", 5);
	}
}

static const char *type_str(const struct mwpeer_msg *m)
{
	return m->type == MWIN_WIRE_GRANT ? "grant" : "revoke";
}

static void print_msg_event(struct cli *c, const struct mwpeer_msg *m)
{
	j_begin(&c->j);
	j_str(&c->j, "event", type_str(m));
	msg_fields(&c->j, m);
	j_end(&c->j);
}

static void keep_unclaimed(struct cli *c, const struct mwpeer_msg *m)
{
	if (c->n_unclaimed == c->cap_unclaimed) {
		size_t cap = c->cap_unclaimed ? c->cap_unclaimed * 2 : 32;
		struct mwpeer_msg *u = realloc(c->unclaimed, cap * sizeof(*u));

		if (!u)
			die_oom();
		c->unclaimed = u;
		c->cap_unclaimed = cap;
	}
	c->unclaimed[c->n_unclaimed++] = *m;
}

/* print what happened since the last call: messages, errors, disconnect */
static void report_async(struct cli *c)
{
	if (mwpeer_proto_errors(c->p, NULL) > c->proto_reported) {
		/* the message text is the newest error of the peer */
		unsigned int perr = mwpeer_proto_errors(c->p, NULL);

		j_begin(&c->j);
		j_str(&c->j, "event", "error");
		j_str(&c->j, "error", mwpeer_errmsg(c->p));
		j_u64(&c->j, "bad_msgs", perr);
		j_end(&c->j);
		c->proto_reported = perr;
	}
	if (mwpeer_qp_error(c->p) && !c->qp_err_reported &&
	    mwpeer_state(c->p) == MWPEER_CONNECTED) {
		j_begin(&c->j);
		j_str(&c->j, "event", "error");
		j_str(&c->j, "error", mwpeer_errmsg(c->p));
		j_str(&c->j, "qp", "error");
		j_end(&c->j);
		c->qp_err_reported = true;
	}
	if (mwpeer_state(c->p) == MWPEER_DISCONNECTED && !c->disc_reported) {
		j_begin(&c->j);
		j_str(&c->j, "event", "disconnected");
		j_end(&c->j);
		c->disc_reported = true;
	}
}

static void take_events(struct cli *c)
{
	struct mwpeer_msg m;

	mwpeer_poll(c->p, 0);
	while (mwpeer_next_msg(c->p, &m, 0) == 0) {
		print_msg_event(c, &m);
		keep_unclaimed(c, &m);
	}
	report_async(c);
}

/* ------------------------------------------------------------ parsing */

static int hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* decode HEX (optional 0x) into @out (at most @max bytes) */
static bool parse_hex(const char *s, uint8_t *out, size_t max, size_t *len)
{
	size_t n, i;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	n = strlen(s);
	if (!n || n % 2 || n / 2 > max)
		return false;
	for (i = 0; i < n / 2; i++) {
		int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return false;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	*len = n / 2;
	return true;
}

static uint64_t fnv1a(const uint8_t *d, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (n--) {
		h ^= *d++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

static void fill_pattern(uint8_t *d, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		d[i] = (uint8_t)(i * 7 + (i >> 8));
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* ----------------------------------------------------------- commands */

static void answer_error(struct cli *c, const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void answer_error(struct cli *c, const char *cmd, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	j_begin(&c->j);
	if (cmd)
		j_str(&c->j, "cmd", cmd);
	j_str(&c->j, "error", buf);
	j_end(&c->j);
}

/* start the answer to an operation that returned @st */
static void op_begin(struct cli *c, const char *cmd, int st)
{
	j_begin(&c->j);
	j_str(&c->j, "cmd", cmd);
	j_str(&c->j, "status", mwpeer_status_str(st));
}

static void op_end(struct cli *c, int st)
{
	if (st != IBV_WC_SUCCESS && *mwpeer_errmsg(c->p))
		j_str(&c->j, "detail", mwpeer_errmsg(c->p));
	if (mwpeer_qp_error(c->p)) {
		j_str(&c->j, "qp", "error");
		c->qp_err_reported = true;
	}
	j_end(&c->j);
}

static void j_rate(struct json *j, size_t bytes, double us)
{
	j_u64(j, "bytes", bytes);
	j_key(j, "usec");
	j_fmt(j, "%.0f", us);
	j_key(j, "mbps");
	j_fmt(j, "%.1f", us > 0 ? bytes * 8.0 / us : 0.0);
}

static void cmd_write(struct cli *c, char **av, int ac)
{
	uint8_t *buf = mwpeer_buf(c->p);
	uint32_t rkey;
	uint64_t iova, len64;
	size_t len;
	bool big = false;
	double t0, t1;
	int st;

	if (ac != 4 || !parse_u32(av[1], &rkey) || !parse_u64(av[2], &iova)) {
		answer_error(c, "write", "usage: write RKEY IOVA HEX|@LEN");
		return;
	}
	if (av[3][0] == '@') {
		if (!parse_u64(av[3] + 1, &len64) ||
		    len64 > mwpeer_buf_size(c->p)) {
			answer_error(c, "write", "@LEN must be at most %zu",
				     mwpeer_buf_size(c->p));
			return;
		}
		len = (size_t)len64;
		fill_pattern(buf, len);
		big = true;
	} else if (!parse_hex(av[3], buf, mwpeer_buf_size(c->p), &len)) {
		answer_error(c, "write",
			     "bad HEX data (even number of hex digits, at most %zu bytes; @0 writes none)",
			     mwpeer_buf_size(c->p));
		return;
	}
	t0 = now_us();
	st = mwpeer_write(c->p, rkey, iova, NULL, len);
	t1 = now_us();
	op_begin(c, "write", st);
	if (big) {
		j_rate(&c->j, len, t1 - t0);
		j_hex64(&c->j, "fnv1a", fnv1a(buf, len));
	} else {
		j_u64(&c->j, "bytes", len);
	}
	op_end(c, st);
}

static void cmd_read(struct cli *c, char **av, int ac)
{
	uint8_t *buf = mwpeer_buf(c->p);
	uint32_t rkey;
	uint64_t iova, len;
	double t0, t1;
	int st;

	if (ac != 4 || !parse_u32(av[1], &rkey) || !parse_u64(av[2], &iova) ||
	    !parse_u64(av[3], &len)) {
		answer_error(c, "read", "usage: read RKEY IOVA LEN");
		return;
	}
	if (len > mwpeer_buf_size(c->p)) {
		answer_error(c, "read", "LEN must be at most %zu",
			     mwpeer_buf_size(c->p));
		return;
	}
	t0 = now_us();
	st = mwpeer_read(c->p, rkey, iova, NULL, (size_t)len);
	t1 = now_us();
	op_begin(c, "read", st);
	if (st == IBV_WC_SUCCESS) {
		if (len <= SMALL_READ) {
			j_hexdata(&c->j, "data", buf, (size_t)len);
			j_u64(&c->j, "bytes", len);
		} else {
			j_rate(&c->j, (size_t)len, t1 - t0);
			j_hex64(&c->j, "fnv1a", fnv1a(buf, (size_t)len));
		}
	}
	op_end(c, st);
}

static void cmd_atomic(struct cli *c, char **av, int ac, bool cas)
{
	const char *name = cas ? "cas" : "fadd";
	uint32_t rkey;
	uint64_t iova, a, b = 0, old = 0;
	int st;

	if (ac != (cas ? 5 : 4) || !parse_u32(av[1], &rkey) ||
	    !parse_u64(av[2], &iova) || !parse_u64(av[3], &a) ||
	    (cas && !parse_u64(av[4], &b))) {
		answer_error(c, name, cas ? "usage: cas RKEY IOVA COMPARE SWAP" :
			     "usage: fadd RKEY IOVA ADD");
		return;
	}
	st = cas ? mwpeer_cas(c->p, rkey, iova, a, b, &old) :
		   mwpeer_fadd(c->p, rkey, iova, a, &old);
	op_begin(c, name, st);
	if (st == IBV_WC_SUCCESS) {
		j_u64(&c->j, "old", old);
		j_hex64(&c->j, "old_hex", old);
	}
	op_end(c, st);
}

static void cmd_send(struct cli *c, char **av, int ac, bool inv)
{
	static uint8_t data[MWPEER_SEND_MAX];
	const char *name = inv ? "inv" : "send";
	const void *src = data;
	uint32_t rkey = 0;
	uint64_t len64;
	size_t len = 0;
	const char *d = NULL;
	int st;

	if (inv) {
		if ((ac != 2 && ac != 3) || !parse_u32(av[1], &rkey)) {
			answer_error(c, name, "usage: inv RKEY [HEX]");
			return;
		}
		if (ac == 3)
			d = av[2];
	} else {
		if (ac != 2) {
			answer_error(c, name, "usage: send HEX|@LEN");
			return;
		}
		d = av[1];
	}
	if (d && d[0] == '@') {
		if (!parse_u64(d + 1, &len64) || len64 > mwpeer_buf_size(c->p)) {
			answer_error(c, name, "@LEN must be at most %zu",
				     mwpeer_buf_size(c->p));
			return;
		}
		len = (size_t)len64;
		fill_pattern(mwpeer_buf(c->p), len);
		src = NULL;
	} else if (d && !parse_hex(d, data, sizeof(data), &len)) {
		answer_error(c, name, "bad HEX data (at most %d bytes)",
			     MWPEER_SEND_MAX);
		return;
	}
	st = inv ? mwpeer_send_inv_data(c->p, rkey, src, len) :
		   mwpeer_send(c->p, src, len);
	op_begin(c, name, st);
	j_u64(&c->j, "bytes", len);
	op_end(c, st);
}

static void cmd_grants(struct cli *c)
{
	struct mwpeer_msg *g;
	size_t n, i;

	take_events(c);
	n = mwpeer_grants(c->p, NULL, 0);
	g = calloc(n ? n : 1, sizeof(*g));
	if (!g)
		die_oom();
	n = mwpeer_grants(c->p, g, n);
	j_begin(&c->j);
	j_str(&c->j, "cmd", "grants");
	j_str(&c->j, "status", "success");
	j_key(&c->j, "grants");
	j_put(&c->j, "[", 1);
	for (i = 0; i < n; i++) {
		if (i)
			j_put(&c->j, ",", 1);
		j_put(&c->j, "{", 1);
		c->j.first = true;
		msg_fields(&c->j, &g[i]);
		j_put(&c->j, "}", 1);
	}
	j_put(&c->j, "]", 1);
	c->j.first = false;
	j_end(&c->j);
	free(g);
}

static bool wanted(const struct mwpeer_msg *m, int type)
{
	return !type || m->type == type;
}

static void answer_msg(struct cli *c, const struct mwpeer_msg *m)
{
	j_begin(&c->j);
	j_str(&c->j, "cmd", "wait");
	j_str(&c->j, "status", "success");
	j_str(&c->j, "type", type_str(m));
	msg_fields(&c->j, m);
	j_end(&c->j);
}

static void cmd_wait(struct cli *c, char **av, int ac)
{
	int type, r;
	uint64_t ms = (uint64_t)mwpeer_timeout(c->p);
	struct timespec ts;
	int64_t deadline;
	struct mwpeer_msg m;
	size_t i;

	if (ac < 2 || ac > 3 || (ac == 3 && (!parse_u64(av[2], &ms) || ms > INT32_MAX))) {
		answer_error(c, "wait", "usage: wait grant|revoke|any [TIMEOUT_MS]");
		return;
	}
	if (!strcmp(av[1], "grant")) {
		type = MWIN_WIRE_GRANT;
	} else if (!strcmp(av[1], "revoke")) {
		type = MWIN_WIRE_REVOKE;
	} else if (!strcmp(av[1], "any")) {
		type = 0;
	} else {
		answer_error(c, "wait", "usage: wait grant|revoke|any [TIMEOUT_MS]");
		return;
	}
	take_events(c);
	for (i = 0; i < c->n_unclaimed; i++) {
		if (wanted(&c->unclaimed[i], type)) {
			m = c->unclaimed[i];
			memmove(c->unclaimed + i, c->unclaimed + i + 1,
				(c->n_unclaimed - i - 1) * sizeof(m));
			c->n_unclaimed--;
			answer_msg(c, &m);
			return;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	deadline = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000 + (int64_t)ms;
	for (;;) {
		int64_t now;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		now = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
		r = mwpeer_next_msg(c->p, &m, now < deadline ?
				    (int)(deadline - now) : 0);
		if (r)
			break;
		print_msg_event(c, &m);
		if (wanted(&m, type)) {
			report_async(c);
			answer_msg(c, &m);
			return;
		}
		keep_unclaimed(c, &m);
	}
	report_async(c);
	j_begin(&c->j);
	j_str(&c->j, "cmd", "wait");
	j_str(&c->j, "status", mwpeer_status_str(r));
	j_end(&c->j);
}

/* a tenant's peer: its tenant, the id the module gave it, the key proofs */
static void tenant_fields(struct cli *c)
{
	struct mwpeer_handshake hs;

	if (!*mwpeer_tenant(c->p))
		return;
	mwpeer_handshake(c->p, &hs);
	j_str(&c->j, "tenant", mwpeer_tenant(c->p));
	j_u64(&c->j, "tenant_id", mwpeer_tenant_id(c->p));
	j_key(&c->j, "authenticated");
	j_fmt(&c->j, "%s", hs.proof_sent ? "true" : "false");
}

static void cmd_state(struct cli *c)
{
	const char *first;
	unsigned int bad;

	take_events(c);
	bad = mwpeer_proto_errors(c->p, &first);
	j_begin(&c->j);
	j_str(&c->j, "cmd", "state");
	j_str(&c->j, "status", "success");
	j_str(&c->j, "state", mwpeer_state_str(mwpeer_state(c->p)));
	j_str(&c->j, "qp", mwpeer_qp_error(c->p) ? "error" : "ok");
	j_u64(&c->j, "peer", mwpeer_id(c->p));
	j_u64(&c->j, "qpn", mwpeer_qp_num(c->p));
	j_str(&c->j, "dev", mwpeer_dev_name(c->p));
	tenant_fields(c);
	j_u64(&c->j, "grants", mwpeer_grants(c->p, NULL, 0));
	j_u64(&c->j, "bad_msgs", bad);
	if (bad)
		j_str(&c->j, "first_bad_msg", first);
	j_u64(&c->j, "timeout_ms", (uint64_t)mwpeer_timeout(c->p));
	j_end(&c->j);
}

static void print_connected(struct cli *c)
{
	j_begin(&c->j);
	j_str(&c->j, "event", "connected");
	j_u64(&c->j, "peer", mwpeer_id(c->p));
	j_str(&c->j, "dev", mwpeer_dev_name(c->p));
	j_u64(&c->j, "qpn", mwpeer_qp_num(c->p));
	tenant_fields(c);
	j_end(&c->j);
}

static void cmd_reconnect(struct cli *c)
{
	int r;

	take_events(c);
	r = mwpeer_reconnect(c->p);
	c->n_unclaimed = 0;
	c->disc_reported = false;
	c->qp_err_reported = false;
	c->proto_reported = 0;
	if (!r)
		print_connected(c);
	j_begin(&c->j);
	j_str(&c->j, "cmd", "reconnect");
	j_str(&c->j, "status", r ? mwpeer_status_str(r) : "success");
	if (r && mwpeer_reject_reason(c->p))
		j_str(&c->j, "reject",
		      mwpeer_reject_reason_str((unsigned int)mwpeer_reject_reason(c->p)));
	if (r)
		j_str(&c->j, "detail", mwpeer_errmsg(c->p));
	else
		j_u64(&c->j, "peer", mwpeer_id(c->p));
	j_end(&c->j);
}

static void cmd_sleep(struct cli *c, char **av, int ac)
{
	uint64_t ms;
	double end;

	if (ac != 2 || !parse_u64(av[1], &ms) || ms > INT32_MAX) {
		answer_error(c, "sleep", "usage: sleep MS");
		return;
	}
	end = now_us() + ms * 1000.0;
	for (;;) {
		double left = end - now_us();

		take_events(c);
		if (left <= 0)
			break;
		mwpeer_poll(c->p, (int)(left / 1000) + 1);
	}
	j_begin(&c->j);
	j_str(&c->j, "cmd", "sleep");
	j_str(&c->j, "status", "success");
	j_end(&c->j);
}

static void cmd_help(struct cli *c)
{
	size_t i;

	j_begin(&c->j);
	j_str(&c->j, "cmd", "help");
	j_str(&c->j, "status", "success");
	j_key(&c->j, "commands");
	j_put(&c->j, "[", 1);
	for (i = 0; i < sizeof(help_lines) / sizeof(help_lines[0]); i++) {
		if (i)
			j_put(&c->j, ",", 1);
		j_strval(&c->j, help_lines[i]);
	}
	j_put(&c->j, "]", 1);
	j_end(&c->j);
}

/* run one command line; returns false after "quit" */
static bool run_line(struct cli *c, char *line)
{
	char *av[8], *save = NULL, *tok;
	int ac = 0;

	for (tok = strtok_r(line, " \t\r\n", &save); tok;
	     tok = strtok_r(NULL, " \t\r\n", &save)) {
		if (ac == (int)(sizeof(av) / sizeof(av[0]))) {
			answer_error(c, NULL, "too many words");
			return true;
		}
		av[ac++] = tok;
	}
	if (!ac || av[0][0] == '#')
		return true;
	take_events(c);

	if (!strcmp(av[0], "write")) {
		cmd_write(c, av, ac);
	} else if (!strcmp(av[0], "read")) {
		cmd_read(c, av, ac);
	} else if (!strcmp(av[0], "cas")) {
		cmd_atomic(c, av, ac, true);
	} else if (!strcmp(av[0], "fadd")) {
		cmd_atomic(c, av, ac, false);
	} else if (!strcmp(av[0], "inv")) {
		cmd_send(c, av, ac, true);
	} else if (!strcmp(av[0], "send")) {
		cmd_send(c, av, ac, false);
	} else if (!strcmp(av[0], "grants")) {
		cmd_grants(c);
	} else if (!strcmp(av[0], "wait")) {
		cmd_wait(c, av, ac);
	} else if (!strcmp(av[0], "sleep")) {
		cmd_sleep(c, av, ac);
	} else if (!strcmp(av[0], "timeout")) {
		uint64_t ms;

		if (ac != 2 || !parse_u64(av[1], &ms) || !ms || ms > INT32_MAX) {
			answer_error(c, "timeout", "usage: timeout MS (> 0)");
		} else {
			mwpeer_set_timeout(c->p, (int)ms);
			j_begin(&c->j);
			j_str(&c->j, "cmd", "timeout");
			j_str(&c->j, "status", "success");
			j_u64(&c->j, "timeout_ms", ms);
			j_end(&c->j);
		}
	} else if (!strcmp(av[0], "state")) {
		cmd_state(c);
	} else if (!strcmp(av[0], "reconnect")) {
		cmd_reconnect(c);
	} else if (!strcmp(av[0], "help")) {
		cmd_help(c);
	} else if (!strcmp(av[0], "quit") || !strcmp(av[0], "exit")) {
		j_begin(&c->j);
		j_str(&c->j, "cmd", "quit");
		j_str(&c->j, "status", "success");
		j_end(&c->j);
		return false;
	} else {
		answer_error(c, NULL, "unknown command \"%.64s\" (try help)", av[0]);
	}
	take_events(c);
	return true;
}

/* ------------------------------------------------------------- main */

struct linebuf {
	char *buf;
	size_t len;
	size_t cap;
	bool eof;
	bool overlong;	/* discarding the rest of a too long line */
};

/* read what stdin has; false on a read error */
static bool fill(struct linebuf *lb)
{
	ssize_t n;

	if (lb->cap - lb->len < 65536) {
		size_t cap = lb->cap ? lb->cap * 2 : 131072;
		char *nb = realloc(lb->buf, cap);

		if (!nb)
			die_oom();
		lb->buf = nb;
		lb->cap = cap;
	}
	n = read(STDIN_FILENO, lb->buf + lb->len, lb->cap - lb->len - 1);
	if (n < 0)
		return errno == EINTR || errno == EAGAIN;
	if (!n)
		lb->eof = true;
	lb->len += (size_t)n;
	return true;
}

/* run complete lines in the buffer; false after "quit" */
static bool run_lines(struct cli *c, struct linebuf *lb)
{
	char *nl;

	while ((nl = memchr(lb->buf, '\n', lb->len)) ||
	       (lb->eof && lb->len)) {
		size_t n = nl ? (size_t)(nl - lb->buf) + 1 : lb->len;
		bool go = true;

		if (lb->overlong) {
			lb->overlong = false;
		} else {
			lb->buf[n - (nl ? 1 : 0)] = '\0';
			if (memchr(lb->buf, '\0', n - (nl ? 1 : 0)))
				answer_error(c, NULL, "NUL byte in command");
			else
				go = run_line(c, lb->buf);
		}
		memmove(lb->buf, lb->buf + n, lb->len - n);
		lb->len -= n;
		if (!go)
			return false;
	}
	if (lb->len > MAX_LINE) {
		answer_error(c, NULL, "line longer than %u bytes", MAX_LINE);
		lb->len = 0;
		lb->overlong = true;
	}
	return true;
}

/* Why the first connection to @cl's host failed with @r, on stderr. */
static void say_not_connected(struct mwpeer *p, const struct cmdline *cl,
			      int r)
{
	struct mwpeer_reject rj;
	char where[300];

	if (strchr(cl->host, ':'))
		snprintf(where, sizeof(where), "[%s]:%u", cl->host, cl->port);
	else
		snprintf(where, sizeof(where), "%s:%u", cl->host, cl->port);
	mwpeer_reject(p, &rj);
	if (r == -ENOKEY)
		fprintf(stderr, "mwpeer: cannot connect to %s: tenant %s has a key: give --key FILE\n",
			where, cl->o.tenant);
	else if (r == -ECONNREFUSED && rj.version_valid && !rj.wire_reason)
		fprintf(stderr, "mwpeer: cannot connect to %s: %s (mwin speaks wire version %u, mwpeer %u)\n",
			where, strerror(-r), rj.version,
			cl->o.tenant ? (unsigned int)MWIN_WIRE_VERSION_PROOF :
			(unsigned int)MWIN_WIRE_VERSION);
	else if (r == -ECONNREFUSED && !rj.by_module)
		fprintf(stderr, "mwpeer: cannot connect to %s: %s (is mwin loaded?)\n",
			where, strerror(-r));
	else
		fprintf(stderr, "mwpeer: cannot connect to %s: %s (%s)\n",
			where, strerror(-r), mwpeer_errmsg(p));
}

int main(int argc, char **argv)
{
	struct cmdline cl = { 0 };
	struct linebuf lb = { 0 };
	struct cli c = { 0 };
	int r;

	signal(SIGPIPE, SIG_IGN);
	parse_cmdline(argc, argv, &cl);
	c.p = mwpeer_create(&cl.o);
	OPENSSL_cleanse(cl.key, sizeof(cl.key));	/* the library has its copy */
	if (!c.p) {
		fprintf(stderr, "mwpeer: %s\n", strerror(errno));
		return 1;
	}
	r = mwpeer_open(c.p, cl.host, cl.port);
	if (r) {
		say_not_connected(c.p, &cl, r);
		mwpeer_close(c.p);
		return 1;
	}
	print_connected(&c);

	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = STDIN_FILENO, .events = POLLIN },
			{ .fd = mwpeer_fd(c.p), .events = POLLIN },
		};

		take_events(&c);
		if (!run_lines(&c, &lb) || lb.eof)
			break;
		if (poll(pfd, 2, -1) < 0 && errno != EINTR)
			break;
		if (pfd[1].revents)
			mwpeer_poll(c.p, 0);
		if (pfd[0].revents && !fill(&lb))
			break;
	}
	take_events(&c);
	mwpeer_close(c.p);
	free(c.unclaimed);
	free(c.j.s);
	free(lb.buf);
	return 0;
}
