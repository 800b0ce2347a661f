/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TCP NewReno-LP arithmetic (Martignon, `002_...`; SPEC.md 1.3): the Vegas
 * loss predictor and the loss reactions, independent of the kernel so that
 * they can be unit tested in userspace (tests/unit/test_newrenolp_core.c).
 * Integer only.  The predictor is shared with TCP BaLDE (balde_core.h).
 *
 * Vegas predictor, eq. (1):
 *   V = (cwnd / rtt_min - cwnd / rtt) * rtt_min = cwnd * (rtt - rtt_min) / rtt
 * segments, from the latest RTT sample.  V >= beta: congested; V <= alpha:
 * not congested; alpha < V < beta: the previous state is kept (hysteresis).
 * The comparisons are exact (cross-multiplied in 64 bits); V itself is kept
 * in 1/1000 segment for tracing.  An RTT sample below rtt_min first lowers
 * rtt_min (so V = 0); rtt == rtt_min gives V = 0 (not congested).  The state
 * starts "not congested".
 *
 * Optional RTT filter (newrenolp's module parameter rtt=min): the latest
 * sample is what SPEC.md prescribes, but a single RTT sample carries the
 * receiver's delayed-ACK wait and any scheduling jitter of the path, and with
 * the hysteresis one high sample can latch "congested".  Vegas itself
 * (Brakmo & Peterson; Linux tcp_vegas) classifies once per round trip with
 * the minimum RTT seen during it; lc_path_rtt() (lossclass_core.h, the
 * round trips the loss classifier of jersey and diffc watches too) provides
 * that: it collects the minimum of the samples until snd_una passes the
 * snd_nxt of the round's start, then hands it to nrlp_sample().
 *
 * Reactions (FlightSize as in RFC 5681: data outstanding, in segments):
 *   loss (3rd DUPACK), congested: NewReno, ssthresh = max(flight / 2, 2);
 *   loss, not congested: ssthresh = max(flight, 2), cwnd = ssthresh + 3 and
 *     fast retransmit / recovery.  In Linux the +3 (the three segments that
 *     left the network) is what PRR's accounting does by itself: the
 *     reduction's target is ssthresh and cwnd = ssthresh when it completes;
 *     .cwnd below is that final value;
 *   RTO: ssthresh as above by the classification, cwnd = 1 always;
 *   ECE (only when the connection negotiated ECN): a congestion signal,
 *     ssthresh = max(cwnd / 2, 2) as NewReno with ECN;
 *   local congestion (our own qdisc refused a packet): as a congested loss.
 */
#ifndef _NEWRENOLP_CORE_H
#define _NEWRENOLP_CORE_H

#include "cc_core.h"

#define NRLP_RTT_MAX_US		(1U << 27)	/* 134 s */
#define NRLP_CWND_MAX		(1U << 24)
#define NRLP_THRESH_MAX		1000U		/* alpha, beta (segments) */
#define NRLP_SSTHRESH_MIN	2U
#define NRLP_V_SCALE		1000U		/* V in milli-segments */

#define NRLP_V_MAX		((1U << 24) - 1)	/* V kept up to 16777 */

/* the Vegas predictor's state (12 bytes: BaLDE's state is tight) */
struct nrlp_pred {
	u32	rtt_min;	/* us, 0 = no sample yet */
	u32	rtt;		/* latest sample, us */
	u32	v_milli:24,	/* latest V, 1/1000 segment, saturating */
		congested:1;	/* current classification */
};

static inline u32 nrlp_min_u32(u32 a, u32 b)
{
	return a < b ? a : b;
}

/* the thresholds are valid: 0 <= alpha < beta <= NRLP_THRESH_MAX */
static inline bool nrlp_thresholds_ok(u32 alpha, u32 beta)
{
	return alpha < beta && beta <= NRLP_THRESH_MAX;
}

/* V = cwnd * (rtt - rtt_min) / rtt in 1/1000 segment, at most NRLP_V_MAX */
static inline u32 nrlp_v_milli(u32 cwnd, u32 rtt, u32 rtt_min)
{
	u64 v;

	if (!rtt || rtt <= rtt_min)
		return 0;
	v = (u64)nrlp_min_u32(cwnd, NRLP_CWND_MAX) * (rtt - rtt_min) *
	    NRLP_V_SCALE;				/* < 2^24+27+10 */
	v = cc_div64(v, rtt);
	return v > NRLP_V_MAX ? NRLP_V_MAX : (u32)v;
}

/*
 * One RTT sample (us) with the cwnd in force.  Returns the classification
 * after the sample.  Samples <= 0 are ignored by the caller.
 */
static inline bool nrlp_sample(struct nrlp_pred *p, u32 rtt_us, u32 cwnd,
			       u32 alpha, u32 beta)
{
	u64 extra;

	if (!rtt_us)
		return p->congested;
	rtt_us = nrlp_min_u32(rtt_us, NRLP_RTT_MAX_US);
	if (!p->rtt_min || rtt_us < p->rtt_min)
		p->rtt_min = rtt_us;
	p->rtt = rtt_us;
	cwnd = nrlp_min_u32(cwnd, NRLP_CWND_MAX);
	/* V >= beta  <=>  cwnd * (rtt - rtt_min) >= beta * rtt */
	extra = (u64)cwnd * (rtt_us - p->rtt_min);
	if (extra >= (u64)beta * rtt_us)
		p->congested = 1;
	else if (extra <= (u64)alpha * rtt_us)
		p->congested = 0;
	p->v_milli = nrlp_v_milli(cwnd, rtt_us, p->rtt_min);
	return p->congested;
}

enum nrlp_cause {
	NRLP_CAUSE_WIRELESS,	/* predictor: not congested */
	NRLP_CAUSE_CONGESTION,	/* predictor: congested */
	NRLP_CAUSE_ECN,		/* ECE */
};

struct nrlp_decision {
	u8	cause;		/* enum nrlp_cause */
	u32	cwnd;		/* cwnd when the reaction is complete */
	u32	ssthresh;
};

/*
 * @ev: enum cc_event; @flight: FlightSize (segments outstanding) at the
 * event; @cwnd: cwnd now (for ECE).  Local congestion (our own qdisc
 * refused a packet) is congestion whatever the predictor says.
 */
static inline void nrlp_decide(struct nrlp_decision *d, u8 ev, bool congested,
			       u32 cwnd, u32 flight)
{
	u32 half = flight >> 1, full = flight;

	if (half < NRLP_SSTHRESH_MIN)
		half = NRLP_SSTHRESH_MIN;
	if (full < NRLP_SSTHRESH_MIN)
		full = NRLP_SSTHRESH_MIN;
	if (ev == CC_EV_LOCAL)
		congested = true;
	if (ev == CC_EV_ECE) {
		d->cause = NRLP_CAUSE_ECN;
		d->ssthresh = cwnd >> 1 > NRLP_SSTHRESH_MIN ?
			      cwnd >> 1 : NRLP_SSTHRESH_MIN;
		d->cwnd = d->ssthresh;
		return;
	}
	d->cause = congested ? NRLP_CAUSE_CONGESTION : NRLP_CAUSE_WIRELESS;
	d->ssthresh = congested ? half : full;
	d->cwnd = ev == CC_EV_RTO ? 1 : d->ssthresh;
}

#endif /* _NEWRENOLP_CORE_H */
