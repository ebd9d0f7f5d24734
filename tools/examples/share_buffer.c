// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * share_buffer: an application on mwin's host that lends a buffer of its
 * own to a remote tenant, with libmwin, and a peer of that tenant that
 * reads it, with libmwinpeer.
 *
 *   share_buffer [-p PORT] [-k KEY_HEX] [-t SECONDS] HOST TENANT
 *
 * The owner allocates and fills a buffer (aligned_alloc), makes a
 * read-only user region of it where it is (mwin_region_create_user()),
 * grants TENANT a read-only window of it with a lease, renews the lease
 * twice, then invalidates and destroys the window. The peer, a child
 * process as a remote application would be, connects to HOST as TENANT
 * and reads the whole window after each step, checking every byte, and
 * after the revoke sees its READ fail. The two talk over pipes: the owner
 * says when to read, the peer says how it went. One line per step; exits
 * 0 when all went as said, 1 otherwise or after SECONDS (default 30)
 * without progress. TENANT must exist (mwctl tenant create).
 *
 * Build: cc share_buffer.c $(pkg-config --cflags --libs mwin mwinpeer)
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <mwin/mwin.h>
#include <mwin/peer.h>

#define BUF_LEN		(64 * 1024)
#define LEASE_MS	5000

/* The owner's requests to the peer, and the peer's answers. */
enum {
	ASK_READ = 'r',
	ASK_READ_REVOKED = 'x',
	SAID_CONNECTED = 'c',
	SAID_OK = 'k',
	SAID_FAILED = 'f',
};

static int secs = 30;

/* byte @i of the buffer: both sides know it, so the peer can check */
static uint8_t pattern(size_t i)
{
	return (uint8_t)(i * 7 + (i >> 12));
}

static int say(int fd, char c)
{
	return write(fd, &c, 1) == 1 ? 0 : -1;
}

/* The next byte of @fd, within secs; 0 at its end or on a timeout. */
static char hear(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char c;

	if (poll(&pfd, 1, secs * 1000) != 1 || read(fd, &c, 1) != 1)
		return 0;
	return c;
}

/* ---------------------------------------------------------------- peer */

struct peer {
	struct mwpeer *p;
	uint32_t window;	/* 0 until granted */
	uint8_t *buf;		/* registered: READs land here */
};

/* Events until one of @type (of our window, once known); 0 or -errno. */
static int peer_wait(struct peer *pr, uint32_t type)
{
	struct pollfd pfd = { .fd = mwpeer_fd(pr->p), .events = POLLIN };
	struct mwpeer_event ev;

	for (;;) {
		if (mwpeer_process(pr->p, &ev, 1) == 1) {
			if (ev.type == MWPEER_EV_DISCONNECTED)
				return ev.status;
			if (ev.type == MWPEER_EV_GRANT && !pr->window)
				pr->window = ev.msg.window;
			if (ev.type == type && ev.msg.window == pr->window) {
				printf("peer: %s of window %u rkey 0x%x%s%s\n",
				       mwpeer_event_str(ev.type), ev.msg.window,
				       ev.msg.rkey, type == MWPEER_EV_REVOKE ?
				       ", reason " : "", type == MWPEER_EV_REVOKE ?
				       mwpeer_reason_str(ev.msg.access) : "");
				return 0;
			}
			continue;
		}
		if (!mwpeer_arm(pr->p) && poll(&pfd, 1, secs * 1000) == 0)
			return -ETIMEDOUT;
	}
}

/* READ the whole window; 0 when every byte is the owner's. */
static int peer_read(struct peer *pr)
{
	struct mwpeer_op op = {
		.type = MWPEER_OP_READ, .window = pr->window, .len = BUF_LEN,
		.local = pr->buf,
	};
	size_t i;
	int r;

	memset(pr->buf, 0, BUF_LEN);
	r = mwpeer_do(pr->p, &op, NULL);
	if (r) {
		printf("peer: read of window %u failed: %s\n", pr->window,
		       r < 0 ? strerror(-r) : mwpeer_status_str(r));
		return r < 0 ? r : -EIO;
	}
	for (i = 0; i < BUF_LEN; i++)
		if (pr->buf[i] != pattern(i)) {
			printf("peer: byte %zu is 0x%02x, not 0x%02x\n", i,
			       pr->buf[i], pattern(i));
			return -EBADMSG;
		}
	printf("peer: read %d bytes of window %u: all the owner's\n", BUF_LEN,
	       pr->window);
	return 0;
}

