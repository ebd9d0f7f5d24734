// SPDX-License-Identifier: GPL-2.0
/*
 * mwctl tenant: named remote principals. A peer that names a tenant is
 * admitted only from its addresses, within its quotas and, when it has a
 * key, after both sides proved they hold it. CAP_SYS_ADMIN creates,
 * changes and destroys tenants; their owner, too, sees them.
 *
 * A tenant is named by its NAME or its ID: an argument is a name first,
 * and an id only when no tenant has that name and it is a number.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mwctl.h"

static int usage_tenant(struct mw *mw)
{
	(void)mw;
	fputs("Usage: mwctl tenant [ show [ NAME | ID ] ]\n"
	      "       mwctl tenant create NAME [ key FILE ] [ allow ADDR[/PREFIX] ]...\n"
	      "                           [ max-conns N ] [ max-windows N ] [ max-bytes SIZE ]\n"
	      "                           [ owner USER ]\n"
	      "       mwctl tenant set { NAME | ID } [ key { FILE | none } ]\n"
	      "                           [ allow ADDR[/PREFIX] ]... | [ allow any ]\n"
	      "                           [ max-conns N ] [ max-windows N ] [ max-bytes SIZE ]\n"
	      "                           [ owner { USER | none } ]\n"
	      "       mwctl tenant destroy { NAME | ID }\n"
	      "A tenant's peers connect only from its prefixes (at most 8; none: any\n"
	      "address), at most max-conns at once (default: the module's max_peers),\n"
	      "with at most max-windows windows and max-bytes bytes granted (0, the\n"
	      "default: no limit), and\n"
	      "with its key when it has one. Only CAP_SYS_ADMIN creates, sets and destroys.\n"
	      "NAME: 1 to 23 of A-Z a-z 0-9 . _ -. A NAME no tenant has that is a decimal\n"
	      "number is taken as an ID.\n"
	      "FILE: the key, the file's bytes exactly (no newline stripped), 16 to 64.\n"
	      "USER: a user name or a numeric uid; the owner, too, sees the tenant.\n"
	      "set changes only what it is given; allow replaces the whole list.\n"
	      "destroy disconnects the tenant's peers, which unbinds their windows; the\n"
	      "windows granted to the tenant itself wait unbound for a new peer or tenant.\n"
	      "-d adds the counters: connects, grants, revokes, remote_invalidations,\n"
	      "access_errors, bytes_granted (of the windows bound to it now), rejects.\n",
	      stdout);
	return 0;
}

/* ---------------------------------------------------------------- print */

/* "acme", or the id when the caller may not see tenant @id; "-" for 0 */
const char *tenant_name(struct mw *mw, uint32_t id, char *buf, size_t len)
{
	struct mwin_tenant_info t;
	char name[sizeof(t.name) + 1];

	if (!id)
		snprintf(buf, len, "-");
	else if (!mwin_tenant_get(mw->fd, id, 0, &t))
		snprintf(buf, len, "%s", name_str(name, t.name, sizeof(t.name)));
	else
		snprintf(buf, len, "%u", id);
	return buf;
}

/* "10.0.0.0/8", "fd00::/64" */
static const char *net_str(const struct mwin_tenant_net *net, char *buf,
			   size_t len)
{
	char addr[INET6_ADDRSTRLEN] = "?";

	inet_ntop(net->family == 4 ? AF_INET : AF_INET6, net->addr, addr,
		  sizeof(addr));
	snprintf(buf, len, "%s/%u", addr, net->prefix_len);
	return buf;
}

/* the user name of @uid, else the uid; "-" for none */
static const char *owner_str(uint32_t uid, char *buf, size_t len)
{
	const struct passwd *pw;

	if (uid == MWIN_NO_OWNER)
		return "-";
	pw = getpwuid(uid);
	if (pw)
		return pw->pw_name;
	snprintf(buf, len, "%u", uid);
	return buf;
}

