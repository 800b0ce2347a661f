/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the TCP-Jersey congestion control (system "jersey"):
 *
 *   jersey:jersey_loss    one per decision: what happened (kind: dupack,
 *                         rto, ece, tlp, local), how it was classified
 *                         (cause: wireless, congestion, rto_wireless,
 *                         rto_congestion, ecn) and why (why: none, ece,
 *                         excess, queue: lossclass_core.h), cwnd and
 *                         ssthresh after it
 *   jersey:jersey_sample  one per rate-estimator sample
 *
 * e.g.  echo 1 > /sys/kernel/tracing/events/jersey/enable
 *       cat /sys/kernel/tracing/trace_pipe
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM jersey

#if !defined(_TRACE_JERSEY_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_JERSEY_H

#include <linux/tracepoint.h>
#include "trace_cc.h"
#include "jersey_core.h"

CC_TRACE_DEFINE_EVENTS;

TRACE_DEFINE_ENUM(JERSEY_CAUSE_WIRELESS);
TRACE_DEFINE_ENUM(JERSEY_CAUSE_CONGESTION);
TRACE_DEFINE_ENUM(JERSEY_CAUSE_RTO_WIRELESS);
TRACE_DEFINE_ENUM(JERSEY_CAUSE_RTO_CONGESTION);
TRACE_DEFINE_ENUM(JERSEY_CAUSE_ECN);

#define show_jersey_cause(c)						\
	__print_symbolic(c,						\
		{ JERSEY_CAUSE_WIRELESS,	"wireless" },		\
		{ JERSEY_CAUSE_CONGESTION,	"congestion" },		\
		{ JERSEY_CAUSE_RTO_WIRELESS,	"rto_wireless" },	\
		{ JERSEY_CAUSE_RTO_CONGESTION,	"rto_congestion" },	\
		{ JERSEY_CAUSE_ECN,		"ecn" })

TRACE_EVENT(jersey_loss,

	TP_PROTO(const struct sock *sk, u8 ev, const struct jersey_decision *d,
		 u32 cwnd_before, u64 are, u32 rtt_min, const struct lc_path *p),

	TP_ARGS(sk, ev, d, cwnd_before, are, rtt_min, p),

	TP_STRUCT__entry(
		CC_TP_LOSS_ENTRY
		__field(__u8, why)
		__field(__u64, are)
		__field(__u32, rtt_min)
		__field(__u32, srtt)
		CC_TP_PATH_ENTRY
	),

	TP_fast_assign(
		CC_TP_LOSS_ASSIGN(sk, ev, d->cause, cwnd_before,
				  d->cwnd, d->ssthresh);
		__entry->why = d->why;
		__entry->are = are;
		__entry->rtt_min = rtt_min;
		__entry->srtt = tcp_sk(sk)->srtt_us >> 3;
		CC_TP_PATH_ASSIGN(p);
	),

	TP_printk(CC_TP_LOSS_FMT("cause") " why=%s are=%llu rtt_min=%u srtt=%u"
		  CC_TP_PATH_FMT,
		  CC_TP_LOSS_ARGS(show_jersey_cause), show_lc_why(__entry->why),
		  __entry->are, __entry->rtt_min, __entry->srtt,
		  CC_TP_PATH_ARGS)
);

/*
 * A round trip of the loss classifier ended (lc_path_rtt()): its minimum
 * RTT sample (us), the window, ssthresh (a recovery's target), the
 * congestion state, the flight and what the kernel counts of it as lost,
 * SACKed and retransmitted, the send buffer (sk_sndbuf, sk_wmem_queued,
 * and whether data waits unsent), the receiver's window and the room it
 * leaves past snd_nxt (segments), and the path as the round left it (rounds in a
 * row with a standing queue, what it delivered, the remembered full window;
 * round_min and samples are the next round's, which has none yet).  One
 * event a round trip.
 */
