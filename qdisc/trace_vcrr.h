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
		__field(u32, netns)
		__array(char, dev, IFNAMSIZ)
		__field(u32, handle)
		__field(u32, qlen)
		__field(u64, prob)
		__field(u64, updates)
		__field(u64, rate)
		__field(u32, len)
		__field(u8, ecn)
		__field(u8, action)
	),

	TP_fast_assign(
		__entry->netns = jq_netns(sch);
		strscpy(__entry->dev, qdisc_dev(sch)->name, IFNAMSIZ);
		__entry->handle = sch->handle;
		__entry->qlen = qlen;
		__entry->prob = prob;
		__entry->updates = updates;
		__entry->rate = rate;
		__entry->len = len;
		__entry->ecn = ecn;
		__entry->action = action;
	),

	TP_printk("netns=%u dev=%s handle=%x qlen=%u prob=%llu updates=%llu rate=%llu len=%u ecn=%u action=%s",
		  __entry->netns, __entry->dev, __entry->handle >> 16,
		  __entry->qlen, __entry->prob, __entry->updates,
		  __entry->rate, __entry->len, __entry->ecn,
		  jq_show_action(__entry->action))
);

#endif /* _TRACE_VCRR_H */

/* out-of-tree: this header lives next to sch_vcrr.c, found via -I$(src) */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace_vcrr
#include <trace/define_trace.h>
