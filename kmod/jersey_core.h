/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TCP-Jersey arithmetic, independent of the kernel so that it can be unit
 * tested in userspace (tests/unit/test_jersey_core.c), in the spirit of
 * include/net/codel_impl.h.  Integer only; no 128-bit arithmetic.
 *
 * Units and fixed-point formats
 *   time        u64 microseconds (local clock); u32 TSval ticks (receiver)
 *   rate        u64 bytes/s << JERSEY_RATE_SHIFT (Q8), at most
 *               JERSEY_RATE_MAX (2^35 B/s, 275 Gb/s); 1 kb/s is 32000 units
 *   tick        u32 receiver microseconds per TSval tick << JERSEY_TICK_SHIFT
 *               (Q10: 1 us = 1024, 1 ms = 1024000, at most ~4.2 s per tick)
 *   tau, delta  clamped to 2^28 us (268 s) and 2^30 us (17.9 min) so that
 *               delta + tau < 2^31, which jersey_mul_frac() requires
 *   bytes       u32, saturating
 *
 * ACK-ARE, eq. (5.9):  R = (tau * R + L) / (delta + tau),
 *   tau = srtt + rttvar, delta = time since the previous ACK, L = bytes newly
 *   delivered (cumulatively ACKed or SACKed) by this ACK.
 * TS-ARE, eq. (7.1): the same, but delta is the difference of the receiver's
 *   TSvals of consecutive ACKs, converted to microseconds with the receiver's
 *   tick length, which is learnt from TSval progress against local time.
 *   While TSval does not change (many ACKs per tick, e.g. 1 ms ticks at
 *   100 Mb/s) delta is 0 and (5.9) just adds L/tau; deferring those bytes to
 *   the next sample with delta > 0 gives exactly the same result, so bytes
 *   are accumulated while TSval is unchanged and a sample is taken when it
 *   advances.  The same rule handles ACKs that arrive in the same microsecond
 *   for ACK-ARE.
 * Filter type 2, eq. (5.20): Westwood's two-sample low-pass filter
 *   b = ((2tau - delta) b + delta (s + s_prev)) / (2tau + delta), s = L/delta,
 *   with delta limited to 2tau (the coefficient of b must not go negative).
 * ownd = ARE * rtt_min / mss, eq. (5.22), never below 2 segments.
 */
#ifndef _JERSEY_CORE_H
#define _JERSEY_CORE_H

#include "cc_core.h"
#include "lossclass_core.h"

#define JERSEY_USEC_PER_SEC	1000000U
#define JERSEY_RATE_SHIFT	8
/* bytes per microsecond -> bytes/s in Q8 */
#define JERSEY_RATE_UNIT	((u64)JERSEY_USEC_PER_SEC << JERSEY_RATE_SHIFT)
#define JERSEY_RATE_MAX		(1ULL << (35 + JERSEY_RATE_SHIFT))
#define JERSEY_TAU_MAX_US	(1U << 28)
#define JERSEY_TAU_INIT_US	100000U	/* before the first RTT sample */
#define JERSEY_DELTA_MAX_US	(1U << 30)
#define JERSEY_RTT_MAX_US	(1U << 27)
#define JERSEY_OWND_MIN		2U
#define JERSEY_OWND_MAX		(1U << 30)

#define JERSEY_TICK_SHIFT	10
#define JERSEY_TICK_US(us)	((u32)(us) << JERSEY_TICK_SHIFT)
/* a tick estimate needs points this many ticks and microseconds apart */
#define JERSEY_TICK_MIN_TICKS	16
#define JERSEY_TICK_MIN_US	50000U
/* stop learning after 2^30 ticks or 50 ms * 2^14 = 13.6 min (u32 offsets) */
#define JERSEY_TICK_LOCK_TICKS	(1U << 30)
#define JERSEY_TICK_EPOCHS	15
/*
 * TS-ARE: delta is only known to +-1 tick, so the filter's time constant is
 * at least this many ticks (16 ms with a 1 ms clock; irrelevant for 1 us)
 */
#define JERSEY_TS_TAU_TICKS	16
/* auto mode: TSval frozen this long while ACKs arrive -> use ACK timing */
#define JERSEY_TS_STALL_MIN_US	1000000U

/* estimator selection (module parameter "estimator") */
enum jersey_mode {
	JERSEY_MODE_AUTO,	/* TS-ARE if the ACK has a usable TSval */
	JERSEY_MODE_TS,		/* as auto, but never give up on a stalled TSval */
	JERSEY_MODE_ACK,	/* ACK-ARE only */
};