/*
 * -d: what its connections and windows did since the tenant was made,
 * the bytes bound to it now, then the refusals (a list, so last).
 */
static void print_tenant_counters(const struct mwin_tenant_info *t)
{
	pr_uint(PR_ANY, "connects", t->connects);
	pr_uint(PR_ANY, "grants", t->grants);
	pr_uint(PR_ANY, "revokes", t->revokes);
	pr_uint(PR_ANY, "remote_invalidations", t->remote_invalidations);
	pr_uint(PR_ANY, "access_errors", t->access_errors);
	pr_uint(PR_ANY, "bytes_granted", t->bytes_granted);
	print_reasons("rejects", t->rejects, MWIN_REJECT_SLOTS,
		      mwin_reject_reason_name);
}

/* A limit of a tenant's; 0, none, is "-" in text and 0 in JSON. */
static void pr_limit(const char *key, uint64_t limit)
{
	if (limit) {
		pr_uint(PR_ANY, key, limit);
	} else {
		pr_str(PR_TEXT, key, "-");
		pr_uint(PR_JSON, key, 0);
	}
}

static void print_tenant(struct mw *mw, const union mw_info *info)
{
	const struct mwin_tenant_info *t = &info->tenant;
	char name[sizeof(t->name) + 1], owner[16];
	char nets[MWIN_TENANT_ALLOW_MAX][INET6_ADDRSTRLEN + 8];
	const char *allow[MWIN_TENANT_ALLOW_MAX];
	uint32_t i, n = t->nr_allow;

	if (n > MWIN_TENANT_ALLOW_MAX)
		n = MWIN_TENANT_ALLOW_MAX;
	for (i = 0; i < n; i++)
		allow[i] = net_str(&t->allow[i], nets[i], sizeof(nets[i]));

	pr_label("tenant");
	pr_str(PR_ANY, "name", name_str(name, t->name, sizeof(t->name)));
	pr_uint(PR_ANY, "id", t->id);
	pr_str(PR_ANY, "owner", owner_str(t->owner, owner, sizeof(owner)));
	if (t->owner != MWIN_NO_OWNER)
		pr_uint(PR_JSON, "owner_uid", t->owner);
	pr_str(PR_TEXT, "key", t->key_len ? "yes" : "no");
	pr_bool(PR_JSON, "key", t->key_len);
	/* no prefix: any address (JSON: an empty array) */
	if (n) {
		pr_strlist(PR_ANY, "allow", allow, n);
	} else {
		pr_str(PR_TEXT, "allow", "any");
		pr_strlist(PR_JSON, "allow", allow, 0);
	}
	pr_uint(PR_ANY, "max_conns", t->max_conns);
	/* 0: no limit but the module's (text: "-") */
	pr_limit("max_windows", t->max_windows);
	pr_limit("max_bytes", t->max_bytes);
	pr_uint(PR_ANY, "conns", t->nr_conns);
	pr_uint(PR_ANY, "windows", t->nr_windows);
	if (mw->details)
		print_tenant_counters(t);
}

static int get_tenant(int fd, uint32_t id, uint32_t flags, union mw_info *info)
{
	return mwin_tenant_get(fd, id, flags, &info->tenant);
}

static const struct mw_object tenant_object = {
	.name = "tenant",
	.list = "tenants",
	.get = get_tenant,
	.print = print_tenant,
};

/* ---------------------------------------------------------------- names */

/* 1 to MWIN_TENANT_NAME_MAX - 1 bytes of [A-Za-z0-9._-], as the module */
static bool name_ok(const char *s)
{
	size_t i, len = strlen(s);

	if (!len || len >= MWIN_TENANT_NAME_MAX)
		return false;
	for (i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("._-", s[i]))
			return false;
	return true;
}

void tenant_arg_check(const char *arg)
{
	if (!name_ok(arg))
		usage_err("bad tenant name '%s' (1 to %d of A-Z a-z 0-9 . _ -)",
			  arg, MWIN_TENANT_NAME_MAX - 1);
}

