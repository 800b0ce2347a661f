/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Congestion Warning (CW) marking arithmetic, kernel-independent
 * (thesis 5.3 and 8.5; persistent queue: figure 8.9).
 *
 * Two congestion measures of the queue q (packets or bytes):
 *   aq  avg <- (1 - w) * avg + w * q at every arrival (8.30), kept with 16
 *       fractional bits; w in 1/65536 units, 0 < w <= 65536.
 *   pq  the minimum queue seen at departures during the last completed
 *       interval.  The interval "timer" is evaluated lazily: every event
 *       first calls cw_pq_advance(), which performs the expiries that fell
 *       since the previous event.  As nothing happened in between, the
 *       queue at those expiries equals the queue passed in, so the result
 *       is the one a real timer would give.
 * A packet is congested when the measure is strictly above thresh.
 */
#ifndef JERSEY_CW_CORE_H
#define JERSEY_CW_CORE_H

#include "jq_math.h"

#define CW_FRAC_SHIFT	16
#define CW_FRAC_ONE	(1U << CW_FRAC_SHIFT)

/* EWMA step; avg and the result carry CW_FRAC_SHIFT fractional bits. */
static inline u64 cw_ewma(u64 avg, u32 w, u32 q)
{
	/*
	 * Both terms are below 2^64 because avg <= (2^32 - 1) << 16 (it is a
	 * convex combination of such values) and w <= 2^16; their sum is at
	 * most 2^16 * max(avg, q << 16) <= 2^64 - 2^32.
	 */
	u64 sum = (u64)(CW_FRAC_ONE - w) * avg + (u64)w * ((u64)q << CW_FRAC_SHIFT);

	return (sum + (CW_FRAC_ONE >> 1)) >> CW_FRAC_SHIFT;
}

/* measure (with CW_FRAC_SHIFT fractional bits) strictly above thresh? */
static inline bool cw_over(u64 measure, u32 thresh)
{
	return measure > ((u64)thresh << CW_FRAC_SHIFT);
}

/* Persistent-queue tracker (figure 8.9). Times in ns. */
struct cw_pq {
	u64 next;	/* when the current interval ends */
	u32 qmin;	/* minimum queue at departures in the current interval */
	u32 pq;		/* persistent queue: qmin of the last completed interval */
};

static inline void cw_pq_init(struct cw_pq *s, u64 now, u64 interval, u32 q)
{
	s->next = now + interval;
	s->qmin = q;
	s->pq = 0;
}

/*
 * Perform the timer expiries up to now. q is the queue length since the
 * previous event (i.e. before the event being processed now).
 */
static inline void cw_pq_advance(struct cw_pq *s, u64 now, u64 interval, u32 q)
{
	u64 missed;

	if (now < s->next)
		return;
	/* expiry at s->next: persistent_queue = minimum_queue; ... */
	s->pq = s->qmin;
	missed = div64_u64(now - s->next, interval);
	/* every later expiry closed an interval without events: min is q */
	if (missed)
		s->pq = q;
	s->qmin = q;
	s->next += (missed + 1) * interval;
}

/* A departure left q packets (or bytes) behind. */
static inline void cw_pq_depart(struct cw_pq *s, u32 q)
{
	if (q < s->qmin)
		s->qmin = q;
}

/* pq as a measure comparable with cw_over() */
static inline u64 cw_pq_measure(const struct cw_pq *s)
{
	return (u64)s->pq << CW_FRAC_SHIFT;
}

/* Default threshold: a third of the buffer (thesis 5.3). */
static inline u32 cw_default_thresh(u32 limit)
{
	return limit / 3;
}

#endif /* JERSEY_CW_CORE_H */
