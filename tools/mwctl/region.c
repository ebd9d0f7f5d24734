// SPDX-License-Identifier: GPL-2.0
/*
 * mwctl region: pinned memory that windows are cut from: the module's own
 * pages, whose bytes are read and written through an mmap() of /dev/mwin,
 * or a tmpfs file's pages (a user-memory region is for an application,
 * libmwin's mwin_region_create_user(): a CLI has no buffer to lend).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mwctl.h"

static int usage_region(struct mw *mw)
{
	(void)mw;
	fputs("Usage: mwctl region [ show [ ID ] ]\n"
	      "       mwctl region create size SIZE [ near DEV ] [ ro ] [ owned ]\n"
	      "       mwctl region create file PATH [ offset OFF ] len LEN [ ro ] [ owned ]\n"
	      "       mwctl region destroy ID [ force ]\n"
	      "       mwctl region write ID [ offset OFF ] { hex HEX | file PATH }\n"
	      "       mwctl region read ID [ offset OFF ] len LEN [ file PATH ]\n"
	      "SIZE, OFF, LEN: bytes, decimal or 0x hex, with an optional K, M or G suffix.\n"
	      "near DEV: its memory on the NUMA node of RDMA device DEV (as dev show names it).\n"
	      "file PATH: bytes [OFF, OFF + LEN) of a tmpfs file (in /dev/shm, say), page-aligned,\n"
	      "  shared with whoever maps the file; the region holds the file open.\n"
	      "ro: no window of the region may write (a file is then opened read-only).\n"
	      "owned: the region lives only as long as this mwctl call (a test of limits).\n"
	      "force: destroy the region's windows too (their rkeys are revoked first).\n"
	      "PATH '-' is stdin for write, stdout for read (raw bytes).\n",
	      stdout);
	return 0;
}

/* Where the region's memory is: whose address range, or where in its file. */
static void print_kind(const struct mwin_region_info *r)
{
	char buf[32];

	pr_str(PR_ANY, "kind", enum_str(mwin_region_kind_name, r->kind,
					"kind-", buf, sizeof(buf)));
	switch (r->kind) {
	case MWIN_REGION_KIND_USER:
		pr_uint(PR_ANY, "pid", (uint64_t)r->pid);
		pr_hex(PR_ANY, "addr", r->addr, 0);
		break;
	case MWIN_REGION_KIND_FILE:
		pr_uint(PR_ANY, "offset", r->addr);
		break;
	}
}

static void print_region(struct mw *mw, const union mw_info *info)
{
	const struct mwin_region_info *r = &info->region;

	pr_label("region");
	pr_uint(PR_ANY, "id", r->id);
	pr_uint(PR_ANY, "size", r->length);
	pr_uint(PR_ANY, "windows", r->nr_windows);
	print_kind(r);
	pr_bool(PR_ANY, "ro", r->rflags & MWIN_REGION_READ_ONLY);
	if (r->node >= 0)
		pr_uint(PR_ANY, "node", (uint64_t)r->node);
	if (mw->details) {
		pr_hex(PR_ANY, "mmap_offset", r->mmap_offset, 0);
		pr_bool(PR_ANY, "owned", r->rflags & MWIN_CREATE_FD_OWNED);
	}
}

static int get_region(int fd, uint32_t id, uint32_t flags, union mw_info *info)
{
	return mwin_region_get(fd, id, flags, &info->region);
}

static const struct mw_object region_object = {
	.name = "region",
	.list = "regions",
	.get = get_region,
	.print = print_region,
};

static int region_show(struct mw *mw)
{
	return mw_show(mw, &region_object);
}

/* Explain a failed REGION_CREATE of @size bytes, and exit. */
static void __attribute__((noreturn))
create_failed(struct mw *mw, int err, uint64_t size)
{
	struct mwin_info info;
	char a[32];

	human(size, a, sizeof(a));
	if (err == -ENOSPC && !mwin_info(mw->fd, &info, NULL, 0)) {
		char b[32], c[32];

		die("%s of %s: regions hold %s of %s (module parameter max_region_mb)",
		    mwin_strerror(mw->call, err), a,
		    human(info.region_bytes, b, sizeof(b)),
		    human(info.max_region_bytes, c, sizeof(c)));
	}
	if (err == -ENOSPC || err == -ENOMEM)
		die("%s of %s", mwin_strerror(mw->call, err), a);
	cmd_failed(mw, err);
}