/* One request of the owner's: read, or read after the revoke and fail. */
static bool peer_serve(struct peer *pr, char ask)
{
	if (ask == ASK_READ)
		/* the first read waits for the grant; the others for renewal */
		return !peer_wait(pr, MWPEER_EV_GRANT) && !peer_read(pr);
	return !peer_wait(pr, MWPEER_EV_REVOKE) && peer_read(pr) < 0;
}

static int run_peer(const char *host, const char *tenant,
		    const struct mwpeer_opts *base, uint16_t port, int in,
		    int out)
{
	struct mwpeer_opts o = *base;
	struct peer pr = { 0 };
	char ask;

	o.tenant = tenant;
	pr.buf = malloc(BUF_LEN);
	pr.p = pr.buf ? mwpeer_create(&o) : NULL;
	if (!pr.p || mwpeer_open(pr.p, host, port) ||
	    mwpeer_reg_mem(pr.p, pr.buf, BUF_LEN)) {
		printf("peer: cannot connect to %s as %s: %s\n", host, tenant,
		       pr.p ? mwpeer_errmsg(pr.p) : strerror(errno));
		return 1;
	}
	printf("peer: connected to %s as tenant %s\n", host, tenant);
	say(out, SAID_CONNECTED);
	while ((ask = hear(in)))
		say(out, peer_serve(&pr, ask) ? SAID_OK : SAID_FAILED);
	mwpeer_close(pr.p);
	free(pr.buf);
	return 0;
}

/* ---------------------------------------------------------------- owner */

struct owner {
	int fd;			/* /dev/mwin */
	int ask, answer;	/* pipes to and from the peer */
	struct mwin_window_bind b;
};

static int owner_fail(const char *what, enum mwin_call call, int err)
{
	printf("owner: %s: %s\n", what, mwin_strerror(call, err));
	return 1;
}

/* Ask the peer for @ask; 0 when it did as told. */
static int owner_ask(struct owner *o, char ask)
{
	if (say(o->ask, ask) || hear(o->answer) != SAID_OK) {
		printf("owner: the peer did not answer as it should\n");
		return 1;
	}
	return 0;
}

/*
 * A read-only window of the whole region for @tenant, with a lease. The
 * tenant's connection proves its key after the peer said it connected:
 * until then the module says ENOTCONN, so try again for a while.
 */
static int owner_grant(struct owner *o, uint32_t region, const char *tenant)
{
	struct mwin_tenant_info t;
	int i, r;

	r = mwin_tenant_find(o->fd, tenant, &t);
	if (r)
		return owner_fail(tenant, MWIN_CALL_TENANT_GET, r);
	for (i = 0; i < secs * 100; i++) {
		o->b = (struct mwin_window_bind){
			.region = region, .tenant = t.id, .length = BUF_LEN,
			.access = MWIN_ACCESS_READ, .expires_ms = LEASE_MS,
		};
		r = mwin_window_create(o->fd, &o->b);
		if (r != -ENOTCONN)
			break;
		usleep(10000);
	}
	if (r)
		return owner_fail("window create", MWIN_CALL_WINDOW_CREATE, r);
	printf("owner: window %u of region %u granted to tenant %s: read-only, rkey 0x%x, lease %d ms\n",
	       o->b.id, region, tenant, o->b.rkey, LEASE_MS);
	return 0;
}

static int owner_renew(struct owner *o, int n)
{
	struct timespec now;
	uint64_t deadline;
	int r = mwin_window_renew(o->fd, o->b.id, LEASE_MS, &deadline);

	if (r)
		return owner_fail("window renew", MWIN_CALL_WINDOW_RENEW, r);
	clock_gettime(CLOCK_MONOTONIC, &now);
	printf("owner: lease of window %u renewed (%d of 2): ends in %llu ms\n",
	       o->b.id, n, (unsigned long long)(deadline -
	       ((uint64_t)now.tv_sec * 1000000000 + (uint64_t)now.tv_nsec)) /
	       1000000);
	return 0;
}

