// SPDX-License-Identifier: GPL-2.0
/*
 * mwctl monitor: the module's events (MWIN_MONITOR), one line or one JSON
 * document each, until SIGINT or SIGTERM.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "mwctl.h"

static int usage_monitor(struct mw *mw)
{
	(void)mw;
	fputs("Usage: mwctl monitor\n"
	      "Prints one line per event (peer_up, peer_down, grant, revoke,\n"
	      "remote_invalidate, rejected_invalidate, lost) until SIGINT or SIGTERM.\n"
	      "peer_down says why the peer went (reason qp-error, operator, ...);\n"
	      "a grant with a lease says how long (lease 500ms); a renew is such a grant.\n",
	      stdout);
	return 0;
}

/* peer_down: the peer, and why it went (0: an older module did not say) */
static void print_down(const struct mwin_event *ev)
{
	pr_uint(PR_ANY, "peer", ev->peer);
	if (ev->reason) {
		char why[24];

		pr_str(PR_ANY, "reason", enum_str(mwin_down_reason_name,
						  ev->reason, "reason-", why,
						  sizeof(why)));
	}
}

/*
 * A grant's lease, which its reason field carries; only when it has one,
 * so that grants without read as they always did.
 */
static void print_lease(uint32_t ms)
{
	char buf[32];

	if (!ms)
		return;
	pr_str(PR_TEXT, "lease", duration_str(ms, buf, sizeof(buf)));
	pr_uint(PR_JSON, "lease_ms", ms);
}

static void print_event(struct mw *mw, const struct mwin_event *ev)
{
	pr_doc_begin();
	pr_label("");
	pr_str(PR_ANY, "event", mwin_event_name(ev->type));
	switch (ev->type) {
	case MWIN_EVENT_PEER_UP:
		pr_uint(PR_ANY, "peer", ev->peer);
		break;
	case MWIN_EVENT_PEER_DOWN:
		print_down(ev);
		break;
	case MWIN_EVENT_LOST:
		pr_uint(PR_ANY, "events", ev->rkey);
		break;
	case MWIN_EVENT_GRANT:
	case MWIN_EVENT_REVOKE:
	case MWIN_EVENT_REMOTE_INVALIDATE:
	case MWIN_EVENT_REJECTED_INVALIDATE:
	default:
		pr_uint(PR_ANY, "window", ev->window);
		pr_uint(PR_ANY, "peer", ev->peer);
		pr_hex(PR_ANY, "rkey", ev->rkey, 0);
		if (ev->type == MWIN_EVENT_REVOKE)
			pr_str(PR_ANY, "reason", mwin_revoke_reason_name(ev->reason));
		if (ev->type == MWIN_EVENT_GRANT)
			print_lease(ev->reason);
		/* a newer module's event: show what it is */
		if (ev->type > MWIN_EVENT_LOST)
			pr_uint(PR_ANY, "type", ev->type);
		break;
	}
	if (mw->details) {
		pr_uint(PR_ANY, "seq", ev->seq);
		pr_uint(PR_ANY, "time_ns", ev->time_ns);
	}
	pr_doc_end();
	if (ferror(stdout))
		die("cannot write events: %s", strerror(errno));
}

/*
 * The monitor, on a file of its own; non-blocking, so that each wake-up
 * prints what is queued and no more. Its errors are whole sentences
 * ("cannot open /dev/mwin: ...", "the loaded mwin module has no event
 * monitor ...").
 */
static int start_monitor(void)
{
	int efd = mwin_events();

	if (efd < 0)
		die("%s", mwin_strerror(MWIN_CALL_EVENTS, efd));
	fcntl(efd, F_SETFL, fcntl(efd, F_GETFL) | O_NONBLOCK);
	return efd;
}

/* SIGINT and SIGTERM, as a file to poll beside the events */
static int stop_signals(void)
{
	sigset_t set;
	int sfd;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sfd = signalfd(-1, &set, SFD_CLOEXEC);
	if (sfd < 0)
		die("signalfd: %s", strerror(errno));
	return sfd;
}

/* Print the events queued on @efd. */
static void read_events(struct mw *mw, int efd)
{
	struct mwin_event ev;
	int ret;

	while ((ret = mwin_next_event(efd, &ev)) != -EAGAIN) {
		if (ret == -EINTR)
			continue;
		if (ret)
			die("reading events: %s", strerror(-ret));
		print_event(mw, &ev);
	}
}

enum wake { WAKE_NONE, WAKE_EVENTS, WAKE_STOP };

/* Wait for events on @efd or a signal to stop. */
static enum wake wait_events(int efd, int sfd)
{
	struct pollfd pfd[2] = {
		{ .fd = efd, .events = POLLIN },
		{ .fd = sfd, .events = POLLIN },
	};

	if (poll(pfd, 2, -1) < 0) {
		if (errno == EINTR)
			return WAKE_NONE;
		die("poll: %s", strerror(errno));
	}
	/* print what is queued, then stop */
	if (pfd[1].revents & POLLIN)
		return WAKE_STOP;
	if (pfd[0].revents & (POLLERR | POLLHUP | POLLNVAL))
		die("the event stream of %s failed", MWIN_DEV_PATH);
	return (pfd[0].revents & POLLIN) ? WAKE_EVENTS : WAKE_NONE;
}

int cmd_monitor(struct mw *mw)
{
	enum wake wake = WAKE_NONE;
	int efd, sfd;

	mw->obj = "monitor";
	mw->cmd = "";
	mw->usage = usage_monitor;
	if (mw->argc && is_help(mw->argv[0]))
		return usage_monitor(mw);
	if (mw->argc)
		usage_err("unexpected argument '%s' for monitor (try 'mwctl monitor help')",
			  mw->argv[0]);
	efd = start_monitor();
	sfd = stop_signals();
	signal(SIGPIPE, SIG_IGN);

	/* events go out as they come: one line (one JSON document) each */
	pr_init(stdout, mw->json, mw->pretty, false);
	while (wake != WAKE_STOP) {
		wake = wait_events(efd, sfd);
		if (wake != WAKE_NONE)
			read_events(mw, efd);
	}
	close(sfd);
	mwin_close(efd);
	return 0;
}