enum jersey_filter {
	JERSEY_FILTER_ATSW = 1,	/* (5.9) / (7.1) */
	JERSEY_FILTER_LPF = 2,	/* (5.20) */
};

#define JERSEY_F_TS_REF		0x01	/* ref_tsval is valid */
#define JERSEY_F_ANCHOR		0x02	/* base_us and p0 are valid */
#define JERSEY_F_TICK_LOCKED	0x04	/* tick is final */
#define JERSEY_F_TS_BROKEN	0x08	/* TSval stalled: auto uses ACK timing */
#define JERSEY_F_P1		0x10	/* p1 is valid */

struct jersey_est {
	u64	are;		/* achievable rate, bytes/s Q8 */
	u64	last_sample;	/* filter 2: previous raw sample, bytes/s Q8 */
	u64	ref_us;		/* local time of the last sample point */
	u64	base_us;	/* tick learning: local time of the first ACK */
	u32	p0_rel;		/* tick learning: reference point, us after */
	u32	p0_ts;		/*   base_us and its TSval */
	u32	p1_rel;		/* tick learning: lowest point of the current */
	u32	p1_ts;		/*   epoch (if JERSEY_F_P1) */
	u32	ref_tsval;	/* TSval at the last sample point */
	u32	tick;		/* receiver us per tick, Q10; 0 = not learnt */
	u32	acc;		/* bytes delivered since the last sample point */
	u8	tick_epoch;	/* epoch k ends 50 ms * 2^k after base_us */
	u8	flags;
};

/* one ACK as seen by the estimator */
struct jersey_ack {
	struct cc_ack	ack;	/* its delivery sample (tick_us unused: learnt) */
	u32	tau_us;		/* jersey_tau() */
	u8	mode;		/* enum jersey_mode */
	u8	filter;		/* enum jersey_filter */
};

/* what an ACK produced, for tracing */
struct jersey_sample {
	u64	delta_us;
	u32	bytes;
	bool	ts;		/* delta came from TSvals */
};

/* round(a * b / c) for b <= c, 0 < c < 2^31; exact for every u64 a */
static inline u64 jersey_mul_frac(u64 a, u32 b, u32 c)
{
	u64 hi = (a >> 32) * b;		/* < 2^63 */
	u64 qh = cc_div64_u32(hi, c);
	u64 rh = hi - qh * c;		/* < c < 2^31 */
	u64 lo = (rh << 32) + (a & 0xffffffffULL) * b + c / 2;

	return (qh << 32) + cc_div64_u32(lo, c);
}

/* tau = srtt + rttvar (RFC 6298 quantities, us), clamped to [1, TAU_MAX] */
static inline u32 jersey_tau(u32 srtt_us, u32 rttvar_us)
{
	u64 tau = (u64)srtt_us + rttvar_us;

	if (!srtt_us)
		return JERSEY_TAU_INIT_US;
	if (tau > JERSEY_TAU_MAX_US)
		return JERSEY_TAU_MAX_US;
	return tau ? (u32)tau : 1;
}

/* bytes over delta_us as a rate; delta_us >= 1 */
static inline u64 jersey_rate(u32 bytes, u64 delta_us)
{
	u64 r = cc_div64((u64)bytes * JERSEY_RATE_UNIT, delta_us);

	return cc_min_u64(r, JERSEY_RATE_MAX);
}

/* rate in bytes/s (for get_info and traces) */
static inline u64 jersey_rate_bps(u64 rate)
{
	return rate >> JERSEY_RATE_SHIFT;
}

/* filter type 1 (5.9): R = (tau * R + L) / (delta + tau) */
static inline u64 jersey_filter_atsw(u64 r, u32 bytes, u32 delta, u32 tau)
{
	u32 d = delta + tau;

	r = jersey_mul_frac(r, tau, d);
	r += cc_div64_u32((u64)bytes * JERSEY_RATE_UNIT + d / 2, d);
	return cc_min_u64(r, JERSEY_RATE_MAX);
}

/* filter type 2 (5.20), s = this sample, *prev = the previous one */
static inline u64 jersey_filter_lpf(u64 b, u64 *prev, u64 s, u32 delta,
				    u32 tau)
{
	u32 t2 = 2 * tau, d = cc_min_u32(delta, t2);

	b = jersey_mul_frac(b, t2 - d, t2 + d) +
	    jersey_mul_frac(s + *prev, d, t2 + d);
	*prev = s;
	return cc_min_u64(b, JERSEY_RATE_MAX);
}

