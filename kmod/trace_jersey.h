/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the TCP-Jersey congestion control (system "jersey"):
 *
 *   jersey:jersey_loss    one per decision: loss classified wireless or
 *                         congestion (3rd DUPACK), RTO, or ECE rate control;
 *                         with the per-socket running totals
 *   jersey:jersey_sample  one per rate-estimator sample
 *
 * e.g.  echo 1 > /sys/kernel/tracing/events/jersey/enable
 *       cat /sys/kernel/tracing/trace_pipe
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM jersey

#if !defined(_TRACE_JERSEY_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_JERSEY_H

#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <linux/tracepoint.h>
#include <net/ipv6.h>
#include <net/tcp.h>
#include <trace/events/net_probe_common.h>
#include "jersey_core.h"

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

	TP_PROTO(const struct sock *sk, const struct jersey_decision *d,
		 u32 cwnd_before, u64 are, u32 rtt_min,
		 const struct jersey_counts *n),

	TP_ARGS(sk, d, cwnd_before, are, rtt_min, n),

	TP_STRUCT__entry(
		/* sockaddr_in6 is always bigger than sockaddr_in */
		__array(__u8, saddr, sizeof(struct sockaddr_in6))
		__array(__u8, daddr, sizeof(struct sockaddr_in6))
		__field(__u16, sport)
		__field(__u16, dport)
		__field(__u32, snd_una)
		__field(__u8, cause)
		__field(__u32, cwnd_before)
		__field(__u32, cwnd_after)
		__field(__u32, ssthresh)
		__field(__u64, are)
		__field(__u32, rtt_min)
		__field(__u32, n_wireless)
		__field(__u32, n_congestion)
		__field(__u32, n_rto)
		__field(__u32, n_ecn)
	),

	TP_fast_assign(
		const struct inet_sock *inet = inet_sk(sk);

		memset(__entry->saddr, 0, sizeof(struct sockaddr_in6));
		memset(__entry->daddr, 0, sizeof(struct sockaddr_in6));
		TP_STORE_ADDR_PORTS(__entry, inet, sk);
		__entry->sport = ntohs(inet->inet_sport);
		__entry->dport = ntohs(inet->inet_dport);
		__entry->snd_una = tcp_sk(sk)->snd_una;
		__entry->cause = d->cause;
		__entry->cwnd_before = cwnd_before;
		__entry->cwnd_after = d->cwnd;
		__entry->ssthresh = d->ssthresh;
		__entry->are = are;
		__entry->rtt_min = rtt_min;
		__entry->n_wireless = n->wireless;
		__entry->n_congestion = n->congestion;
		__entry->n_rto = n->rto;
		__entry->n_ecn = n->ecn;
	),

	TP_printk("src=%pISpc dest=%pISpc snd_una=%u cause=%s cwnd=%u->%u ssthresh=%u are=%llu rtt_min=%u wireless=%u congestion=%u rto=%u ecn=%u",
		  __entry->saddr, __entry->daddr, __entry->snd_una,
		  show_jersey_cause(__entry->cause),
		  __entry->cwnd_before, __entry->cwnd_after,
		  __entry->ssthresh, __entry->are, __entry->rtt_min,
		  __entry->n_wireless, __entry->n_congestion,
		  __entry->n_rto, __entry->n_ecn)
);

TRACE_EVENT(jersey_sample,

	TP_PROTO(const struct sock *sk, u64 are, const struct jersey_sample *s,
		 u32 tick),

	TP_ARGS(sk, are, s, tick),

	TP_STRUCT__entry(
		__array(__u8, saddr, sizeof(struct sockaddr_in6))
		__array(__u8, daddr, sizeof(struct sockaddr_in6))
		__field(__u16, sport)
		__field(__u16, dport)
		__field(__u64, are)
		__field(__u64, delta)
		__field(__u32, bytes)
		__field(__u32, tick_ns)
		__field(__u8, ts)
	),

	TP_fast_assign(
		const struct inet_sock *inet = inet_sk(sk);

		memset(__entry->saddr, 0, sizeof(struct sockaddr_in6));
		memset(__entry->daddr, 0, sizeof(struct sockaddr_in6));
		TP_STORE_ADDR_PORTS(__entry, inet, sk);
		__entry->sport = ntohs(inet->inet_sport);
		__entry->dport = ntohs(inet->inet_dport);
		__entry->are = are;
		__entry->delta = s->delta_us;
		__entry->bytes = s->bytes;
		__entry->tick_ns = (u32)(((u64)tick * 1000) >> JERSEY_TICK_SHIFT);
		__entry->ts = s->ts;
	),

	TP_printk("src=%pISpc dest=%pISpc est=%s are=%llu delta=%llu bytes=%u tick_ns=%u",
		  __entry->saddr, __entry->daddr,
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
