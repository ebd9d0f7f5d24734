// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libmwin: the names of the uAPI's values (states, reasons, counters,
 * access letters), as mwctl prints them and the module's tracepoints do.
 * libmwinpeer links this file too.
 */
#include <errno.h>
#include <stddef.h>

#include <mwin/mwin.h>

/* Entry @i of the @n names of a table indexed by a uAPI enum. */
static const char *table_name(const char *const *names, size_t n, uint32_t i)
{
	return i < n && names[i] ? names[i] : "unknown";
}

#define TABLE_NAME(names, i) \
	table_name(names, sizeof(names) / sizeof(names[0]), i)

const char *mwin_region_kind_name(uint32_t kind)
{
	static const char *const names[] = {
		[MWIN_REGION_KIND_MODULE] = "module",
		[MWIN_REGION_KIND_USER] = "user",
		[MWIN_REGION_KIND_FILE] = "file",
	};

	return TABLE_NAME(names, kind);
}

const char *mwin_reject_reason_name(uint32_t reason)
{
	static const char *const names[] = {
		[MWIN_REJECT_BAD_HELLO] = "bad-hello",
		[MWIN_REJECT_ANONYMOUS] = "anonymous",
		[MWIN_REJECT_UNKNOWN_TENANT] = "unknown-tenant",
		[MWIN_REJECT_ADDRESS] = "address",
		[MWIN_REJECT_QUOTA] = "quota",
		[MWIN_REJECT_PEER_LIMIT] = "peer-limit",
		[MWIN_REJECT_RATE] = "rate",
		[MWIN_REJECT_RNR_RETRY] = "rnr-retry",
		[MWIN_REJECT_SETUP] = "setup",
		[MWIN_REJECT_DEVICE] = "device",
		[MWIN_REJECT_BAD_PROOF] = "bad-proof",
		[MWIN_REJECT_NO_PROOF] = "no-proof",
		[MWIN_REJECT_HALF_OPEN] = "half-open",
		[MWIN_REJECT_UNFINISHED] = "unfinished",
		[MWIN_REJECT_CHALLENGE] = "challenge",
	};

	return TABLE_NAME(names, reason);
}

const char *mwin_down_reason_name(uint32_t reason)
{
	static const char *const names[] = {
		[MWIN_DOWN_DISCONNECT] = "disconnect",
		[MWIN_DOWN_QP_ERROR] = "qp-error",
		[MWIN_DOWN_KEEPALIVE] = "keepalive",
		[MWIN_DOWN_CUT_OFF] = "cut-off",
		[MWIN_DOWN_OPERATOR] = "operator",
		[MWIN_DOWN_DEVICE] = "device-removed",
		[MWIN_DOWN_HOSTILE] = "hostile",
		[MWIN_DOWN_NO_MESSAGES] = "no-messages",
		[MWIN_DOWN_BAD_PROOF] = "bad-proof",
		[MWIN_DOWN_NO_PROOF] = "no-proof",
		[MWIN_DOWN_TENANT] = "tenant-destroyed",
		[MWIN_DOWN_UNLOAD] = "unload",
		[MWIN_DOWN_QP_EVENT] = "qp-event",
		[MWIN_DOWN_REG_QP] = "reg-qp",
		[MWIN_DOWN_HANDSHAKE] = "handshake",
	};

	return TABLE_NAME(names, reason);
}

const char *mwin_stat_name(uint32_t stat)
{
	static const char *const names[] = {
		[MWIN_STAT_GRANTS] = "grants",
		[MWIN_STAT_REVOKES] = "revokes",
		[MWIN_STAT_REMOTE_INVALIDATIONS] = "remote_invalidations",
		[MWIN_STAT_ATTACKS] = "attacks",
		[MWIN_STAT_ACCESS_ERRORS] = "access_errors",
		[MWIN_STAT_CUT_OFFS] = "cut_offs",
		[MWIN_STAT_TIMEOUTS] = "timeouts",
		[MWIN_STAT_KEYS_SPENT] = "keys_spent",
		[MWIN_STAT_MR_REPLACEMENTS] = "mr_replacements",
		[MWIN_STAT_QP_EVENTS] = "qp_events",
		[MWIN_STAT_QP_ACCESS_ERRORS] = "qp_access_errors",
		[MWIN_STAT_MSGS_SENT] = "msgs_sent",
		[MWIN_STAT_MSGS_RECEIVED] = "msgs_received",
		[MWIN_STAT_EXPIRIES] = "expiries",
	};

	return TABLE_NAME(names, stat);
}

const char *mwin_event_name(uint32_t type)
{
	static const char *const names[] = {
		[MWIN_EVENT_PEER_UP] = "peer_up",
		[MWIN_EVENT_PEER_DOWN] = "peer_down",
		[MWIN_EVENT_GRANT] = "grant",
		[MWIN_EVENT_REVOKE] = "revoke",
		[MWIN_EVENT_REMOTE_INVALIDATE] = "remote_invalidate",
		[MWIN_EVENT_REJECTED_INVALIDATE] = "rejected_invalidate",
		[MWIN_EVENT_LOST] = "lost",
	};

	return TABLE_NAME(names, type);
}

const char *mwin_window_state_name(uint32_t state)
{
	switch (state) {
	case MWIN_WINDOW_BOUND:
		return "bound";
	case MWIN_WINDOW_INVALIDATED:
		return "invalidated";
	case MWIN_WINDOW_UNBOUND:
		return "unbound";
	case MWIN_WINDOW_BROKEN:
		return "broken";
	}
	return "unknown";
}

const char *mwin_peer_state_name(uint32_t state)
{
	switch (state) {
	case MWIN_PEER_CONNECTING:
		return "connecting";
	case MWIN_PEER_CONNECTED:
		return "connected";
	case MWIN_PEER_CLOSING:
		return "closing";
	case MWIN_PEER_AUTHENTICATING:
		return "authenticating";
	}
	return "unknown";
}

const char *mwin_access_str(uint32_t access, char buf[5])
{
	char *p = buf;

	if (access & MWIN_ACCESS_READ)
		*p++ = 'r';
	if (access & MWIN_ACCESS_WRITE)
		*p++ = 'w';
	if (access & MWIN_ACCESS_ATOMIC)
		*p++ = 'a';
	if (access & ~MWIN_ACCESS_ALL)
		*p++ = '?';
	*p = '\0';
	return buf;
}

const char *mwin_revoke_reason_name(uint32_t reason)
{
	switch (reason) {
	case MWIN_REVOKE_INVALIDATE:
		return "invalidate";
	case MWIN_REVOKE_REBIND:
		return "rebind";
	case MWIN_REVOKE_DESTROY:
		return "destroy";
	case MWIN_REVOKE_REMOTE:
		return "remote";
	case MWIN_REVOKE_ERROR:
		return "error";
	case MWIN_REVOKE_HANDED_BACK:
		return "handed-back";
	case MWIN_REVOKE_EXPIRED:
		return "expired";
	}
	return "unknown";
}

int mwin_access_parse(const char *s)
{
	int access = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		switch (*s) {
		case 'r':
			access |= MWIN_ACCESS_READ;
			break;
		case 'w':
			access |= MWIN_ACCESS_WRITE;
			break;
		case 'a':
			access |= MWIN_ACCESS_ATOMIC;
			break;
		default:
			return -EINVAL;
		}
	}
	return access;
}
