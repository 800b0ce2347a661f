/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the TCP BaLDE congestion control (system "balde"):
 *
 *   balde:balde_loss    one per decision: loss (3rd DUPACK), RTO,
 *                       TLP-repaired loss, local congestion or ECE, with
 *                       the LDEA classification, eBw (bytes/s), ocwnd, the
 *                       Vegas V (1/1000 segment), rtt and rtt_min (us)
 *   balde:balde_sample  one per SARBE sample: Bw, its interval, the filter
 *                       gain a (Q16) and the new eBw
 *
 * una_tx is the local time (CLOCK_MONOTONIC us) of the last transmission of
 * the segment at snd_una, now the time of the decision (same clock).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM balde

#if !defined(_TRACE_BALDE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_BALDE_H

#include <linux/tracepoint.h>
#include "compat.h"
#include "trace_cc.h"
#include "balde_core.h"

CC_TRACE_DEFINE_EVENTS;
TRACE_DEFINE_ENUM(BALDE_CAUSE_WIRELESS);
TRACE_DEFINE_ENUM(BALDE_CAUSE_CONGESTION);
TRACE_DEFINE_ENUM(BALDE_CAUSE_ECN);

#define show_balde_cause(c)						\
	__print_symbolic(c,						\
		{ BALDE_CAUSE_WIRELESS,		"wireless" },		\
		{ BALDE_CAUSE_CONGESTION,	"congestion" },		\
		{ BALDE_CAUSE_ECN,		"ecn" })

TRACE_EVENT(balde_loss,

	TP_PROTO(const struct sock *sk, u8 ev, const struct balde_decision *d,
		 u32 cwnd_before, u64 ebw, u32 ocwnd,
		 const struct nrlp_pred *p),

	TP_ARGS(sk, ev, d, cwnd_before, ebw, ocwnd, p),

	TP_STRUCT__entry(
		CC_TP_LOSS_ENTRY
		__field(__u64, ebw)
		__field(__u32, ocwnd)
		CC_TP_PRED_ENTRY
	),

	TP_fast_assign(
		CC_TP_LOSS_ASSIGN(sk, ev, d->cause, cwnd_before,
				  d->cwnd, d->ssthresh);
		__entry->ebw = ebw;
		__entry->ocwnd = ocwnd;
		CC_TP_PRED_ASSIGN(p);
	),

	TP_printk(CC_TP_LOSS_FMT("cause") " ebw=%llu ocwnd=%u" CC_TP_PRED_FMT,
		  CC_TP_LOSS_ARGS(show_balde_cause),
		  __entry->ebw, __entry->ocwnd, CC_TP_PRED_ARGS)
);

TRACE_EVENT(balde_sample,

	TP_PROTO(const struct sock *sk, const struct balde_sample *s, u64 ebw),

	TP_ARGS(sk, s, ebw),

	TP_STRUCT__entry(
		CC_TP_SOCK_ENTRY
		__field(__u64, bw)
		__field(__u32, span)
		__field(__u32, gain)
		__field(__u64, ebw)
		__field(__u8, ts)
	),

	TP_fast_assign(
		CC_TP_SOCK_ASSIGN(sk);
		__entry->bw = s->bw;
		__entry->span = s->span_us;
		__entry->gain = s->gain;
		__entry->ebw = ebw;
		__entry->ts = s->ts;
	),

	TP_printk(CC_TP_SOCK_FMT " est=%s bw=%llu span=%u gain=%u ebw=%llu",
		  CC_TP_SOCK_ARGS,
		  __entry->ts ? "ts" : "ack", __entry->bw, __entry->span,
		  __entry->gain, __entry->ebw)
);

#endif /* _TRACE_BALDE_H */

/* out-of-tree: this header lives next to tcp_balde.c, found via -I$(src) */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace_balde
#include <trace/define_trace.h>
