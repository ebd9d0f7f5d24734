// SPDX-License-Identifier: GPL-2.0
/*
 * mwctl - operator CLI of mwin.ko, modelled on iproute2's rdma tool:
 *
 *   mwctl [OPTIONS] OBJECT COMMAND [ARGS]
 *
 * Each level (object, command) is a table of {name, func}; the first entry
 * runs when nothing is given, names may be abbreviated to any unambiguous
 * prefix, and "help" (or -h) prints the usage of that level. Every command
 * prints through one printer (tools/lib/print.c) that writes text lines or
 * one JSON document from the same calls. Errors print one line on stderr
 * and exit with status 1 (operation failed) or 2 (usage).
 *
 * This file holds the options and the table of objects; each object has a
 * file of its own (dev.c, peer.c, region.c, window.c, tenant.c, stats.c,
 * monitor.c), and mwctl.h says what they share.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mwctl.h"

#define MWCTL_VERSION	"1.0"

static int usage_top(struct mw *mw)
{
	(void)mw;
	fputs("Usage: mwctl [OPTIONS] OBJECT { COMMAND | help }\n"
	      "       mwctl [OPTIONS] monitor\n"
	      "where  OBJECT := { dev | peer | region | window | tenant | stats | monitor | help }\n"
	      "       OPTIONS := { -j[son] | -p[retty] | -d[etails] | -h[elp] | -V[ersion] }\n"
	      "  -j, --json     JSON output, one document per call (JSON lines for monitor)\n"
	      "  -p, --pretty   indented JSON (implies -j)\n"
	      "  -d, --details  more fields: counters, flags, mmap offsets\n"
	      "  -h, --help     this help; 'mwctl OBJECT help' for an object's commands\n"
	      "  -V, --version  print the version of mwctl\n"
	      "Objects, commands and keywords may be abbreviated: mwctl win sh = mwctl window show.\n",
	      stdout);
	return 0;
}

/* the options before the object; mw->argv is left at the object */
static void parse_opts(struct mw *mw, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "details", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+jpdhV", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			mw->json = true;
			break;
		case 'p':
			mw->json = true;
			mw->pretty = true;
			break;
		case 'd':
			mw->details = true;
			break;
		case 'h':
			usage_top(mw);
			exit(0);
		case 'V':
			printf("mwctl %s (mwin ABI %u)\n", MWCTL_VERSION,
			       (unsigned int)MWIN_ABI_VERSION);
			exit(0);
		default:
			if (optopt)
				usage_err("unknown option '-%c' (try 'mwctl help')",
					  optopt);
			usage_err("unknown option '%s' (try 'mwctl help')",
				  argv[optind - 1]);
		}
	}
	mw->argc = argc - optind;
	mw->argv = argv + optind;
}

int main(int argc, char **argv)
{
	static const struct mw_cmd cmds[] = {
		{ "help", usage_top, MWIN_CALL_ANY },
		{ "dev", cmd_dev, MWIN_CALL_ANY },
		{ "peer", cmd_peer, MWIN_CALL_ANY },
		{ "region", cmd_region, MWIN_CALL_ANY },
		{ "window", cmd_window, MWIN_CALL_ANY },
		{ "tenant", cmd_tenant, MWIN_CALL_ANY },
		{ "stats", cmd_stats, MWIN_CALL_ANY },
		{ "monitor", cmd_monitor, MWIN_CALL_ANY },
		{ 0 },
	};
	struct mw mw = { .fd = -1, .usage = usage_top };
	int ret, err;

	parse_opts(&mw, argc, argv);
	/* buffered: a command that fails prints nothing on stdout */
	pr_init(stdout, mw.json, mw.pretty, true);
	ret = mw_exec(&mw, cmds);
	err = pr_flush();
	if (err)
		die("cannot write output: %s", strerror(-err));
	if (mw.fd >= 0)
		close(mw.fd);
	return ret;
}
