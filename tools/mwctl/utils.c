// SPDX-License-Identifier: GPL-2.0
/*
 * mwctl: what every object shares: errors, the generic executor, opening
 * /dev/mwin, and the show and print helpers.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mwctl.h"

/* ---------------------------------------------------------------- errors */

static void vfail(int status, const char *fmt, va_list ap)
{
	char msg[512];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	fflush(stdout);
	fprintf(stderr, "mwctl: %s\n", msg);
	exit(status);
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(EXIT_FAIL, fmt, ap);
	va_end(ap);
	exit(EXIT_FAIL);
}

void usage_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(EXIT_USAGE, fmt, ap);
	va_end(ap);
	exit(EXIT_USAGE);
}

const char *human(uint64_t v, char *buf, size_t len)
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

const char *duration_str(uint64_t ms, char *buf, size_t len)
{
	if (ms < 1000)
		snprintf(buf, len, "%" PRIu64 "ms", ms);
	else
		snprintf(buf, len, "%" PRIu64 ".%03" PRIu64 "s", ms / 1000,
			 ms % 1000);
	return buf;
}

const char *name_str(char *buf, const char *name, size_t n)
{
	memcpy(buf, name, n);
	buf[n] = '\0';
	return buf;
}

const char *enum_str(const char *(*name)(uint32_t), uint32_t v,
		     const char *prefix, char *buf, size_t len)
{
	const char *s = name(v);

	if (strcmp(s, "unknown"))
		return s;
	snprintf(buf, len, "%s%u", prefix, v);
	return buf;
}

/* The most entries a reason array of the uAPI has. */
#define REASON_SLOTS	16
_Static_assert(MWIN_REJECT_SLOTS <= REASON_SLOTS &&
	       MWIN_DOWN_SLOTS <= REASON_SLOTS, "a reason array grew");

void print_reasons(const char *key, const __u64 *counts, uint32_t slots,
		   const char *(*name)(uint32_t))
{
	char text[REASON_SLOTS][48], unknown[REASON_SLOTS][16];
	const char *list[REASON_SLOTS];
	size_t n = 0;
	uint32_t i;

	pr_obj_begin(PR_JSON, key);
	for (i = 1; i < slots && i < REASON_SLOTS; i++) {
		const char *s = enum_str(name, i, "reason-", unknown[i],
					 sizeof(unknown[i]));

		/* JSON: every reason libmwin knows, and any other counted */
		if (s != unknown[i] || counts[i])
			pr_uint(PR_JSON, s, counts[i]);
		if (!counts[i])
			continue;
		snprintf(text[n], sizeof(text[n]), "%s:%llu", s,
			 (unsigned long long)counts[i]);
		list[n] = text[n];
		n++;
	}
	pr_obj_end(PR_JSON);
	pr_strlist(PR_TEXT, key, list, n);
}

/* ---------------------------------------------------------------- executor */

bool is_help(const char *s)
{
	return !strcmp(s, "help") || !strcmp(s, "-h") || !strcmp(s, "--help");
}

static bool prefix_of(const char *arg, const char *name)
{
	return *arg && !strncmp(arg, name, strlen(arg));
}

int match_name(const char *arg, const char *const *names, size_t n,
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
	usage_err("unknown %s '%s'%s%s (%s)", what, arg, where ? " for " : "",
		  where ? where : "", hint);
}

int mw_exec(struct mw *mw, const struct mw_cmd *cmds)
{
	const char *names[16];
	char hint[64];
	size_t n;
	int i;

	for (n = 0; n < 16 && cmds[n].name; n++)
		names[n] = cmds[n].name;
	/* messages name the command in full, however it was abbreviated */
	mw->cmd = cmds[0].name;
	mw->call = cmds[0].call;
	if (!mw->argc)
		return cmds[0].func(mw);
	if (is_help(mw->argv[0]))
		return mw->usage(mw);
	snprintf(hint, sizeof(hint), "try 'mwctl %s%shelp'",
		 mw->obj ? mw->obj : "", mw->obj ? " " : "");
	i = match_name(mw->argv[0], names, n, mw->obj ? "command" : "object",
		       mw->obj, hint);
	mw->cmd = cmds[i].name;
	mw->call = cmds[i].call;
	mw->argc--;
	mw->argv++;
	return cmds[i].func(mw);
}

int mw_object(struct mw *mw, const char *obj, int (*usage)(struct mw *mw),
	      const struct mw_cmd *cmds)
{
	mw->obj = obj;
	mw->usage = usage;
	return mw_exec(mw, cmds);
}

/* ---------------------------------------------------------------- device */

void mw_open(struct mw *mw)
{
	int fd;

	if (mw->fd >= 0)
		return;
	fd = mwin_open();
	if (fd < 0)
		die("cannot open %s: %s", MWIN_DEV_PATH,
		    mwin_strerror(MWIN_CALL_OPEN, fd));
	mw->fd = fd;
}

void cmd_failed(struct mw *mw, int err)
{
	die("%s %s: %s", mw->obj, mw->cmd, mwin_strerror(mw->call, err));
}

void id_failed(struct mw *mw, int err, uint32_t id)
{
	if (err == -ENOENT)
		die("no %s %u", mw->obj, id);
	/* the errors of any call say what they say without the id */
	if (err == -EPERM || err == -ENOTTY)
		cmd_failed(mw, err);
	die("%s %s %u: %s", mw->obj, mw->cmd, id, mwin_strerror(mw->call, err));
}

/* ---------------------------------------------------------------- show */

void mw_get(struct mw *mw, const struct mw_object *o, uint32_t id,
	    union mw_info *info)
{
	int ret = o->get(mw->fd, id, 0, info);

	if (ret == -ENOENT)
		die("no %s %u", o->name, id);
	if (ret)
		cmd_failed(mw, ret);
}

/* one element of show's array */
static void print_elem(struct mw *mw, const struct mw_object *o,
		       const union mw_info *info)
{
	pr_obj_begin(PR_ANY, NULL);
	o->print(mw, info);
	pr_obj_end(PR_ANY);
}

/* every object, in the order of their ids */
static void print_all(struct mw *mw, const struct mw_object *o)
{
	union mw_info info;
	uint32_t id = 0;
	int ret;

	/* the id leads every GET struct: read it through any member */
	while (!(ret = o->get(mw->fd, id, MWIN_GET_NEXT, &info))) {
		print_elem(mw, o, &info);
		id = info.region.id;
	}
	if (ret != -ENOENT)
		cmd_failed(mw, ret);
}

int mw_show(struct mw *mw, const struct mw_object *o)
{
	union mw_info info;
	uint32_t id = 0;

	if (mw->argc && !is_help(mw->argv[0]))
		id = take_id(mw);
	no_args(mw);
	mw_open(mw);

	pr_doc_begin();
	pr_array_begin(PR_ANY, o->list);
	if (id) {
		mw_get(mw, o, id, &info);
		print_elem(mw, o, &info);
	} else {
		print_all(mw, o);
	}
	pr_array_end(PR_ANY);
	pr_doc_end();
	return 0;
}

void print_one(struct mw *mw, const struct mw_object *o,
	       const union mw_info *info)
{
	pr_doc_begin();
	o->print(mw, info);
	pr_doc_end();
}

void print_done(struct mw *mw, uint32_t id, const char *done)
{
	pr_doc_begin();
	pr_label(mw->obj);
	pr_uint(PR_ANY, "id", id);
	pr_bool(PR_ANY, done, true);
	pr_doc_end();
}
