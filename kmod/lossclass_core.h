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
 *   - the path shows a standing queue: the minimum RTT of each of the last
 *     LC_QUEUE_ROUNDS (4; 1 on a path under 8 ms, lc_queue_rounds())
 *     round trips (the last of them may be this one, after
 *     LC_ROUND_SAMPLES samples, 4 on a path under 8 ms; lc_queue_stands())
 *     exceeds the
 *     path's minimum RTT by more than min_rtt / 8, clamped to [4 ms, 16 ms]
 *     (RFC 9406's HyStart++ delay threshold), and never by more than half
 *     the path's minimum RTT (at least 0.5 ms): a short path's drop-tail
 *     buffer of one BDP holds less than 4 ms (lc_queue_threshold()); in a
 *     window-limited slow start, and in the round after it, one round of
 *     queue (lc_slow_start_queue(): the window doubles a round and fills
 *     a buffer in one or two).  A
 *     round's minimum, not the smoothed RTT: a standing queue raises every
 *     sample of a round, while jitter, delayed ACKs and a sender's own
 *     bursts raise some; a full drop-tail buffer of any useful size shows
 *     up there.  While the path marks (a CE echo within the last
 *     LC_CE_ROUNDS, 250, round trips: 10 s at 40 ms) the queue counts only
 *     above half the path's minimum RTT (never below RFC 9406's
 *     threshold): a marking AQM keeps its own queue short (CoDel's 5 ms,
 *     PIE's 15 ms, CW's third of its buffer) and tells congestion by CE
 *     before it drops; a queue of half the base RTT or
 *     more is one it does not control (traffic that ignores its marks, or
 *     marks that come from the rate and not from the queue, as VCRR's) and
 *     a loss there is its buffer overflowing: behind VCRR with two Cubic
 *     flows, jersey and diffc held such losses (srtt 80 ms on a 40 ms
 *     path, 94 losses held in one run) and took 1.4-1.5 times Cubic's share
 *     (medians of 5 runs on 6.12).  A long memory of marks, because the
 *     delay rule itself keeps a lone flow's queue below a gateway's marking
 *     threshold: with 32 rounds, behind CW and VCRR at 1 % PER, marks came
 *     too seldom and the queue rule drained a queue the gateway owned
 *     (single runs: 6-9 % less goodput than the papers' rule);
 *   - or the window is not delivered: cwnd exceeds by more than a half the
 *     segments the path delivered (ACKed or SACKed) during the last round
 *     trip, i.e. what it carries and queues: losses that make room for no
 *     extra delivery and no extra delay (a shallow buffer overflowing, a
 *     policer) are congestion, marks or not.  Counted per round, not from
 *     one delivery-rate sample, which losses and recoveries depress, and
 *     falling by at most a quarter a round (a round cut short by a
 *     recovery counts few).  While the window doubles a round, half a
 *     window is compared (lc_excess_window()): in a round that began in
 *     slow start half the window it began with, which is what the last
 *     round carried when nothing was lost, while cwnd grows to four times
 *     that by the round's end; in the round after, half of cwnd.  Half of
 *     cwnd throughout makes every loss in the second half of a slow-start
 *     round an excess: at 5 % PER behind a marking gateway 19 of 20 lone
 *     jersey flows cut their window to 2-34 segments (BDP 66) in their
 *     first 1.6 s, to an ARE that slow start had not yet raised, and took
 *     3 s to grow back.  A round counts only when the window limited the
 *     flight it began with: the round of a handshake or of an
 *     application's first bytes (iperf3's cookie) delivers one or two
 *     segments and says nothing of the path, nor does a round that the
 *     receiver's window held back, or the round after it
 *     (lc_round_count()).  This finds a shallow
 *     buffer's first overflow, and would answer only at half again the
 *     window the path carries after it;
 *   - or, on a path that does not mark, the window passes by a sixteenth
 *     the one its buffer overflowed at without a standing queue (what the
 *     round before that excess delivered, raised by any round that
 *     delivers more: lc_path_overflowed(), lc_full_window()), as Reno
 *     answers the first loss near where the path last dropped;
 * and a wireless loss otherwise.  Misclassifying a wireless loss as
 * congestion is cheap when the response only drains the queue (jersey and
 * diffc: the window less the standing queue's share, at least half,
 * lc_drain_window()).
 * One round's standing queue ends slow start (HyStart's delay increase, as
 * the kernel's cubic does, and as there from a window of 16 segments), so
 * that a lone flow does not overflow a drop-tail buffer with a burst of a
 * half window at the end of slow start.
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
 * Reno's one, at least 1/16) until the next congestion response; so does
 * diffc's after it drained a queue (a halving gives Reno's one).  It
 * applies where flows compete, while the path shows a standing queue or
 * has marked within the classifier's LC_CE_ROUNDS round trips; Reno's one
 * segment applies otherwise (lc_ai_now()).  Losses taken for corruption change neither cwnd
 * nor alpha: the window they hold goes on growing by alpha while the loss
 * is repaired, and the count towards the next segment carries across them
 * (at 1 % PER a recovery starts every few round trips; alpha = 1/8 needs
 * eight).
 */
