/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mwin's tracepoints (system "mwin"): what happens to windows, rkeys and
 * peers, for perf trace, trace-cmd or tracefs. Defined in stats.c.
 * Documentation/troubleshooting.rst shows them in use.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM mwin

#if !defined(_MWIN_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _MWIN_TRACE_H

#include <linux/tracepoint.h>

#include "mwin.h"

/* enum mwin_wire_reason, and 0: the rkey died with its connection */
#define show_revoke_reason(r)						\
	__print_symbolic(r, { 0, "gone" },				\
			 { MWIN_REVOKE_INVALIDATE, "invalidate" },	\
			 { MWIN_REVOKE_REBIND, "rebind" },		\
			 { MWIN_REVOKE_DESTROY, "destroy" },		\
			 { MWIN_REVOKE_REMOTE, "remote" },		\
			 { MWIN_REVOKE_ERROR, "error" },		\
			 { MWIN_REVOKE_HANDED_BACK, "handed-back" },	\
			 { MWIN_REVOKE_EXPIRED, "expired" })

#define show_qp_event(e)						\
	__print_symbolic(e, { IB_EVENT_QP_FATAL, "qp-fatal" },		\
			 { IB_EVENT_QP_REQ_ERR, "qp-request-error" },	\
			 { IB_EVENT_QP_ACCESS_ERR, "qp-access-error" },	\
			 { IB_EVENT_COMM_EST, "comm-established" },	\
			 { IB_EVENT_SQ_DRAINED, "sq-drained" },		\
			 { IB_EVENT_PATH_MIG, "path-migrated" },	\
			 { IB_EVENT_PATH_MIG_ERR, "path-migration-error" }, \
			 { IB_EVENT_QP_LAST_WQE_REACHED, "last-wqe-reached" })

#define show_down_reason(r)						\
	__print_symbolic(r, { MWIN_DOWN_DISCONNECT, "disconnect" },	\
			 { MWIN_DOWN_QP_ERROR, "qp-error" },		\
			 { MWIN_DOWN_KEEPALIVE, "keepalive" },		\
			 { MWIN_DOWN_CUT_OFF, "cut-off" },		\
			 { MWIN_DOWN_OPERATOR, "operator" },		\
			 { MWIN_DOWN_DEVICE, "device-removed" },		\
			 { MWIN_DOWN_HOSTILE, "hostile" },		\
			 { MWIN_DOWN_NO_MESSAGES, "no-messages" },	\
			 { MWIN_DOWN_BAD_PROOF, "bad-proof" },		\
			 { MWIN_DOWN_NO_PROOF, "no-proof" },		\
			 { MWIN_DOWN_TENANT, "tenant-destroyed" },		\
			 { MWIN_DOWN_UNLOAD, "unload" },		\
			 { MWIN_DOWN_QP_EVENT, "qp-event" },		\
			 { MWIN_DOWN_REG_QP, "reg-qp" },		\
			 { MWIN_DOWN_HANDSHAKE, "handshake" })

TRACE_EVENT(mwin_peer_up,
	    TP_PROTO(const struct mwin_peer *p),
	    TP_ARGS(p),
	    TP_STRUCT__entry(__field(u32, peer)
			     __field(u32, tenant)
			     __field(u32, qpn)
			     __field(u32, vector)),
	    TP_fast_assign(__entry->peer = p->obj.id;
			   __entry->tenant = p->tenant ? p->tenant->obj.id : 0;
			   __entry->qpn = p->qpn;
			   __entry->vector = p->comp_vector;),
	    TP_printk("peer=%u tenant=%u qpn=%u vector=%u",
		      __entry->peer,
		      __entry->tenant,
		      __entry->qpn,
		      __entry->vector)
);

TRACE_EVENT(mwin_peer_down,
	    TP_PROTO(const struct mwin_peer *p),
	    TP_ARGS(p),
	    TP_STRUCT__entry(__field(u32, peer)
			     __field(u32, reason)),
	    TP_fast_assign(__entry->peer = p->obj.id;
			   __entry->reason = p->down_reason;),
	    TP_printk("peer=%u reason=%s",
		      __entry->peer,
		      show_down_reason(__entry->reason))
);

TRACE_EVENT(mwin_window_bind,
	    TP_PROTO(const struct mwin_window *w, u32 old_rkey),
	    TP_ARGS(w, old_rkey),
	    TP_STRUCT__entry(__field(u32, window)
			     __field(u32, peer)
			     __field(u32, tenant)
			     __field(u32, rkey)
			     __field(u32, old_rkey)
			     __field(u32, access)
			     __field(u64, offset)
			     __field(u64, length)),
	    TP_fast_assign(__entry->window = w->obj.id;
			   __entry->peer = w->peer->obj.id;
			   __entry->tenant = w->tenant ? w->tenant->obj.id : 0;
			   __entry->rkey = w->rkey;
			   __entry->old_rkey = old_rkey;
			   __entry->access = w->access;
			   __entry->offset = window_offset(w);
			   __entry->length = window_length(w);),
	    TP_printk("window=%u peer=%u tenant=%u rkey=0x%x old_rkey=0x%x access=0x%x offset=%llu length=%llu",
		      __entry->window,
		      __entry->peer,
		      __entry->tenant,
		      __entry->rkey,
		      __entry->old_rkey,
		      __entry->access,
		      __entry->offset,
		      __entry->length)
);

