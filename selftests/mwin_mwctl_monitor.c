// SPDX-License-Identifier: GPL-2.0
/*
 * mwctl monitor, run as programs in the background against the real
 * module: the events of a peer and a window's life (peer_up, grant,
 * revoke with its reason, peer_down) in text and JSON, in order, and
 * with -d a sequence number without gaps. FIXTURE(mw) and mk_window():
 * mwctl_fixture.h.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <signal.h>
#include <sys/syscall.h>

#include "mwctl_fixture.h"

struct bg {
	pid_t pid;
	int out;	/* its stdout and stderr */
};

static int bg_start(struct bg *bg, const char *args)
{
	char line[256], *argv[16];
	int po[2];

	snprintf(line, sizeof(line), "%s", args);
	split(line, "mwctl", argv, 16);
	if (pipe2(po, O_CLOEXEC))
		return -errno;
	bg->pid = fork();
	if (bg->pid < 0)
		return -errno;
	if (!bg->pid) {
		int null = open("/dev/null", O_RDONLY);

		dup2(null, 0);
		dup2(po[1], 1);
		dup2(po[1], 2);
		execv(prog_path(PROG_MWCTL), argv);
		_exit(127);
	}
	close(po[1]);
	bg->out = po[0];
	return 0;
}

/* wait until @pid sleeps in poll(): MWIN_MONITOR is done */
static int bg_wait_polling(pid_t pid)
{
	char path[64], buf[128];
	int i;

	snprintf(path, sizeof(path), "/proc/%d/syscall", pid);
	for (i = 0; i < 1000; i++) {
		FILE *f = fopen(path, "r");
		bool in_poll = false;

		if (!f)
			return -ENOENT;
		if (fgets(buf, sizeof(buf), f))
			in_poll = isdigit((unsigned char)buf[0]) &&
				  (atol(buf) == SYS_poll ||
				   atol(buf) == SYS_ppoll);
		fclose(f);
		if (in_poll)
			return 0;
		usleep(10000);
	}
	return -ETIMEDOUT;
}

