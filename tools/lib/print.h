/* SPDX-License-Identifier: GPL-2.0 */
/*
 * print: one printer for text and JSON output, modelled on iproute2's
 * json_print. A command prints each field once; the printer writes it as
 * "key value" on a text line, or as "key": value in a JSON document.
 *
 *   pr_doc_begin();                      JSON: {        text: -
 *   pr_array_begin(PR_ANY, "windows");   JSON: "windows":[
 *   pr_obj_begin(PR_ANY, NULL);          JSON: {
 *   pr_label("window");                  text label of the next field
 *   pr_uint(PR_ANY, "id", 7);            JSON: "id":7   text: window 7
 *   pr_hex(PR_ANY, "rkey", rkey, 0);     JSON: "rkey":2583,"rkey_hex":"0xa17"
 *                                        text: rkey 0xa17
 *   pr_obj_end(PR_ANY);                  JSON: }        text: end of line
 *   pr_array_end(PR_ANY);                JSON: ]
 *   pr_doc_end();                        JSON: }\n
 *
 * PR_TEXT fields appear only in text, PR_JSON fields only in JSON.
 * Nothing is written to the output until pr_flush(), unless the printer
 * was set up unbuffered (for streams of documents).
 */
#ifndef _MWIN_PRINT_H
#define _MWIN_PRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum pr_type {
	PR_TEXT = 1,
	PR_JSON = 2,
	PR_ANY = 3,
};

/*
 * pr_init() - choose the format; @out gets the output.
 * @buffered: keep everything in memory until pr_flush() (so that a
 *	failing command prints nothing); else each pr_doc_end() and each
 *	text line is written and flushed at once.
 */
void pr_init(FILE *out, bool json, bool pretty, bool buffered);
bool pr_json(void);
/* Write what was buffered to the output; returns 0 or -errno. */
int pr_flush(void);
/* Forget what was buffered. */
void pr_discard(void);

void pr_doc_begin(void);
void pr_doc_end(void);
void pr_array_begin(enum pr_type t, const char *key);
void pr_array_end(enum pr_type t);
/* @key is NULL for an element of an array */
void pr_obj_begin(enum pr_type t, const char *key);
void pr_obj_end(enum pr_type t);

/*
 * Text label of the next field instead of its key; "" prints the value
 * alone.
 */
void pr_label(const char *label);
void pr_uint(enum pr_type t, const char *key, uint64_t v);
/* text: 0x%0*x (width 0: no padding); JSON: the number and key_hex */
void pr_hex(enum pr_type t, const char *key, uint64_t v, int width);
void pr_str(enum pr_type t, const char *key, const char *v);
/* text: the key (or label) alone when true, nothing when false */
void pr_bool(enum pr_type t, const char *key, bool v);
/* text: key a,b,c ("-" when empty); JSON: an array of strings */
void pr_strlist(enum pr_type t, const char *key, const char *const *v,
		size_t n);
/*
 * @n bytes: JSON "key":"68656c6c" (hex digits); text a dump in the style
 * of hexdump -C, offsets from 0, a run of identical lines folded into "*",
 * and @n on a line of its own at the end (nothing at all when @n is 0).
 */
void pr_bytes(enum pr_type t, const char *key, const uint8_t *d, size_t n);
/* raw text (text mode only) */
void pr_text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* text: end the current line if anything is on it */
void pr_nl(void);

#endif /* _MWIN_PRINT_H */