TRACE_EVENT(mwin_window_revoke,
	    TP_PROTO(const struct mwin_window *w, u32 rkey, u32 reason, u64 ns),
	    TP_ARGS(w, rkey, reason, ns),
	    TP_STRUCT__entry(__field(u32, window)
			     __field(u32, peer)
			     __field(u32, rkey)
			     __field(u32, reason)
			     __field(u64, ns)),
	    TP_fast_assign(__entry->window = w->obj.id;
			   __entry->peer = w->peer ? w->peer->obj.id : 0;
			   __entry->rkey = rkey;
			   __entry->reason = reason;
			   __entry->ns = ns;),
	    TP_printk("window=%u peer=%u rkey=0x%x reason=%s ns=%llu",
		      __entry->window,
		      __entry->peer,
		      __entry->rkey,
		      show_revoke_reason(__entry->reason),
		      __entry->ns)
);

DECLARE_EVENT_CLASS(mwin_msg_class,
		    TP_PROTO(u32 window, u32 peer, u32 rkey, u32 reason, u32 seq),
		    TP_ARGS(window, peer, rkey, reason, seq),
		    TP_STRUCT__entry(__field(u32, window)
				     __field(u32, peer)
				     __field(u32, rkey)
				     __field(u32, reason)
				     __field(u32, seq)),
		    TP_fast_assign(__entry->window = window;
				   __entry->peer = peer;
				   __entry->rkey = rkey;
				   __entry->reason = reason;
				   __entry->seq = seq;),
		    TP_printk("window=%u peer=%u rkey=0x%x reason=%s seq=%u",
			      __entry->window,
			      __entry->peer,
			      __entry->rkey,
			      show_revoke_reason(__entry->reason),
			      __entry->seq)
);

/* a grant has no reason */
DEFINE_EVENT_PRINT(mwin_msg_class, mwin_msg_grant,
		   TP_PROTO(u32 window, u32 peer, u32 rkey, u32 reason, u32 seq),
		   TP_ARGS(window, peer, rkey, reason, seq),
		   TP_printk("window=%u peer=%u rkey=0x%x seq=%u",
			     __entry->window, __entry->peer, __entry->rkey,
			     __entry->seq));

DEFINE_EVENT(mwin_msg_class, mwin_msg_revoke,
	     TP_PROTO(u32 window, u32 peer, u32 rkey, u32 reason, u32 seq),
	     TP_ARGS(window, peer, rkey, reason, seq));

TRACE_EVENT(mwin_remote_invalidate,
	    TP_PROTO(u32 window, const struct mwin_peer *p, u32 rkey, bool own),
	    TP_ARGS(window, p, rkey, own),
	    TP_STRUCT__entry(__field(u32, window)
			     __field(u32, peer)
			     __field(u32, rkey)
			     __field(bool, own)),
	    TP_fast_assign(__entry->window = window;
			   __entry->peer = p->obj.id;
			   __entry->rkey = rkey;
			   __entry->own = own;),
	    TP_printk("window=%u peer=%u rkey=0x%x own=%u",
		      __entry->window,
		      __entry->peer,
		      __entry->rkey,
		      __entry->own)
);

TRACE_EVENT(mwin_lease_expire,
	    TP_PROTO(const struct mwin_window *w, s64 late_ns),
	    TP_ARGS(w, late_ns),
	    TP_STRUCT__entry(__field(u32, window)
			     __field(u32, peer)
			     __field(u32, rkey)
			     __field(s64, late_ns)),
	    TP_fast_assign(__entry->window = w->obj.id;
			   __entry->peer = w->peer ? w->peer->obj.id : 0;
			   __entry->rkey = w->rkey;
			   __entry->late_ns = late_ns;),
	    TP_printk("window=%u peer=%u rkey=0x%x late_ns=%lld",
		      __entry->window,
		      __entry->peer,
		      __entry->rkey,
		      __entry->late_ns)
);

TRACE_EVENT(mwin_op_timeout,
	    TP_PROTO(const struct mwin_window *w, bool revoke),
	    TP_ARGS(w, revoke),
	    TP_STRUCT__entry(__field(u32, window)
			     __field(u32, peer)
			     __field(bool, revoke)),
	    TP_fast_assign(__entry->window = w->obj.id;
			   __entry->peer = w->peer->obj.id;
			   __entry->revoke = revoke;),
	    TP_printk("window=%u peer=%u revoke=%u",
		      __entry->window,
		      __entry->peer,
		      __entry->revoke)
);

TRACE_EVENT(mwin_cut_off,
	    TP_PROTO(const struct mwin_peer *p),
	    TP_ARGS(p),
	    TP_STRUCT__entry(__field(u32, peer)),
	    TP_fast_assign(__entry->peer = p->obj.id;),
	    TP_printk("peer=%u",
		      __entry->peer)
);

TRACE_EVENT(mwin_qp_event,
	    TP_PROTO(const struct mwin_peer *p, enum ib_event_type event),
	    TP_ARGS(p, event),
	    TP_STRUCT__entry(__field(u32, peer)
			     __field(u32, event)),
	    TP_fast_assign(__entry->peer = p->obj.id;
			   __entry->event = event;),
	    TP_printk("peer=%u event=%s",
		      __entry->peer,
		      show_qp_event(__entry->event))
);

#endif /* _MWIN_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
