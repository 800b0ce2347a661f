/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Virtual Capacity Rate Regulation (VCRR) arithmetic, kernel-independent
 * (thesis 8.6, eq. 8.32-8.38, figure 8.15).
 *
 * Virtual capacity vc = gamma * rate.  At the end of every control interval
 * dt the marking probability integrates the excess of the input over the
 * virtual capacity:
 *
 *	p <- clamp(p + (arrived - vc * dt) / (vc * qref), 0, 1)
 *
 * where "arrived" is the byte counter of the interval (figure 8.15) or, with
 * an estimator, y * dt for the input rate y estimated by TSW (8.37) or CSFQ
 * exponential averaging (8.38).  p is the virtual queue (8.33) divided by
 * vc * qref: the virtual queueing delay in units of qref, which is the
 * delay at which every packet is marked.  qref = 1 s is the thesis's own
 * (8.34)-(8.36), p = b / vc (p in seconds of virtual queue); qref = dt gives
 * SPEC.md's normalisation by vc * dt, whose gain is 1/dt times larger (50 x
 * at 20 ms: one packet above the virtual capacity in an interval of a
 * 2 Mb/s link raises p by 0.3, and the integrator, clamped at 0, settles far
 * below vc; measured link utilisation 0.5).
 *
 * Units: times in ns; rates in bytes/s with 16 fractional bits ("q16");
 * gamma in 1/65536; p in 1/2^32 (VCRR_P_ONE = 1.0, stored in a u64 so that
 * p = 1 is exact).  Intervals (and windows) are accepted up to 60 s and
 * rates up to 2^40 bytes/s; nothing overflows in those ranges.
 *
 * 8.37 as printed, y' = (y + s) / (T + delta), is dimensionally wrong; we
 * implement Clark and Fang's TSW that it cites:
 *	y' = (y * T + s) / (T + delta).
 * 8.38 (CSFQ) is y' = (1 - e^(-delta/K)) * s / delta + e^(-delta/K) * y.
 */
#ifndef JERSEY_VCRR_CORE_H
#define JERSEY_VCRR_CORE_H

#include "jq_math.h"

#define VCRR_P_SHIFT		32
#define VCRR_P_ONE		(1ULL << VCRR_P_SHIFT)
#define VCRR_FRAC_SHIFT		16
/*
 * The TSW window / CSFQ constant spans at most this many intervals: an
 * estimate then follows its input within a few dozen intervals, and the
 * one-step catch-up of vcrr_advance() averages over a decay it can see.
 */
#define VCRR_WINDOW_INTERVALS	64

enum vcrr_estimator {
	VCRR_EST_COUNT,
	VCRR_EST_TSW,
	VCRR_EST_CSFQ,
};

struct vcrr_params {
	u64 vc;		/* virtual capacity, bytes/s, q16 */
	u64 vc_dt;	/* bytes the virtual link drains per interval, q16 */
	u64 ref;	/* vc * qref: virtual queue at which p = 1, q16 */
	u64 empty;	/* what an interval without arrivals subtracts from p */
	u64 interval;	/* ns */
	u64 window;	/* TSW window T / CSFQ constant K, ns */
	u32 interval_us;
	u32 window_us;
	u32 est;	/* enum vcrr_estimator */
};

struct vcrr_state {
	u64 p;		/* marking probability, VCRR_P_ONE = 1 */
	u64 next;	/* end of the current interval, ns */
	u64 arrived;	/* bytes arrived in the current interval */
	u64 y;		/* estimated input rate, bytes/s, q16 */
	u64 last;	/* time of the last arrival seen by the estimator */
	u64 y_used;	/* input rate used by the last update, bytes/s, q16 */
	u64 updates;	/* intervals completed */
};

static inline s64 vcrr_excess(u64 x, u64 v, u64 ref);

/*
 * rate in bytes/s (1 .. 2^40), gamma in 1/65536 (1 .. 1.5 * 65536),
 * interval, window and qref in ns (1 us .. 60 s).
 */
static inline void vcrr_params_set(struct vcrr_params *pp, u64 rate, u32 gamma,
				   u64 interval, u64 window, u64 qref, u32 est)
{
	pp->vc = rate * gamma;			/* <= 2^40 * 2^17 */
	pp->vc_dt = jq_mul_div(pp->vc, interval, JQ_NSEC_PER_SEC);
	if (!pp->vc_dt)
		pp->vc_dt = 1;
	pp->ref = jq_mul_div(pp->vc, qref, JQ_NSEC_PER_SEC);
	if (!pp->ref)
		pp->ref = 1;
	pp->empty = (u64)-vcrr_excess(0, pp->vc_dt, pp->ref);
	pp->interval = interval;
	pp->window = window;
	pp->interval_us = (u32)div64_u64(interval, JQ_NSEC_PER_USEC);
	pp->window_us = (u32)div64_u64(window, JQ_NSEC_PER_USEC);
	pp->est = est;
}

