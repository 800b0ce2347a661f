/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the tracepoint headers of our congestion controls (trace_<cc>.h)
 * share: the connection's addresses and ports at the start of every event,
 * and the names of the events of cc_core.h ("kind=").  Each trace header
 * includes this one inside its TRACE_HEADER_MULTI_READ section and writes
 *
 *	CC_TRACE_DEFINE_EVENTS;
 *	...
 *	TP_STRUCT__entry(CC_TP_SOCK_ENTRY ... )
 *	TP_fast_assign(CC_TP_SOCK_ASSIGN(sk); ... )
 *	TP_printk(CC_TP_SOCK_FMT " ...", CC_TP_SOCK_ARGS, ...)
 */
#ifndef _JERSEY_TRACE_CC_H
#define _JERSEY_TRACE_CC_H

#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <net/ipv6.h>
#include <net/tcp.h>
#include <trace/events/net_probe_common.h>

#include "cc_core.h"
#include "compat.h"
#include "lossclass_core.h"

/* sockaddr_in6 is always bigger than sockaddr_in */
#define CC_TP_SOCK_ENTRY						\
	__array(__u8, saddr, sizeof(struct sockaddr_in6))		\
	__array(__u8, daddr, sizeof(struct sockaddr_in6))		\
	__field(__u16, sport)						\
	__field(__u16, dport)

#define CC_TP_SOCK_ASSIGN(sk)						\
	do {								\
		const struct inet_sock *inet = inet_sk(sk);		\
									\
		memset(__entry->saddr, 0, sizeof(struct sockaddr_in6));	\
		memset(__entry->daddr, 0, sizeof(struct sockaddr_in6));	\
		TP_STORE_ADDR_PORTS(__entry, inet, sk);			\
		__entry->sport = ntohs(inet->inet_sport);		\
		__entry->dport = ntohs(inet->inet_dport);		\
	} while (0)

#define CC_TP_SOCK_FMT	"src=%pISpc dest=%pISpc"
#define CC_TP_SOCK_ARGS	__entry->saddr, __entry->daddr

/*
 * What every module's loss event records after the socket: snd_una, the
 * CLOCK_MONOTONIC time (us) snd_una was last sent and the socket's clock
 * (for matching against a capture), the event, its cause (printed as
 * @label, by @show), cwnd before and after, ssthresh.
 */
#define CC_TP_LOSS_ENTRY						\
	CC_TP_SOCK_ENTRY						\
	__field(__u32, snd_una)						\
	__field(__u64, una_tx)						\
	__field(__u64, now)						\
	__field(__u8, kind)						\
	__field(__u8, cause)						\
	__field(__u32, cwnd_before)					\
	__field(__u32, cwnd_after)					\
	__field(__u32, ssthresh)

#define CC_TP_LOSS_ASSIGN(sk, ev, why, before, after, thresh)		\
	do {								\
		CC_TP_SOCK_ASSIGN(sk);					\
		__entry->snd_una = tcp_sk(sk)->snd_una;			\
		__entry->una_tx = compat_una_tx_us(sk);			\
		__entry->now = tcp_sk(sk)->tcp_mstamp;			\
		__entry->kind = (ev);					\
		__entry->cause = (why);					\
		__entry->cwnd_before = (before);			\
		__entry->cwnd_after = (after);				\
		__entry->ssthresh = (thresh);				\
	} while (0)

#define CC_TP_LOSS_FMT(label)						\
	CC_TP_SOCK_FMT " snd_una=%u una_tx=%llu now=%llu kind=%s "	\
	label "=%s cwnd=%u->%u ssthresh=%u"

#define CC_TP_LOSS_ARGS(show)						\
	CC_TP_SOCK_ARGS, __entry->snd_una, __entry->una_tx,		\
	__entry->now, show_cc_event(__entry->kind),			\
	show(__entry->cause), __entry->cwnd_before,			\
	__entry->cwnd_after, __entry->ssthresh

/*
 * The Vegas predictor's state (newrenolp_core.h, used by newrenolp and
 * balde) at the end of an event: V in thousandths of a segment, the RTT it
 * used and the minimum RTT (us).
 */
#define CC_TP_PRED_ENTRY						\
	__field(__u32, v_milli)						\
	__field(__u32, rtt)						\
	__field(__u32, rtt_min)

#define CC_TP_PRED_ASSIGN(p)						\
	do {								\
		__entry->v_milli = (p)->v_milli;			\
		__entry->rtt = (p)->rtt;				\
		__entry->rtt_min = (p)->rtt_min;			\
	} while (0)

#define CC_TP_PRED_FMT	" v_milli=%u rtt=%u rtt_min=%u"
#define CC_TP_PRED_ARGS	__entry->v_milli, __entry->rtt, __entry->rtt_min

/*
 * What the loss classifier saw of the path (struct lc_path) when it
 * decided: this round's minimum RTT so far (us, 0 = no sample yet) and its
 * samples, how many rounds in a row showed a standing queue and one above
 * the overflow threshold of a marking path, what the last round delivered
 * as the classifier takes it (0 = unknown, lc_path_delivered()) and the
 * window a shallow buffer overflowed at (0 = none).
 */
#define CC_TP_PATH_ENTRY						\
	__field(__u32, round_min)					\
	__field(__u8, samples)						\
	__field(__u8, queued)						\
	__field(__u8, overflow)						\
	__field(__u16, delivered)					\
	__field(__u16, full)

#define CC_TP_PATH_ASSIGN(p)						\
	do {								\
		__entry->round_min = (p)->round_min;			\
		__entry->samples = (p)->samples;			\
		__entry->queued = (p)->queued;				\
		__entry->overflow = (p)->overflow;			\
		__entry->delivered = lc_path_delivered(p);		\
		__entry->full = (p)->full;				\
	} while (0)

#define CC_TP_PATH_FMT	" round_min=%u samples=%u queued=%u overflow=%u delivered=%u full=%u"
#define CC_TP_PATH_ARGS							\
	__entry->round_min, __entry->samples, __entry->queued,		\
	__entry->overflow, __entry->delivered, __entry->full

#define show_cc_event(e)	__print_symbolic(e, CC_EVENT_NAMES)

/* why the loss classifier (lossclass_core.h) called a loss congestion */
#define show_lc_why(w)							\
	__print_symbolic(w,						\
		{ LC_WHY_NONE,		"none" },			\
		{ LC_WHY_ECE,		"ece" },			\
		{ LC_WHY_EXCESS,	"excess" },			\
		{ LC_WHY_QUEUE,		"queue" },			\
		{ LC_WHY_FULL,		"full" })

/* in each trace header: the event names for its trace system */
#define CC_TRACE_DEFINE_EVENTS				\
	TRACE_DEFINE_ENUM(CC_EV_DUPACK);		\
	TRACE_DEFINE_ENUM(CC_EV_RTO);			\
	TRACE_DEFINE_ENUM(CC_EV_ECE);			\
	TRACE_DEFINE_ENUM(CC_EV_TLP);			\
	TRACE_DEFINE_ENUM(CC_EV_LOCAL);			\
	TRACE_DEFINE_ENUM(LC_WHY_NONE);			\
	TRACE_DEFINE_ENUM(LC_WHY_ECE);			\
	TRACE_DEFINE_ENUM(LC_WHY_EXCESS);		\
	TRACE_DEFINE_ENUM(LC_WHY_QUEUE);		\
	TRACE_DEFINE_ENUM(LC_WHY_FULL)

#endif /* _JERSEY_TRACE_CC_H */