/* Grant, read, renew and read twice, revoke and see the read fail. */
static int owner_share(struct owner *o, uint32_t region, const char *tenant)
{
	int r;

	if (owner_grant(o, region, tenant) || owner_ask(o, ASK_READ) ||
	    owner_renew(o, 1) || owner_ask(o, ASK_READ) ||
	    owner_renew(o, 2) || owner_ask(o, ASK_READ))
		return 1;
	r = mwin_window_invalidate(o->fd, o->b.id);
	if (r)
		return owner_fail("window invalidate",
				  MWIN_CALL_WINDOW_INVALIDATE, r);
	printf("owner: window %u invalidated: its rkey is dead\n", o->b.id);
	if (owner_ask(o, ASK_READ_REVOKED))
		return 1;
	r = mwin_window_destroy(o->fd, o->b.id);
	if (r)
		return owner_fail("window destroy", MWIN_CALL_WINDOW_DESTROY, r);
	printf("owner: window %u destroyed\n", o->b.id);
	return 0;
}

static int run_owner(struct owner *o, const char *tenant)
{
	long page = sysconf(_SC_PAGESIZE);
	uint8_t *buf = aligned_alloc((size_t)page, BUF_LEN);
	uint32_t region;
	size_t i;
	int r;

	if (!buf)
		return 1;
	for (i = 0; i < BUF_LEN; i++)
		buf[i] = pattern(i);
	o->fd = mwin_open();
	if (o->fd < 0)
		return owner_fail("open", MWIN_CALL_OPEN, o->fd);
	/* owned: the region goes with o->fd, whatever happens below */
	r = mwin_region_create_user(o->fd, buf, BUF_LEN, MWIN_CREATE_FD_OWNED |
				    MWIN_REGION_READ_ONLY, &region);
	if (r)
		return owner_fail("region create", MWIN_CALL_REGION_CREATE, r);
	printf("owner: region %u of my buffer at %p, %d bytes, read-only\n",
	       region, (void *)buf, BUF_LEN);
	if (hear(o->answer) != SAID_CONNECTED)
		return 1;
	r = owner_share(o, region, tenant);
	mwin_close(o->fd);
	free(buf);
	return r;
}

/* ---------------------------------------------------------------- main */

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
	fprintf(stderr, "usage: share_buffer [-p PORT] [-k KEY_HEX] [-t SECONDS] HOST TENANT\n");
	return 2;
}

int main(int argc, char **argv)
{
	uint8_t key[MWIN_TENANT_KEY_MAX];
	struct mwpeer_opts po = { 0 };
	struct owner o = { 0 };
	int port = 0, c, to_peer[2], to_owner[2], status, r;
	pid_t pid;

	while ((c = getopt(argc, argv, "p:k:t:")) != -1) {
		if (c == 'p')
			port = atoi(optarg);
		else if (c == 't')
			secs = atoi(optarg);
		else if (c == 'k' && !hex_key(optarg, key, &po.key_len))
			po.key = key;
		else
			return usage();
	}
	if (argc - optind != 2)
		return usage();
	/* a line per step, as it happens, also to a pipe */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (pipe(to_peer) || pipe(to_owner))
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid) {
		close(to_peer[1]);
		close(to_owner[0]);
		return run_peer(argv[optind], argv[optind + 1], &po,
				(uint16_t)port, to_peer[0], to_owner[1]);
	}
	close(to_peer[0]);
	close(to_owner[1]);
	o.ask = to_peer[1];
	o.answer = to_owner[0];
	r = run_owner(&o, argv[optind + 1]);
	close(o.ask);	/* the peer's end of the requests: it goes */
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		r = 1;
	printf("%s\n", r ? "share_buffer: failed" : "share_buffer: ok");
	return r;
}
