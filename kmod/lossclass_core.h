/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which losses may be taken for corruption, and how fast to grow after a
 * congestion response: the safe default of jersey and diffc (module
 * parameter classify=safe), independent of the kernel so that it is unit
 * tested in userspace (tests/unit/test_lossclass_core.c).  Integer only.
 *
 * The papers call every loss without an ECN echo a wireless loss.  That
 * holds only behind a gateway that marks before it drops; a real sender
 * mostly meets drop-tail queues, policers and AQMs that mark only some
 * traffic, and there a sender that holds its window through losses never
 * backs off.  The safe classifier calls a loss (3rd DUPACK, a loss repaired
 * by a tail loss probe, a timeout) without ECE a congestion loss when
 *   - the path shows a standing queue: the smoothed RTT exceeds the minimum
 *     RTT by more than LC_QUEUE_SHIFT (1/8) of it, at least LC_QUEUE_MIN_US
 *     (a full drop-tail buffer of any useful size shows up there); this is
 *     waived while the path marks (a CE echo within the last LC_CE_RTTS
 *     round trips): a marking AQM keeps its own queue and tells congestion
 *     by CE before it drops;
 *   - or the window is neither delivered nor queued: cwnd exceeds what the
 *     path delivered per minimum RTT (the kernel's delivery rate times
 *     rtt_min) times srtt / rtt_min by more than a half: losses that
 *     make room for no extra delivery and no extra delay (a shallow buffer
 *     overflowing, a policer) are congestion, marks or not;
 * and a wireless loss otherwise.  Misclassifying a wireless loss as
 * congestion is cheap for jersey (its response, cwnd = ARE * rtt_min, only
 * drains the queue) and bounded for diffc (Reno's halving).
 *
 * Fairness.  jersey answers congestion with cwnd -> ownd = ARE * rtt_min,
 * i.e. it multiplies cwnd by beta = ownd / cwnd = rtt_min / RTT, only the
 * queue's share; Reno and Cubic multiply by 1/2 and 0.7.  With the same
 * marks (or drops) and the same additive increase, the flow with the
 * gentler decrease keeps the larger window: behind a gateway whose queue
 * is small against the BDP, jersey took 2-3 times Reno's share.  Flows that
 * get their congestion signals together (a marking gateway marks every
 * flow while its queue is long) have equal average windows when, with a
 * decrease to beta of the window per signal and alpha segments of increase
 * per RTT, (1 + beta) / 2 * alpha / (1 - beta) is Reno's 3/2 (RFC 8312's
 * TCP-friendly region uses the same relation), so after a congestion
 * response that kept beta of the window, jersey's congestion avoidance adds
 * alpha = 3 (1 - beta) / (1 + beta) segments per RTT (at most
 * Reno's one, at least 1/16) until the next congestion response.  A
 * single flow loses nothing by it: its window never goes below ownd, the
 * path's BDP.  Losses taken for corruption change neither cwnd nor alpha.
 */
#ifndef _JERSEY_LOSSCLASS_CORE_H
#define _JERSEY_LOSSCLASS_CORE_H

#include "cc_core.h"

#define LC_QUEUE_SHIFT		3	/* standing queue: > rtt_min / 8 */
#define LC_QUEUE_MIN_US		1000U	/*   and > 1 ms */
#define LC_EXCESS_SHIFT		1	/* window excess: > held * 3 / 2 */
#define LC_EXCESS_MIN		2U	/*   and > bdp + 2 segments */
#define LC_BDP_SHIFT		8	/* bdp in 1/256 segments */
#define LC_CE_RTTS		32U	/* the path marks: CE within 32 RTTs */
#define LC_AI_SHIFT		8	/* alpha in Q8 */
#define LC_AI_ONE		(1U << LC_AI_SHIFT)
#define LC_AI_MIN		(LC_AI_ONE >> 4)

enum lc_mode {
	LC_SAFE,		/* this header's classifier (default) */
	LC_PAPER,		/* every loss without ECE is wireless */
};

/* what a sender knows when it classifies a loss */
struct lc_input {
	u32	srtt_us;	/* smoothed RTT */
	u32	min_rtt_us;	/* minimum RTT (0 = unknown) */
	u32	cwnd;		/* segments, before the response */
	u32	bdp;		/* segments delivered per min RTT, in 1/256
				 * (LC_BDP_SHIFT: a slow path's 1.7 is not 1);
				 * 0 = unknown
				 */
	bool	ece;		/* this ACK carried ECE */
	bool	marks;		/* a CE echo within the last LC_CE_RTTS RTTs */
};

static inline bool lc_standing_queue(u32 srtt_us, u32 min_rtt_us)
{
	u32 q = cc_max_u32(min_rtt_us >> LC_QUEUE_SHIFT, LC_QUEUE_MIN_US);

	return min_rtt_us && srtt_us > min_rtt_us &&
	       srtt_us - min_rtt_us > q;
}

/*
 * The window exceeds what the path holds: more than the segments delivered
 * per minimum RTT (@bdp) times srtt / min_rtt (what a standing queue
 * explains), plus a half.  Losses that made room for no extra delivery
 * and no extra delay: a shallow buffer overflowing, a policer.  Half, not
 * less: srtt lags a queue that is building.
 */
static inline bool lc_window_excess(u32 cwnd, u32 bdp, u32 srtt_us,
				    u32 min_rtt_us)
{
	u64 held, slack;

	if (!bdp || !min_rtt_us)
		return false;
	held = bdp;	/* 1/256 segments, as cwnd << LC_BDP_SHIFT below */
	if (srtt_us > min_rtt_us)
		held = cc_div64((u64)bdp * srtt_us, min_rtt_us);
	slack = cc_max_u64(held >> LC_EXCESS_SHIFT,
			   (u64)LC_EXCESS_MIN << LC_BDP_SHIFT);
	return ((u64)cwnd << LC_BDP_SHIFT) > held + slack;
}

/* is this loss (without ECE: a 3rd DUPACK, a TLP repair, a timeout) congestion? */
static inline bool lc_congestion(const struct lc_input *in, u8 mode)
{
	if (in->ece)
		return true;
	if (mode == LC_PAPER)
		return false;
	if (lc_window_excess(in->cwnd, in->bdp, in->srtt_us, in->min_rtt_us))
		return true;
	return !in->marks && lc_standing_queue(in->srtt_us, in->min_rtt_us);
}

/*
 * Was @then_ms (a CE echo) within @rtts round trips of @rtt_us before
 * @now_ms?  Millisecond stamps in u32, compared modulo 2^32 (49 days).
 */
static inline bool lc_recent(u32 now_ms, u32 then_ms, u32 rtt_us, u32 rtts)
{
	s32 d = (s32)(now_ms - then_ms);
	u32 rtt_ms = cc_max_u32(rtt_us / 1000, 1);

	return d >= 0 && (u64)d <= (u64)rtt_ms * rtts;
}

/*
 * alpha (Q8, segments per RTT) after a congestion response that took cwnd
 * from @before to @after: 3 (1 - beta) / (1 + beta) with beta = after /
 * before, i.e. 3 (before - after) / (before + after), within [1/16, 1].
 */
static inline u32 lc_ai_gain(u32 before, u32 after)
{
	u64 a;

	if (!before || after >= before)
		return LC_AI_MIN;
	a = cc_div64(3 * ((u64)(before - after) << LC_AI_SHIFT),
		     (u64)before + after);
	if (a > LC_AI_ONE)
		return LC_AI_ONE;
	return a < LC_AI_MIN ? LC_AI_MIN : (u32)a;
}

/*
 * The window w to give tcp_cong_avoid_ai() (which adds one segment per w
 * acknowledged) for alpha segments per RTT: cwnd / alpha.
 */
static inline u32 lc_ai_window(u32 cwnd, u32 ai)
{
	u64 w;

	if (ai >= LC_AI_ONE || !ai)
		return cwnd;
	w = cc_div64((u64)cwnd << LC_AI_SHIFT, ai);
	return w > 0x7fffffffULL ? 0x7fffffffU : (u32)w;
}

#endif /* _JERSEY_LOSSCLASS_CORE_H */