/* A usage error unless @size bytes fit in a region. */
static void check_size(const char *name, uint64_t size)
{
	if (size > (1ULL << 32)) {
		char a[32];

		usage_err("%s %s is over the 4 GiB limit of a region", name,
			  human(size, a, sizeof(a)));
	}
}

/* Print region @id as the module has it, or as it was made if gone. */
static void print_made(struct mw *mw, uint32_t id, const union mw_info *made)
{
	union mw_info info;

	/* destroyed at once by someone else: say what we made */
	if (get_region(mw->fd, id, 0, &info))
		info = *made;
	print_one(mw, &region_object, &info);
}

/* region create size SIZE: pages of the module's */
static int create_module(struct mw *mw, struct kw *kws, uint32_t flags)
{
	const char *near = kw_find(kws, "near")->s;
	uint64_t size = kw_u(kws, "size"), off;
	struct mwin_dev_info dev;
	union mw_info made = { 0 };
	uint32_t id;
	int ret;

	if (kw_set(kws, "offset") || kw_set(kws, "len"))
		usage_err("region create size SIZE takes no 'offset' or 'len' (a file region's)");
	check_size("size", size);
	mw_open(mw);
	if (near) {
		if (!find_dev(mw, near, &dev))
			usage_err("no RDMA device %s (mwctl dev show lists them)",
				  near);
		ret = mwin_region_create_near(mw->fd, size, flags, dev.index,
					      &id, &off);
	} else {
		ret = mwin_region_create(mw->fd, size, flags, &id, &off);
	}
	if (ret)
		create_failed(mw, ret, size);
	made.region.id = id;
	made.region.length = (size + 4095) & ~4095ULL;
	made.region.mmap_offset = off;
	print_made(mw, id, &made);
	return 0;
}

/*
 * The file of a file region, open for what the region needs. The range is
 * checked here, whole pages within the file, so that the module's EINVAL
 * is left to mean a file that is not tmpfs.
 */
static int open_backing(const char *path, bool ro, uint64_t off, uint64_t len)
{
	uint64_t ps = (uint64_t)sysconf(_SC_PAGESIZE);
	struct stat st;
	int fd;

	if (off % ps || len % ps)
		usage_err("offset %" PRIu64 " len %" PRIu64 " of a file region must be whole pages (%" PRIu64 " bytes)",
			  off, len, ps);
	fd = open(path, (ro ? O_RDONLY : O_RDWR) | O_CLOEXEC);
	if (fd < 0)
		die("cannot open %s: %s", path, strerror(errno));
	if (fstat(fd, &st))
		die("cannot stat %s: %s", path, strerror(errno));
	if (off > (uint64_t)st.st_size || len > (uint64_t)st.st_size - off)
		die("offset %" PRIu64 " len %" PRIu64 " leaves file %s (%" PRIu64 " bytes)",
		    off, len, path, (uint64_t)st.st_size);
	return fd;
}

/* region create file PATH: a tmpfs file's pages, held by the region */
static int create_file(struct mw *mw, struct kw *kws, uint32_t flags)
{
	const char *path = kw_find(kws, "file")->s;
	uint64_t off = kw_u(kws, "offset"), len = kw_u(kws, "len");
	union mw_info made = { 0 };
	uint32_t id;
	int fd, ret;

	if (kw_set(kws, "size") || kw_set(kws, "near"))
		usage_err("region create file PATH takes 'len LEN', not 'size' or 'near'");
	if (!kw_set(kws, "len"))
		usage_err("region create file PATH needs 'len LEN'");
	check_size("len", len);
	fd = open_backing(path, flags & MWIN_REGION_READ_ONLY, off, len);
	mw_open(mw);
	ret = mwin_region_create_file(mw->fd, fd, off, len, flags, &id);
	close(fd);
	if (ret == -EINVAL)
		die("%s is not a tmpfs file: a file region needs one (in /dev/shm, say) or a memfd",
		    path);
	if (ret == -EACCES || ret == -EPERM)
		die("region create file %s: %s", path, mwin_strerror(mw->call, ret));
	if (ret)
		create_failed(mw, ret, len);
	made.region = (struct mwin_region_info){
		.id = id, .length = len, .rflags = flags,
		.kind = MWIN_REGION_KIND_FILE, .addr = off,
	};
	print_made(mw, id, &made);
	return 0;
}