#ifndef _JERSEY_LOSSCLASS_CORE_H
#define _JERSEY_LOSSCLASS_CORE_H

#include "cc_core.h"

#define LC_QUEUE_SHIFT		3	/* standing queue: > rtt_min / 8 */
#define LC_QUEUE_MIN_US		4000U	/*   within [4 ms, 16 ms] (RFC 9406) */
#define LC_QUEUE_MAX_US		16000U
#define LC_QUEUE_LOW_US		500U	/* and within [0.5 ms, rtt_min / 2] */
#define LC_ROUND_SAMPLES	8U	/* a round's minimum counts after 8 */
#define LC_QUEUE_ROUNDS		4U	/* a loss's queue: 4 rounds in a row */
#define LC_SHORT_QUEUE_ROUNDS	1U	/*   1 on a path under 8 ms, */
#define LC_SHORT_ROUND_SAMPLES	4U	/*   this round's after 4 samples */
#define LC_SS_LOW_WINDOW	16U	/* slow start ends at a queue from 16 */
#define LC_EXCESS_SHIFT		1	/* window excess: > delivered * 3 / 2 */
#define LC_EXCESS_MIN		2U	/*   and > delivered + 2 segments */
#define LC_FULL_SHIFT		4	/* full again: full + full / 16, + 2 */
#define LC_CE_ROUNDS		250U	/* the path marks: CE within 250 rounds */
#define LC_OVERFLOW_SHIFT	1	/* and then a queue counts > rtt_min / 2 */
#define LC_AI_SHIFT		8	/* alpha in Q8 */
#define LC_AI_ONE		(1U << LC_AI_SHIFT)
#define LC_AI_MIN		(LC_AI_ONE >> 4)

enum lc_mode {
	LC_SAFE,		/* this header's classifier (default) */
	LC_PAPER,		/* every loss without ECE is wireless */
};

/* why a loss is congestion (LC_WHY_NONE: it is not, corruption) */
enum lc_why {
	LC_WHY_NONE,
	LC_WHY_ECE,		/* the ACK carried ECE */
	LC_WHY_EXCESS,		/* the window is neither delivered nor queued */
	LC_WHY_QUEUE,		/* a standing queue, LC_QUEUE_ROUNDS rounds in a row */
	LC_WHY_FULL,		/* the window a shallow buffer overflowed at */
};

/*
 * What a sender learns of the path round trip by round trip: the minimum
 * RTT sample of the current round (a round ends when snd_una passes the
 * snd_nxt of its start, as in Vegas, or for jersey and diffc when a SACK
 * does, lc_round_over(), or when it grew long, lc_round_long()), how
 * many rounds in a row showed a standing queue, and how many rounds
 * ago it last echoed CE.
 */
struct lc_path {
	u32	round_min;	/* this round's minimum RTT sample (us), 0 = none */
	u32	round_end;	/* snd_nxt when it began (lc_round_over()) */
	u16	round_start;	/* tp->delivered (low 16 bits) when it began */
	u16	delivered;	/* segments delivered in the last round,
				 * 0 = unknown (none yet, or 2^16 or more)
				 */
	u16	full;		/* the window a shallow buffer overflowed at:
				 * what the round before delivered, raised by
				 * a round that delivers more; 0 = none
				 * (lc_path_overflowed())
				 */
	u8	samples;	/* RTT samples in this round (saturating) */
	u8	ce_age;		/* rounds since the last CE echo + 1, 0 = none */
	u8	queued;		/* rounds in a row, the last one included, whose
				 * minimum showed a standing queue (saturating)
				 */
	u8	overflow;	/* ... one of more than lc_overflow_threshold() */
	u8	started:1,	/* round_end is set */
		round_limited:1, /* the window limited this round's flight */
		round_ss:1,	/* this round began in slow start */
		last_ss:1,	/* ... and so did the last one */
		round_rwnd:1,	/* the receiver's window held data back in
				 * this round (lc_ack's rwnd_limited)
				 */
		last_rwnd:1,	/* ... in the last one */
		count_held:1;	/* delivered counts such a round
				 * (lc_round_count(), lc_path_delivered())
				 */
};

