/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the TCP NewReno-LP congestion control (system
 * "newrenolp"):
 *
 *   newrenolp:newrenolp_loss  one per decision: loss (3rd DUPACK), RTO,
 *                             TLP-repaired loss, local congestion or ECE,
 *                             with the Vegas predictor's classification and
 *                             inputs (V in 1/1000 segment, rtt and rtt_min
 *                             in us)
 *
 * una_tx is the local time (CLOCK_MONOTONIC us) of the last transmission of
 * the segment at snd_una, now the time of the decision (same clock).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM newrenolp

#if !defined(_TRACE_NEWRENOLP_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_NEWRENOLP_H

#include <linux/tracepoint.h>
#include "compat.h"
#include "trace_cc.h"
#include "newrenolp_core.h"

CC_TRACE_DEFINE_EVENTS;
TRACE_DEFINE_ENUM(NRLP_CAUSE_WIRELESS);
TRACE_DEFINE_ENUM(NRLP_CAUSE_CONGESTION);
TRACE_DEFINE_ENUM(NRLP_CAUSE_ECN);

#define show_nrlp_cause(c)						\
	__print_symbolic(c,						\
		{ NRLP_CAUSE_WIRELESS,		"wireless" },		\
		{ NRLP_CAUSE_CONGESTION,	"congestion" },		\
		{ NRLP_CAUSE_ECN,		"ecn" })

TRACE_EVENT(newrenolp_loss,

	TP_PROTO(const struct sock *sk, u8 ev, const struct nrlp_decision *d,
		 u32 cwnd_before, u32 flight, const struct nrlp_pred *p),

	TP_ARGS(sk, ev, d, cwnd_before, flight, p),

	TP_STRUCT__entry(
		CC_TP_LOSS_ENTRY
		__field(__u32, flight)
		CC_TP_PRED_ENTRY
	),

	TP_fast_assign(
		CC_TP_LOSS_ASSIGN(sk, ev, d->cause, cwnd_before,
				  d->cwnd, d->ssthresh);
		__entry->flight = flight;
		CC_TP_PRED_ASSIGN(p);
	),

	TP_printk(CC_TP_LOSS_FMT("cause") " flight=%u" CC_TP_PRED_FMT,
		  CC_TP_LOSS_ARGS(show_nrlp_cause),
		  __entry->flight, CC_TP_PRED_ARGS)
);

#endif /* _TRACE_NEWRENOLP_H */

/* out-of-tree: this header lives next to tcp_newrenolp.c, found via -I$(src) */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace_newrenolp
#include <trace/define_trace.h>
