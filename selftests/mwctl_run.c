// SPDX-License-Identifier: GPL-2.0
/*
 * Running the tools as programs and reading what they print: see
 * mwctl_run.h. Linked into the tests that include it (EXTRA_SRCS in the
 * Makefile).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/mount.h>

#define MWIN_TEST_HELPER
#include "mwctl_run.h"

/* ------------------------------------------------------------ running */

const char *prog_path(enum prog p)
{
	static const char *const env[] = { "MWCTL", "MWPEER" };
	static const char *const built[] = {
		"build/tools/mwctl", "build/tools/mwpeer",
	};
	const char *path = getenv(env[p]);

	return path ? path : built[p];
}

void buf_add(char **b, size_t *len, const char *d, size_t n)
{
	char *nb = realloc(*b, *len + n + 1);

	if (!nb)
		abort();
	memcpy(nb + *len, d, n);
	*len += n;
	nb[*len] = '\0';
	*b = nb;
}

void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
	memset(r, 0, sizeof(*r));
}

/* in the child, before the exec: what @as asks for, or exit 126 */
static void run_setup(enum run_as as)
{
	if (as == AS_NODEV &&
	    (unshare(CLONE_NEWNS) ||
	     mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	     mount("tmpfs", "/dev", "tmpfs", 0, NULL)))
		_exit(126);
	if (as == AS_NOBODY && test_become_nobody())
		_exit(126);
}

int run_argv(struct run *r, enum prog p, const void *in, size_t in_len,
	     enum run_as as, char **argv)
{
	int po[2], pe[2], pi[2];
	size_t in_off = 0;
	pid_t pid;
	int st;

