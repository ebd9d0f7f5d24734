// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libmwin: the module's events (MWIN_MONITOR) on a file of their own.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <mwin/mwin.h>

/*
 * A file of its own, so that the caller's control file stays one (its
 * reads are not events), and read-only: MONITOR needs no more, so a user
 * the udev rule lets read /dev/mwin may watch.
 */
int mwin_events(void)
{
	struct mwin_monitor mon = { .size = sizeof(mon) };
	int efd = open(MWIN_DEV_PATH, O_RDONLY | O_CLOEXEC);
	int ret;

	if (efd < 0)
		return -errno;
	ret = mwin_ioctl(efd, MWIN_MONITOR, &mon);
	if (ret) {
		close(efd);
		return ret;
	}
	return efd;
}

/* An older module's records are shorter: they end after @reason. */
#define EVENT_MIN_SIZE	(offsetof(struct mwin_event, reason) + sizeof(uint32_t))
/* The largest record read_one() takes: 100 times the size of today's. */
#define EVENT_MAX_SIZE	4096

/*
 * read() returns as many whole records as the buffer holds, and EINVAL
 * when it holds none. A record of size r in (len / 2, len] comes alone:
 * start with our own record's size and double it until one fits, so that
 * exactly one record is read, whatever size the module's are.
 */
static ssize_t read_one(int efd, void *buf, size_t *len)
{
	for (;;) {
		ssize_t n = read(efd, buf, *len);

		if (n >= 0 || errno != EINVAL || *len >= EVENT_MAX_SIZE)
			return n < 0 ? -errno : n;
		*len = *len * 2 < EVENT_MAX_SIZE ? *len * 2 : EVENT_MAX_SIZE;
	}
}

int mwin_next_event(int efd, struct mwin_event *ev)
{
	uint8_t buf[EVENT_MAX_SIZE];
	size_t len = sizeof(*ev);
	uint32_t size;
	ssize_t n;

	n = read_one(efd, buf, &len);
	if (n < 0)
		return (int)n;
	if ((size_t)n < EVENT_MIN_SIZE)
		return -EPROTO;
	memcpy(&size, buf, sizeof(size));
	if (size < EVENT_MIN_SIZE || size != (size_t)n)
		return -EPROTO;
	memset(ev, 0, sizeof(*ev));
	memcpy(ev, buf, size < sizeof(*ev) ? size : sizeof(*ev));
	return 0;
}