/* feed one sample (L bytes over delta_us >= 1) to the selected filter */
static inline void jersey_filter(struct jersey_est *e, u8 filter, u32 bytes,
				 u64 delta_us, u32 tau_us)
{
	u32 tau = cc_max_u32(cc_min_u32(tau_us, JERSEY_TAU_MAX_US), 1);
	u32 delta = (u32)cc_min_u64(delta_us, JERSEY_DELTA_MAX_US);

	if (filter == JERSEY_FILTER_LPF) {
		if (!delta)	/* no rate sample without time */
			return;
		e->are = jersey_filter_lpf(e->are, &e->last_sample,
					   jersey_rate(bytes, delta), delta,
					   tau);
	} else {
		e->are = jersey_filter_atsw(e->are, bytes, delta, tau);
	}
}

/* snap a learnt tick to a well-known receiver clock within 1/16 */
static inline u32 jersey_tick_snap(u32 tick)
{
	static const u32 known[] = {
		JERSEY_TICK_US(1),	/* Linux tcp_usec_ts */
		JERSEY_TICK_US(1000),	/* Linux >= 4.13, BSDs: 1 kHz */
		3413333,		/* HZ=300 jiffies (3.333 ms) */
		JERSEY_TICK_US(4000),	/* HZ=250 jiffies */
		JERSEY_TICK_US(10000),	/* HZ=100 jiffies */
	};
	unsigned int i;

	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		u32 k = known[i], tol = k / 16;

		if (tick >= k - tol && tick <= k + tol)
			return k;
	}
	return tick;
}

/*
 * Learn the receiver's tick length from TSval progress against local time.
 * Each ACK is a point (local arrival time t, TSval T).  Reverse-path delay
 * (queueing, ACK compression) only moves points later, so the tick is the
 * slope of the lower envelope of the points.  Time since the first ACK is
 * cut into epochs ending at 50 ms * 2^k; in the second half of each epoch
 * the lowest point relative to the reference p0 (the line p0-p1 has the
 * smallest slope) is kept as p1; when the epoch ends the slope p0-p1 becomes
 * the tick (if it spans >= 16 ticks and >= 50 ms) and p1 the next p0.  The
 * two points are 1/4..5/8 of the elapsed time apart, so the error (their
 * residual delays and the TSval quantisation, over the distance) shrinks as
 * the connection ages, and a delayed first ACK is forgotten after two
 * epochs.  Learning stops after 13.6 minutes (the u32 offsets stay below
 * 2^31) or 2^30 ticks; known clocks are snapped to.
 */
static inline u64 jersey_tick_epoch_end(u8 ep)
{
	return (u64)JERSEY_TICK_MIN_US << ep;
}

static inline void jersey_tick_commit(struct jersey_est *e)
{
	u32 dts = e->p1_ts - e->p0_ts, dt = e->p1_rel - e->p0_rel;
	u64 t;

	if (!(e->flags & JERSEY_F_P1))
		return;
	e->flags &= ~JERSEY_F_P1;
	if (dts < JERSEY_TICK_MIN_TICKS || dt < JERSEY_TICK_MIN_US)
		return;		/* too close: keep the older p0 */
	t = cc_div64_u32((u64)dt << JERSEY_TICK_SHIFT, dts);
	t = cc_min_u64(t ? t : 1, 0xffffffffULL);
	e->tick = jersey_tick_snap((u32)t);
	e->p0_rel = e->p1_rel;
	e->p0_ts = e->p1_ts;
	if (dts >= JERSEY_TICK_LOCK_TICKS)
		e->flags |= JERSEY_F_TICK_LOCKED;
}

