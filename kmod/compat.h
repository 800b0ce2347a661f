/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Differences between the kernels the congestion-control modules in kmod/
 * are built for (Debian 6.1 and 6.12).  The only place that may test
 * LINUX_VERSION_CODE; modules include it after <net/tcp.h> and use the
 * compat_* names below.
 *
 * Identical in 6.1 and 6.12 (nothing needed): tcp_snd_cwnd()/
 * tcp_snd_cwnd_set(), tcp_reno_cong_avoid()/tcp_reno_undo_cwnd(),
 * .ssthresh/.cong_avoid/.set_state/.cwnd_event/.in_ack_event/.pkts_acked/
 * .undo_cwnd/.get_info signatures, struct ack_sample, struct rate_sample,
 * CA_ACK_ECE, TCP_CONG_NEEDS_ECN, ICSK_CA_PRIV_SIZE (104 bytes),
 * tp->delivered, tp->rx_opt.rcv_tsval, TP_STORE_ADDR_PORTS().
 */
#ifndef _JERSEY_KMOD_COMPAT_H
#define _JERSEY_KMOD_COMPAT_H

#include <linux/version.h>
#include <net/tcp.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0)
#error "jersey modules need Linux >= 6.1"
#endif

/*
 * .cong_control gained the ACK's sequence number and FLAG_* bits in 6.10:
 *   6.1:   void (*cong_control)(struct sock *sk, const struct rate_sample *rs)
 *   6.10+: void (*cong_control)(struct sock *sk, u32 ack, int flag,
 *                               const struct rate_sample *rs)
 * Write the handler with the full argument list,
 *   static void foo_main(struct sock *sk, u32 ack, int flag,
 *                        const struct rate_sample *rs)
 * and define the callback with COMPAT_CONG_CONTROL(foo_cong_control,
 * foo_main); older kernels pass ack = tp->snd_una (already advanced) and
 * flag = 0, so handlers must not depend on flag there.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define COMPAT_CONG_CONTROL(name, fn)					\
static void name(struct sock *sk, u32 ack, int flag,			\
		 const struct rate_sample *rs)				\
{									\
	fn(sk, ack, flag, rs);						\
}
#else
#define COMPAT_CONG_CONTROL(name, fn)					\
static void name(struct sock *sk, const struct rate_sample *rs)	\
{									\
	fn(sk, tcp_sk(sk)->snd_una, 0, rs);				\
}
#endif

/* TSvals in microseconds (tcp_usec_ts route feature) exist since 6.7 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
static inline bool compat_tcp_usec_ts(const struct tcp_sock *tp)
{
	return tp->tcp_usec_ts;
}
#else
static inline bool compat_tcp_usec_ts(const struct tcp_sock *tp)
{
	return false;
}
#endif

/*
 * The connection negotiated ECN (RFC 3168).  Same test in 6.1 and 6.12;
 * kept here because AccECN (after 6.12) turns ecn_flags into a mode field.
 */
static inline bool compat_tcp_ecn_ok(const struct tcp_sock *tp)
{
	return tp->ecn_flags & TCP_ECN_OK;
}

/*
 * Shared by the loss tracepoints (not a version difference): the local
 * time (tcp_clock, CLOCK_MONOTONIC us) of the last transmission of the
 * segment at snd_una, 0 if nothing is outstanding.  testbed/groundtruth.py
 * uses it to find that transmission in its packet captures.
 */
static inline u64 compat_una_tx_us(const struct sock *sk)
{
	const struct sk_buff *skb = tcp_rtx_queue_head(sk);

	return skb ? tcp_skb_timestamp_us(skb) : 0;
}

#endif /* _JERSEY_KMOD_COMPAT_H */
