/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mwctl: what the object files (dev.c, peer.c, region.c, window.c,
 * tenant.c, stats.c, monitor.c) share. mwctl.c parses the options and
 * runs the object named on the command line; utils.c holds the executor,
 * the errors and the shared show helpers; parse.c the parsing of ids,
 * sizes and keywords.
 *
 * An object file has a usage, a {name, func} table of its commands (the
 * first one runs when none is given) and a cmd_OBJECT() that hands both to
 * mw_object(). Listing objects go through struct mw_object, so that every
 * "OBJECT show [ID]" is the same parse, get, print.
 *
 * mwctl is an application of libmwin: it calls <mwin/mwin.h> (libmwin.so.1)
 * and nothing else of the tree but the printer (print.h, libmwprint.a).
 * Each command names the library call it makes, so that a failure is
 * explained in the library's words (mwin_strerror()); mwctl adds the ids
 * and figures it looks up.
 */
#ifndef _MWCTL_H
#define _MWCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <mwin/mwin.h>
#include "print.h"

#define EXIT_FAIL	1	/* the operation failed */
#define EXIT_USAGE	2	/* the command line is wrong */

struct mw {
	int argc;
	char **argv;
	int fd;				/* /dev/mwin, or -1 until mw_open() */
	bool json;
	bool pretty;
	bool details;
	const char *obj;		/* "window", ... for messages */
	const char *cmd;		/* "create", ... */
	enum mwin_call call;		/* what cmd calls, for mwin_strerror() */
	int (*usage)(struct mw *mw);	/* usage of the current object */
};

struct mw_cmd {
	const char *name;
	int (*func)(struct mw *mw);
	enum mwin_call call;	/* the library call whose errors it explains */
};

/* ---------------------------------------------------------------- objects */

int cmd_dev(struct mw *mw);
int cmd_peer(struct mw *mw);
int cmd_region(struct mw *mw);
int cmd_window(struct mw *mw);
int cmd_tenant(struct mw *mw);
int cmd_monitor(struct mw *mw);
int cmd_stats(struct mw *mw);

/* the device named @name (dev.c), for explaining a window that failed */
bool find_dev(struct mw *mw, const char *name, struct mwin_dev_info *out);
/* tenant @id's name in @buf (tenant.c): "-" for 0, the id if unseen */
const char *tenant_name(struct mw *mw, uint32_t id, char *buf, size_t len);
/* A usage error unless @arg can name a tenant (tenant.c). */
void tenant_arg_check(const char *arg);
/*
 * The id of the tenant @arg names (tenant.c), and in @name its name (or
 * its id): a NAME the caller sees, else a decimal ID, passed on seen or
 * not, for the module to say whether it exists and may be granted to.
 * Exits when @arg is neither.
 */
uint32_t tenant_arg_id(struct mw *mw, const char *arg, char *name,
		       size_t len);

/* ---------------------------------------------------------------- utils.c */

/* The operation failed: one line on stderr, exit 1. */
void __attribute__((noreturn, format(printf, 1, 2))) die(const char *fmt, ...);
/* The command line is wrong: one line on stderr, exit 2. */
void __attribute__((noreturn, format(printf, 1, 2)))
usage_err(const char *fmt, ...);

/* "2 MiB", "64 KiB", "12345 bytes" */
const char *human(uint64_t v, char *buf, size_t len);
/* "950ms", "1.234s": a lease, in milliseconds */
const char *duration_str(uint64_t ms, char *buf, size_t len);
/* @name, @n bytes that may lack a NUL, as a string in @buf (@n + 1 bytes) */
const char *name_str(char *buf, const char *name, size_t n);
/*
 * @name(@v) (a libmwin name function), or in @buf @prefix and the number
 * for a value libmwin does not know (a newer module's): "reason-14".
 */
const char *enum_str(const char *(*name)(uint32_t), uint32_t v,
		     const char *prefix, char *buf, size_t len);
/*
 * Counts by reason, @slots of them indexed from 1 (refused connections,
 * peers gone), named by @name: text "KEY address:2,quota:1" (those not 0;
 * "-" for none), JSON an object KEY of every reason.
 */
