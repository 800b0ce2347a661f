/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the testbed's oracle congestion control (system "oracle"):
 *
 *   oracle:oracle_loss   one per decision: ECE halving, loss (3rd DUPACK,
 *                        TLP repair), RTO or local congestion, held (no
 *                        queue dropped anything outstanding) or halved/reset
 *   oracle:oracle_drop   one per congestion drop recorded in the table
 *
 * oracle_loss has the same fields as every loss event of kmod/
 * (trace_cc.h), so that the testbed's accuracy check reads it too: the
 * oracle's is 1 by construction unless its drop table missed a drop.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM oracle

#if !defined(_TRACE_ORACLE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_ORACLE_H

#include <linux/tracepoint.h>
#include "compat.h"
#include "trace_cc.h"
#include "diffc_core.h"
#include "oracle_table.h"

CC_TRACE_DEFINE_EVENTS;
TRACE_DEFINE_ENUM(DIFFC_HOLD);
TRACE_DEFINE_ENUM(DIFFC_HALVE);
TRACE_DEFINE_ENUM(DIFFC_RESET);

#define show_oracle_action(a)						\
	__print_symbolic(a,						\
		{ DIFFC_HOLD,		"hold" },			\
		{ DIFFC_HALVE,		"halve" },			\
		{ DIFFC_RESET,		"reset" })

TRACE_EVENT(oracle_loss,

	TP_PROTO(const struct sock *sk, u8 ev, const struct diffc_decision *d,
		 u32 cwnd_before),

	TP_ARGS(sk, ev, d, cwnd_before),

	TP_STRUCT__entry(
		CC_TP_LOSS_ENTRY
	),

	TP_fast_assign(
		CC_TP_LOSS_ASSIGN(sk, ev, d->action, cwnd_before,
				  d->cwnd, d->ssthresh);
	),

	TP_printk(CC_TP_LOSS_FMT("action"), CC_TP_LOSS_ARGS(show_oracle_action))
);

/*
 * oracle:oracle_drop   one per drop the table records: a data segment
 *                      dropped anywhere but on the medium (a queue, a
 *                      backlog, the receiving TCP), with the kernel's drop
 *                      reason (enum skb_drop_reason of the running kernel:
 *                      its number, whose meaning differs between kernels)
 *                      and the device's ifindex in its namespace (0: none,
 *                      or a segment the receiving TCP held)
 */
TRACE_EVENT(oracle_drop,

	TP_PROTO(const struct oracle_drop *d, u32 reason, int ifindex),

	TP_ARGS(d, reason, ifindex),

	TP_STRUCT__entry(
		__field(__u32, saddr)
		__field(__u32, daddr)
		__field(__u16, sport)
		__field(__u16, dport)
		__field(__u32, seq)
		__field(__u32, end)
		__field(__u32, reason)
		__field(int, ifindex)
	),

	TP_fast_assign(
		__entry->saddr = d->flow.saddr;
		__entry->daddr = d->flow.daddr;
		__entry->sport = ntohs((__force __be16)d->flow.sport);
		__entry->dport = ntohs((__force __be16)d->flow.dport);
		__entry->seq = d->seq;
		__entry->end = d->end;
		__entry->reason = reason;
		__entry->ifindex = ifindex;
	),

	TP_printk("src=%pI4:%u dest=%pI4:%u seq=%u end=%u reason=%u ifindex=%d",
		  &__entry->saddr, __entry->sport, &__entry->daddr,
		  __entry->dport, __entry->seq, __entry->end, __entry->reason,
		  __entry->ifindex)
);

#endif /* _TRACE_ORACLE_H */

/* out-of-tree: this header lives next to tcp_oracle.c, found via -I$(src) */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace_oracle
#include <trace/define_trace.h>
