// SPDX-License-Identifier: GPL-2.0
/*
 * mwbench's trace section: where a rebind's time goes, from the
 * function_graph tracer over single rebinds, the floor and a batch; and
 * where a batched create's goes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mwbench.h"

/*
 * Where the time of a rebind goes: the function_graph tracer on this
 * process, from mwin_ioctl (the ioctl rebind) and from mwin_bench_rebind
 * (the floor), limited to mwin's functions and a few it calls: among them
 * rxe's tasks, which run in the caller's context when a post or an unlock
 * enables bottom halves, and the wake-ups (the peer's completion channel,
 * ksoftirqd). The tracer slows every traced call down, so only the shares
 * mean something.
 */
#define TRACEFS "/sys/kernel/tracing"

struct tnode {
	int part;
	char path[200];
	unsigned long calls;
	double us;
	double *v;		/* each call's us */
	size_t cap;
};

#define TRACE_PARTS 6
static struct tnode *tnodes;
static size_t nr_tnodes, cap_tnodes;
static double trace_root_us[TRACE_PARTS];
static unsigned long trace_root_calls[TRACE_PARTS];
static unsigned long trace_ops[TRACE_PARTS];
/*
 * 0: ioctl rebind, 1: the floor, 2: batched rebind, 64 per call,
 * 3: batched create, 64 per call (their destroys untraced),
 * 4, 5: quiet rebinds of a 4 KiB and of a 1 GiB window (what grows)
 */
static int trace_part;

/* write @val to tracefs @file; the kernel may take it a word at a time */
static int tracefs_write(const char *file, const char *val, int flags)
{
	size_t len = strlen(val), done = 0;
	char path[128];
	int fd, ret = 0;
	ssize_t n;

	snprintf(path, sizeof(path), TRACEFS "/%s", file);
	fd = open(path, O_WRONLY | flags);
	if (fd < 0)
		return -errno;
	while (done < len) {
		n = write(fd, val + done, len - done);
		if (n <= 0) {
			ret = n < 0 ? -errno : -EIO;
			break;
		}
		done += (size_t)n;
	}
	close(fd);
	return ret;
}

static int tracefs(const char *file, const char *val)
{
	return tracefs_write(file, val, O_TRUNC);
}

static int tracefs_append(const char *file, const char *val)
{
	return tracefs_write(file, val, O_APPEND);
}

static void tnode_add(const char *path, double us)
{
	size_t i;

	for (i = 0; i < nr_tnodes; i++)
		if (tnodes[i].part == trace_part && !strcmp(tnodes[i].path, path))
			break;
	if (i == nr_tnodes) {
		if (nr_tnodes == cap_tnodes) {
			cap_tnodes = cap_tnodes ? 2 * cap_tnodes : 64;
			tnodes = realloc(tnodes, cap_tnodes * sizeof(*tnodes));
			if (!tnodes)
				die("out of memory");
		}
		memset(&tnodes[i], 0, sizeof(tnodes[i]));
		tnodes[i].part = trace_part;
		snprintf(tnodes[i].path, sizeof(tnodes[i].path), "%s", path);
		nr_tnodes++;
	}
	if (tnodes[i].calls == tnodes[i].cap) {
		tnodes[i].cap = tnodes[i].cap ? 2 * tnodes[i].cap : 16;
		tnodes[i].v = realloc(tnodes[i].v,
				      tnodes[i].cap * sizeof(double));
		if (!tnodes[i].v)
			die("out of memory");
	}
	tnodes[i].v[tnodes[i].calls++] = us;
	tnodes[i].us += us;
}

/*
 * Lines of the function_graph tracer: "CPU) DURATION | FUNCTION", where
 * FUNCTION is "name() {", "name();" or "} /+ name +/" indented two spaces
 * a level. The depth is taken from the indentation, which stays right when
 * the task moves to another CPU (the tracer then may print a call as a
 * leaf and close it again later: a close without its open is skipped).
 */
