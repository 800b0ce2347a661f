/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoint of the testbed's oracle congestion control (system "oracle"):
 *
 *   oracle:oracle_loss   one per decision: ECE halving, loss (3rd DUPACK,
 *                        TLP repair), RTO or local congestion, held (no
 *                        queue dropped anything outstanding) or halved/reset
 *
 * The same fields as every loss event of kmod/ (trace_cc.h), so that the
 * testbed's accuracy check reads it too: the oracle's is 1 by construction
 * unless its drop table missed a drop.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM oracle

#if !defined(_TRACE_ORACLE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_ORACLE_H

#include <linux/tracepoint.h>
#include "compat.h"
#include "trace_cc.h"
#include "diffc_core.h"

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

#endif /* _TRACE_ORACLE_H */

/* out-of-tree: this header lives next to tcp_oracle.c, found via -I$(src) */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace_oracle
#include <trace/define_trace.h>
