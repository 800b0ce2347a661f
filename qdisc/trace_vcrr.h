/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the vcrr qdisc (system "vcrr"):
 *
 *   vcrr:vcrr_enqueue   one per arriving packet: the marking probability in
 *                       force (1.0 = 2^32), the number of control intervals
 *                       completed so far (arrivals with the same count
 *                       belong to one interval), the queue it found, its
 *                       ECN codepoint and what was done with it
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM vcrr

#if !defined(_TRACE_VCRR_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_VCRR_H

#include <linux/netdevice.h>
#include <linux/tracepoint.h>
#include <net/sch_generic.h>
#include "jq_skb.h"

TRACE_DEFINE_ENUM(JQ_ENQUEUED);
TRACE_DEFINE_ENUM(JQ_MARKED);
TRACE_DEFINE_ENUM(JQ_TAIL_DROP);
TRACE_DEFINE_ENUM(JQ_NONECT_DROP);

TRACE_EVENT(vcrr_enqueue,

	TP_PROTO(const struct Qdisc *sch, u32 qlen, u64 prob, u64 updates,
		 u64 rate, u8 ecn, u8 action, u32 len),

	TP_ARGS(sch, qlen, prob, updates, rate, ecn, action, len),

	TP_STRUCT__entry(
		JQ_TP_QDISC_ENTRY
		__field(u64, prob)
		__field(u64, updates)
		__field(u64, rate)
		JQ_TP_PACKET_ENTRY
	),

	TP_fast_assign(
		JQ_TP_ASSIGN(sch, qlen, len, ecn, action);
		__entry->prob = prob;
		__entry->updates = updates;
		__entry->rate = rate;
	),

	TP_printk(JQ_TP_QDISC_FMT " prob=%llu updates=%llu rate=%llu "
		  JQ_TP_PACKET_FMT,
		  JQ_TP_QDISC_ARGS, __entry->prob, __entry->updates,
		  __entry->rate, JQ_TP_PACKET_ARGS)
);

#endif /* _TRACE_VCRR_H */

/* out-of-tree: this header lives next to sch_vcrr.c, found via -I$(src) */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace_vcrr
#include <trace/define_trace.h>