#define TDEPTH 16

static void trace_parse(const char *file, const char *out_copy)
{
	char stack[TDEPTH][48], line[512], path[200], name[48];
	bool isopen[TDEPTH] = {};
	FILE *f = fopen(file, "r"), *o = fopen(out_copy, "w");
	int d, k;

	if (!f) {
		if (o)
			fclose(o);
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		char *bar = strchr(line, '|'), *fn, *p;
		double us = 0;
		size_t len;
		int sp;

		if (o)
			fputs(line, o);
		if (line[0] == '#' || !bar)
			continue;
		p = strchr(line, ')');
		if (p && p < bar) {
			for (p++; *p == ' ' || strchr("+!#*@$", *p); p++)
				;
			if (p < bar)
				us = strtod(p, NULL);
		}
		for (fn = bar + 1, sp = 0; *fn == ' '; fn++)
			sp++;
		d = (sp - 2) / 2;
		if (d < 0 || d >= TDEPTH)
			continue;
		len = strlen(fn);
		while (len && (fn[len - 1] == '\n' || fn[len - 1] == ' '))
			fn[--len] = '\0';
		if (fn[0] == '}') {
			const char *cm = strstr(fn, "/* ");

			if (!cm)
				continue;
			snprintf(name, sizeof(name), "%.*s",
				 (int)strcspn(cm + 3, " *"), cm + 3);
			if (!isopen[d] || strcmp(name, stack[d]))
				continue;	/* an echo, see above */
			isopen[d] = false;
		} else if (len && fn[len - 1] == '{') {
			snprintf(stack[d], sizeof(stack[d]), "%.*s",
				 (int)strcspn(fn, " ("), fn);
			isopen[d] = true;
			for (k = d + 1; k < TDEPTH; k++)
				isopen[k] = false;
			continue;
		} else if (len >= 3 && !strcmp(fn + len - 3, "();")) {
			snprintf(name, sizeof(name), "%.*s",
				 (int)strcspn(fn, " ("), fn);
		} else {
			continue;
		}
		path[0] = '\0';
		for (k = 0; k < d; k++) {
			strncat(path, stack[k], sizeof(path) - strlen(path) - 1);
			strncat(path, " > ", sizeof(path) - strlen(path) - 1);
		}
		strncat(path, name, sizeof(path) - strlen(path) - 1);
		tnode_add(path, us);
		if (!d) {
			trace_root_us[trace_part] += us;
			trace_root_calls[trace_part]++;
		}
	}
	fclose(f);
	if (o)
		fclose(o);
}

