/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the Diff-C-TCP congestion control (system "diffc"):
 *
 *   diffc:diffc_loss   one per decision: ECE halving, loss (3rd DUPACK),
 *                      RTO, TLP-repaired loss or local congestion, held or
 *                      halved/reset/drained (and why: none, ece, excess,
 *                      queue; lossclass_core.h), with the per-socket
 *                      running totals; ece=1 when a mark was the signal
 *                      (why=ece: an ECE echoing a mark already answered
 *                      is none)
 *
 * una_tx is the local time (CLOCK_MONOTONIC us) of the last transmission of
 * the segment at snd_una, now the time of the decision (same clock).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM diffc

#if !defined(_TRACE_DIFFC_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_DIFFC_H

#include <linux/tracepoint.h>
#include "compat.h"
#include "trace_cc.h"
#include "diffc_core.h"

CC_TRACE_DEFINE_EVENTS;
TRACE_DEFINE_ENUM(DIFFC_HOLD);
TRACE_DEFINE_ENUM(DIFFC_HALVE);
TRACE_DEFINE_ENUM(DIFFC_RESET);
TRACE_DEFINE_ENUM(DIFFC_DRAIN);

#define show_diffc_action(a)						\
	__print_symbolic(a,						\
		{ DIFFC_HOLD,		"hold" },			\
		{ DIFFC_HALVE,		"halve" },			\
		{ DIFFC_RESET,		"reset" },			\
		{ DIFFC_DRAIN,		"drain" })

TRACE_EVENT(diffc_loss,

	TP_PROTO(const struct sock *sk, u8 ev, const struct diffc_decision *d,
		 u32 cwnd_before, bool congested, const struct diffc_counts *n,
		 const struct lc_path *p),

	TP_ARGS(sk, ev, d, cwnd_before, congested, n, p),

	TP_STRUCT__entry(
		CC_TP_LOSS_ENTRY
		__field(__u8, ece)
		__field(__u8, why)
		__field(__u8, ecn_ok)
		__field(__u32, n_held)
		__field(__u32, n_halved)
		__field(__u32, n_rto)
		CC_TP_PATH_ENTRY
	),

	TP_fast_assign(
		CC_TP_LOSS_ASSIGN(sk, ev, d->action, cwnd_before,
				  d->cwnd, d->ssthresh);
		__entry->ece = congested;
		__entry->why = d->why;
		__entry->ecn_ok = compat_tcp_ecn_ok(tcp_sk(sk));
		__entry->n_held = n->held;
		__entry->n_halved = n->halved;
		__entry->n_rto = n->rto;
		CC_TP_PATH_ASSIGN(p);
	),

	TP_printk(CC_TP_LOSS_FMT("action") " ece=%u why=%s ecn=%u held=%u halved=%u rto=%u"
		  CC_TP_PATH_FMT,
		  CC_TP_LOSS_ARGS(show_diffc_action),
		  __entry->ece, show_lc_why(__entry->why), __entry->ecn_ok, __entry->n_held,
		  __entry->n_halved, __entry->n_rto, CC_TP_PATH_ARGS)
);

#endif /* _TRACE_DIFFC_H */

/* out-of-tree: this header lives next to tcp_diffc.c, found via -I$(src) */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace_diffc
#include <trace/define_trace.h>