static inline void vcrr_state_init(struct vcrr_state *s,
				   const struct vcrr_params *pp, u64 now)
{
	s->p = 0;
	s->next = now + pp->interval;
	s->arrived = 0;
	s->y = 0;
	s->last = now;
	s->y_used = 0;
	s->updates = 0;
}

/*
 * d / ref in 1/2^32 units for d < ref: both are shifted until ref fits 32
 * bits (relative error below 2^-31), so one 64-bit division does it.
 */
static inline u64 vcrr_frac(u64 d, u64 ref)
{
	unsigned int sh = jq_fls64(ref) > 32 ? jq_fls64(ref) - 32 : 0;

	return div64_u64((d >> sh) << 32, ref >> sh);
}

/* a * b / c in microseconds when c (ns) exceeds 32 bits; b < 2^32 */
static inline u64 vcrr_mul_div_ns(u64 a, u64 b_ns, u64 b_us, u64 c_ns)
{
	if (c_ns <= U32_MAX)
		return jq_mul_div(a, b_ns, c_ns);
	c_ns = div64_u64(c_ns, JQ_NSEC_PER_USEC);
	return jq_mul_div(a, b_us, c_ns < U32_MAX ? c_ns : U32_MAX);
}

/* (x - v) / ref in 1/2^32 units, clamped to [-1, 1]; ref > 0 */
static inline s64 vcrr_excess(u64 x, u64 v, u64 ref)
{
	bool neg = x < v;
	u64 d = neg ? v - x : x - v;
	u64 r;

	if (d >= ref)
		return neg ? -(s64)VCRR_P_ONE : (s64)VCRR_P_ONE;
	r = vcrr_frac(d, ref);
	return neg ? -(s64)r : (s64)r;
}

/* p + delta clamped to [0, 1] */
static inline u64 vcrr_p_add(u64 p, s64 delta)
{
	s64 n = (s64)p + delta;		/* |p|, |delta| <= 2^32 */

	if (n < 0)
		return 0;
	if (n > (s64)VCRR_P_ONE)
		return VCRR_P_ONE;
	return (u64)n;
}

/*
 * p as a u32 threshold for get_random_u32(): P(rnd < thr) = thr / 2^32.
 * Saturates at U32_MAX; use vcrr_mark() for the exact p = 1 case.
 */
static inline u32 vcrr_p_to_u32(u64 p)
{
	return p >= VCRR_P_ONE ? U32_MAX : (u32)p;
}

/* mark with probability p, given a uniform 32-bit random number */
static inline bool vcrr_mark(u64 p, u32 rnd)
{
	return (u64)rnd < p;
}

/* e^(-x) for x in 1/2^32 units; result in 1/2^32 units */
static inline u64 vcrr_exp_neg(u64 x)
{
	/* e^-1 * 2^32 */
	const u64 inv_e = 1580030169ULL;
	u64 n = x >> 32, f = x & U32_MAX, r = VCRR_P_ONE;
	int k;

	if (n >= 23)		/* e^-23 < 2^-33 */
		return 0;
	/* e^-f = 1 - f(1 - f/2(1 - f/3(...))), f < 1 */
	for (k = 14; k >= 1; k--)
		r = VCRR_P_ONE - ((f * r) >> 32) / k;
	while (n--)
		r = (r * inv_e) >> 32;
	return r;
}

/* (1 - e^(-x)) / x for x in 1/2^32 units; result in 1/2^32 units */
static inline u64 vcrr_expm1_over_x(u64 x)
{
	u64 g = VCRR_P_ONE;
	int k;

	if (x >= VCRR_P_ONE) {
		/* 1 - e^-x, shifted by 32: 2^64 (e^-x = 0) is taken as U64_MAX */
		u64 num = VCRR_P_ONE - vcrr_exp_neg(x);

		num = num >= VCRR_P_ONE ? U64_MAX : num << 32;
		return div64_u64(num, x);
	}
	/* sum (-x)^k / (k+1)! = 1 - x/2(1 - x/3(1 - x/4(...))) */
	for (k = 15; k >= 2; k--)
		g = VCRR_P_ONE - ((x * g) >> 32) / k;
	return g;
}

/*
 * The per-packet estimates take no 128-bit division at any accepted setting
 * (windows up to 60 s, rates up to 2^40 bytes/s): a time that does not fit
 * 32 bits in ns is taken in us.
 */