static int region_create(struct mw *mw)
{
	struct kw kws[] = {
		KW("size", KW_SIZE, "SIZE", false),
		KW("near", KW_STR, "DEV", false),
		KW("owned", KW_FLAG, "", false),
		KW("ro", KW_FLAG, "", false),
		KW("file", KW_STR, "PATH", false),
		KW("offset", KW_SIZE, "OFF", false),
		KW("len", KW_SIZE, "LEN", false),
		{ 0 },
	};
	uint32_t flags = 0;

	parse_kws(mw, kws);
	kw_nonzero(kws, "size");
	kw_nonzero(kws, "len");
	if (kw_set(kws, "owned"))
		flags |= MWIN_CREATE_FD_OWNED;
	if (kw_set(kws, "ro"))
		flags |= MWIN_REGION_READ_ONLY;
	if (kw_set(kws, "file"))
		return create_file(mw, kws, flags);
	if (!kw_set(kws, "size"))
		usage_err("region create needs 'size SIZE'");
	return create_module(mw, kws, flags);
}

static int region_destroy(struct mw *mw)
{
	struct kw kws[] = {
		KW("force", KW_FLAG, "", false),
		{ 0 },
	};
	uint32_t id;
	int ret;

	id = take_id(mw);
	parse_kws(mw, kws);
	mw_open(mw);
	ret = mwin_region_destroy(mw->fd, id, kw_set(kws, "force") ?
				  MWIN_REGION_DESTROY_FORCE : 0);
	if (ret == -EBUSY)
		die("region %u has windows; pass 'force' to destroy them too", id);
	if (ret)
		id_failed(mw, ret, id);
	print_done(mw, id, "destroyed");
	return 0;
}

/* ---------------------------------------------------------------- bytes */

/*
 * Map bytes [off, off + len) of region @id, after checking that they are
 * in it; *base and *maplen get the mapping, for munmap().
 */
static uint8_t *map_range(struct mw *mw, uint32_t id, uint64_t off,
			  uint64_t len, void **base, size_t *maplen)
{
	uint64_t ps = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t first = off & ~(ps - 1);
	uint64_t end = (off + len + ps - 1) & ~(ps - 1);
	const struct mwin_region_info *r;
	union mw_info info;
	void *p;

	mw_get(mw, &region_object, id, &info);
	r = &info.region;
	if (off > r->length || len > r->length - off)
		die("offset %" PRIu64 " len %" PRIu64 " leaves region %u (%" PRIu64 " bytes)",
		    off, len, r->id, (uint64_t)r->length);
	*maplen = (size_t)(end - first);
	p = mmap(NULL, *maplen, PROT_READ | PROT_WRITE, MAP_SHARED, mw->fd,
		 (off_t)(r->mmap_offset + first));
	if (p == MAP_FAILED)
		die("cannot map region %u: %s", r->id,
		    mwin_strerror(MWIN_CALL_REGION_MMAP, errno));
	*base = p;
	return (uint8_t *)p + (off - first);
}

/* all of @fd, named @path in messages; free() the result */
static uint8_t *read_all(int fd, const char *path, size_t *len)
{
	size_t cap = 65536, n = 0;
	uint8_t *buf = malloc(cap);

	if (!buf)
		die("out of memory");
	for (;;) {
		ssize_t r;

		if (n == cap) {
			uint8_t *nb;

			if (cap > (1ULL << 33))
				die("file %s is larger than any region", path);
			nb = realloc(buf, cap * 2);
			if (!nb)
				die("out of memory");
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			die("cannot read %s: %s", path, strerror(errno));
		if (!r)
			break;
		n += (size_t)r;
	}
	*len = n;
	return buf;
}

/* the bytes of file @path, "-" for stdin; free() them */
static uint8_t *load(const char *path, size_t *len)
{
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) :
				     STDIN_FILENO;
	uint8_t *data;

	if (fd < 0)
		die("cannot open %s: %s", path, strerror(errno));
	data = read_all(fd, path, len);
	if (fd != STDIN_FILENO)
		close(fd);
	if (!*len)
		die("file %s is empty: nothing to write", path);
	return data;
}