/* The positional NAME (or ID) of a command, checked. */
static const char *take_name(struct mw *mw)
{
	const char *s;

	if (!mw->argc)
		usage_err("tenant %s needs a tenant NAME%s", mw->cmd,
			  strcmp(mw->cmd, "create") ? " or ID" : "");
	if (is_help(mw->argv[0])) {
		mw->usage(mw);
		exit(0);
	}
	s = mw->argv[0];
	tenant_arg_check(s);
	mw->argc--;
	mw->argv++;
	return s;
}

/* @s as a tenant id: a decimal number, 1 to 2^32 - 1 */
static bool id_of(const char *s, uint32_t *id)
{
	unsigned long long v;

	if (s[strspn(s, "0123456789")])
		return false;
	errno = 0;
	v = strtoull(s, NULL, 10);
	if (errno || !v || v > UINT32_MAX)
		return false;
	*id = (uint32_t)v;
	return true;
}

/*
 * Exit when this caller may not change tenants. A TENANT_SET of no tenant
 * (id 0) changes nothing: EPERM without CAP_SYS_ADMIN, else ENOENT.
 */
static void need_admin(struct mw *mw)
{
	struct mwin_tenant_info t = {
		.flags = MWIN_TENANT_SET_MAX_WINDOWS,
	};
	int ret = mwin_tenant_set(mw->fd, &t);

	if (ret && ret != -ENOENT)
		cmd_failed(mw, ret);
}

/*
 * The tenant @arg names into @t, or exit. A command that changes tenants
 * (@change) tells a caller without CAP_SYS_ADMIN so, rather than that it
 * sees no such tenant.
 */
static void find_tenant(struct mw *mw, const char *arg, bool change,
			struct mwin_tenant_info *t)
{
	uint32_t id;
	int ret = mwin_tenant_find(mw->fd, arg, t);

	if (ret == -ENOENT && id_of(arg, &id))
		ret = mwin_tenant_get(mw->fd, id, 0, t);
	if (ret == -ENOENT && change)
		need_admin(mw);
	if (ret == -ENOENT)
		die("no tenant %s", arg);
	if (ret)
		cmd_failed(mw, ret);
}

uint32_t tenant_arg_id(struct mw *mw, const char *arg, char *name,
		       size_t len)
{
	struct mwin_tenant_info t;
	uint32_t id;
	int ret = mwin_tenant_find(mw->fd, arg, &t);

	if (!ret) {
		char buf[sizeof(t.name) + 1];

		snprintf(name, len, "%s", name_str(buf, t.name, sizeof(t.name)));
		return t.id;
	}
	if (ret != -ENOENT)
		cmd_failed(mw, ret);
	/*
	 * Not a name the caller sees: an id, for the module to say whether
	 * there is such a tenant the caller may grant to (ENOENT if not).
	 */
	if (!id_of(arg, &id))
		die("no tenant %s", arg);
	tenant_name(mw, id, name, len);
	return id;
}

/* ---------------------------------------------------------------- arguments */

/* Bytes of a key file read at most: a device such as /dev/zero never ends. */
#define KEY_FILE_MAX	65536

/* The key in file @path into @t: its bytes exactly, as mwpeer --key reads. */
static void read_key(const char *path, struct mwin_tenant_info *t)
{
	uint8_t buf[4096];
	size_t n = 0, room;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		die("cannot open key file %s: %s", path, strerror(errno));
	while (n <= KEY_FILE_MAX) {
		ssize_t r = read(fd, buf, sizeof(buf));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			die("cannot read key file %s: %s", path, strerror(errno));
		if (!r)
			break;
		room = n < sizeof(t->key) ? sizeof(t->key) - n : 0;
		memcpy(t->key + n, buf, (size_t)r < room ? (size_t)r : room);
		n += (size_t)r;
	}
	close(fd);
	explicit_bzero(buf, sizeof(buf));
	if (n < MWIN_TENANT_KEY_MIN || n > MWIN_TENANT_KEY_MAX) {
		explicit_bzero(t->key, sizeof(t->key));
		die("key file %s has %s%zu bytes: a key is %d to %d bytes (the file's bytes exactly, no newline stripped)",
		    path, n > KEY_FILE_MAX ? "more than " : "",
		    n > KEY_FILE_MAX ? (size_t)KEY_FILE_MAX : n,
		    MWIN_TENANT_KEY_MIN, MWIN_TENANT_KEY_MAX);
	}
	t->key_len = (uint32_t)n;
}

