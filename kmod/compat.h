/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Differences between the kernels the congestion-control modules in kmod/
 * are built for (Debian 6.1 and 6.12; Debian 13's 6.12 and 7.3: see the
 * block "Debian 13's kernels" below).  The only place that may test
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
 * ---- Debian 13's kernels: 6.12 (trixie) and 7.3 (trixie-backports) --------
 *
 * Checked against the 7.3.4 headers (include/net/tcp.h, include/linux/tcp.h,
 * include/net/inet_connection_sock.h); Debian 13's 6.12 is the 6.12 above.
 * What changed between 6.12 and 7.3 for a congestion control, and what our
 * modules do about it:
 *
 * - ECN state (Accurate ECN, 6.18): the bit TCP_ECN_OK of tp->ecn_flags is
 *   gone; ecn_flags holds a mode, TCP_ECN_MODE_RFC3168 or TCP_ECN_MODE_ACCECN
 *   (both bits: AccECN negotiation pending), read with tcp_ecn_mode_any(),
 *   tcp_ecn_mode_rfc3168(), tcp_ecn_mode_accecn().  Shim: compat_tcp_ecn_ok()
 *   below, true in either mode, as the kernel's own dctcp_init() now tests
 *   (tcp_ecn_mode_any()).  Under AccECN the kernel still passes new CE
 *   feedback to .in_ack_event as CA_ACK_ECE, so our ECE logic holds.  Our
 *   modules ask for classic ECN (TCP_CONG_NEEDS_ECN, unchanged, BIT(1)); the
 *   new flags TCP_CONG_NEEDS_ACCECN, TCP_CONG_ECT_1_NEGOTIATION and
 *   TCP_CONG_NO_FALLBACK_RFC3168 are not used.
 * - struct tcp_congestion_ops gained .cwnd_event_tx_start(sk), and
 *   tcp_ca_event() now hands CA_EVENT_TX_START only to it, no longer to
 *   .cwnd_event.  No shim: our .cwnd_event handlers act on
 *   CA_EVENT_COMPLETE_CWR only, which .cwnd_event still receives.
 *   .cong_avoid/.cong_control moved to the front of the struct (we use
 *   designated initialisers); .cong_control's signature is the 6.10 one
 *   (COMPAT_CONG_CONTROL above).
 * - tcp_snd_cwnd_set() now stores with WRITE_ONCE(); same call.
 * - Unchanged in 7.3: the .ssthresh/.cong_avoid/.set_state/.cwnd_event/
 *   .in_ack_event/.pkts_acked/.undo_cwnd/.get_info signatures, struct
 *   ack_sample, struct rate_sample, enum tcp_ca_event, CA_ACK_ECE,
 *   ICSK_CA_PRIV_SIZE (104 bytes), tcp_reno_cong_avoid()/
 *   tcp_reno_undo_cwnd(), tcp_min_rtt(), tcp_packets_in_flight(),
 *   tcp_rtx_queue_head(), tcp_skb_timestamp_us(), and the tcp_sock fields we
 *   read (delivered, mss_cache, tcp_mstamp, srtt_us, mdev_us, rx_opt,
 *   snd_cwnd_cnt, snd_cwnd_clamp, prior_cwnd, packets_out, tcp_usec_ts).
 *
 * The test is on the macro the change introduced, not on a version number.
 */
#ifdef TCP_ECN_MODE_RFC3168
static inline bool compat_tcp_ecn_ok(const struct tcp_sock *tp)
{
	return tcp_ecn_mode_any(tp);
}
#else
/* 6.1 - 6.12: the connection negotiated ECN (RFC 3168) */
static inline bool compat_tcp_ecn_ok(const struct tcp_sock *tp)
{
	return tp->ecn_flags & TCP_ECN_OK;
}
#endif
/* ---- end of Debian 13's kernels ---- */

/*
 * The skb:kfree_skb tracepoint, which the testbed's oracle (testbed/oracle/,
 * never installed) probes for the drops of the emulated network, gained
 * the receiving socket in 6.11:
 *   6.1:   (struct sk_buff *skb, void *location, enum skb_drop_reason reason)
 *   6.11+: (..., enum skb_drop_reason reason, struct sock *rx_sk)
 * (const struct sock * in 7.3).  COMPAT_KFREE_SKB_PROBE(name, fn) defines
 * the probe @name with the kernel's arguments, calling fn(skb, reason);
 * compat_kfree_skb_probe(name, on) registers or unregisters it.  The
 * registration is the untyped one that register_trace_kfree_skb() wraps,
 * so that the const of rx_sk does not matter.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
#define COMPAT_KFREE_SKB_PROBE(name, fn)				\
static void name(void *data, struct sk_buff *skb, void *location,	\
		 enum skb_drop_reason reason, const struct sock *rx_sk)	\
{									\
	fn(skb, reason);						\
}
#else
#define COMPAT_KFREE_SKB_PROBE(name, fn)				\
static void name(void *data, struct sk_buff *skb, void *location,	\
		 enum skb_drop_reason reason)				\
{									\
	fn(skb, reason);						\
}
#endif
#define compat_kfree_skb_probe(name, on)				\
	((on) ? tracepoint_probe_register(&__tracepoint_kfree_skb,	\
					  (void *)(name), NULL) :	\
		tracepoint_probe_unregister(&__tracepoint_kfree_skb,	\
					    (void *)(name), NULL))

/*
 * The drop reason of a segment entirely before the receive window (a
 * duplicate): TCP_OLD_SEQUENCE in the 6.12 kernels and later; 6.1 gives
 * such segments TCP_INVALID_SEQUENCE, which it shares with those beyond
 * the window.
 */
static inline bool compat_drop_old_sequence(enum skb_drop_reason reason)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	return reason == SKB_DROP_REASON_TCP_OLD_SEQUENCE;
#else
	return false;
#endif
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