/* what a sender knows when it classifies a loss */
struct lc_input {
	u32	cwnd;		/* segments, before the response */
	bool	slow_start;	/* cwnd below ssthresh before the event */
	bool	round_ss;	/* this round began in slow start */
	bool	last_ss;	/* the last round did */
	u32	round_delivered; /* segments delivered in this round so far */
	u32	delivered;	/* lc_path's last round, 0 = unknown */
	bool	ece;		/* this ACK carried ECE */
	bool	marks;		/* a CE echo within the last LC_CE_ROUNDS rounds */
	bool	queued;		/* lc_path_queue_stands() */
	bool	overflow;	/* lc_path_overflow_stands() */
	bool	limited;	/* the window limited this round's flight */
	bool	queue_round;	/* lc_path_queued(): one round's queue */
	bool	overflow_round;	/* lc_path_overflow() */
	u32	full;		/* lc_path's full, 0 = none */
};

/* RFC 9406's delay threshold for @min_rtt_us: min_rtt / 8 in [4, 16] ms */
static inline u32 lc_queue_clamp(u32 min_rtt_us)
{
	u32 q = min_rtt_us >> LC_QUEUE_SHIFT;

	return cc_min_u32(cc_max_u32(q, LC_QUEUE_MIN_US), LC_QUEUE_MAX_US);
}

/*
 * The queueing delay that counts as a standing queue for @min_rtt_us:
 * lc_queue_clamp(), but never above half the path's own minimum RTT (nor
 * below LC_QUEUE_LOW_US).  HyStart's 4 ms floor guards a long path's slow
 * start against jitter; on a short path it is more than the whole buffer
 * a drop-tail queue of one BDP holds: behind 7 packets (4 ms) on a 20 Mb/s,
 * 4 ms path no round showed a queue above 4 ms, every overflow was held,
 * and jersey and diffc drove 24.5 % and 31.5 % congestion drops (cubic
 * 0.76 %; medians of 5 runs on 6.12), bounded only by the window-excess
 * rule.  A round's minimum of half the path's RTT above it is no jitter.
 * Paths of 8 ms or more keep RFC 9406's threshold.
 */
static inline u32 lc_queue_threshold(u32 min_rtt_us)
{
	u32 half = cc_max_u32(min_rtt_us >> LC_OVERFLOW_SHIFT, LC_QUEUE_LOW_US);

	return cc_min_u32(lc_queue_clamp(min_rtt_us), half);
}

/* @rtt_us is more than @threshold_us above @min_rtt_us (0: unknown) */
static inline bool lc_queue_over(u32 rtt_us, u32 min_rtt_us, u32 threshold_us)
{
	return min_rtt_us && rtt_us > min_rtt_us &&
	       rtt_us - min_rtt_us > threshold_us;
}

static inline bool lc_standing_queue(u32 rtt_us, u32 min_rtt_us)
{
	return lc_queue_over(rtt_us, min_rtt_us, lc_queue_threshold(min_rtt_us));
}

/*
 * The queueing delay that counts on a path that marks: half the base RTT,
 * at least RFC 9406's threshold (a marking AQM keeps its own queue, CoDel's
 * 5 ms, even on a short path: a loss there is not its buffer overflowing).
 */
static inline u32 lc_overflow_threshold(u32 min_rtt_us)
{
	return cc_max_u32(min_rtt_us >> LC_OVERFLOW_SHIFT,
			  lc_queue_clamp(min_rtt_us));
}

static inline bool lc_overflow_queue(u32 rtt_us, u32 min_rtt_us)
{
	return lc_queue_over(rtt_us, min_rtt_us,
			     lc_overflow_threshold(min_rtt_us));
}

/* where a sender stands when an ACK arrives */
struct lc_ack {
	u32	una;		/* snd_una */
	u32	nxt;		/* snd_nxt */
	u32	delivered;	/* segments delivered so far (tp->delivered) */
	u32	min_rtt_us;	/* the path's minimum RTT, 0 = unknown */
	u32	cwnd;		/* bounds a round (lc_round_long()), 0: unbounded */
	bool	slow_start;	/* the window doubles a round */
	bool	limited;	/* the window, not the application, limits the flight */
	bool	rwnd_limited;	/* the receiver's window holds back data to send */
	bool	has_rack_end;	/* rack_end is known (SACK, bounded rounds) */
	u32	rack_end;	/* end of the last-sent segment delivered */
};