	run_free(r);
	buf_add(&r->out, &r->out_len, "", 0);
	buf_add(&r->err, &r->err_len, "", 0);
	if (pipe2(po, O_CLOEXEC) || pipe2(pe, O_CLOEXEC) || pipe2(pi, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		/* opened as root: the user may not reach into the tree */
		int exe = open(prog_path(p), O_RDONLY | O_CLOEXEC);

		dup2(pi[0], 0);
		dup2(po[1], 1);
		dup2(pe[1], 2);
		run_setup(as);
		fexecve(exe, argv, environ);
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	close(pi[0]);
	if (!in_len) {
		close(pi[1]);
		pi[1] = -1;
	}
	signal(SIGPIPE, SIG_IGN);
	while (po[0] >= 0 || pe[0] >= 0) {
		struct pollfd pfd[3] = {
			{ .fd = po[0], .events = POLLIN },
			{ .fd = pe[0], .events = POLLIN },
			{ .fd = pi[1], .events = POLLOUT },
		};
		char buf[65536];
		ssize_t n;
		int i;

		if (poll(pfd, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		for (i = 0; i < 2; i++) {
			if (!pfd[i].revents)
				continue;
			n = read(pfd[i].fd, buf, sizeof(buf));
			if (n > 0) {
				if (i == 0)
					buf_add(&r->out, &r->out_len, buf, n);
				else
					buf_add(&r->err, &r->err_len, buf, n);
			} else if (n == 0 || errno != EINTR) {
				close(pfd[i].fd);
				if (i == 0)
					po[0] = -1;
				else
					pe[0] = -1;
			}
		}
		if (pi[1] >= 0 && pfd[2].revents) {
			n = write(pi[1], (const char *)in + in_off, in_len - in_off);
			if (n > 0)
				in_off += n;
			if (n < 0 || in_off == in_len) {
				close(pi[1]);
				pi[1] = -1;
			}
		}
	}
	if (pi[1] >= 0)
		close(pi[1]);
	if (waitpid(pid, &st, 0) < 0)
		return -errno;
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	return 0;
}

char *read_all(int fd)
{
	char buf[4096], *out = NULL;
	size_t len = 0;
	ssize_t n;

	buf_add(&out, &len, "", 0);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		buf_add(&out, &len, buf, n);
	return out;
}

void split(char *line, char *name, char **argv, int max)
{
	int n = 0;
	char *save = NULL, *w;

	argv[n++] = name;
	for (w = strtok_r(line, " ", &save); w && n < max - 1;
	     w = strtok_r(NULL, " ", &save))
		argv[n++] = w;
	argv[n] = NULL;
}

int run_prog(struct run *r, enum prog p, const void *in, size_t in_len,
	     enum run_as as, const char *fmt, ...)
{
	static char *const names[] = { "mwctl", "mwpeer" };
	char line[1024], *argv[64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	split(line, names[p], argv, 64);
	return run_argv(r, p, in, in_len, as, argv);
}

/* --------------------------------------------------------------- JSON */

void jfree(jv *j)
{
	json_object_put(j);
}

jv *jparse(const char *s)
{
	struct json_tokener *tok = json_tokener_new();
	size_t len = strlen(s);
	jv *j;

	if (!tok)
		return NULL;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	j = json_tokener_parse_ex(tok, s, (int)len);
	if (j && (json_tokener_get_error(tok) != json_tokener_success ||
		  strspn(s + json_tokener_get_parse_end(tok), " \t\r\n") !=
		  len - json_tokener_get_parse_end(tok))) {
		json_object_put(j);
		j = NULL;
	}
	json_tokener_free(tok);
	return j;
}

jv *jget(const jv *o, const char *key)
{
	jv *v;

	return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

bool jis_arr(const jv *v)
{
	return json_object_is_type(v, json_type_array);
}

bool jis_obj(const jv *v)
{
	return json_object_is_type(v, json_type_object);
}

size_t jlen(const jv *v)
{
	return jis_arr(v) ? json_object_array_length(v) :
	       jis_obj(v) ? (size_t)json_object_object_length(v) : 0;
}

jv *jat(const jv *a, size_t i)
{
	return jis_arr(a) ? json_object_array_get_idx(a, i) : NULL;
}

uint64_t jnum(const jv *o, const char *key)
{
	const jv *v = jget(o, key);

	if (!json_object_is_type(v, json_type_int) ||
	    json_object_get_int64(v) < 0)
		return JMISSING;
	return json_object_get_uint64(v);
}

const char *jsval(const jv *v)
{
	return json_object_is_type(v, json_type_string) ?
	       json_object_get_string((jv *)v) : "(none)";
}

const char *jstr(const jv *o, const char *key)
{
	return jsval(jget(o, key));
}

int jbool(const jv *o, const char *key)
{
	const jv *v = jget(o, key);

	return json_object_is_type(v, json_type_boolean) ?
	       json_object_get_boolean(v) : -1;
}

jv *jfind(const jv *a, const char *key, uint64_t val)
{
	size_t i;

	for (i = 0; i < jlen(a) && jis_arr(a); i++)
		if (jnum(jat(a, i), key) == val)
			return jat(a, i);
	return NULL;
}

/* --------------------------------------------------------------- text */

/* a copy of the first line of @out with @s at its start (or @anywhere) */
static char *find_line(const char *out, const char *s, bool anywhere)
{
	const char *p = out;
	size_t n = strlen(s);

	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if (anywhere ? !!memmem(p, len, s, n) :
			       len >= n && !strncmp(p, s, n))
			return strndup(p, len);
		p = nl ? nl + 1 : NULL;
	}
	return NULL;
}

char *text_line(const char *out, const char *prefix)
{
	return find_line(out, prefix, false);
}

char *line_with(const char *out, const char *s)
{
	return find_line(out, s, true);
}

const char *tval(const char *line, const char *key, char *buf, size_t len)
{
	char copy[1024], *save = NULL, *w;
	bool next = false;

	buf[0] = '\0';
	if (!line)
		return buf;
	snprintf(copy, sizeof(copy), "%s", line);
	for (w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		if (next) {
			snprintf(buf, len, "%s", w);
			break;
		}
		next = !strcmp(w, key);
	}
	return buf;
}

uint64_t tnum(const char *line, const char *key)
{
	char buf[64];

	tval(line, key, buf, sizeof(buf));
	return *buf ? strtoull(buf, NULL, 0) : JMISSING;
}

uint32_t first_id(const char *out, const char *name)
{
	char fmt[32];
	unsigned int id = 0;

	snprintf(fmt, sizeof(fmt), "%s %%u ", name);
	if (sscanf(out, fmt, &id) != 1)
		return 0;
	return id;
}