TRACE_EVENT(jersey_round,

	TP_PROTO(const struct sock *sk, u32 round_min, u32 rtt_min,
		 const struct lc_path *p),

	TP_ARGS(sk, round_min, rtt_min, p),

	TP_STRUCT__entry(
		CC_TP_SOCK_ENTRY
		__field(__u32, min)
		__field(__u32, rtt_min)
		__field(__u32, cwnd)
		__field(__u32, ssthresh)
		__field(__u8, state)
		__field(__u32, flight)
		__field(__u32, lost)
		__field(__u32, sacked)
		__field(__u32, retrans)
		__field(__u32, sndbuf)
		__field(__u32, wmem)
		__field(__u8, unsent)
		__field(__u32, rwnd)
		__field(__s32, room)
		CC_TP_PATH_ENTRY
	),

	TP_fast_assign(
		const struct tcp_sock *tp = tcp_sk(sk);

		CC_TP_SOCK_ASSIGN(sk);
		__entry->min = round_min;
		__entry->rtt_min = rtt_min;
		__entry->cwnd = tcp_snd_cwnd(tp);
		__entry->ssthresh = tp->snd_ssthresh;
		__entry->state = inet_csk(sk)->icsk_ca_state;
		__entry->flight = tcp_packets_in_flight(tp);
		__entry->lost = tp->lost_out;
		__entry->sacked = tp->sacked_out;
		__entry->retrans = tp->retrans_out;
		__entry->sndbuf = READ_ONCE(sk->sk_sndbuf);
		__entry->wmem = READ_ONCE(sk->sk_wmem_queued);
		__entry->unsent = !!tcp_send_head(sk);
		__entry->rwnd = tp->snd_wnd / max_t(u32, tp->mss_cache, 1);
		__entry->room = (s32)(tcp_wnd_end(tp) - tp->snd_nxt) /
				max_t(s32, tp->mss_cache, 1);
		CC_TP_PATH_ASSIGN(p);
	),

	TP_printk(CC_TP_SOCK_FMT " min=%u rtt_min=%u cwnd=%u ssthresh=%u state=%u flight=%u lost=%u sacked=%u retrans=%u sndbuf=%u wmem=%u unsent=%u rwnd=%u room=%d"
		  CC_TP_PATH_FMT,
		  CC_TP_SOCK_ARGS, __entry->min, __entry->rtt_min,
		  __entry->cwnd, __entry->ssthresh, __entry->state,
		  __entry->flight, __entry->lost, __entry->sacked,
		  __entry->retrans, __entry->sndbuf, __entry->wmem,
		  __entry->unsent, __entry->rwnd, __entry->room,
		  CC_TP_PATH_ARGS)
);

TRACE_EVENT(jersey_sample,

	TP_PROTO(const struct sock *sk, u64 are, const struct jersey_sample *s,
		 u32 tick),

	TP_ARGS(sk, are, s, tick),

	TP_STRUCT__entry(
		CC_TP_SOCK_ENTRY
		__field(__u64, are)
		__field(__u64, delta)
		__field(__u32, bytes)
		__field(__u32, tick_ns)
		__field(__u8, ts)
	),

	TP_fast_assign(
		CC_TP_SOCK_ASSIGN(sk);
		__entry->are = are;
		__entry->delta = s->delta_us;
		__entry->bytes = s->bytes;
		__entry->tick_ns = (u32)(((u64)tick * 1000) >> JERSEY_TICK_SHIFT);
		__entry->ts = s->ts;
	),

	TP_printk(CC_TP_SOCK_FMT " est=%s are=%llu delta=%llu bytes=%u tick_ns=%u",
		  CC_TP_SOCK_ARGS,
		  __entry->ts ? "ts" : "ack", __entry->are, __entry->delta,
		  __entry->bytes, __entry->tick_ns)
);

#endif /* _TRACE_JERSEY_H */

/* out-of-tree: this header lives next to tcp_jersey.c, found via -I$(src) */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace_jersey
#include <trace/define_trace.h>