/* TSW estimate at time now, with an arrival of s bytes (s = 0: none) */
static inline u64 vcrr_tsw(const struct vcrr_params *pp, u64 y, u64 last,
			   u64 now, u32 s)
{
	/* bytes in the window, q16; then spread over window + gap */
	u64 bytes = jq_mul_div(y, pp->window_us, JQ_USEC_PER_SEC) +
		    ((u64)s << 16);

	return vcrr_mul_div_ns(bytes, JQ_NSEC_PER_SEC, JQ_USEC_PER_SEC,
			       pp->window + (now - last));
}

/* delta / K in 1/2^32 units, at most 64 (e^-64 is 0 to 2^-92) */
static inline u64 vcrr_csfq_x(u64 delta, u64 k, u32 k_us)
{
	if (delta >= k * 64)
		return 64ULL << 32;
	if (delta <= U32_MAX && k <= U32_MAX)
		return jq_mul_div32(VCRR_P_ONE, delta, k);
	/* delta < 64 K <= 2^32 us */
	return div64_u64(div64_u64(delta, JQ_NSEC_PER_USEC) << 32, k_us);
}

/* CSFQ estimate at time now, with an arrival of s bytes (s = 0: none) */
static inline u64 vcrr_csfq(const struct vcrr_params *pp, u64 y, u64 last,
			    u64 now, u32 s)
{
	u64 k = pp->window;
	u64 x = vcrr_csfq_x(now - last, k, pp->window_us);
	u64 decayed = jq_mul_shr32(y, vcrr_exp_neg(x));
	u64 fresh;

	if (!s)
		return decayed;
	/* (1 - e^-x) * s / delta = s / K * (1 - e^-x) / x */
	fresh = vcrr_mul_div_ns((u64)s << 16, JQ_NSEC_PER_SEC, JQ_USEC_PER_SEC,
				k);
	fresh = jq_mul_shr32(fresh, vcrr_expm1_over_x(x));
	return decayed + fresh;
}

/* the estimator's input rate at time now, without an arrival */
static inline u64 vcrr_rate_at(const struct vcrr_params *pp,
			       const struct vcrr_state *s, u64 now)
{
	if (now <= s->last)
		return s->y;
	if (pp->est == VCRR_EST_TSW)
		return vcrr_tsw(pp, s->y, s->last, now, 0);
	return vcrr_csfq(pp, s->y, s->last, now, 0);
}

/* an estimated rate y's excess in an interval: y dt against vc dt */
static inline s64 vcrr_rate_excess(const struct vcrr_params *pp, u64 y)
{
	return vcrr_excess(jq_mul_div(y, pp->interval_us, JQ_USEC_PER_SEC),
			   pp->vc_dt, pp->ref);
}

/* close the interval ending at s->next (no arrival after it yet) */
static inline void vcrr_close_interval(const struct vcrr_params *pp,
				       struct vcrr_state *s)
{
	s64 delta;

	if (pp->est == VCRR_EST_COUNT) {
		u64 x = jq_shl16_sat(s->arrived);

		delta = vcrr_excess(x, pp->vc_dt, pp->ref);
		s->y_used = vcrr_mul_div_ns(x, JQ_NSEC_PER_SEC, JQ_USEC_PER_SEC,
					    pp->interval);
	} else {
		/*
		 * The estimate is defined at arrivals (8.37, 8.38); use the one
		 * of the interval's last arrival.  Decaying it to the interval
		 * end would bias it low by about half a packet gap over the
		 * window.  An interval without arrivals gets the decayed value.
		 */
		if (s->last + pp->interval > s->next)
			s->y_used = s->y;
		else
			s->y_used = vcrr_rate_at(pp, s, s->next);
		delta = vcrr_rate_excess(pp, s->y_used);
	}
	s->p = vcrr_p_add(s->p, delta);
	s->arrived = 0;
	s->next += pp->interval;
	s->updates++;
}

#define VCRR_LN2	2977044472ULL	/* ln 2 * 2^32 */

/* ln f for f in [1, 2), in 1/2^32: 2 atanh((f - 1) / (f + 1)), 8 terms */
static inline u64 vcrr_ln1(u64 f)
{
	u64 z = div64_u64((f - VCRR_P_ONE) << 32, f + VCRR_P_ONE);
	u64 z2 = (z * z) >> 32, t = z, sum = 0;
	unsigned int k;

	for (k = 1; k <= 15; k += 2) {	/* z <= 1/3: error < 2^-32 */
		sum += t / k;
		t = (t * z2) >> 32;
	}
	return 2 * sum;
}