static inline void jersey_tick_learn(struct jersey_est *e, u32 tsval,
				     u64 now_us)
{
	u32 dts, dt, rel;
	u64 el;
	u8 ep;

	if (e->flags & JERSEY_F_TICK_LOCKED)
		return;
	if (!(e->flags & JERSEY_F_ANCHOR) || now_us < e->base_us ||
	    (s32)(tsval - e->p0_ts) < 0) {
		/* first TSval, or the receiver's clock went backwards */
		e->base_us = now_us;
		e->p0_rel = 0;
		e->p0_ts = tsval;
		e->tick_epoch = 0;
		e->flags = (e->flags & ~JERSEY_F_P1) | JERSEY_F_ANCHOR;
		return;
	}
	el = now_us - e->base_us;
	for (ep = e->tick_epoch; ep < JERSEY_TICK_EPOCHS; ep++)	/* bounded */
		if (el < jersey_tick_epoch_end(ep))
			break;
	if (ep != e->tick_epoch) {
		jersey_tick_commit(e);
		e->tick_epoch = ep;
		if (ep >= JERSEY_TICK_EPOCHS) {
			e->flags |= JERSEY_F_TICK_LOCKED;
			return;
		}
	}
	/* candidates only from the second half of epochs >= 1 */
	if (!ep || el < jersey_tick_epoch_end(ep) / 4 * 3)
		return;
	rel = (u32)el;
	dts = tsval - e->p0_ts;
	dt = rel - e->p0_rel;
	if (!dts)
		return;
	if (!(e->flags & JERSEY_F_P1) ||
	    (u64)dt * (e->p1_ts - e->p0_ts) <
	    (u64)(e->p1_rel - e->p0_rel) * dts) {
		e->p1_rel = rel;
		e->p1_ts = tsval;
		e->flags |= JERSEY_F_P1;
	}
}

/* ticks -> us with the learnt tick, clamped to JERSEY_DELTA_MAX_US */
static inline u64 jersey_ticks_to_us(u32 tick, u32 ticks)
{
	u64 us = ((u64)ticks * tick) >> JERSEY_TICK_SHIFT;

	return cc_min_u64(us, JERSEY_DELTA_MAX_US);
}

/* how long a frozen TSval is tolerated in auto mode */
static inline u64 jersey_ts_stall_us(const struct jersey_est *e)
{
	u64 four_ticks = jersey_ticks_to_us(e->tick, 4);

	return four_ticks > JERSEY_TS_STALL_MIN_US ? four_ticks :
						     JERSEY_TS_STALL_MIN_US;
}

static inline void jersey_est_init(struct jersey_est *e, u64 now_us)
{
	*e = (struct jersey_est){ .ref_us = now_us };
}

/*
 * Process one ACK (or DUPACK).  Returns true when it completed a sample that
 * was fed to the filter (*out says which), false when its bytes were only
 * accumulated (delta == 0).
 */
static inline bool jersey_est_ack(struct jersey_est *e,
				  const struct jersey_ack *a,
				  struct jersey_sample *out)
{
	u64 sum = (u64)e->acc + a->ack.bytes;
	u32 bytes = (u32)cc_min_u64(sum, 0xffffffffULL);
	u32 tau = a->tau_us;
	bool use_ts;
	u64 delta = 0;

	if (a->ack.has_ts)
		jersey_tick_learn(e, a->ack.tsval, a->ack.now_us);
	use_ts = a->mode != JERSEY_MODE_ACK && a->ack.has_ts && e->tick &&
		 (e->flags & JERSEY_F_TS_REF) &&
		 !(e->flags & JERSEY_F_TS_BROKEN);

	if (use_ts) {
		s32 d = (s32)(a->ack.tsval - e->ref_tsval);

		if (d > 0) {
			u64 floor = jersey_ticks_to_us(e->tick,
						       JERSEY_TS_TAU_TICKS);

			delta = jersey_ticks_to_us(e->tick, (u32)d);
			if (tau < floor)
				tau = (u32)floor;
		} else if (a->mode == JERSEY_MODE_AUTO &&
			 a->ack.now_us > e->ref_us &&
			 a->ack.now_us - e->ref_us > jersey_ts_stall_us(e)) {
			e->flags |= JERSEY_F_TS_BROKEN;
			use_ts = false;
		}
	}
	if (!use_ts && a->ack.now_us > e->ref_us)
		delta = a->ack.now_us - e->ref_us;

	if (!delta) {
		e->acc = bytes;
		return false;
	}
	e->acc = 0;
	e->ref_us = a->ack.now_us;
	if (a->ack.has_ts) {
		e->ref_tsval = a->ack.tsval;
		e->flags |= JERSEY_F_TS_REF;
	}
	jersey_filter(e, a->filter, bytes, delta, tau);
	out->delta_us = delta;
	out->bytes = bytes;
	out->ts = use_ts;
	return true;
}

/* ownd = ARE * rtt_min / mss in segments, within [2, 2^30] */
static inline u32 jersey_ownd(u64 are, u32 rtt_min_us, u32 mss)
{
	u64 bps = jersey_rate_bps(cc_min_u64(are, JERSEY_RATE_MAX));
	u64 w;

	if (!mss)
		return JERSEY_OWND_MIN;
	w = bps * cc_min_u32(rtt_min_us, JERSEY_RTT_MAX_US);   /* < 2^62 */
	w = cc_div64(w, (u64)mss * JERSEY_USEC_PER_SEC);
	if (w < JERSEY_OWND_MIN)
		return JERSEY_OWND_MIN;
	return (u32)cc_min_u64(w, JERSEY_OWND_MAX);
}

