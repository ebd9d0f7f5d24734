// SPDX-License-Identifier: GPL-2.0
/*
 * print: one printer for text and JSON output (see print.h).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "print.h"

#define PR_MAX_DEPTH	16

static struct {
	FILE *out;		/* final destination */
	FILE *f;		/* where we write: @out or the memory stream */
	char *mem;
	size_t mem_len;
	bool json;
	bool pretty;
	bool buffered;
	int depth;
	unsigned int count[PR_MAX_DEPTH];	/* JSON members at each depth */
	unsigned int fields;	/* text fields on the current line */
	const char *label;
} pr;

static void pr_open_mem(void)
{
	pr.mem = NULL;
	pr.mem_len = 0;
	pr.f = open_memstream(&pr.mem, &pr.mem_len);
	if (!pr.f) {
		/* fall back to unbuffered output */
		pr.f = pr.out;
		pr.buffered = false;
	}
}

void pr_init(FILE *out, bool json, bool pretty, bool buffered)
{
	memset(&pr, 0, sizeof(pr));
	pr.out = out;
	pr.f = out;
	pr.json = json;
	pr.pretty = json && pretty;
	pr.buffered = buffered;
	if (buffered)
		pr_open_mem();
}

bool pr_json(void)
{
	return pr.json;
}

int pr_flush(void)
{
	int ret = 0;

	if (pr.buffered) {
		fclose(pr.f);
		if (pr.mem_len && fwrite(pr.mem, 1, pr.mem_len, pr.out) != pr.mem_len)
			ret = -EIO;
		free(pr.mem);
		pr_open_mem();
	}
	if (fflush(pr.out))
		ret = -errno;
	return ret;
}

void pr_discard(void)
{
	if (pr.buffered) {
		fclose(pr.f);
		free(pr.mem);
		pr_open_mem();
	}
}

/* unbuffered output goes out at the end of each line or document */
static void pr_push(void)
{
	if (!pr.buffered)
		fflush(pr.f);
}

static bool want(enum pr_type t)
{
	return t & (pr.json ? PR_JSON : PR_TEXT);
}

/* ------------------------------------------------------------- JSON */

static void j_indent(void)
{
	int i;

	if (!pr.pretty)
		return;
	fputc('\n', pr.f);
	for (i = 0; i < pr.depth; i++)
		fputs("  ", pr.f);
}

/* separator before a member at the current depth */
static void j_sep(void)
{
	if (pr.count[pr.depth]++)
		fputc(',', pr.f);
	if (pr.depth)	/* a document starts on its own line */
		j_indent();
}

static void j_string(const char *s)
{
	const unsigned char *c;

	fputc('"', pr.f);
	for (c = (const unsigned char *)s; *c; c++) {
		switch (*c) {
		case '"':
			fputs("\\\"", pr.f);
			break;
		case '\\':
			fputs("\\\\", pr.f);
			break;
		case '\n':
			fputs("\\n", pr.f);
			break;
		case '\t':
			fputs("\\t", pr.f);
			break;
		default:
			if (*c < 0x20 || *c == 0x7f)
				fprintf(pr.f, "\\u%04x", *c);
			else
				fputc(*c, pr.f);
		}
	}
	fputc('"', pr.f);
}

/* start a member: "key": inside an object, nothing but , in an array */
static void j_key(const char *key)
{
	j_sep();
	if (key) {
		j_string(key);
		fputs(pr.pretty ? ": " : ":", pr.f);
	}
}

static void j_open(const char *key, char c)
{
	j_key(key);
	fputc(c, pr.f);
	if (pr.depth < PR_MAX_DEPTH - 1)
		pr.depth++;
	pr.count[pr.depth] = 0;
}

static void j_close(char c)
{
	bool empty = !pr.count[pr.depth];

	if (pr.depth > 0)
		pr.depth--;
	if (!empty)
		j_indent();
	fputc(c, pr.f);
}

/* ------------------------------------------------------------- text */

/* start a text field: a space between fields, then the label */
static void t_field(const char *key)
{
	const char *label = pr.label ? pr.label : key;

	pr.label = NULL;
	if (pr.fields++)
		fputc(' ', pr.f);
	if (*label)
		fprintf(pr.f, "%s ", label);
}

void pr_nl(void)
{
	if (pr.json || !pr.fields)
		return;
	fputc('\n', pr.f);
	pr.fields = 0;
	pr_push();
}

/* ------------------------------------------------------------ public */

void pr_doc_begin(void)
{
	pr.depth = 0;
	pr.count[0] = 0;
	pr.fields = 0;
	if (pr.json)
		j_open(NULL, '{');
}

void pr_doc_end(void)
{
	if (pr.json) {
		j_close('}');
		fputc('\n', pr.f);
		pr.count[0] = 0;
		pr_push();
	} else {
		pr_nl();
	}
}