/*
 * A round that neither snd_una nor a SACK ends: it has delivered (ACKed or SACKed)
 * more than twice the window @cwnd, more than two round trips carry.  A
 * loss recovery stalls snd_una below the round's end while SACKs go on
 * delivering, for several round trips when a retransmission is lost too; a
 * round that lasts that long keeps the minimum of its first samples, taken
 * before the queue built, and hides a standing queue.  On a 20 Mb/s, 40 ms
 * drop-tail path at 1 % PER, such rounds hid a queue that doubled the RTT
 * while held recoveries grew the window by slow start from 82 to 1610
 * segments (2342 drops, 6.3 % of the data retransmitted).  The window, not
 * the last round's count: a round cut short counts few, and a bound from it
 * would cut every later round short too.
 */
static inline bool lc_round_long(u32 n, u32 cwnd)
{
	return cwnd && n > 2 * cwnd;
}

/*
 * The round trip is over: snd_una passed its end, or a segment sent after
 * it began was delivered (@a->rack_end, RACK's end sequence: of the last
 * segment sent that was delivered, not the highest SACKed, beyond its
 * end), as BBR counts rounds by delivery.  A loss recovery stalls snd_una
 * at the hole while SACKs go on: a round that snd_una alone ends lasts
 * until the hole is repaired (several round trips when a repair is lost
 * too) and keeps the minimum of its first samples, taken before a queue
 * built.  Then a held recovery in slow start grew the window far beyond
 * the path: diffc's peaked at 153-380 segments instead of 38-72 on a
 * 20 Mb/s, 40 ms path at 1 % PER (BDP 67).
 */
static inline bool lc_round_over(const struct lc_path *p,
				 const struct lc_ack *a)
{
	if (!cc_seq_after(p->round_end, a->una))
		return true;
	return a->has_rack_end && cc_seq_after(a->rack_end, p->round_end);
}

/* segments delivered in the round under way, @delivered: tp->delivered */
static inline u32 lc_round_delivered(const struct lc_path *p, u32 delivered)
{
	return (u16)((u16)delivered - p->round_start);
}

/* a round begins at @a: it ends past today's snd_nxt (lc_round_over()) */
static inline void lc_round_begin(struct lc_path *p, const struct lc_ack *a)
{
	p->round_end = a->nxt;
	p->round_start = (u16)a->delivered;
	p->round_limited = a->limited;
	p->last_ss = p->round_ss;
	p->round_ss = a->slow_start;
	p->last_rwnd = p->round_rwnd;
	p->round_rwnd = 0;
}

/*
 * What a round that ended delivered (@n), as lc_path's delivered: @n, but
 * falling by at most a quarter a round (a round cut short by a recovery
 * counts few); held (count_held: the classifier takes it for unknown,
 * lc_path_delivered()) when the receiver's window held data back in it or
 * in the round before, whose flight it delivers: the sender did not give
 * the path its window, and what the path delivered says nothing of what
 * it carries.  Early in a connection the receiver's window grows only as
 * fast as its application reads, and a hole stalls its right edge until
 * the repair arrives; meanwhile a recovery held in slow start grows the
 * window by what the SACKs deliver.  At 5 % PER behind cw aq, a lone
 * jersey flow's rounds delivered 22-29 segments against a receiver's
 * window of 45-50 (room for 0-2 more segments in it) while the window grew
 * to 101, and the next loss cut it to 24 as an excess (6.1: 5 of 15 runs
 * cut so in their first second).  Counted all the same, so that the next
 * round's count falls from it by a quarter at most: taken for 0, a round
 * of 3 segments after such rounds made a window of 80 an excess, cut to 9
 * (6.12, 5 % PER, behind cw aq).
 */
static inline void lc_round_count(struct lc_path *p, u32 n)
{
	p->count_held = p->round_rwnd || p->last_rwnd;
	p->delivered = n ? (u16)cc_max_u32(n, p->delivered - (p->delivered >> 2)) : 0;
}

/* lc_path's delivered as the classifier takes it: 0, unknown, if held */
static inline u32 lc_path_delivered(const struct lc_path *p)
{
	return p->count_held ? 0 : p->delivered;
}

/* a count of rounds in a row @n, after a round that @shows it or not */
static inline u8 lc_rounds_in_a_row(u8 n, bool shows)
{
	if (!shows)
		return 0;
	return n < 0xff ? n + 1 : n;
}