/* ln x for x >= 1, in 1/2^32 */
static inline u64 vcrr_ln(u64 x)
{
	unsigned int k = jq_fls64(x) - 1;
	u64 f = k <= 32 ? x << (32 - k) : x >> (k - 32);

	return k * VCRR_LN2 + vcrr_ln1(f);
}

/*
 * The mean of the estimate at the m >= 2 interval ends first, first + dt,
 * ... (no arrival since s->last <= first - dt).  CSFQ's decays by
 * r = e^(-dt/K) an interval: the mean is y(first) (1 - r^m) / ((1 - r) m),
 * exactly.  TSW's is y T / (A + i dt) at the i-th end, A = T + first -
 * last: its first term exactly, the others as the integral (midpoint rule)
 * y T / dt * ln((2A + (2m - 1) dt) / (2A + dt)), within 0.3 %.
 */
static inline u64 vcrr_mean_rate(const struct vcrr_params *pp,
				 const struct vcrr_state *s, u64 first, u64 m)
{
	u64 y1 = vcrr_rate_at(pp, s, first), dt = pp->interval;
	u64 x, rm, r, g, a2, ln;

	if (pp->est == VCRR_EST_TSW) {
		a2 = 2 * (pp->window + first - s->last);
		ln = vcrr_ln(a2 + (2 * m - 1) * dt) - vcrr_ln(a2 + dt);
		g = jq_mul_div(s->y, pp->window_us, pp->interval_us);
		return div64_u64(y1 + jq_mul_shr32(g, ln), m);
	}
	/* x = dt / K in (0, 64], and m x <= 64 unless r^m is 0 anyway */
	x = vcrr_csfq_x(dt, pp->window, pp->window_us);
	r = vcrr_exp_neg(x);
	rm = m > div64_u64(64ULL << 32, x) ? 0 : vcrr_exp_neg(x * m);
	/* sum of r^i, i < m, in 1/2^32: (1 - r^m) / (1 - r) <= 1 / (1 - r) */
	g = rm ? (VCRR_P_ONE - rm) << 32 : U64_MAX;
	g = div64_u64(g, VCRR_P_ONE - r);
	return div64_u64(jq_mul_shr32(y1, g), m);
}

/* p + n * e clamped to [0, 1], for any n (e in [-1, 1]) */
static inline u64 vcrr_p_add_n(u64 p, s64 e, u64 n)
{
	u64 step = e < 0 ? (u64)-e : (u64)e;

	if (!step || !n)
		return p;
	if (e < 0)
		return n >= div64_u64(p, step) + 1 ? 0 : p - n * step;
	return n > div64_u64(VCRR_P_ONE - p, step) ? VCRR_P_ONE : p + n * step;
}

/*
 * Perform every interval end up to now (lazily, before the next event), in
 * constant time.  The first due interval is closed exactly: it holds the
 * last arrival.  The later ones had no arrivals: the counter's each count
 * nothing (p falls by pp->empty each); an estimator's estimate decays
 * through them, and they are closed in one step, each adding the excess of
 * the estimate's mean over them (vcrr_mean_rate()).  Stepwise, a p that
 * reached 1 or 0 within the silence could end elsewhere; within (0, 1) the
 * two agree.
 */
static inline void vcrr_advance(const struct vcrr_params *pp,
				struct vcrr_state *s, u64 now)
{
	u64 missed;
	s64 e;

	if (now < s->next)
		return;
	vcrr_close_interval(pp, s);
	if (now < s->next)
		return;
	missed = div64_u64(now - s->next, pp->interval) + 1;
	if (pp->est == VCRR_EST_COUNT) {
		e = -(s64)pp->empty;
		s->y_used = 0;
	} else {
		s->y_used = missed == 1 ? vcrr_rate_at(pp, s, s->next) :
			    vcrr_mean_rate(pp, s, s->next, missed);
		e = vcrr_rate_excess(pp, s->y_used);
	}
	s->p = vcrr_p_add_n(s->p, e, missed);
	s->next += missed * pp->interval;
	s->updates += missed;
}

/* account an arrival of len bytes at time now (after vcrr_advance()) */
static inline void vcrr_arrival(const struct vcrr_params *pp,
				struct vcrr_state *s, u64 now, u32 len)
{
	s->arrived += len;
	if (pp->est == VCRR_EST_TSW)
		s->y = vcrr_tsw(pp, s->y, s->last,
				now < s->last ? s->last : now, len);
	else if (pp->est == VCRR_EST_CSFQ)
		s->y = vcrr_csfq(pp, s->y, s->last,
				 now < s->last ? s->last : now, len);
	if (now > s->last)
		s->last = now;
}

#endif /* JERSEY_VCRR_CORE_H */
