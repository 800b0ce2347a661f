/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TCP BaLDE arithmetic (Le & Hong, `004_...`; SPEC.md 1.4): the SARBE
 * bandwidth estimator with its stability filter, ocwnd and the loss
 * reactions, independent of the kernel so that they can be unit tested in
 * userspace (tests/unit/test_balde_core.c).  Integer only.  The Vegas loss
 * differentiation (LDEA) is the predictor of newrenolp_core.h.
 *
 * Units: rates u64 bytes/s, local time u64 microseconds (the kernel's
 * tcp_mstamp), gains Q16.  The last N instabilities U are kept in 16 bits
 * each (balde_u16(): 11-bit mantissa, 5-bit exponent, 0.1 % relative error,
 * up to 2^42 B/s): only their ratios matter (a = U_k / Umax), and so the
 * per-socket state stays well inside ICSK_CA_PRIV_SIZE.
 *
 * SARBE sample, eq. (2): Bw_k = L_k / (ts_k - ts_{k-1}), L_k the bytes newly
 * delivered (cumulatively ACKed or SACKed) by the k-th ACK and ts the
 * receiver's timestamp (TSval echoed on the ACK) of the ACK, so the interval
 * is the one at which the receiver sent the ACKs: ACK compression and
 * reverse-path queueing do not inflate it.  TSval has a coarse tick (1 ms on
 * Linux and the BSDs, 1 us when the connection negotiated tcp_usec_ts), so
 * bytes of ACKs are accumulated until the receiver's clock has advanced by
 * at least BALDE_MIN_SPAN_US (and one tick); the sample is then all those
 * bytes over that span (same long-run rate, much less quantisation noise).
 * TSval differences are taken modulo 2^32 (serial arithmetic), so a wrap is
 * harmless; an ACK whose TSval went backwards (reordering) only adds bytes.
 * The tick is assumed from the connection (1 ms, or 1 us with usec TS) and
 * checked after BALDE_TS_CHECK_US of local time: if the receiver's clock ran
 * at less than half or more than twice that rate, the timestamps are
 * declared unusable.
 * A gap of more than BALDE_IDLE_US (10 s) since the last sample point
 * (an idle connection) starts a new reference instead of a sample.
 * Fallback, documented: without timestamps (not negotiated, or unusable)
 * the interval is the one between ACK arrivals at the sender (Westwood's
 * sample), with the same accumulation rule.
 *
 * Stability filter, eqs. (3)-(4), b = 0.95, N = 8:
 *   U_k = b U_{k-1} + (1 - b) |Bw_k - Bw_{k-1}|
 *   Umax = max of the last N values of U (U_k included)
 *   a = U_k / Umax (a = 0 while Umax = 0: identical samples are followed)
 *   eBw_k = a eBw_{k-1} + (1 - a) Bw_k
 * The first sample initialises eBw and U_1 = 0.
 *
 * ocwnd = eBw * rtt_min / mss segments, at least 2.
 *
 * Reactions (the paper's pseudo code, section 3.2):
 *   new ACK in slow start (cwnd < ssthresh) with incipient congestion
 *     (Vegas V >= beta, hysteresis as NewReno-LP): ssthresh = ocwnd (only
 *     once an estimate exists);
 *   3 DUPACKs: ssthresh = ocwnd; congested and cwnd > ssthresh: cwnd =
 *     ssthresh; otherwise cwnd is kept;
 *   RTO: ssthresh = ocwnd, cwnd = 1;
 *   ECE (only with ECN negotiated): a congestion signal, answered like a
 *     congested loss (ssthresh = ocwnd, cwnd = min(cwnd, ocwnd));
 *   local congestion (our own qdisc refused a packet): a congested loss.
 */
#ifndef _BALDE_CORE_H
#define _BALDE_CORE_H

#include "newrenolp_core.h"

#define BALDE_N			8
#define BALDE_GAIN_SHIFT	16
#define BALDE_GAIN_ONE		(1U << BALDE_GAIN_SHIFT)
#define BALDE_B			62259U	/* 0.95 in Q16 (0.949997) */
#define BALDE_MIN_SPAN_US	4000U	/* shortest sample interval */
#define BALDE_TS_CHECK_US	1000000U
#define BALDE_IDLE_US		10000000U	/* longer gaps restart sampling */
#define BALDE_USEC_PER_SEC	1000000U
#define BALDE_RTT_MAX_US	(1U << 27)
#define BALDE_OCWND_MIN		2U
#define BALDE_OCWND_MAX		(1U << 24)
/* Vegas LDEA thresholds (segments): the paper's alpha = 1, beta = 3 */
#define BALDE_ALPHA		1U
#define BALDE_BETA		3U

#define BALDE_F_REF		0x01	/* ref_* valid */
#define BALDE_F_TS		0x02	/* the reference is a TSval */
#define BALDE_F_TS_BAD		0x04	/* timestamps unusable: ACK timing */
#define BALDE_F_CHECKED		0x08	/* tick check done */
#define BALDE_F_CHK		0x10	/* chk_* anchor valid */

struct balde_est {
	u64	ebw;		/* eBw, bytes/s; 0 = no estimate yet */
	u64	bw_prev;	/* Bw_{k-1}, bytes/s */
	u64	ref_us;		/* local time of the last sample point */
	u16	u[BALDE_N];	/* the last N instabilities (balde_u16()) */
	u32	ref_tsval;	/* TSval of the last sample point */
	u32	acc;		/* bytes delivered since the last sample point */
	u32	chk_us;		/* tick check (first second only): local time */
	u32	chk_ts;		/*   and TSval of the first ACK with a timestamp */
	u8	ui;		/* slot of U_k in u[] */
	u8	nu;		/* number of valid entries of u[] */
	u8	flags;
};

/* what a completed sample was, for tracing */
struct balde_sample {
	u64	bw;		/* Bw_k, bytes/s */
	u32	span_us;	/* its interval */
	u32	gain;		/* a, Q16 */
	bool	ts;		/* the interval came from TSvals */
};

static inline void balde_est_init(struct balde_est *e)
{
	*e = (struct balde_est){ .ebw = 0 };
}

#define BALDE_U16_MANT_BITS	11
#define BALDE_U16_MANT_MAX	((1U << BALDE_U16_MANT_BITS) - 1)

/* an instability in 16 bits: mantissa << exponent, rounded down */
static inline u16 balde_u16(u64 v)
{
	u32 e = 0;

	while (v > BALDE_U16_MANT_MAX && e < 31) {
		v >>= 1;
		e++;
	}
	if (v > BALDE_U16_MANT_MAX)
		v = BALDE_U16_MANT_MAX;
	return (u16)((e << BALDE_U16_MANT_BITS) | v);
}

static inline u64 balde_u64(u16 c)
{
	return (u64)(c & BALDE_U16_MANT_MAX) << (c >> BALDE_U16_MANT_BITS);
}

static inline u64 balde_rate(u32 bytes, u32 span_us)
{
	return cc_div64((u64)bytes * BALDE_USEC_PER_SEC, span_us);
}

/* the current U_k (0 before the first sample) */
static inline u64 balde_u_now(const struct balde_est *e)
{
	return e->nu ? balde_u64(e->u[e->ui]) : 0;
}

static inline u64 balde_u_max(const struct balde_est *e)
{
	u64 m = 0;
	int i;

	for (i = 0; i < e->nu; i++)
		if (balde_u64(e->u[i]) > m)
			m = balde_u64(e->u[i]);
	return m;
}

/* a * x in Q16 fixed point, rounded; a <= 1 in Q16, x < 2^47 */
static inline u64 balde_mul_gain(u32 a, u64 x)
{
	return (x >> BALDE_GAIN_SHIFT) * a +
	       (((x & (BALDE_GAIN_ONE - 1)) * a + (BALDE_GAIN_ONE >> 1)) >>
		BALDE_GAIN_SHIFT);
}

/* stability filter, eqs. (3)-(4); returns the gain a (Q16) used */
static inline u32 balde_filter(struct balde_est *e, u64 bw)
{
	u64 diff, u, umax;
	u32 a;

	if (!e->nu) {
		e->ebw = bw;
		e->bw_prev = bw;
		e->u[0] = 0;
		e->ui = 0;
		e->nu = 1;
		return 0;
	}
	diff = bw > e->bw_prev ? bw - e->bw_prev : e->bw_prev - bw;
	u = balde_mul_gain(BALDE_B, balde_u_now(e)) +
	    balde_mul_gain(BALDE_GAIN_ONE - BALDE_B, diff);
	e->ui = (e->ui + 1) % BALDE_N;
	e->u[e->ui] = balde_u16(u);
	u = balde_u64(e->u[e->ui]);
	if (e->nu < BALDE_N)
		e->nu++;
	umax = balde_u_max(e);
	a = umax ? (u32)cc_div64(u << BALDE_GAIN_SHIFT, umax) : 0;
	e->ebw = balde_mul_gain(a, e->ebw) +
		 balde_mul_gain(BALDE_GAIN_ONE - a, bw);
	e->bw_prev = bw;
	return a;
}

static inline void balde_set_ref(struct balde_est *e, const struct cc_ack *a,
				 bool ts)
{
	e->ref_us = a->now_us;
	e->ref_tsval = a->tsval;
	e->acc = 0;
	e->flags |= BALDE_F_REF;
	if (ts)
		e->flags |= BALDE_F_TS;
	else
		e->flags &= ~BALDE_F_TS;
}

/* the receiver's clock against ours after BALDE_TS_CHECK_US */
static inline void balde_check_tick(struct balde_est *e,
				    const struct cc_ack *a)
{
	u32 el, ts_el;
	u64 rx;

	if (e->flags & BALDE_F_CHECKED)
		return;
	if (!(e->flags & BALDE_F_CHK)) {
		e->chk_us = (u32)a->now_us;
		e->chk_ts = a->tsval;
		e->flags |= BALDE_F_CHK;
		return;
	}
	el = (u32)a->now_us - e->chk_us;
	if (el < BALDE_TS_CHECK_US)
		return;
	e->flags |= BALDE_F_CHECKED;
	ts_el = a->tsval - e->chk_ts;
	if ((s32)ts_el < 0) {
		e->flags |= BALDE_F_TS_BAD;
		return;
	}
	rx = (u64)ts_el * a->tick_us;
	if (rx < el / 2 || rx > (u64)el * 2)
		e->flags |= BALDE_F_TS_BAD;
}

static inline bool balde_uses_ts(const struct balde_est *e,
				 const struct cc_ack *a)
{
	return a->has_ts && a->tick_us && !(e->flags & BALDE_F_TS_BAD);
}

/*
 * Process one ACK (or DUPACK).  Returns true when it completed a sample
 * (described in *out) that went through the filter.
 */
static inline bool balde_est_ack(struct balde_est *e, const struct cc_ack *a,
				 struct balde_sample *out)
{
	bool ts = balde_uses_ts(e, a);
	u32 span, min_span, bytes;
	u64 sum;

	if (ts) {
		balde_check_tick(e, a);
		ts = balde_uses_ts(e, a);
	}
	/*
	 * first ACK, the clock source changed, or the connection was idle for
	 * longer than BALDE_IDLE_US (a span over the idle time is no rate,
	 * and a receiver clock of 1 us would wrap s32 after 36 min): a new
	 * reference
	 */
	if (!(e->flags & BALDE_F_REF) || ts != !!(e->flags & BALDE_F_TS) ||
	    a->now_us - e->ref_us > BALDE_IDLE_US) {
		balde_set_ref(e, a, ts);
		return false;
	}
	sum = (u64)e->acc + a->bytes;
	bytes = sum > 0xffffffffULL ? 0xffffffffU : (u32)sum;
	if (ts) {
		s32 d = (s32)(a->tsval - e->ref_tsval);
		u64 us;

		if (d <= 0) {
			e->acc = bytes;
			return false;
		}
		us = (u64)(u32)d * a->tick_us;
		span = us > 0xffffffffULL ? 0xffffffffU : (u32)us;
		min_span = a->tick_us > BALDE_MIN_SPAN_US ? a->tick_us :
							     BALDE_MIN_SPAN_US;
	} else {
		u64 us = a->now_us - e->ref_us;

		span = us > 0xffffffffULL ? 0xffffffffU : (u32)us;
		min_span = BALDE_MIN_SPAN_US;
	}
	if (span < min_span) {
		e->acc = bytes;
		return false;
	}
	out->bw = balde_rate(bytes, span);
	out->span_us = span;
	out->ts = ts;
	out->gain = balde_filter(e, out->bw);
	balde_set_ref(e, a, ts);
	return true;
}

/* ocwnd = eBw * rtt_min / mss, within [2, 2^24] */
static inline u32 balde_ocwnd(u64 ebw, u32 rtt_min_us, u32 mss)
{
	u64 w;

	if (!mss)
		return BALDE_OCWND_MIN;
	if (rtt_min_us > BALDE_RTT_MAX_US)
		rtt_min_us = BALDE_RTT_MAX_US;
	/* eBw < 2^37 B/s (1 Pb/s) keeps the product below 2^64 */
	ebw = cc_min_u64(ebw, 1ULL << 37);
	w = cc_div64(ebw * rtt_min_us, (u64)mss * BALDE_USEC_PER_SEC);
	if (w < BALDE_OCWND_MIN)
		return BALDE_OCWND_MIN;
	return w > BALDE_OCWND_MAX ? BALDE_OCWND_MAX : (u32)w;
}

enum balde_cause {
	BALDE_CAUSE_WIRELESS,	/* LDEA: no incipient congestion */
	BALDE_CAUSE_CONGESTION,	/* LDEA: incipient congestion */
	BALDE_CAUSE_ECN,
};

struct balde_decision {
	u8	cause;		/* enum balde_cause */
	u32	cwnd;		/* cwnd when the reaction is complete */
	u32	ssthresh;
};

/*
 * @ev: enum cc_event.  ECE and local congestion (our own qdisc refused a
 * packet) are answered as a congested loss; a loss repaired by a tail loss
 * probe as a DUPACK loss.
 */
static inline void balde_decide(struct balde_decision *d, u8 ev,
				bool congested, u32 cwnd, u32 ocwnd)
{
	if (!cwnd)
		cwnd = 1;
	d->ssthresh = ocwnd < BALDE_OCWND_MIN ? BALDE_OCWND_MIN : ocwnd;
	if (ev == CC_EV_LOCAL)
		congested = true;
	if (ev == CC_EV_ECE) {
		d->cause = BALDE_CAUSE_ECN;
		congested = true;
	} else {
		d->cause = congested ? BALDE_CAUSE_CONGESTION :
				       BALDE_CAUSE_WIRELESS;
	}
	if (ev == CC_EV_RTO)
		d->cwnd = 1;
	else if (congested && cwnd > d->ssthresh)
		d->cwnd = d->ssthresh;
	else
		d->cwnd = cwnd;
}

/*
 * New ACK: in slow start with incipient congestion, ssthresh = ocwnd.
 * Returns the ssthresh to use (unchanged without an estimate).
 */
static inline u32 balde_new_ack(bool congested, bool have_est, u32 cwnd,
				u32 ssthresh, u32 ocwnd)
{
	if (congested && have_est && cwnd < ssthresh)
		return ocwnd < BALDE_OCWND_MIN ? BALDE_OCWND_MIN : ocwnd;
	return ssthresh;
}

#endif /* _BALDE_CORE_H */
