/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the cw qdisc (system "cw"):
 *
 *   cw:cw_enqueue   one per arriving packet: the queue it found, the
 *                   congestion measure (aq: EWMA, pq: persistent queue, in
 *                   1/65536 packets or bytes), the threshold, the packet's
 *                   ECN codepoint and what was done with it
 *
 * The queue trace a test or plot needs: echo 1 > .../events/cw/enable
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM cw

#if !defined(_TRACE_CW_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_CW_H

#include <linux/netdevice.h>
#include <linux/tracepoint.h>
#include <net/sch_generic.h>
#include "jq_skb.h"

TRACE_DEFINE_ENUM(JQ_ENQUEUED);
TRACE_DEFINE_ENUM(JQ_MARKED);
TRACE_DEFINE_ENUM(JQ_TAIL_DROP);
TRACE_DEFINE_ENUM(JQ_NONECT_DROP);

TRACE_EVENT(cw_enqueue,

	TP_PROTO(const struct Qdisc *sch, u32 qlen, u64 measure, u32 thresh,
		 u8 ecn, u8 action, u32 len),

	TP_ARGS(sch, qlen, measure, thresh, ecn, action, len),

	TP_STRUCT__entry(
		JQ_TP_QDISC_ENTRY
		__field(u64, measure)
		__field(u32, thresh)
		JQ_TP_PACKET_ENTRY
	),

	TP_fast_assign(
		JQ_TP_ASSIGN(sch, qlen, len, ecn, action);
		__entry->measure = measure;
		__entry->thresh = thresh;
	),

	TP_printk(JQ_TP_QDISC_FMT " measure=%llu thresh=%u " JQ_TP_PACKET_FMT,
		  JQ_TP_QDISC_ARGS, __entry->measure, __entry->thresh,
		  JQ_TP_PACKET_ARGS)
);

#endif /* _TRACE_CW_H */

/* out-of-tree: this header lives next to sch_cw.c, found via -I$(src) */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace_cw
#include <trace/define_trace.h>