/* loss decisions; the events are those of cc_core.h */
enum jersey_cause {
	JERSEY_CAUSE_WIRELESS,
	JERSEY_CAUSE_CONGESTION,
	JERSEY_CAUSE_RTO_WIRELESS,
	JERSEY_CAUSE_RTO_CONGESTION,
	JERSEY_CAUSE_ECN,
};

struct jersey_decision {
	u8	cause;		/* enum jersey_cause */
	u8	why;		/* enum lc_why: what made it congestion */
	u32	cwnd;		/* new cwnd (segments) */
	u32	ssthresh;	/* new ssthresh (segments) */
};

/*
 * The window rules of TCP-Jersey (thesis fig. 5.8, appendix B), @ev an
 * enum cc_event:
 *   ECE on an ACK: ssthresh = ownd, and in congestion avoidance
 *     (cwnd >= ssthresh) also cwnd = ownd; in slow start cwnd is kept and
 *     ssthresh never raised (a warning must not extend slow start).
 *   loss (3rd DUPACK, or repaired by a tail loss probe): a congestion loss
 *     (@congested: ECE, or the classifier says so) or without ECN on the
 *     connection (no differentiation possible: AIAD) cwnd = ssthresh = ownd;
 *     otherwise a wireless loss: nothing changes.
 *   local congestion (our own qdisc refused a packet): as a congestion loss.
 *   RTO: congested -> cwnd = 1, ssthresh = ownd; otherwise (wireless burst,
 *     or no ECN: AIAD, never worse than the rate estimate) cwnd = ssthresh =
 *     ownd.
 * @why (enum lc_why) says whether and why the loss was congestion.
 * A congestion signal never raises cwnd: ownd is capped by cwnd (for RTO by
 * the cwnd before the timeout; 0 = unknown, no cap).  ARE * rtt_min <= cwnd
 * holds whenever the estimate is right, so the cap only bites when the
 * estimator overshoots.  Results are never below 1 (cwnd) / 2 (ssthresh).
 */
static inline void jersey_decide(struct jersey_decision *d, u8 ev, bool ecn_ok,
				 u8 why, u32 cwnd, u32 ssthresh, u32 ownd)
{
	bool congested = why != LC_WHY_NONE;
	u32 w = cc_max_u32(ownd, JERSEY_OWND_MIN);
	u32 capped = cwnd ? cc_max_u32(cc_min_u32(w, cwnd),
				       JERSEY_OWND_MIN) : w;

	d->why = why;
	switch (ev) {
	case CC_EV_ECE:
		d->cause = JERSEY_CAUSE_ECN;
		if (cwnd >= ssthresh) {
			d->cwnd = cc_max_u32(cc_min_u32(w, cwnd), 1);
			d->ssthresh = capped;
		} else {
			/* slow start: hold cwnd, never raise ssthresh */
			d->cwnd = cwnd;
			d->ssthresh = cc_min_u32(w, ssthresh);
		}
		break;
	case CC_EV_RTO:
		d->ssthresh = capped;
		if (ecn_ok && congested) {
			d->cause = JERSEY_CAUSE_RTO_CONGESTION;
			d->cwnd = 1;
		} else {
			d->cause = ecn_ok && !congested ?
				   JERSEY_CAUSE_RTO_WIRELESS :
				   JERSEY_CAUSE_RTO_CONGESTION;
			d->cwnd = capped;
		}
		break;
	default:	/* DUPACK, TLP, LOCAL */
		if (ev != CC_EV_LOCAL && ecn_ok && !congested) {
			d->cause = JERSEY_CAUSE_WIRELESS;
			d->cwnd = cwnd;
			d->ssthresh = ssthresh;
		} else {
			d->cause = JERSEY_CAUSE_CONGESTION;
			d->cwnd = capped;
			d->ssthresh = capped;
		}
		break;
	}
	if (d->ssthresh < JERSEY_OWND_MIN)
		d->ssthresh = JERSEY_OWND_MIN;
	if (!d->cwnd)
		d->cwnd = 1;
}

static inline bool jersey_cause_is_wireless(u8 cause)
{
	return cause == JERSEY_CAUSE_WIRELESS ||
	       cause == JERSEY_CAUSE_RTO_WIRELESS;
}

#endif /* _JERSEY_CORE_H */
