// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libmwinpeer: errors, clocks, the epoll set and the accessors.
 */
#include "internal.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include <mwin/mwin.h>

/* ---------------------------------------------------------------- util */

__attribute__((format(printf, 2, 3)))
void peer_seterr(struct mwpeer *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->errmsg, sizeof(p->errmsg), fmt, ap);
	va_end(ap);
}

int64_t peer_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int peer_ms_left(int64_t deadline)
{
	int64_t left = deadline - peer_now_ms();

	if (left <= 0)
		return 0;
	return left > 1000000000 ? 1000000000 : (int)left;
}

int peer_set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

int peer_ep_add(struct mwpeer *p, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };

	if (epoll_ctl(p->epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
		return -errno;
	return 0;
}

void peer_ep_del(struct mwpeer *p, int fd)
{
	epoll_ctl(p->epfd, EPOLL_CTL_DEL, fd, NULL);
}

void peer_ep_wait(struct mwpeer *p, int timeout_ms)
{
	struct epoll_event ev[4];

	/* EINTR or a failure: the caller loops and checks its deadline */
	if (epoll_wait(p->epfd, ev, 4, timeout_ms) < 0 && errno != EINTR)
		usleep(1000);
}

const char *mwpeer_status_str(int status)
{
	if (status >= 0)
		return ibv_wc_status_str((enum ibv_wc_status)status);
	switch (-status) {
	case ETIMEDOUT:
		return "timeout";
	case ENOTCONN:
		return "not connected";
	case EBUSY:
		return "busy";
	case EINVAL:
		return "invalid argument";
	case EMSGSIZE:
		return "too long";
	default:
		return strerror(-status);
	}
}

const char *mwpeer_access_str(unsigned int access, char buf[8])
{
	return mwin_access_str(access, buf);
}

const char *mwpeer_reason_str(unsigned int reason)
{
	return mwin_revoke_reason_name(reason);
}

const char *mwpeer_reject_reason_str(unsigned int reason)
{
	return reason ? mwin_reject_reason_name(reason) : "none";
}

const char *mwpeer_state_str(enum mwpeer_state s)
{
	switch (s) {
	case MWPEER_IDLE:
		return "idle";
	case MWPEER_CONNECTED:
		return "connected";
	case MWPEER_DISCONNECTED:
		return "disconnected";
	}
	return "unknown";
}

/* ------------------------------------------------------------ accessors */

enum mwpeer_state mwpeer_state(const struct mwpeer *p)
{
	return p->state;
}

uint32_t mwpeer_id(const struct mwpeer *p)
{
	return p->peer_id;
}

const char *mwpeer_tenant(const struct mwpeer *p)
{
	return p->tenant;
}

uint32_t mwpeer_tenant_id(const struct mwpeer *p)
{
	return p->tenant_id;
}

void mwpeer_handshake(const struct mwpeer *p, struct mwpeer_handshake *out)
{
	*out = p->hs;
}

bool mwpeer_qp_error(const struct mwpeer *p)
{
	return p->qp_error;
}

uint32_t mwpeer_qp_num(const struct mwpeer *p)
{
	return p->id ? p->qp_num : 0;
}

struct ibv_qp *mwpeer_ibv_qp(const struct mwpeer *p)
{
	return p->id ? p->id->qp : NULL;
}

const char *mwpeer_dev_name(const struct mwpeer *p)
{
	return p->devname;
}

const char *mwpeer_errmsg(const struct mwpeer *p)
{
	return p->errmsg;
}

unsigned int mwpeer_proto_errors(const struct mwpeer *p, const char **first)
{
	if (first)
		*first = p->proto_first;
	return p->proto_errors;
}

void mwpeer_reject(const struct mwpeer *p, struct mwpeer_reject *out)
{
	*out = p->reject;
}

int mwpeer_reject_reason(const struct mwpeer *p)
{
	return p->reject.wire_reason;
}

void *mwpeer_buf(const struct mwpeer *p)
{
	return p->mem;
}

size_t mwpeer_buf_size(const struct mwpeer *p)
{
	return p->buf_size;
}

void mwpeer_set_timeout(struct mwpeer *p, int timeout_ms)
{
	if (timeout_ms > 0)
		p->timeout_ms = timeout_ms;
}

int mwpeer_timeout(const struct mwpeer *p)
{
	return p->timeout_ms;
}

int mwpeer_fd(const struct mwpeer *p)
{
	return p->epfd;
}

size_t mwpeer_pending_msgs(const struct mwpeer *p)
{
	return p->q_len;
}

const char *mwpeer_event_str(unsigned int type)
{
	static const char *const names[] = {
		[MWPEER_EV_CONNECTED] = "connected",
		[MWPEER_EV_GRANT] = "grant",
		[MWPEER_EV_REVOKE] = "revoke",
		[MWPEER_EV_DONE] = "done",
		[MWPEER_EV_DISCONNECTED] = "disconnected",
	};

	return type < sizeof(names) / sizeof(names[0]) && names[type] ?
	       names[type] : "unknown";
}