/* stop with @sig; its output in @out, its exit status returned */
static int bg_stop(struct bg *bg, int sig, char **out)
{
	int st;

	kill(bg->pid, sig);
	*out = read_all(bg->out);
	close(bg->out);
	if (waitpid(bg->pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* the lines of @out that name window @w or peer @p */
static char *relevant(const char *out, bool json, uint32_t w, uint32_t p)
{
	const char *s = out;
	char *res = NULL;
	size_t len = 0;

	buf_add(&res, &len, "", 0);
	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) + 1 : strlen(s);
		char *line = strndup(s, n);
		bool hit;

		if (json) {
			jv *j = jparse(line);

			hit = j && (jnum(j, "window") == w || jnum(j, "peer") == p);
			jfree(j);
		} else {
			hit = tnum(line, "window") == w || tnum(line, "peer") == p;
		}
		if (hit)
			buf_add(&res, &len, s, n);
		free(line);
		s += n;
	}
	return res;
}

TEST_F_TIMEOUT(mw, monitor, 120)
{
	struct bg mj, mt, md;
	uint32_t w, p2id, r1, r2, r3;
	struct mwin_window_info wi;
	struct mwpeer *p2;
	char *outj, *outt, *outd, *got, want[2048], args[128];
	size_t len = 0;
	uint64_t seq = 0;
	jv *j;
	const char *s;

	/* nothing happens, then SIGINT: no output, status 0 */
	ASSERT_EQ(0, bg_start(&mj, "monitor"));
	ASSERT_EQ(0, bg_wait_polling(mj.pid));
	EXPECT_EQ(0, bg_stop(&mj, SIGINT, &outj));
	/* only peers of earlier tests may still be going away */
	for (s = outj; *s; s = strchr(s, '\n') + 1) {
		EXPECT_EQ(0, strncmp(s, "peer_down peer ", 15));
		if (!strchr(s, '\n'))
			break;
	}
	free(outj);

	ASSERT_EQ(0, bg_start(&mj, "-j monitor"));
	ASSERT_EQ(0, bg_start(&mt, "mon"));
	ASSERT_EQ(0, bg_start(&md, "-d -j monitor"));
	ASSERT_EQ(0, bg_wait_polling(mj.pid));
	ASSERT_EQ(0, bg_wait_polling(mt.pid));
	ASSERT_EQ(0, bg_wait_polling(md.pid));

	/* a peer comes, a window lives and dies, the peer goes */
	p2 = test_connect();
	ASSERT_NE(NULL, p2);
	p2id = mwpeer_id(p2);
	snprintf(args, sizeof(args), "region %u peer %u len 4096 access rw",
		 self->region, p2id);
	w = mk_window(_metadata, &self->r, args, NULL);
	ASSERT_NE(0, w);
	ASSERT_EQ(0, mwin_window_get(self->fd, w, 0, &wi));
	r1 = wi.rkey;
	RUN(&self->r, "window rebind %u access r", w);
	ASSERT_OK(&self->r);
	ASSERT_EQ(0, mwin_window_get(self->fd, w, 0, &wi));
	r2 = wi.rkey;
	RUN(&self->r, "window invalidate %u", w);
	ASSERT_OK(&self->r);
	RUN(&self->r, "window rebind %u", w);
	ASSERT_OK(&self->r);
	ASSERT_EQ(0, mwin_window_get(self->fd, w, 0, &wi));
	r3 = wi.rkey;
	RUN(&self->r, "window destroy %u", w);
	ASSERT_OK(&self->r);
	RUN(&self->r, "peer disconnect %u", p2id);
	ASSERT_OK(&self->r);

	EXPECT_EQ(0, bg_stop(&mj, SIGINT, &outj));
	EXPECT_EQ(0, bg_stop(&mt, SIGTERM, &outt));
	EXPECT_EQ(0, bg_stop(&md, SIGINT, &outd));

	/* JSON lines, in order */
	snprintf(want, sizeof(want),
		 "{\"event\":\"peer_up\",\"peer\":%u}\n"
		 "{\"event\":\"grant\",\"window\":%u,\"peer\":%u,\"rkey\":%u,\"rkey_hex\":\"0x%x\"}\n"
		 "{\"event\":\"revoke\",\"window\":%u,\"peer\":%u,\"rkey\":%u,\"rkey_hex\":\"0x%x\",\"reason\":\"rebind\"}\n"
		 "{\"event\":\"grant\",\"window\":%u,\"peer\":%u,\"rkey\":%u,\"rkey_hex\":\"0x%x\"}\n"
		 "{\"event\":\"revoke\",\"window\":%u,\"peer\":%u,\"rkey\":%u,\"rkey_hex\":\"0x%x\",\"reason\":\"invalidate\"}\n"
		 "{\"event\":\"grant\",\"window\":%u,\"peer\":%u,\"rkey\":%u,\"rkey_hex\":\"0x%x\"}\n"
		 "{\"event\":\"revoke\",\"window\":%u,\"peer\":%u,\"rkey\":%u,\"rkey_hex\":\"0x%x\",\"reason\":\"destroy\"}\n"
		 "{\"event\":\"peer_down\",\"peer\":%u,\"reason\":\"operator\"}\n",
		 p2id, w, p2id, r1, r1, w, p2id, r1, r1, w, p2id, r2, r2,
		 w, p2id, r2, r2, w, p2id, r3, r3, w, p2id, r3, r3, p2id);
	got = relevant(outj, true, w, p2id);
	EXPECT_STREQ(want, got);
	free(got);

	/* the same events as text lines */
	snprintf(want, sizeof(want),
		 "peer_up peer %u\n"
		 "grant window %u peer %u rkey 0x%x\n"
		 "revoke window %u peer %u rkey 0x%x reason rebind\n"
		 "grant window %u peer %u rkey 0x%x\n"
		 "revoke window %u peer %u rkey 0x%x reason invalidate\n"
		 "grant window %u peer %u rkey 0x%x\n"
		 "revoke window %u peer %u rkey 0x%x reason destroy\n"
		 "peer_down peer %u reason operator\n",
		 p2id, w, p2id, r1, w, p2id, r1, w, p2id, r2, w, p2id, r2,
		 w, p2id, r3, w, p2id, r3, p2id);
	got = relevant(outt, false, w, p2id);
	EXPECT_STREQ(want, got);
	free(got);

	/* -d: every line a JSON document, seq from 1 without gaps */
	s = outd;
	while (*s) {
		const char *nl = strchr(s, '\n');
		char *doc;

		ASSERT_NE(NULL, nl);
		doc = strndup(s, nl - s);
		j = jparse(doc);
		ASSERT_NE(NULL, j);
		EXPECT_EQ(++seq, jnum(j, "seq"));
		EXPECT_NE(JMISSING, jnum(j, "time_ns"));
		jfree(j);
		free(doc);
		s = nl + 1;
		len++;
	}
	EXPECT_LE(8, len);

	free(outj);
	free(outt);
	free(outd);
	mwpeer_close(p2);
}

TEST_HARNESS_MAIN
