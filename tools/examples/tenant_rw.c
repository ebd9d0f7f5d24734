// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * tenant_rw: a tenant's application on the remote host, with libmwinpeer.
 *
 *   tenant_rw [-p PORT] [-k KEY_HEX] [-t SECONDS] HOST TENANT
 *
 * Connects to mwin on HOST as TENANT, waits for the first grant with read
 * and write rights, then in each of two rounds writes "round N from
 * TENANT" at the window's start and reads it back; between the rounds it
 * waits until the owner rebinds the window (a revoke, then a grant of a
 * new rkey for the same window id) and keeps using the window by its id.
 * Prints one line per event and "round N ok"; exits 0 after round 2, 1 on
 * any failure or after SECONDS (default 30) without progress.
 *
 * Build: cc tenant_rw.c $(pkg-config --cflags --libs mwinpeer)
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mwin/peer.h>

struct app {
	struct mwpeer *peer;
	uint32_t window;	/* 0 until granted */
	uint32_t rkey;		/* of the grant the last round used */
	int round;
	char buf[64];		/* registered: the operations use it in place */
};

static int fail(struct app *a, const char *what, int err)
{
	fprintf(stderr, "tenant_rw: %s: %s (%s)\n", what, strerror(-err),
		a->peer ? mwpeer_errmsg(a->peer) : "");
	return 1;
}

/* One round: write our line, read it back, both by window id. */
static int run_round(struct app *a)
{
	struct mwpeer_op op = { .window = a->window, .local = a->buf };
	char line[sizeof(a->buf)];
	int r;

	a->round++;
	snprintf(a->buf, sizeof(a->buf), "round %d from %s", a->round,
		 mwpeer_tenant(a->peer));
	op.type = MWPEER_OP_WRITE;
	op.len = strlen(a->buf) + 1;
	r = mwpeer_do(a->peer, &op, NULL);
	if (r)
		return r < 0 ? fail(a, "write", r) : 1;
	memcpy(line, a->buf, sizeof(line));
	memset(a->buf, 0, sizeof(a->buf));
	op.type = MWPEER_OP_READ;
	r = mwpeer_do(a->peer, &op, NULL);
	if (r)
		return r < 0 ? fail(a, "read", r) : 1;
	if (strcmp(a->buf, line)) {
		fprintf(stderr, "tenant_rw: read back \"%s\"\n", a->buf);
		return 1;
	}
	printf("round %d ok\n", a->round);
	return 0;
}

/* A grant: the first one chooses the window, a new rkey is a rebind. */
static int on_grant(struct app *a, const struct mwpeer_msg *m)
{
	unsigned int rw = MWIN_ACCESS_READ | MWIN_ACCESS_WRITE;

	if (a->window ? m->window != a->window || m->rkey == a->rkey :
			(m->access & rw) != rw)
		return 0;
	a->window = m->window;
	a->rkey = m->rkey;
	return run_round(a);
}

static int handle(struct app *a, const struct mwpeer_event *ev)
{
	printf("%s", mwpeer_event_str(ev->type));
	if (ev->type == MWPEER_EV_GRANT || ev->type == MWPEER_EV_REVOKE)
		printf(" window %u rkey 0x%x", ev->msg.window, ev->msg.rkey);
	if (ev->type == MWPEER_EV_REVOKE)
		printf(" %s", mwpeer_reason_str(ev->msg.access));
	printf("\n");
	switch (ev->type) {
	case MWPEER_EV_GRANT:
		return on_grant(a, &ev->msg);
	case MWPEER_EV_DISCONNECTED:
		return fail(a, "disconnected", ev->status);
	default:
		return 0;
	}
}

static int hex_key(const char *hex, uint8_t *key, size_t *len)
{
	size_t i, n = strlen(hex) / 2;

	if (strlen(hex) % 2 || n > MWIN_TENANT_KEY_MAX)
		return -1;
	for (i = 0; i < n; i++)
		if (sscanf(hex + 2 * i, "%2hhx", &key[i]) != 1)
			return -1;
	*len = n;
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: tenant_rw [-p PORT] [-k KEY_HEX] [-t SECONDS] HOST TENANT\n");
	return 2;
}

int main(int argc, char **argv)
{
	uint8_t key[MWIN_TENANT_KEY_MAX];
	struct mwpeer_opts o = { 0 };
	struct app a = { 0 };
	int port = 0, secs = 30, c, r;

	while ((c = getopt(argc, argv, "p:k:t:")) != -1) {
		if (c == 'p')
			port = atoi(optarg);
		else if (c == 't')
			secs = atoi(optarg);
		else if (c == 'k' && !hex_key(optarg, key, &o.key_len))
			o.key = key;
		else
			return usage();
	}
	if (argc - optind != 2)
		return usage();
	/* a line per event, as it happens, also to a pipe */
	setvbuf(stdout, NULL, _IOLBF, 0);
	o.tenant = argv[optind + 1];
	a.peer = mwpeer_create(&o);
	if (!a.peer)
		return fail(&a, "mwpeer_create", -errno);
	r = mwpeer_open(a.peer, argv[optind], (uint16_t)port) ?:
	    mwpeer_reg_mem(a.peer, a.buf, sizeof(a.buf));
	if (r)
		return fail(&a, "connect", r);
	while (a.round < 2) {
		struct pollfd pfd = { .fd = mwpeer_fd(a.peer), .events = POLLIN };
		struct mwpeer_event ev[8];
		int i, n;

		n = mwpeer_process(a.peer, ev, 8);
		for (i = 0; i < n; i++)
			if (handle(&a, &ev[i]))
				return 1;
		/* all taken: sleep until the next event */
		if (a.round < 2 && n < 8 && !mwpeer_arm(a.peer) &&
		    poll(&pfd, 1, secs * 1000) == 0)
			return fail(&a, "waiting", -ETIMEDOUT);
	}
	mwpeer_close(a.peer);
	return 0;
}