void print_reasons(const char *key, const __u64 *counts, uint32_t slots,
		   const char *(*name)(uint32_t));

bool is_help(const char *s);
/*
 * The entry of @names that @arg names: an exact name, else the only name
 * @arg is a prefix of. @what is "object", "command" or "keyword", @where
 * the command for messages (or NULL), @hint what an unknown name is told.
 */
int match_name(const char *arg, const char *const *names, size_t n,
	       const char *what, const char *where, const char *hint);
/* Run the entry of @cmds that argv[0] names; the first without one. */
int mw_exec(struct mw *mw, const struct mw_cmd *cmds);
/* Run a command of object @obj: mw_exec() with @obj's name and usage. */
int mw_object(struct mw *mw, const char *obj, int (*usage)(struct mw *mw),
	      const struct mw_cmd *cmds);

void mw_open(struct mw *mw);
/* Exit: "OBJ CMD: error", as mwin_strerror() explains it for the call. */
void __attribute__((noreturn)) cmd_failed(struct mw *mw, int err);
/*
 * Exit: "no OBJ ID", or "OBJ CMD ID: error" (but "OBJ CMD: error" for the
 * errors of any call, EPERM and ENOTTY).
 */
void __attribute__((noreturn)) id_failed(struct mw *mw, int err, uint32_t id);

/* The object of a GET ioctl; each struct starts with size, flags, id. */
union mw_info {
	struct mwin_region_info region;
	struct mwin_window_info window;
	struct mwin_peer_info peer;
	struct mwin_tenant_info tenant;
};

/* An object that "show" lists: how to get one, how to print one. */
struct mw_object {
	const char *name;	/* "region": messages */
	const char *list;	/* "regions": the JSON array of show */
	int (*get)(int fd, uint32_t id, uint32_t flags, union mw_info *info);
	void (*print)(struct mw *mw, const union mw_info *info);
};

/* OBJ show [ID]: one object, or all of them, as one document. */
int mw_show(struct mw *mw, const struct mw_object *o);
/* Object @id into @info; exits when there is none. */
void mw_get(struct mw *mw, const struct mw_object *o, uint32_t id,
	    union mw_info *info);
/* One object as the whole document (what create, rebind... print). */
void print_one(struct mw *mw, const struct mw_object *o,
	       const union mw_info *info);
/* "OBJ ID destroyed", JSON {"id":ID,"destroyed":true}; @done names it. */
void print_done(struct mw *mw, uint32_t id, const char *done);

/* ---------------------------------------------------------------- parse.c */

bool parse_size(const char *s, uint64_t *out);
/*
 * Milliseconds of "500", "500ms", "2s", "1.5s" into @ms; a number too
 * large for any lease comes out larger than UINT32_MAX, not as an error.
 */
bool parse_duration(const char *s, uint64_t *ms);
/* The positional ID of a command: of an object of the current kind. */
uint32_t take_id(struct mw *mw);

enum kw_type { KW_FLAG, KW_ID, KW_SIZE, KW_ACCESS, KW_STR, KW_DURATION };

/* A keyword a command takes, and after parse_kws() what it was given. */
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

/* Keyword [value] pairs in any order, into @kws; exits on any mistake. */
void parse_kws(struct mw *mw, struct kw *kws);
/*
 * Usage errors of the keywords peer and tenant (window create, rebind,
 * stats): one of them, not both; one at least when @required.
 */
void check_grantee(struct mw *mw, struct kw *kws, bool required);
/* No arguments allowed but help. */
void no_args(struct mw *mw);
struct kw *kw_find(struct kw *kws, const char *name);
bool kw_set(struct kw *kws, const char *name);
uint64_t kw_u(struct kw *kws, const char *name);
/* A size keyword, when given, may not be 0. */
void kw_nonzero(struct kw *kws, const char *name);
/* Bytes of an even number of hex digits ("0x" allowed); free() them. */
uint8_t *parse_hex(const char *hex, size_t *len);

#endif /* _MWCTL_H */
