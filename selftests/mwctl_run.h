/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Run the tools (build/tools/mwctl and mwpeer, or $MWCTL and $MWPEER) as
 * programs, as a user would, and read what they print: their exit status,
 * stdout and stderr, their text lines ("key value" pairs) and their JSON
 * documents (read with json-c). Shared by the mwin_mwctl*.c tests and
 * mwin_observe.c; mwctl_run.c holds the code, linked into each of them
 * (EXTRA_SRCS in the Makefile).
 */
#ifndef _MWCTL_RUN_H
#define _MWCTL_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "mwin_test.h"

/* ------------------------------------------------------------ running */

struct run {
	int status;	/* exit status; 128 + signal when killed */
	char *out;
	size_t out_len;
	char *err;
	size_t err_len;
};

/* The programs run: build/tools/NAME, or the one $MWCTL or $MWPEER names. */
enum prog { PROG_MWCTL, PROG_MWPEER };

const char *prog_path(enum prog p);

/* append @n bytes of @d to the buffer *@b of *@len bytes, NUL-terminated */
void buf_add(char **b, size_t *len, const char *d, size_t n);

/* free what a run captured; @r can run again */
void run_free(struct run *r);

/* how a command runs */
enum run_as {
	AS_ROOT,
	AS_NODEV,	/* with an empty /dev of its own: no /dev/mwin */
	AS_NOBODY,	/* as user and group 65534 */
};

/*
 * Run program @p with @argv (NULL-terminated, argv[0] is the name),
 * feeding it @in on stdin; capture stdout, stderr and the exit status.
 */
int run_argv(struct run *r, enum prog p, const void *in, size_t in_len,
	     enum run_as as, char **argv);

/* What @fd gives until its end, NUL-terminated. */
char *read_all(int fd);

/* split @line at spaces into @argv after @name (at most @max - 1 words) */
void split(char *line, char *name, char **argv, int max);

/* Run program @p with the words of @fmt as its arguments. */
int __attribute__((format(printf, 6, 7)))
run_prog(struct run *r, enum prog p, const void *in, size_t in_len,
	 enum run_as as, const char *fmt, ...);

/* mwctl with the words of the format: run_in(r, in, len, as, fmt, ...) */
#define run_in(_r, _in, _in_len, _as, ...) \
	run_prog(_r, PROG_MWCTL, _in, _in_len, _as, __VA_ARGS__)
#define RUN(_r, ...) ASSERT_EQ(0, run_in(_r, NULL, 0, AS_ROOT, __VA_ARGS__))

/* success: status 0 and nothing on stderr */
#define EXPECT_OK(_r) do {						\
	EXPECT_EQ(0, (_r)->status);					\
	EXPECT_STREQ("", (_r)->err);					\
} while (0)

#define ASSERT_OK(_r) do {						\
	ASSERT_STREQ("", (_r)->err);					\
	ASSERT_EQ(0, (_r)->status);					\
} while (0)

/* failure: exactly one line on stderr, nothing on stdout */
#define EXPECT_ERR(_r, _status, ...) do {				\
	char _want[512];						\
	snprintf(_want, sizeof(_want) - 1, __VA_ARGS__);		\
	strcat(_want, "\n");						\
	EXPECT_EQ(_status, (_r)->status);				\
	EXPECT_STREQ(_want, (_r)->err);					\
	EXPECT_STREQ("", (_r)->out);					\
} while (0)

/* --------------------------------------------------------------- JSON */

/*
 * mwctl's JSON, read with json-c (libjson-c-dev): strict, one whole
 * document. These name what the tests ask of a value.
 */
typedef struct json_object jv;

void jfree(jv *j);

/* one whole document, nothing but white space after it; NULL if not JSON */
jv *jparse(const char *s);

/* the member @key of object @o, or NULL */
jv *jget(const jv *o, const char *key);

/* is @v an array, an object? */
bool jis_arr(const jv *v);
bool jis_obj(const jv *v);

/* elements of an array, members of an object, 0 for anything else */
size_t jlen(const jv *v);

/* element @i of array @a */
jv *jat(const jv *a, size_t i);

#define JMISSING UINT64_MAX

/* the integer (not negative) at @key, JMISSING when there is none */
uint64_t jnum(const jv *o, const char *key);

/* the string @v, or at @key of @o, "(none)" when it is not one */
const char *jsval(const jv *v);
const char *jstr(const jv *o, const char *key);

/* the boolean at @key: 1 or 0, -1 when there is none */
int jbool(const jv *o, const char *key);

/* the element of array @a whose @key is @val */
jv *jfind(const jv *a, const char *key, uint64_t val);

/* --------------------------------------------------------------- text */

/* a copy of the first line of @out that starts with @prefix, or NULL */
char *text_line(const char *out, const char *prefix);

/* a copy of the first line of @out that holds @s, or NULL */
char *line_with(const char *out, const char *s);

/* the word after the word @key in @line ("" if none), in @buf */
const char *tval(const char *line, const char *key, char *buf, size_t len);

/* that word as a number, JMISSING when there is none */
uint64_t tnum(const char *line, const char *key);

/* the value of the first "NAME N" at the start of the output */
uint32_t first_id(const char *out, const char *name);

#endif /* _MWCTL_RUN_H */
