/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Netlink interface of the jersey marking qdiscs "cw" and "vcrr".
 *
 * This one header is shared, byte for byte, by the kernel modules
 * (qdisc/sch_cw.c, qdisc/sch_vcrr.c) and by the iproute2 patch
 * (iproute2-patch/, installed there as tc/jersey_pkt_sched.h); build-tc.sh
 * refuses to build a tc whose copy differs from this file.
 *
 * Fixed-point conventions:
 *   weights and gamma  unsigned, 1.0 = 65536       (TC_JERSEY_FRAC_ONE)
 *   times              microseconds, as tc's get_time()
 *   rates              bytes per second, 64 bit    (as tc's get_rate64())
 *   probability        1.0 = 2^32                  (TC_VCRR_PROB_ONE)
 *   cw measure         queue length * 65536        (TC_JERSEY_FRAC_ONE)
 */
#ifndef _UAPI_JERSEY_PKT_SCHED_H
#define _UAPI_JERSEY_PKT_SCHED_H

#include <linux/types.h>

#define TC_JERSEY_FRAC_SHIFT	16
#define TC_JERSEY_FRAC_ONE	(1U << TC_JERSEY_FRAC_SHIFT)

/* What to do with a non-ECT packet that would have been marked. */
enum {
	TC_JERSEY_NONECT_PASS,	/* enqueue it unmarked (default) */
	TC_JERSEY_NONECT_DROP,	/* drop it, as RED does without ecn */
	__TC_JERSEY_NONECT_MAX,
};

/* Longest control interval accepted by both qdiscs: 60 s. */
#define TC_JERSEY_INTERVAL_MAX_US	60000000U

/* ---- cw: Congestion Warning, deterministic marking (thesis 5.3, 8.5) ---- */

enum {
	TC_CW_MODE_AQ,		/* EWMA of the queue seen by each arrival */
	TC_CW_MODE_PQ,		/* persistent queue, fig. 8.9 */
	__TC_CW_MODE_MAX,
};

enum {
	TCA_CW_UNSPEC,
	TCA_CW_LIMIT,		/* u32, packets, > 0 (default 1000) */
	TCA_CW_THRESH,		/* u32, packets, <= limit (default limit/3) */
	TCA_CW_THRESH_BYTES,	/* u32, bytes; replaces TCA_CW_THRESH */
	TCA_CW_MODE,		/* u32, TC_CW_MODE_* (default aq) */
	TCA_CW_WEIGHT,		/* u32, aq EWMA weight, (0, 65536] (default 0.2) */
	TCA_CW_INTERVAL,	/* u32, pq interval, us, > 0 (default 20 ms) */
	TCA_CW_NONECT,		/* u32, TC_JERSEY_NONECT_* */
	__TCA_CW_MAX
};
#define TCA_CW_MAX (__TCA_CW_MAX - 1)

struct tc_cw_xstats {
	__u64	marked;		/* ECT packets marked CE */
	__u64	tail_drops;	/* packets dropped because the queue was full */
	__u64	nonect_drops;	/* non-ECT packets dropped (nonect drop) */
	__u64	overlimits;	/* arrivals that found measure > thresh */
	__u64	measure;	/* current measure, * 65536 (packets or bytes) */
	__u32	qmin;		/* pq: minimum queue at departures so far */
	__u32	mode;		/* TC_CW_MODE_* */
	__u32	bytemode;	/* 1 if measure and thresh are in bytes */
	__u32	thresh;		/* effective threshold */
};

/* ---- vcrr: Virtual Capacity Rate Regulation (thesis 8.6) ---- */

enum {
	TC_VCRR_EST_COUNT,	/* byte counter per interval (fig. 8.15) */
	TC_VCRR_EST_TSW,	/* time-sliding window rate estimate (8.37) */
	TC_VCRR_EST_CSFQ,	/* CSFQ exponential averaging (8.38) */
	__TC_VCRR_EST_MAX,
};

/* gamma must lie in (0, 1.5] */
#define TC_VCRR_GAMMA_MAX	(3U * TC_JERSEY_FRAC_ONE / 2)
/* rate must lie in (0, 2^40] bytes/s (about 8.8 Tbit/s) */
#define TC_VCRR_RATE_MAX	(1ULL << 40)
#define TC_VCRR_PROB_ONE	(1ULL << 32)

enum {
	TCA_VCRR_UNSPEC,
	TCA_VCRR_PAD,
	TCA_VCRR_LIMIT,		/* u32, packets, > 0 (default 1000) */
	TCA_VCRR_RATE,		/* u64, link capacity, bytes/s (required) */
	TCA_VCRR_GAMMA,		/* u32, virtual capacity factor (default 0.95) */
	TCA_VCRR_INTERVAL,	/* u32, control interval, us (default 20 ms) */
	TCA_VCRR_ESTIMATOR,	/* u32, TC_VCRR_EST_* (default count) */
	TCA_VCRR_WINDOW,	/* u32, TSW window / CSFQ constant, us
				 * (default: the interval) */
	TCA_VCRR_NONECT,	/* u32, TC_JERSEY_NONECT_* */
	TCA_VCRR_QREF,		/* u32, us: virtual queueing delay at which
				 * p = 1 (default 1 s, the thesis's 8.36) */
	__TCA_VCRR_MAX
};
#define TCA_VCRR_MAX (__TCA_VCRR_MAX - 1)

struct tc_vcrr_xstats {
	__u64	marked;		/* ECT packets marked CE */
	__u64	tail_drops;	/* packets dropped because the queue was full */
	__u64	nonect_drops;	/* non-ECT packets dropped (nonect drop) */
	__u64	overlimits;	/* arrivals chosen to carry a congestion signal */
	__u64	prob;		/* marking probability, 1.0 = 2^32 */
	__u64	input_rate;	/* input rate used by the last update, bytes/s */
	__u64	vc;		/* virtual capacity gamma * rate, bytes/s */
	__u64	updates;	/* control intervals completed */
	__u32	estimator;	/* TC_VCRR_EST_* */
	__u32	pad;
};

#endif /* _UAPI_JERSEY_PKT_SCHED_H */