/*
 * One RTT sample (@rtt_us, 0 = none) at @a.  Returns true when it ended a
 * round; *@min is then the round's minimum sample.
 */
static inline bool lc_path_rtt(struct lc_path *p, u32 rtt_us,
			       const struct lc_ack *a, u32 *min)
{
	bool over, long_round;
	u32 n;

	if (!rtt_us)
		return false;
	if (!p->round_min || rtt_us < p->round_min)
		p->round_min = rtt_us;
	if (p->samples < 0xff)
		p->samples++;
	if (!p->started) {
		p->started = 1;
		lc_round_begin(p, a);
		return false;
	}
	if (a->rwnd_limited)
		p->round_rwnd = 1;
	n = lc_round_delivered(p, a->delivered);
	over = lc_round_over(p, a);
	long_round = lc_round_long(n, a->cwnd);
	if (!over && !long_round)
		return false;
	*min = p->round_min;
	/*
	 * a long round that neither snd_una nor a SACK ended counts as one
	 * too (the queue was there; such rounds follow a window cut sharply)
	 */
	p->queued = lc_rounds_in_a_row(p->queued,
				       lc_standing_queue(p->round_min,
							 a->min_rtt_us));
	p->overflow = lc_rounds_in_a_row(p->overflow,
					 lc_overflow_queue(p->round_min,
							   a->min_rtt_us));
	/*
	 * a round of 2^16 or more: 0, unknown; a round cut short by a loss
	 * recovery (a cumulative ACK of data SACKed before) counts few: the
	 * count falls by at most a quarter a round; a long round's count is
	 * not one round trip's, whether its count or snd_una ended it (a
	 * recovery's repairs acknowledged with what was SACKed after them,
	 * or a window cut to less than half what the round carried); a
	 * round whose flight the window did not limit says nothing of the
	 * path, nor one the receiver's window held back (lc_round_count())
	 */
	if (over && !long_round && p->round_limited) {
		lc_round_count(p, n);
		/*
		 * the path carries more than when its buffer overflowed (a
		 * round with a loss recovery in it too: at 5 % PER nearly every
		 * round has one, and a window remembered early in slow start
		 * then held a lone flow at a quarter of the link)
		 */
		if (p->full && n > p->full)
			p->full = (u16)cc_min_u32(n, 0xffff);
	}
	if (p->ce_age && p->ce_age < 0xff)
		p->ce_age++;
	p->round_min = 0;
	p->samples = 0;
	lc_round_begin(p, a);
	return true;
}

/* an ACK echoed CE */
static inline void lc_path_ce(struct lc_path *p)
{
	p->ce_age = 1;
}

/* a CE echo within the last LC_CE_ROUNDS rounds (the echo's own counts) */
static inline bool lc_path_marks(const struct lc_path *p)
{
	return p->ce_age && p->ce_age <= LC_CE_ROUNDS;
}

/*
 * A standing queue: the last round's minimum RTT showed one, or this
 * round's does already after LC_ROUND_SAMPLES samples.
 */
static inline bool lc_path_queued(const struct lc_path *p, u32 min_rtt_us)
{
	return p->queued ||
	       (p->samples >= LC_ROUND_SAMPLES &&
		lc_standing_queue(p->round_min, min_rtt_us));
}

/* the same for a queue above lc_overflow_threshold() */
static inline bool lc_path_overflow(const struct lc_path *p, u32 min_rtt_us)
{
	return p->overflow ||
	       (p->samples >= LC_ROUND_SAMPLES &&
		lc_overflow_queue(p->round_min, min_rtt_us));
}

/*
 * A queue that stands: @n rounds in a row showed it (lc_path's queued or
 * overflow), and this round, after LC_ROUND_SAMPLES samples (@over: its
 * minimum shows it too), makes one more, or ends the run (the queue
 * drained), LC_QUEUE_ROUNDS in all.  What the loss classifier asks: a
 * drop-tail buffer deep enough for the queue rule fills over many round
 * trips before it overflows (a lone flow adds a segment a round, Cubic's
 * flows keep it standing), while a path's own delay changes from round to
 * round.  Behind one BDP of drop-tail (20 Mb/s, 40 ms; 6.1, 2 runs each) a
 * queue stood 30-296 rounds in a row before it overflowed, alone and beside
 * two Cubic flows, and every loss there was answered after 4 rounds of it
 * or more; at 5 % PER a lone flow, whose window stayed below the BDP with
 * the bottleneck's queue at 0-6 packets, saw round minimums 5-18 ms above
 * the path's minimum (the emulator's delay, as a radio's retries would) in
 * runs of 1-3 rounds, and answered 23 and 50 random losses as the queue's
 * (9.9-12.6 Mb/s where bbr made 8.3-15.6; none of them after 4 rounds).
 * The cost: a buffer only a few rounds' growth deeper than the threshold
 * overflows a few more rounds before the answer.  @rounds: how many, the
 * round under way counting after @samples (lc_queue_rounds()).
 */