static void write_all(int fd, const uint8_t *d, size_t n, const char *path)
{
	while (n) {
		ssize_t w = write(fd, d, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			die("cannot write %s: %s", path, strerror(errno));
		d += w;
		n -= (size_t)w;
	}
}

/* @n bytes into file @path, "-" for stdout */
static void save(const char *path, const uint8_t *d, size_t n)
{
	bool out = !strcmp(path, "-");
	int fd = out ? STDOUT_FILENO :
		 open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		die("cannot create %s: %s", path, strerror(errno));
	write_all(fd, d, n, path);
	if (!out && close(fd))
		die("cannot write %s: %s", path, strerror(errno));
}

/* what write and read to a file did: bytes [off, off + len) of region @id */
static void print_copied(uint32_t id, uint64_t off, uint64_t len,
			 const char *path)
{
	pr_doc_begin();
	pr_label("region");
	pr_uint(PR_ANY, "id", id);
	pr_uint(PR_ANY, "offset", off);
	pr_uint(PR_ANY, "len", len);
	if (path)
		pr_str(PR_ANY, "file", path);
	pr_doc_end();
}

static int region_write(struct mw *mw)
{
	struct kw kws[] = {
		KW("offset", KW_SIZE, "OFF", false),
		KW("hex", KW_STR, "HEX", false),
		KW("file", KW_STR, "PATH", false),
		{ 0 },
	};
	const char *hex, *path;
	uint8_t *data, *dst;
	uint64_t off;
	size_t len, maplen;
	void *base;
	uint32_t id;

	id = take_id(mw);
	parse_kws(mw, kws);
	hex = kw_find(kws, "hex")->s;
	path = kw_find(kws, "file")->s;
	off = kw_u(kws, "offset");
	if (!hex == !path)
		usage_err("region write needs one of 'hex HEX' or 'file PATH'");
	data = hex ? parse_hex(hex, &len) : load(path, &len);
	mw_open(mw);
	dst = map_range(mw, id, off, len, &base, &maplen);
	memcpy(dst, data, len);
	munmap(base, maplen);
	free(data);
	print_copied(id, off, len, NULL);
	return 0;
}

static int region_read(struct mw *mw)
{
	struct kw kws[] = {
		KW("offset", KW_SIZE, "OFF", false),
		KW("len", KW_SIZE, "LEN", true),
		KW("file", KW_STR, "PATH", false),
		{ 0 },
	};
	const char *path;
	uint64_t off, len;
	size_t maplen;
	uint8_t *src;
	void *base;
	uint32_t id;

	id = take_id(mw);
	parse_kws(mw, kws);
	kw_nonzero(kws, "len");
	off = kw_u(kws, "offset");
	len = kw_u(kws, "len");
	path = kw_find(kws, "file")->s;
	mw_open(mw);
	src = map_range(mw, id, off, len, &base, &maplen);
	if (path) {
		save(path, src, (size_t)len);
		/* "-": the raw bytes alone */
		if (strcmp(path, "-"))
			print_copied(id, off, len, path);
	} else {
		pr_doc_begin();
		pr_uint(PR_JSON, "id", id);
		pr_uint(PR_JSON, "offset", off);
		pr_uint(PR_JSON, "len", len);
		pr_bytes(PR_ANY, "data", src, (size_t)len);
		pr_doc_end();
	}
	munmap(base, maplen);
	return 0;
}

int cmd_region(struct mw *mw)
{
	static const struct mw_cmd cmds[] = {
		{ "show", region_show, MWIN_CALL_REGION_GET },
		{ "create", region_create, MWIN_CALL_REGION_CREATE },
		{ "destroy", region_destroy, MWIN_CALL_REGION_DESTROY },
		{ "write", region_write, MWIN_CALL_REGION_MMAP },
		{ "read", region_read, MWIN_CALL_REGION_MMAP },
		{ "help", usage_region, MWIN_CALL_ANY },
		{ 0 },
	};

	return mw_object(mw, "region", usage_region, cmds);
}
