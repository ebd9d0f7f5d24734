/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The module's tracepoints (system "mwin") as a test reads them: a
 * tracing instance of its own, so that the global buffer is left be, and
 * the check that its lines tell a story: given events, with given fields,
 * in their order, whatever else happened in between.
 */
#ifndef _MWIN_TRACE_H
#define _MWIN_TRACE_H

#include <stdarg.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "mwctl_run.h"

/* tracefs, mounted at /sys/kernel/tracing when it is nowhere; NULL: none */
static inline const char *tracefs(void)
{
	if (access("/sys/kernel/tracing/events", F_OK))
		mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL);
	if (!access("/sys/kernel/tracing/events", F_OK))
		return "/sys/kernel/tracing";
	if (!access("/sys/kernel/debug/tracing/events", F_OK))
		return "/sys/kernel/debug/tracing";
	return NULL;
}

/* Write @s to file @name of directory @dir: 0 or -errno. */
static inline int trace_put(const char *dir, const char *name, const char *s)
{
	char path[512];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* File @name of directory @dir, whole; "" when it cannot be read. */
static inline char *trace_read(const char *dir, const char *name)
{
	char path[512], *out;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return strdup("");
	out = read_all(fd);
	close(fd);
	return out;
}

/*
 * An event a story must tell: its name and the "key=value" fields it must
 * print; a value may list alternatives ("reason=qp-error|qp-event"), "*"
 * is any.
 */
struct want_ev {
	char event[32];
	char fields[160];
};

static inline void __attribute__((format(printf, 3, 4)))
want(struct want_ev *w, const char *event, const char *fmt, ...)
{
	va_list ap;

	snprintf(w->event, sizeof(w->event), "%s", event);
	va_start(ap, fmt);
	vsnprintf(w->fields, sizeof(w->fields), fmt, ap);
	va_end(ap);
}

/* Field @f ("key=v1|v2") in @padded, the fields of a line between spaces. */
static inline bool has_field(const char *padded, const char *f)
{
	const char *eq = strchr(f, '='), *v;
	int key = eq ? (int)(eq - f + 1) : 0;	/* "key=" */
	char tok[128];
	size_t n;

	for (v = eq ? eq + 1 : ""; *v; v += n + (v[n] == '|')) {
		n = strcspn(v, "|");
		if (n == 1 && *v == '*')
			snprintf(tok, sizeof(tok), " %.*s", key, f);
		else
			snprintf(tok, sizeof(tok), " %.*s%.*s ", key, f, (int)n, v);
		if (strstr(padded, tok))
			return true;
	}
	return false;
}

/* Does the trace line @line report @w? */
static inline bool is_event(const char *line, const struct want_ev *w)
{
	char tag[48], padded[512], fields[160], *save = NULL, *f;
	const char *at;

	snprintf(tag, sizeof(tag), " %s: ", w->event);
	at = strstr(line, tag);
	if (!at)
		return false;
	snprintf(padded, sizeof(padded), " %s ", at + strlen(tag));
	snprintf(fields, sizeof(fields), "%s", w->fields);
	for (f = strtok_r(fields, " ", &save); f; f = strtok_r(NULL, " ", &save))
		if (!has_field(padded, f))
			return false;
	return true;
}

/* How many of the @n events of @w the trace @t tells, in their order. */
static inline int story_told(const char *t, const struct want_ev *w, int n)
{
	int k = 0;

	while (*t && k < n) {
		const char *nl = strchr(t, '\n');
		char *line = strndup(t, nl ? (size_t)(nl - t) : strlen(t));

		if (is_event(line, &w[k]))
			k++;
		free(line);
		if (!nl)
			break;
		t = nl + 1;
	}
	return k;
}

/*
 * Make tracing instance @name (under tracefs) with the mwin events on,
 * its path into @path. NULL, or why not: no tracefs, no instances, no
 * mwin events. A killed run's instance goes first.
 */
static inline const char *trace_start(const char *name, char *path,
				      size_t len)
{
	const char *fs = tracefs();

	if (!fs)
		return "no tracefs";
	snprintf(path, len, "%s/instances/%s", fs, name);
	rmdir(path);
	if (mkdir(path, 0700)) {
		path[0] = '\0';
		return "no tracing instances";
	}
	if (trace_put(path, "events/mwin/enable", "1"))
		return "no mwin tracepoints: a module without them?";
	return NULL;
}

#endif /* _MWIN_TRACE_H */