void bench_trace(void)
{
	static const char *const also[] = {
		"rxe_post_send", "wait_for_completion_timeout",
		"schedule_timeout", "down_timeout", "mutex_lock",
		"ib_alloc_mr", "ib_map_mr_sg",
		/* where a SEND's time goes on rxe (6.1's names, then 6.12's) */
		"rxe_do_task", "do_task", "rxe_requester", "rxe_responder",
		"rxe_completer", "rxe_rcv", "rxe_cq_post",
		"rxe_send_complete", "irq_poll_softirq", "__ib_process_cq",
		"ib_uverbs_comp_handler", "try_to_wake_up", "queue_work_on",
	};
	const int n = 200;
	static struct batch_ctx bc;
	struct mwin_window_bind b;
	char pid[16], out[512];
	uint32_t region, ids[64], quiet[2], failed;
	struct peer *p;
	uint64_t t0;
	int i, k, ret;

	if (access(TRACEFS "/current_tracer", W_OK)) {
		say("trace: no tracefs at %s: skipped", TRACEFS);
		return;
	}
	say("trace: function_graph over %d ioctl rebinds, %d floor rebinds, 4 batches of 64 rebinds and 4 of 64 creates",
	    n, n);
	p = peer_connect();
	if (!p)
		die("no peer");
	ret = region_create(1 * GiB, &region);
	for (i = 0; !ret && i < 64; i++) {
		ret = win_create(region, p->peer_id, 0, 4 * KiB, RW, &b);
		ids[i] = b.id;
	}
	for (i = 0; !ret && i < 2; i++) {
		b = (struct mwin_window_bind){
			.flags = MWIN_WINDOW_OVERLAP | MWIN_WINDOW_QUIET,
			.region = region, .peer = p->peer_id, .access = RW,
			.length = i ? 1 * GiB : 4 * KiB,
		};
		ret = mwin_window_create(mfd, &b);
		quiet[i] = b.id;
	}
	if (ret)
		die("trace: setup: %s", strerror(-ret));
	bc.region = region;
	bc.peer = p->peer_id;

	snprintf(pid, sizeof(pid), "%d\n", getpid());
	tracefs("tracing_on", "0");
	tracefs("current_tracer", "nop");
	/* one at a time: a name the kernel cannot trace fails alone */
	ret = tracefs("set_ftrace_filter", ":mod:mwin\n");
	for (i = 0; !ret && i < (int)(sizeof(also) / sizeof(also[0])); i++)
		if (tracefs_append("set_ftrace_filter", also[i]) ||
		    tracefs_append("set_ftrace_filter", "\n"))
			say("trace: cannot trace %s", also[i]);
	if (ret) {
		say("trace: set_ftrace_filter: %s", strerror(-ret));
		goto out;
	}
	ret = tracefs("set_graph_function", "mwin_ioctl mwin_bench_rebind\n");
	if (ret) {
		say("trace: set_graph_function: %s", strerror(-ret));
		goto out;
	}
	ret = tracefs("set_ftrace_pid", pid);
	if (ret) {
		say("trace: set_ftrace_pid: %s", strerror(-ret));
		goto out;
	}
	tracefs("max_graph_depth", "12");
	tracefs("buffer_size_kb", "16384");
	tracefs("options/funcgraph-irqs", "0");
	tracefs("options/funcgraph-tail", "1");
	tracefs("options/funcgraph-proc", "0");
	tracefs("options/funcgraph-abstime", "0");
	ret = tracefs("current_tracer", "function_graph");
	if (ret) {
		say("trace: function_graph: %s", strerror(-ret));
		goto out;
	}

	for (trace_part = 0; trace_part < TRACE_PARTS; trace_part++) {
		static const char *const names[] = {
			"rebind", "floor", "batch", "create", "quiet",
			"quiet-1g",
		};
		struct stats s = { .n = 1 };
		double user_us;

		tracefs("trace", "");
		tracefs("tracing_on", "1");
		t0 = now_ns();
		if (trace_part == 0) {
			for (i = 0; i < n && !ret; i++)
				ret = win_rebind(ids[0], 0, 4 * KiB,
						 i & 1 ? MWIN_ACCESS_READ : RW);
		} else if (trace_part == 1) {
			ret = floor_run(ids[0], n) < 0 ? -EIO : 0;
		} else if (trace_part >= 4) {
			for (i = 0; i < n && !ret; i++)
				ret = win_rebind(quiet[trace_part - 4], 0,
						 trace_part == 4 ? 4 * KiB : 1 * GiB,
						 i & 1 ? MWIN_ACCESS_READ : RW);
		} else if (trace_part == 2) {
			for (i = 0; i < 4 && !ret; i++) {
				for (k = 0; k < 64; k++)
					op_fill(&bc, &bc.ops[k],
						MWIN_BATCH_REBIND, ids[k],
						i & 1 ? MWIN_ACCESS_READ : RW);
				ret = win_batch(bc.ops, 64, &failed);
				if (!ret && failed)
					ret = -EREMOTEIO;
			}
		} else {
			/* the batch section's pass: 256 creates, 64 a call */
			ret = batch_pass(&bc, bc.tmp, MWIN_BATCH_CREATE,
					 64) < 0 ? -EIO : 0;
		}
		trace_ops[trace_part] = trace_part == 2 || trace_part == 3 ?
					256 : n;
		user_us = (now_ns() - t0) / 1e3 / trace_ops[trace_part];
		tracefs("tracing_on", "0");
		/* untraced; a failed create pass leaves its windows to the end */
		if (trace_part == 3 && !ret)
			ret = batch_pass(&bc, bc.tmp, MWIN_BATCH_DESTROY, 64) < 0 ?
			      -EIO : 0;
		if (ret) {
			say("trace: %s failed: %s", names[trace_part],
			    strerror(-ret));
			ret = 0;
			continue;
		}
		snprintf(out, sizeof(out), "%s/trace-%s.txt", opt.out,
			 names[trace_part]);
		trace_parse(TRACEFS "/trace", out);
		say("trace: %s: %.1f us per operation seen from userspace (traced)",
		    names[trace_part], user_us);
		s.med = s.p10 = s.p90 = s.mean = user_us;
		add_result("trace", names[trace_part],
			   trace_part == 5 ? 1 * GiB : 4 * KiB, 0, &s,
			   (int)trace_ops[trace_part], "us/op", NULL);
	}
out:
	tracefs("tracing_on", "0");
	tracefs("current_tracer", "nop");
	tracefs("set_graph_function", "");
	tracefs("set_ftrace_filter", "");
	tracefs("set_ftrace_pid", "");
	tracefs("trace", "");
	for (i = 0; i < 64; i++)
		mwin_window_destroy(mfd, ids[i]);
	mwin_window_destroy(mfd, quiet[0]);
	mwin_window_destroy(mfd, quiet[1]);
	mwin_region_destroy(mfd, region, MWIN_REGION_DESTROY_FORCE);
	peer_close(p);
}