static inline bool lc_queue_stands(const struct lc_path *p, u8 n, bool over,
				   u8 rounds, u8 samples)
{
	if (p->samples >= samples) {
		if (!over)
			return false;
		n = lc_rounds_in_a_row(n, true);
	}
	return n >= rounds;
}

/*
 * The rounds a standing queue must stand on a path of @min_rtt_us:
 * LC_QUEUE_ROUNDS, but LC_SHORT_QUEUE_ROUNDS, one, where the threshold is
 * half the path's own minimum RTT (under 8 ms, lc_queue_threshold()), and
 * the round under way counts there after LC_SHORT_ROUND_SAMPLES samples
 * (lc_path_queue_stands()).  A drop-tail buffer of one BDP holds only half
 * a BDP above that threshold (4 packets behind 7 on a 20 Mb/s, 4 ms path),
 * which a window's bursts fill within a round or two, and a round of a
 * window of 16 brings 8 ACKs (delayed ACKs), so a loss comes before a
 * round's 8 samples: with 4 rounds and 8 samples, 39 % of a lone flow's
 * losses there were held, and jersey and diffc drove 2.8 % and 4.3 %
 * congestion drops against cubic's 0.72 % (decisions right 0.58 and 0.43;
 * 6.12, 5 runs each); with 2 rounds 1.7 % and 1.9 % (0.81, 0.83); with
 * one, this round's after 4 samples, 1.44 % and 1.48 % against cubic's
 * 0.78 % and Reno's 1.34 % (0.96, 0.94), and at 1 % random loss 17.1 and
 * 17.3 Mb/s, bbr's 17.8, with 2.0 % and 2.3 % of bytes resent
 * (results/short-path).  Rounds tell a path's own delay from a queue
 * only where they are long: a delay
 * that rises for as long as a radio's retries or an emulator's stall
 * (tens of milliseconds) spans several rounds of a 4 ms path.
 */
static inline u8 lc_queue_rounds(u32 min_rtt_us)
{
	return lc_queue_threshold(min_rtt_us) < lc_queue_clamp(min_rtt_us) ?
	       LC_SHORT_QUEUE_ROUNDS : LC_QUEUE_ROUNDS;
}

/* lc_queue_stands() for the standing queue */
static inline bool lc_path_queue_stands(const struct lc_path *p,
					u32 min_rtt_us)
{
	u8 rounds = lc_queue_rounds(min_rtt_us);
	u8 samples = rounds == LC_QUEUE_ROUNDS ? LC_ROUND_SAMPLES :
			 LC_SHORT_ROUND_SAMPLES;

	return lc_queue_stands(p, p->queued,
			       lc_standing_queue(p->round_min, min_rtt_us),
			       rounds, samples);
}

/*
 * ... and for a queue above lc_overflow_threshold(), LC_QUEUE_ROUNDS on
 * every path: that threshold is never below lc_queue_clamp() (4 ms or
 * more), which a short path's queue reaches only in a buffer deeper than
 * one BDP, one that holds a few rounds' growth
 */
static inline bool lc_path_overflow_stands(const struct lc_path *p,
					   u32 min_rtt_us)
{
	return lc_queue_stands(p, p->overflow,
			       lc_overflow_queue(p->round_min, min_rtt_us),
			       LC_QUEUE_ROUNDS, LC_ROUND_SAMPLES);
}

/*
 * A loss was congestion (@why) because the window was not delivered, and
 * no standing queue shows (@min_rtt_us: the path's minimum RTT): the path
 * dropped what it did not carry without one.  Its buffer is shallower than
 * lc_queue_threshold() (or a policer drops), and what the last round
 * delivered is what the path carries and queues: the window at which that
 * buffer is full (lc_full_window()).  Not from a round of fewer than
 * LC_SS_LOW_WINDOW segments: early in slow start a burst of a small window
 * overflows a shallow buffer, and such a round says little of the path
 * (remembered, 4-12 segments held a lone flow at a third of a path of 73,
 * raised only as fast as rounds showed more).
 */
