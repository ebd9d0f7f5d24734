// SPDX-License-Identifier: GPL-2.0
/*
 * mwctl dev: the module (ABI, port, limits, usage) and the RDMA devices it
 * uses.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mwctl.h"

static int usage_dev(struct mw *mw)
{
	(void)mw;
	fputs("Usage: mwctl dev [ show ]\n"
	      "Module ABI version, listen port, limits and usage, and the RDMA devices\n"
	      "mwin uses with their window limits and capabilities; -d adds tenants,\n"
	      "anonymous peers and the connections refused, by reason.\n",
	      stdout);
	return 0;
}

/* all devices; *n set to their number; free() the result */
static struct mwin_dev_info *get_info(struct mw *mw, struct mwin_info *info,
				      uint32_t *n)
{
	struct mwin_dev_info *devs = NULL;
	uint32_t cap = 4;

	/* devices may come while we ask: grow until they all fit */
	for (;;) {
		int ret;

		free(devs);
		devs = calloc(cap, sizeof(*devs));
		if (!devs)
			die("out of memory");
		ret = mwin_info(mw->fd, info, devs, cap);
		if (ret)
			die("cannot read module info: %s",
			    mwin_strerror(MWIN_CALL_INFO, ret));
		if (info->nr_devs <= cap)
			break;
		cap = info->nr_devs + 4;
	}
	*n = info->nr_devs;
	return devs;
}

bool find_dev(struct mw *mw, const char *name, struct mwin_dev_info *out)
{
	struct mwin_info info;
	struct mwin_dev_info *devs;
	uint32_t n, i;
	bool found = false;

	devs = get_info(mw, &info, &n);
	for (i = 0; i < n; i++) {
		if (!strncmp(devs[i].name, name, sizeof(devs[i].name))) {
			*out = devs[i];
			found = true;
			break;
		}
	}
	free(devs);
	return found;
}

/* the first line of a sysfs file, "" when there is none */
static void read_sysfs(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (!f)
		return;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/* the module's line */
static void print_module(struct mw *mw, const struct mwin_info *info)
{
	char version[64], srcversion[64];

	read_sysfs("/sys/module/mwin/version", version, sizeof(version));
	read_sysfs("/sys/module/mwin/srcversion", srcversion, sizeof(srcversion));

	pr_label("module");
	pr_str(PR_TEXT, "module", "mwin");
	if (*version)
		pr_str(PR_ANY, "version", version);
	pr_label("abi");
	pr_uint(PR_ANY, "abi_version", info->abi_version);
	pr_uint(PR_ANY, "port", info->port);
	pr_uint(PR_ANY, "regions", info->nr_regions);
	pr_uint(PR_ANY, "region_bytes", info->region_bytes);
	pr_uint(PR_ANY, "max_region_bytes", info->max_region_bytes);
	pr_uint(PR_ANY, "windows", info->nr_windows);
	pr_uint(PR_ANY, "max_windows", info->max_windows);
	pr_uint(PR_ANY, "peers", info->nr_peers);
	pr_uint(PR_ANY, "max_peers", info->max_peers);
	if (mw->details && *srcversion)
		pr_str(PR_ANY, "srcversion", srcversion);
	if (mw->details) {
		pr_uint(PR_ANY, "tenants", info->nr_tenants);
		pr_uint(PR_ANY, "anon_peers", info->nr_anon_peers);
		print_reasons("rejects", info->rejects, MWIN_REJECT_SLOTS,
			      mwin_reject_reason_name);
	}
	pr_nl();
}

/* one device's line, an element of "devs" */
static void print_dev(struct mw *mw, const struct mwin_dev_info *d)
{
	char name[sizeof(d->name) + 1];
	const char *caps[2];
	size_t nc = 0;

	if (d->caps & MWIN_DEV_CAP_FAST_REG)
		caps[nc++] = "fast_reg";
	if (d->caps & MWIN_DEV_CAP_ATOMIC)
		caps[nc++] = "atomic";
	pr_obj_begin(PR_ANY, NULL);
	pr_label("dev");
	pr_str(PR_ANY, "name", name_str(name, d->name, sizeof(d->name)));
	pr_uint(PR_ANY, "index", d->index);
	pr_uint(PR_ANY, "max_window_bytes", d->max_window_bytes);
	pr_uint(PR_ANY, "max_pages", d->max_pages);
	pr_strlist(PR_ANY, "caps", caps, nc);
	pr_uint(PR_ANY, "peers", d->nr_peers);
	if (mw->details)
		pr_hex(PR_ANY, "page_size_cap", d->page_size_cap, 0);
	pr_obj_end(PR_ANY);
}

static int dev_show(struct mw *mw)
{
	struct mwin_dev_info *devs;
	struct mwin_info info;
	uint32_t n, i;

	no_args(mw);
	mw_open(mw);
	devs = get_info(mw, &info, &n);

	pr_doc_begin();
	print_module(mw, &info);
	pr_array_begin(PR_ANY, "devs");
	for (i = 0; i < n; i++)
		print_dev(mw, &devs[i]);
	pr_array_end(PR_ANY);
	pr_doc_end();
	free(devs);
	return 0;
}

int cmd_dev(struct mw *mw)
{
	static const struct mw_cmd cmds[] = {
		{ "show", dev_show, MWIN_CALL_INFO },
		{ "help", usage_dev, MWIN_CALL_ANY },
		{ 0 },
	};

	return mw_object(mw, "dev", usage_dev, cmds);
}