/* "ADDR[/PREFIX]" into @net; the bits past the prefix must be 0 */
static void parse_net(const char *arg, struct mwin_tenant_net *net)
{
	char addr[INET6_ADDRSTRLEN + 8];
	unsigned int bits, bit;
	const char *slash = strchr(arg, '/');
	size_t len = slash ? (size_t)(slash - arg) : strlen(arg);
	bool bad = false;

	memset(net, 0, sizeof(*net));
	if (len >= sizeof(addr))
		len = sizeof(addr) - 1;
	memcpy(addr, arg, len);
	addr[len] = '\0';
	if (inet_pton(AF_INET, addr, net->addr) == 1)
		net->family = 4;
	else if (inet_pton(AF_INET6, addr, net->addr) == 1)
		net->family = 6;
	else
		usage_err("bad address '%s' for 'allow' (an IPv4 or IPv6 address, an optional /PREFIX, or any)",
			  arg);
	bits = net->family == 4 ? 32 : 128;
	net->prefix_len = (uint8_t)bits;
	if (slash) {
		uint64_t v;

		if (!slash[1] || slash[1 + strspn(slash + 1, "0123456789")] ||
		    !parse_size(slash + 1, &v) || v > bits)
			usage_err("bad prefix length in '%s' (0 to %u for IPv%u)",
				  arg, bits, (unsigned int)net->family);
		net->prefix_len = (uint8_t)v;
	}
	for (bit = net->prefix_len; bit < bits; bit++) {
		uint8_t mask = (uint8_t)(0x80 >> (bit % 8));

		bad |= net->addr[bit / 8] & mask;
		net->addr[bit / 8] &= (uint8_t)~mask;
	}
	if (bad) {
		char fixed[INET6_ADDRSTRLEN + 8];

		usage_err("allow %s has bits set past its /%u prefix (did you mean %s?)",
			  arg, net->prefix_len, net_str(net, fixed, sizeof(fixed)));
	}
}

/*
 * Take every "allow ADDR" pair out of the arguments into @t (*@given set
 * when there was one), for parse_kws() to read the rest: allow is the one
 * keyword that may come more than once. A keyword names allow as
 * parse_kws() would take it: in full, or as a prefix of it alone.
 */
static void take_allows(struct mw *mw, const struct kw *kws,
			struct mwin_tenant_info *t, bool *given)
{
	bool any = false;
	int i, out = 0;

	for (i = 0; i < mw->argc; i += 2) {
		const char *arg = mw->argv[i];
		size_t len = strlen(arg), n = 0;
		const struct kw *k;

		for (k = kws; k->name; k++)
			n += !strncmp(arg, k->name, len);
		if (i + 1 == mw->argc || !len || n != 1 ||
		    strncmp(arg, "allow", len)) {
			mw->argv[out++] = mw->argv[i];
			if (i + 1 < mw->argc)
				mw->argv[out++] = mw->argv[i + 1];
			continue;
		}
		*given = true;
		if (!strcmp(mw->argv[i + 1], "any")) {
			any = true;
		} else {
			if (t->nr_allow == MWIN_TENANT_ALLOW_MAX)
				usage_err("at most %d 'allow' prefixes",
					  MWIN_TENANT_ALLOW_MAX);
			parse_net(mw->argv[i + 1], &t->allow[t->nr_allow++]);
		}
		if (any && t->nr_allow)
			usage_err("'allow any' cannot go with other 'allow' prefixes");
	}
	mw->argc = out;
}