static inline void lc_path_overflowed(struct lc_path *p, u8 why,
				      u32 min_rtt_us)
{
	if (why == LC_WHY_EXCESS && lc_path_delivered(p) >= LC_SS_LOW_WINDOW &&
	    !lc_path_queued(p, min_rtt_us))
		p->full = p->delivered;
}

/*
 * The window is not delivered: more than half again the segments the path
 * delivered in the last round trip (@delivered, what it carries and queues;
 * 0 = unknown), and at least LC_EXCESS_MIN more.  Losses that made room for
 * no extra delivery and no extra delay: a shallow buffer overflowing, a
 * policer.  Half, not less: a round's count varies with the losses.
 */
static inline bool lc_window_excess(u32 cwnd, u32 delivered)
{
	u32 slack = cc_max_u32(delivered >> LC_EXCESS_SHIFT, LC_EXCESS_MIN);

	return delivered && (u64)cwnd > (u64)delivered + slack;
}

/*
 * The window lc_window_excess() compares with the last round's delivery:
 * cwnd, or half a window while it doubles a round.  In a round that began
 * in slow start, half the window it began with: cwnd less what the round
 * delivered so far (slow start adds a segment for each); in the round
 * after (slow start ended in the last one, which counted half a window
 * or more), and whenever cwnd is below ssthresh, half of cwnd.
 */
static inline u32 lc_excess_window(const struct lc_input *in)
{
	if (in->round_ss)
		return in->cwnd > in->round_delivered ?
		       (in->cwnd - in->round_delivered) >> 1 : 0;
	return in->last_ss || in->slow_start ? in->cwnd >> 1 : in->cwnd;
}

/*
 * A shallow buffer full again: on a path that does not mark, the window
 * @w passes @full, the window its buffer overflowed at without a standing
 * queue (lc_path_overflowed(), 0 = never), by a sixteenth of it (at least
 * LC_EXCESS_MIN segments).  Such a buffer holds less than the queue
 * threshold, and the window excess alone answered only at half again the
 * window the path carries: behind a drop-tail buffer of 0.1 BDP (7
 * packets, 4.2 ms, on a 20 Mb/s, 40 ms path) jersey and diffc drove a
 * congestion drop rate of 38 % against cubic's 0.57 % (medians of 5 runs
 * on 6.12).  Reno reacts to the first loss near the window where the path
 * last dropped; so does this rule, where the path gives no other sign.
 * Past it, not at it: a remembered window that is too low (an excess in
 * slow start, whose round's count random losses had lowered) is raised
 * only by a round that delivers more (lc_path_rtt()), and a window that is
 * cut whenever it reaches it never delivers more.  At 5 % PER, 4 of 20
 * lone jersey flows were held so at 27-52 segments where the path carries
 * 133 (7.5-11.5 Mb/s where bbr made 16; 6.12, 5 runs a point).  A path
 * whose buffer is full delivers no more however far the window passes it,
 * and answers a few rounds later.  Not a trace of a queue: a quarter of
 * the queue threshold (1.25 ms on a 40 ms path) is less than the jitter
 * of the round's minimum RTT in an emulator, and held a lone flow at a
 * third of the path's window.  A path that marks tells congestion by CE.
 */
static inline bool lc_full_window(u32 w, u32 full, bool marks)
{
	u32 margin = cc_max_u32(full >> LC_FULL_SHIFT, LC_EXCESS_MIN);

	return !marks && full && (u64)w >= (u64)full + margin;
}

/*
 * The loss ends a window-limited slow start (or comes in the round after
 * it, or in the round that began before it ended) at one round's standing
 * queue (lc_path_queued(), above lc_overflow_threshold() on a path that
 * marks), from a window of LC_SS_LOW_WINDOW: the queue that ends slow
 * start.  A window that doubles a round fills a buffer in a round or two,
 * where a queue of congestion avoidance stands LC_QUEUE_ROUNDS rounds
 * first: behind one BDP of drop-tail the first loss of a lone flow came
 * at windows of 143-160 where the path carries 133, with its round's
 * minimum 14-40 ms above the path's and no earlier round's, and 4 rounds
 * of queue held it (jersey and diffc decided right 0.88 and 0.89 of
 * their losses; 6.12, 5 runs).  Not a flight the receiver's window or the
 * application limited: the path's own delay rises then, and the sender's
 * window did not make the queue.
 */
static inline bool lc_slow_start_queue(const struct lc_input *in)
{
	bool ss = in->slow_start || in->round_ss || in->last_ss;

	return ss && in->limited && in->cwnd >= LC_SS_LOW_WINDOW &&
	       (in->marks ? in->overflow_round : in->queue_round);
}