void pr_array_begin(enum pr_type t, const char *key)
{
	if (pr.json && want(t))
		j_open(key, '[');
}

void pr_array_end(enum pr_type t)
{
	if (pr.json && want(t))
		j_close(']');
}

void pr_obj_begin(enum pr_type t, const char *key)
{
	if (pr.json && want(t))
		j_open(key, '{');
}

void pr_obj_end(enum pr_type t)
{
	if (!want(t))
		return;
	if (pr.json)
		j_close('}');
	else
		pr_nl();
}

void pr_label(const char *label)
{
	pr.label = label;
}

void pr_uint(enum pr_type t, const char *key, uint64_t v)
{
	if (!want(t)) {
		pr.label = NULL;
		return;
	}
	if (pr.json) {
		j_key(key);
		fprintf(pr.f, "%" PRIu64, v);
	} else {
		t_field(key);
		fprintf(pr.f, "%" PRIu64, v);
	}
}

void pr_hex(enum pr_type t, const char *key, uint64_t v, int width)
{
	if (!want(t)) {
		pr.label = NULL;
		return;
	}
	if (pr.json) {
		char hkey[64];

		j_key(key);
		fprintf(pr.f, "%" PRIu64, v);
		snprintf(hkey, sizeof(hkey), "%s_hex", key);
		j_key(hkey);
		fprintf(pr.f, "\"0x%" PRIx64 "\"", v);
	} else {
		t_field(key);
		fprintf(pr.f, "0x%0*" PRIx64, width, v);
	}
}

void pr_str(enum pr_type t, const char *key, const char *v)
{
	if (!want(t)) {
		pr.label = NULL;
		return;
	}
	if (pr.json) {
		j_key(key);
		j_string(v);
	} else {
		t_field(key);
		fputs(v, pr.f);
	}
}

void pr_bool(enum pr_type t, const char *key, bool v)
{
	if (!want(t)) {
		pr.label = NULL;
		return;
	}
	if (pr.json) {
		j_key(key);
		fputs(v ? "true" : "false", pr.f);
	} else if (v) {
		const char *label = pr.label ? pr.label : key;

		pr.label = NULL;
		if (pr.fields++)
			fputc(' ', pr.f);
		fputs(label, pr.f);
	} else {
		pr.label = NULL;
	}
}

void pr_strlist(enum pr_type t, const char *key, const char *const *v,
		size_t n)
{
	size_t i;

	if (!want(t)) {
		pr.label = NULL;
		return;
	}
	if (pr.json) {
		j_open(key, '[');
		for (i = 0; i < n; i++) {
			j_key(NULL);
			j_string(v[i]);
		}
		j_close(']');
	} else {
		t_field(key);
		for (i = 0; i < n; i++)
			fprintf(pr.f, "%s%s", i ? "," : "", v[i]);
		if (!n)
			fputc('-', pr.f);
	}
}

/* one line of a dump: offset, 16 columns of hex, the printable bytes */
static void t_dump_line(size_t off, const uint8_t *line, size_t m)
{
	size_t j;

	fprintf(pr.f, "%08zx ", off);
	for (j = 0; j < 16; j++) {
		if (j == 8)
			fputc(' ', pr.f);
		if (j < m)
			fprintf(pr.f, " %02x", line[j]);
		else
			fputs("   ", pr.f);
	}
	fputs("  |", pr.f);
	for (j = 0; j < m; j++)
		fputc(isprint(line[j]) ? line[j] : '.', pr.f);
	fputs("|\n", pr.f);
}

static void t_dump(const uint8_t *d, size_t n)
{
	const uint8_t *prev = NULL;
	bool star = false;
	size_t off;

	if (!n)
		return;
	for (off = 0; off < n; off += 16) {
		const uint8_t *line = d + off;
		size_t m = off + 16 > n ? n - off : 16;	/* the last may be short */

		/* a full line like the one before: one "*" for the run */
		if (prev && m == 16 && !memcmp(line, prev, 16)) {
			if (!star)
				fputs("*\n", pr.f);
			star = true;
			continue;
		}
		prev = line;
		star = false;
		t_dump_line(off, line, m);
	}
	fprintf(pr.f, "%08zx\n", n);
}

void pr_bytes(enum pr_type t, const char *key, const uint8_t *d, size_t n)
{
	static const char hx[] = "0123456789abcdef";
	size_t i;

	pr.label = NULL;
	if (!want(t))
		return;
	if (!pr.json) {
		t_dump(d, n);
		return;
	}
	j_key(key);
	fputc('"', pr.f);
	for (i = 0; i < n; i++) {
		fputc(hx[d[i] >> 4], pr.f);
		fputc(hx[d[i] & 15], pr.f);
	}
	fputc('"', pr.f);
}

void pr_text(const char *fmt, ...)
{
	va_list ap;

	if (pr.json)
		return;
	va_start(ap, fmt);
	vfprintf(pr.f, fmt, ap);
	va_end(ap);
}