/* a count for keyword @name, 0 to 2^32 - 1 */
static uint32_t count_arg(const char *name, const char *s)
{
	uint64_t v;

	if (s[strspn(s, "0123456789")] || !parse_size(s, &v) || v > UINT32_MAX)
		usage_err("bad count '%s' for '%s' (a decimal number)", s, name);
	return (uint32_t)v;
}

/* a user name, a numeric uid or "none" */
static uint32_t owner_arg(const char *s)
{
	const struct passwd *pw;

	if (!strcmp(s, "none"))
		return MWIN_NO_OWNER;
	pw = getpwnam(s);
	if (pw)
		return (uint32_t)pw->pw_uid;
	if (*s && !s[strspn(s, "0123456789")]) {
		uint32_t uid = count_arg("owner", s);

		if (uid != MWIN_NO_OWNER)
			return uid;
	}
	usage_err("unknown user '%s' for 'owner' (a user name, a numeric uid, or none)",
		  s);
}

/*
 * The fields of create and set into @t. Return: the MWIN_TENANT_SET_*
 * flags of those given. "key none", "allow any" and "owner none" say
 * "none"; the key file is read last, after every usage error.
 */
static uint32_t parse_fields(struct mw *mw, struct mwin_tenant_info *t)
{
	struct kw kws[] = {
		KW("key", KW_STR, "FILE", false),
		KW("allow", KW_STR, "ADDR[/PREFIX]", false),
		KW("max-conns", KW_STR, "N", false),
		KW("max-windows", KW_STR, "N", false),
		KW("max-bytes", KW_SIZE, "SIZE", false),
		KW("owner", KW_STR, "USER", false),
		{ 0 },
	};
	const char *key;
	uint32_t flags = 0;
	bool allow = false;

	take_allows(mw, kws, t, &allow);
	parse_kws(mw, kws);
	if (allow)
		flags |= MWIN_TENANT_SET_ALLOW;
	if (kw_set(kws, "max-conns")) {
		t->max_conns = count_arg("max-conns", kw_find(kws, "max-conns")->s);
		if (!t->max_conns)
			usage_err("max-conns must be at least 1");
		flags |= MWIN_TENANT_SET_MAX_CONNS;
	}
	if (kw_set(kws, "max-windows")) {
		t->max_windows = count_arg("max-windows",
					   kw_find(kws, "max-windows")->s);
		flags |= MWIN_TENANT_SET_MAX_WINDOWS;
	}
	if (kw_set(kws, "max-bytes")) {
		t->max_bytes = kw_u(kws, "max-bytes");
		flags |= MWIN_TENANT_SET_MAX_BYTES;
	}
	if (kw_set(kws, "owner")) {
		t->owner = owner_arg(kw_find(kws, "owner")->s);
		flags |= MWIN_TENANT_SET_OWNER;
	}
	key = kw_find(kws, "key")->s;
	if (key) {
		if (strcmp(key, "none"))
			read_key(key, t);
		flags |= MWIN_TENANT_SET_KEY;
	}
	return flags;
}

/* ---------------------------------------------------------------- commands */

/* Explain a failed CREATE or SET of tenant @name (@t, as sent), and exit. */
static void __attribute__((noreturn))
tenant_failed(struct mw *mw, int err, const char *name,
	      const struct mwin_tenant_info *t)
{
	struct mwin_info info;

	switch (err) {
	case -EEXIST:
		die("a tenant %s exists", name);
	case -ENOENT:
		die("no tenant %s", name);
	case -ENOSPC:
		die("%s", mwin_strerror(MWIN_CALL_TENANT_CREATE, err));
	case -EINVAL:
		if (t->max_conns && !mwin_info(mw->fd, &info, NULL, 0) &&
		    t->max_conns > info.max_peers)
			die("max-conns %u is over the module's max_peers %u",
			    t->max_conns, info.max_peers);
		if (t->owner != MWIN_NO_OWNER)
			die("owner uid %u does not map into mwctl's user namespace",
			    t->owner);
		break;
	}
	cmd_failed(mw, err);
}

