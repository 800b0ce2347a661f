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
 * Reactions (FlightSize as in RFC 5681: data outstanding, in segments):
 *   loss (3rd DUPACK), congested: NewReno, ssthresh = max(flight / 2, 2);
 *   loss, not congested: ssthresh = max(flight, 2), cwnd = ssthresh + 3 and
 *     fast retransmit / recovery.  In Linux the +3 (the three segments that
 *     left the network) is what PRR's accounting does by itself: the
 *     reduction's target is ssthresh and cwnd = ssthresh when it completes;
 *     .cwnd below is that final value;
 *   RTO: ssthresh as above by the classification, cwnd = 1 always;
 *   ECE (only when the connection negotiated ECN): a congestion signal,
 *     ssthresh = max(cwnd / 2, 2) as NewReno with ECN.
 */
#ifndef _NEWRENOLP_CORE_H
#define _NEWRENOLP_CORE_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/math64.h>

static inline u64 nrlp_div64(u64 n, u64 d)
{
	return div64_u64(n, d);
}
#else
#include <stdbool.h>
#include <stdint.h>
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef int32_t s32;
typedef uint64_t u64;

static inline u64 nrlp_div64(u64 n, u64 d)
{
	return n / d;
}
#endif

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
	v = nrlp_div64(v, rtt);
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

enum nrlp_event {
	NRLP_EV_LOSS,		/* 3rd DUPACK / RACK: entering Recovery */
	NRLP_EV_RTO,		/* retransmission timeout */
	NRLP_EV_ECE,		/* ECE (ECN negotiated): entering CWR */
	NRLP_EV_TLP,		/* loss repaired by a tail loss probe (CWR) */
};

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

struct nrlp_counts {
	u32	wireless;	/* losses classified wireless (incl. RTOs) */
	u32	congestion;	/* losses classified congestion (incl. RTOs) */
	u32	rto;
	u32	ecn;		/* ECE reductions */
};

/*
 * @flight: FlightSize (segments outstanding) at the event; @cwnd: cwnd now
 * (for ECE).
 */
static inline void nrlp_decide(struct nrlp_decision *d, u8 ev, bool congested,
			       u32 cwnd, u32 flight)
{
	u32 half = flight >> 1, full = flight;

	if (half < NRLP_SSTHRESH_MIN)
		half = NRLP_SSTHRESH_MIN;
	if (full < NRLP_SSTHRESH_MIN)
		full = NRLP_SSTHRESH_MIN;
	if (ev == NRLP_EV_ECE) {
		d->cause = NRLP_CAUSE_ECN;
		d->ssthresh = cwnd >> 1 > NRLP_SSTHRESH_MIN ?
			      cwnd >> 1 : NRLP_SSTHRESH_MIN;
		d->cwnd = d->ssthresh;
		return;
	}
	d->cause = congested ? NRLP_CAUSE_CONGESTION : NRLP_CAUSE_WIRELESS;
	d->ssthresh = congested ? half : full;
	d->cwnd = ev == NRLP_EV_RTO ? 1 : d->ssthresh;
}

static inline void nrlp_count(struct nrlp_counts *n, u8 ev,
			      const struct nrlp_decision *d)
{
	if (ev == NRLP_EV_RTO)
		n->rto++;
	if (d->cause == NRLP_CAUSE_ECN)
		n->ecn++;
	else if (d->cause == NRLP_CAUSE_WIRELESS)
		n->wireless++;
	else
		n->congestion++;
}

#endif /* _NEWRENOLP_CORE_H */