static int tnode_cmp(const void *a, const void *b)
{
	const struct tnode *x = a, *y = b;

	if (x->part != y->part)
		return x->part - y->part;
	return strcmp(x->path, y->path);
}

void trace_report(FILE *out)
{
	static const char *const titles[] = {
		"mwin_ioctl: single WINDOW_REBIND",
		"mwin_bench_rebind: the floor (one call of 200 rebinds)",
		"mwin_ioctl: MWIN_WINDOW_BATCH of 64 rebinds (4 calls)",
		"mwin_ioctl: MWIN_WINDOW_BATCH of 64 creates (4 calls; per create)",
		"mwin_ioctl: single WINDOW_REBIND of a quiet 4 KiB window",
		"mwin_ioctl: single WINDOW_REBIND of a quiet 1 GiB window",
	};
	size_t i;
	int part;

	if (!nr_tnodes)
		return;
	qsort(tnodes, nr_tnodes, sizeof(*tnodes), tnode_cmp);
	fprintf(out, "\nWhere a rebind's time goes: function_graph on mwbench alone; per rebind: mean inclusive time\n");
	fprintf(out, "and share; per call: median. Tracing slows every traced call down (TCG): read the shares.\n");
	fprintf(out, "Calls under 2%% of the total are left out.\n");
	for (part = 0; part < TRACE_PARTS; part++) {
		double total = trace_root_us[part];
		unsigned long per = trace_ops[part];

		if (!trace_root_calls[part] || !per || total <= 0)
			continue;
		fprintf(out, "  %s: %.1f us per operation traced\n", titles[part],
			total / per);
		for (i = 0; i < nr_tnodes; i++) {
			const struct tnode *t = &tnodes[i];
			const char *q, *leaf = t->path;
			int d = 0;

			if (t->part != part || t->us < total / 50)
				continue;
			for (q = t->path; (q = strstr(q, " > ")); q += 3) {
				d++;
				leaf = q + 3;
			}
			fprintf(out, "    %*s%-*s %8.1f us %5.1f%%  %5.2f calls, median %7.1f us a call\n",
				2 * d, "", 36 - 2 * d, leaf, t->us / per,
				100 * t->us / total, (double)t->calls / per,
				stats_of(t->v, (int)t->calls).med);
		}
	}
}
