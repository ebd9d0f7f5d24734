// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libmwin: what an error of a call means, mwin_strerror(): the words mwctl
 * prints, kept here once for mwctl and applications. Each explanation
 * says what <linux/mwin.h> gives the errno to mean for that call.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <mwin/mwin.h>

#define STR_(x)	#x
#define STR(x)	STR_(x)

/*
 * What mwin_strerror() writes: @pre, strerror()'s words when @words,
 * then @post.
 */
struct explanation {
	enum mwin_call call;
	int err;
	const char *pre;
	bool words;
	const char *post;
};

#define SAYS(c, e, text)	{ MWIN_CALL_##c, e, text, false, "" }
#define HINT(c, e, hint)	{ MWIN_CALL_##c, e, "", true, " (" hint ")" }
/* mwin_events() opens /dev/mwin itself: say that its opening failed */
#define OPENING(e, hint) \
	{ MWIN_CALL_EVENTS, e, "cannot open " MWIN_DEV_PATH ": ", true, " (" hint ")" }
#define STARTING(e, pre, post)	{ MWIN_CALL_EVENTS, e, pre, true, post }
/* WINDOW_CREATE and WINDOW_REBIND check a bind alike */
#define BIND(e, text)	SAYS(WINDOW_CREATE, e, text), SAYS(WINDOW_REBIND, e, text)

#define NOT_LOADED	"is the mwin module loaded?"
#define NO_ACCESS	"run as root, or as a member of the group a udev rule opens it to"
#define NO_MONITOR	"the loaded mwin module has no event monitor (MWIN_MONITOR: "

/* The call's own explanations come before those of MWIN_CALL_ANY. */
static const struct explanation explanations[] = {
	HINT(OPEN, ENOENT, NOT_LOADED),
	HINT(OPEN, ENODEV, NOT_LOADED),
	HINT(OPEN, ENXIO, NOT_LOADED),
	HINT(OPEN, EACCES, NO_ACCESS),
	HINT(OPEN, EPERM, NO_ACCESS),
	OPENING(ENOENT, NOT_LOADED),
	OPENING(ENODEV, NOT_LOADED),
	OPENING(ENXIO, NOT_LOADED),
	OPENING(EACCES, NO_ACCESS),
	OPENING(EPERM, NO_ACCESS),
	STARTING(EMFILE, "cannot start a monitor: ",
		 " (your user holds max_monitors monitors already)"),
	STARTING(ENOMEM, "cannot start a monitor: ", ""),
	STARTING(ENOTTY, NO_MONITOR, ")"),
	STARTING(EINVAL, NO_MONITOR, ")"),

	SAYS(REGION_CREATE, ENOSPC, "no room for a region"),
	SAYS(REGION_CREATE, ENOMEM, "out of memory for a region"),
	SAYS(REGION_CREATE, ENODEV, "the RDMA device went away"),
	SAYS(REGION_CREATE, EINVAL, "bad region: an unknown kind or flag, a length of 0 or over 4 GiB, "
	     "an address, offset or length not page-aligned, a range past the file's end, "
	     "or a file not a memfd or tmpfs file"),
	SAYS(REGION_CREATE, EFAULT, "a page of the range is not mapped, or not writable (a read-only region may be)"),
	SAYS(REGION_CREATE, EBADF, "not an open file descriptor"),
	SAYS(REGION_CREATE, EACCES, "the file is not open for reading, or for writing (a read-only region needs reading only)"),
	SAYS(REGION_CREATE, EPERM, "the memfd is sealed against writing: only a read-only region may have it"),
	SAYS(REGION_MMAP, ENODEV, "a user or file region: map the memory itself"),
	SAYS(REGION_DESTROY, EBUSY, "the region has windows"),
	SAYS(REGION_GET, ENOENT, "no such region"),
	SAYS(REGION_MMAP, ENOENT, "no such region"),

	SAYS(WINDOW_CREATE, ENOENT, "no such region, peer or tenant"),
	SAYS(WINDOW_REBIND, ENOENT, "no such window, peer or tenant"),
	BIND(ENOTCONN, "the peer is gone, or the tenant has no connection that proved its key"),
	BIND(EDQUOT, "the tenant has its max-windows windows or its max-bytes bytes bound"),
	BIND(EPERM, "the tenant is not yours (its owner and CAP_SYS_ADMIN grant to it)"),
	BIND(EBUSY, "the window overlaps another window of the region"),
	BIND(E2BIG, "window larger than the grantee's device can map"),
	BIND(ERANGE, "the range leaves the region"),
	BIND(ENOMEM, "out of memory"),
	BIND(EACCES, "write or atomic rights in a read-only region"),
	BIND(ETIMEDOUT, "the device did not answer in time; the window is broken and its peer is being torn down"),
	SAYS(WINDOW_CREATE, ENOSPC, "window limit reached"),
	SAYS(WINDOW_INVALIDATE, ENOTCONN, "its peer is gone"),
	SAYS(WINDOW_RENEW, ETIME, "its lease ran out; rebind it for a new grant"),
	SAYS(WINDOW_RENEW, ESTALE, "no live grant (invalidated, handed back or unbound)"),
	SAYS(WINDOW_RENEW, EIO, "it is broken: it can only be destroyed"),

	SAYS(TENANT_CREATE, EEXIST, "a tenant of that name exists"),
	SAYS(TENANT_CREATE, ENOSPC, "tenant limit reached (" STR(MWIN_TENANT_MAX) " tenants)"),

	HINT(ANY, EPERM, "needs CAP_SYS_ADMIN"),
	SAYS(ANY, ENOTTY, "the loaded mwin module does not know this command (ABI "
	     STR(MWIN_ABI_VERSION) " expected)"),
};

static const struct explanation *find(enum mwin_call call, int err)
{
	size_t i;

	for (i = 0; i < sizeof(explanations) / sizeof(explanations[0]); i++)
		if (explanations[i].call == call && explanations[i].err == err)
			return &explanations[i];
	return NULL;
}

const char *mwin_strerror(enum mwin_call call, int err)
{
	static __thread char buf[256];
	const struct explanation *e;

	if (err < 0)
		err = -err;
	e = find(call, err);
	if (!e)
		e = find(MWIN_CALL_ANY, err);
	if (!e)
		return strerror(err);
	snprintf(buf, sizeof(buf), "%s%s%s", e->pre, e->words ? strerror(err) : "",
		 e->post);
	return buf;
}