/*
 * Is this loss (without ECE: a 3rd DUPACK, a TLP repair, a timeout)
 * congestion, and why?  LC_WHY_NONE: corruption.
 */
static inline u8 lc_congestion(const struct lc_input *in, u8 mode)
{
	if (in->ece)
		return LC_WHY_ECE;
	if (mode == LC_PAPER)
		return LC_WHY_NONE;
	if (lc_window_excess(lc_excess_window(in), in->delivered))
		return LC_WHY_EXCESS;
	if ((in->marks ? in->overflow : in->queued) ||
	    lc_slow_start_queue(in))
		return LC_WHY_QUEUE;
	if (lc_full_window(lc_excess_window(in), in->full, in->marks))
		return LC_WHY_FULL;
	return LC_WHY_NONE;
}

/*
 * Slow start in the safe mode ends at a standing queue (HyStart's delay
 * increase): the window already fills the path.  Not below a window of
 * @cwnd LC_SS_LOW_WINDOW segments (the kernel cubic's hystart_low_window):
 * a small window's ACKs come together, and one delay spike of the path (a
 * scheduler, a radio's retries, a busy emulator) raises every sample of
 * its round; a window of 7 then ended slow start on a path of 67, and
 * congestion avoidance took 60 round trips to fill it.
 */
static inline bool lc_slow_start_over(const struct lc_path *p, u32 min_rtt_us,
				      u32 cwnd)
{
	return cwnd >= LC_SS_LOW_WINDOW && lc_path_queued(p, min_rtt_us);
}

/*
 * The standing queue's delay: this round's minimum RTT so far (srtt if the
 * round has no sample yet, or if srtt is lower) above the path's minimum
 * @min_rtt_us (0 = unknown: none).  Not srtt itself: an average, it also
 * carries the path's jitter, which a window must cover to keep the link
 * busy.  Behind VCRR, whose queue held 2-3 packets (2 ms), srtt ran 3-11 ms
 * above the minimum RTT, and draining all of that took a lone flow 10-15 %
 * below the link's rate at every mark.
 */
static inline u32 lc_path_queue_delay(const struct lc_path *p, u32 srtt_us,
				      u32 min_rtt_us)
{
	u32 rtt = p->round_min ? cc_min_u32(p->round_min, srtt_us) : srtt_us;

	return min_rtt_us && rtt > min_rtt_us ? rtt - min_rtt_us : 0;
}

/*
 * The window that drains a standing queue of @queue_us at @srtt_us: @cwnd *
 * (@srtt_us - @queue_us) / @srtt_us (the queue's share of the window leaves;
 * with the whole excess over the minimum RTT as the queue, @cwnd * min_rtt /
 * srtt), at least half of it (Reno's response, what a full drop-tail buffer
 * of one BDP gives too).
 */
static inline u32 lc_drain_window(u32 cwnd, u32 srtt_us, u32 queue_us)
{
	u32 w = cwnd;

	if (queue_us && srtt_us > queue_us)
		w = (u32)cc_div64((u64)cwnd * (srtt_us - queue_us), srtt_us);
	return cc_max_u32(w, cwnd >> 1);
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
 * The increase in effect: the fair one (@ai) while the path shows a
 * standing queue or marks (a CE echo within LC_CE_ROUNDS rounds,
 * lc_path_marks()), or once its buffer was found shallow (lc_path's full:
 * flows compete for it with no queue to show), where flows compete for a
 * queue; Reno's one segment per RTT otherwise (a lone flow that drained its queue on a drop-tail
 * path, spare capacity: growing harms nobody there).  A marking gateway
 * keeps its queue short, so the marks, not the delay, say that flows
 * compete behind it.  The marks are remembered as long as the classifier
 * does: a flow that competes there is marked once a cycle of its
 * sawtooth, which lasts (before + after) / 3 rounds, and a lone flow near
 * the BDP, whose responses are small, is marked less often the slower it
 * grows.  A shorter memory (32 rounds, or a window's rounds) let a lone
 * flow behind CW at 1 % PER grow by Reno's one segment between its marks
 * and meet them at a longer queue: more of its window cut (median 308
 * segments a run against 228) and 0.965 of bbr's goodput against 0.992
 * (6.12, 10 runs each, one sitting).
 */
static inline u32 lc_ai_now(const struct lc_path *p, u32 min_rtt_us, u32 ai)
{
	if (lc_path_queued(p, min_rtt_us) || lc_path_marks(p) ||
	    p->full)
		return ai;
	return LC_AI_ONE;
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
