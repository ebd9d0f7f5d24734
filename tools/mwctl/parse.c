// SPDX-License-Identifier: GPL-2.0
/*
 * mwctl: the arguments of a command: its positional ID, then keyword
 * [value] pairs (sizes, ids, access letters, strings, flags).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mwctl.h"

/* decimal or 0x hex, optional K/M/G/T suffix (powers of 1024, "KiB" too) */
bool parse_size(const char *s, uint64_t *out)
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

/*
 * Where the digits of a duration stop counting: past the longest lease in
 * milliseconds, so that "99999999999999999999ms" is too long, not garbage.
 */
#define DURATION_BIG	((uint64_t)UINT32_MAX + 1)

/* decimal milliseconds, or seconds with up to 3 decimals: 500, 500ms, 1.5s */
bool parse_duration(const char *s, uint64_t *ms)
{
	const char *p = s;
	uint64_t v = 0, frac = 0, scale = 100;
	int digits = 0, decimals = 0;

	for (; isdigit((unsigned char)*p); p++, digits++)
		if (v < DURATION_BIG)
			v = v * 10 + (uint64_t)(*p - '0');
	if (!digits)
		return false;
	if (*p == '.') {
		for (p++; isdigit((unsigned char)*p); p++, decimals++) {
			frac += (uint64_t)(*p - '0') * scale;
			scale /= 10;
		}
		/* seconds to the millisecond: 1 to 3 decimals */
		if (!decimals || decimals > 3)
			return false;
	}
	if (!strcmp(p, "s")) {
		*ms = v * 1000 + frac;
		return true;
	}
	if (decimals || (*p && strcmp(p, "ms")))
		return false;
	*ms = v;
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

/* the id of a @kind object in @s, or exit */
static uint32_t id_arg(const char *s, const char *kind)
{
	uint32_t id;

	if (!parse_id(s, &id))
		usage_err("bad %s id '%s' (a positive number)", kind, s);
	return id;
}

/* help where an argument was expected: the object's usage, and done */
static void help_exit(struct mw *mw)
{
	mw->usage(mw);
	exit(0);
}

/* the next argument, consumed */
static const char *take_arg(struct mw *mw)
{
	mw->argc--;
	return *mw->argv++;
}

uint32_t take_id(struct mw *mw)
{
	if (!mw->argc)
		usage_err("%s %s needs a %s ID", mw->obj, mw->cmd, mw->obj);
	if (is_help(mw->argv[0]))
		help_exit(mw);
	return id_arg(take_arg(mw), mw->obj);
}

struct kw *kw_find(struct kw *kws, const char *name)
{
	for (; kws->name; kws++)
		if (!strcmp(kws->name, name))
			return kws;
	return NULL;
}

bool kw_set(struct kw *kws, const char *name)
{
	return kw_find(kws, name)->set;
}

uint64_t kw_u(struct kw *kws, const char *name)
{
	return kw_find(kws, name)->u;
}

void kw_nonzero(struct kw *kws, const char *name)
{
	if (kw_set(kws, name) && !kw_u(kws, name))
		usage_err("%s must be at least 1 byte", name);
}

/* the value of keyword @k, from @val */
static void kw_value(struct kw *k, const char *val)
{
	int acc;

	switch (k->type) {
	case KW_ID:
		k->u = id_arg(val, k->name);
		break;
	case KW_SIZE:
		if (!parse_size(val, &k->u))
			usage_err("bad size '%s' for '%s' (bytes: 4096, 0x1000, 64K, 2M, 1G)",
				  val, k->name);
		break;
	case KW_DURATION:
		if (!parse_duration(val, &k->u))
			usage_err("bad duration '%s' for '%s' (500ms, 2s, 1.5s; a bare number is ms)",
				  val, k->name);
		/* no lease is said by leaving the keyword out */
		if (!k->u)
			usage_err("%s must be at least 1ms", k->name);
		if (k->u > UINT32_MAX)
			usage_err("%s %s is longer than the longest lease, %ums (49.7 days)",
				  k->name, val, UINT32_MAX);
		break;
	case KW_ACCESS:
		acc = mwin_access_parse(val);
		if (acc < 0)
			usage_err("bad access '%s' (letters r, w, a, e.g. rw)", val);
		k->u = (uint64_t)acc;
		break;
	case KW_STR:
		k->s = val;
		break;
	case KW_FLAG:
		break;
	}
}

void parse_kws(struct mw *mw, struct kw *kws)
{
	const char *names[16];
	char where[64], expected[192] = "expected ";
	size_t n, len = strlen(expected);

	for (n = 0; n < 16 && kws[n].name; n++) {
		names[n] = kws[n].name;
		len += snprintf(expected + len, sizeof(expected) - len, "%s%s",
				n ? ", " : "", kws[n].name);
		if (len >= sizeof(expected))
			len = sizeof(expected) - 1;
	}
	snprintf(where, sizeof(where), "%s %s", mw->obj, mw->cmd);

	while (mw->argc) {
		struct kw *k;

		if (is_help(mw->argv[0]))
			help_exit(mw);
		if (!n)
			usage_err("unexpected argument '%s' for %s", mw->argv[0],
				  where);
		k = &kws[match_name(mw->argv[0], names, n, "keyword", where,
				    expected)];
		if (k->set)
			usage_err("'%s' given twice", k->name);
		k->set = true;
		take_arg(mw);
		if (k->type == KW_FLAG)
			continue;
		if (!mw->argc)
			usage_err("'%s' needs a value (%s %s)", k->name, k->name,
				  k->meta);
		kw_value(k, take_arg(mw));
	}
	for (n = 0; kws[n].name; n++)
		if (kws[n].required && !kws[n].set)
			usage_err("%s needs '%s %s'", where, kws[n].name,
				  kws[n].meta);
}

void check_grantee(struct mw *mw, struct kw *kws, bool required)
{
	bool peer = kw_set(kws, "peer"), tenant = kw_set(kws, "tenant");

	if (peer && tenant)
		usage_err("%s %s takes 'peer ID' or 'tenant NAME', not both",
			  mw->obj, mw->cmd);
	if (required && !peer && !tenant)
		usage_err("%s %s needs 'peer ID' or 'tenant NAME'", mw->obj,
			  mw->cmd);
	if (tenant)
		tenant_arg_check(kw_find(kws, "tenant")->s);
}

void no_args(struct mw *mw)
{
	struct kw none[] = { { 0 } };

	parse_kws(mw, none);
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

uint8_t *parse_hex(const char *hex, size_t *len)
{
	const char *h = hex;
	uint8_t *data;
	size_t i;

	if (h[0] == '0' && (h[1] == 'x' || h[1] == 'X'))
		h += 2;
	*len = strlen(h);
	if (!*len || *len % 2)
		usage_err("bad hex '%s' (an even number of hex digits, e.g. 68656c6c6f)",
			  hex);
	*len /= 2;
	data = malloc(*len);
	if (!data)
		die("out of memory");
	for (i = 0; i < *len; i++) {
		int hi = hexval((unsigned char)h[2 * i]);
		int lo = hexval((unsigned char)h[2 * i + 1]);

		if (hi < 0 || lo < 0)
			usage_err("bad hex '%s' (an even number of hex digits, e.g. 68656c6c6f)",
				  hex);
		data[i] = (uint8_t)(hi << 4 | lo);
	}
	return data;
}