/* Print tenant @t->id as the whole document; as sent, should it be gone. */
static void tenant_result(struct mw *mw, const struct mwin_tenant_info *t)
{
	union mw_info info;

	if (get_tenant(mw->fd, t->id, 0, &info)) {
		info.tenant = *t;
		explicit_bzero(info.tenant.key, sizeof(info.tenant.key));
	}
	print_one(mw, &tenant_object, &info);
}

static int tenant_show(struct mw *mw)
{
	struct mwin_tenant_info t;
	char **at = mw->argv;
	char id[16];

	if (mw->argc && !is_help(mw->argv[0])) {
		/* usage errors first; then mw_show() gets the NAME's id */
		const char *arg = take_name(mw);

		no_args(mw);
		mw_open(mw);
		find_tenant(mw, arg, false, &t);
		snprintf(id, sizeof(id), "%u", t.id);
		at[0] = id;
		mw->argv = at;
		mw->argc = 1;
	}
	return mw_show(mw, &tenant_object);
}

static int tenant_create(struct mw *mw)
{
	struct mwin_tenant_info t = { .owner = MWIN_NO_OWNER };
	const char *name = take_name(mw);
	int ret;

	parse_fields(mw, &t);
	memcpy(t.name, name, strlen(name));	/* checked: it fits, NUL-padded */
	mw_open(mw);
	ret = mwin_tenant_create(mw->fd, &t);
	explicit_bzero(t.key, sizeof(t.key));
	if (ret)
		tenant_failed(mw, ret, name, &t);
	tenant_result(mw, &t);
	return 0;
}

static int tenant_set(struct mw *mw)
{
	struct mwin_tenant_info t = { .owner = MWIN_NO_OWNER }, cur;
	const char *arg = take_name(mw);
	int ret;

	t.flags = parse_fields(mw, &t);
	if (!t.flags)
		usage_err("tenant set needs something to change (key, allow, max-conns, max-windows, max-bytes, owner)");
	mw_open(mw);
	find_tenant(mw, arg, true, &cur);
	t.id = cur.id;
	ret = mwin_tenant_set(mw->fd, &t);
	explicit_bzero(t.key, sizeof(t.key));
	if (ret) {
		char name[sizeof(cur.name) + 1];

		tenant_failed(mw, ret, name_str(name, cur.name, sizeof(cur.name)),
			      &t);
	}
	tenant_result(mw, &cur);
	return 0;
}

static int tenant_destroy(struct mw *mw)
{
	struct mwin_tenant_info t;
	char name[sizeof(t.name) + 1];
	const char *arg = take_name(mw);
	int ret;

	no_args(mw);
	mw_open(mw);
	find_tenant(mw, arg, true, &t);
	name_str(name, t.name, sizeof(t.name));
	ret = mwin_tenant_destroy(mw->fd, t.id);
	if (ret == -ENOENT)
		die("no tenant %s", name);
	if (ret)
		cmd_failed(mw, ret);
	pr_doc_begin();
	pr_label("tenant");
	pr_str(PR_ANY, "name", name);
	pr_uint(PR_ANY, "id", t.id);
	pr_bool(PR_ANY, "destroyed", true);
	pr_doc_end();
	return 0;
}

int cmd_tenant(struct mw *mw)
{
	static const struct mw_cmd cmds[] = {
		{ "show", tenant_show, MWIN_CALL_TENANT_GET },
		{ "create", tenant_create, MWIN_CALL_TENANT_CREATE },
		{ "set", tenant_set, MWIN_CALL_TENANT_SET },
		{ "destroy", tenant_destroy, MWIN_CALL_TENANT_DESTROY },
		{ "help", usage_tenant, MWIN_CALL_ANY },
		{ 0 },
	};

	return mw_object(mw, "tenant", usage_tenant, cmds);
}
