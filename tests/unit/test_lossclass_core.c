// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of kmod/lossclass_core.h: the round trips of a path (round
 * minimum, standing queue, CE age), the safe loss classifier of jersey and
 * diffc, the slow-start exit, the drain window and the fair additive
 * increase after a congestion response.
 */
#include "check.h"
#include "lossclass_core.h"

static struct lc_input in(u32 cwnd, u32 delivered, bool ece, bool marks,
			  bool queued)
{
	struct lc_input i = {
		.cwnd = cwnd, .delivered = delivered, .ece = ece,
		.marks = marks, .queued = queued,
	};

	return i;
}

/* an RTT sample at snd_una @una, snd_nxt @nxt, @delivered so far, 40 ms path */
static bool rtt_at(struct lc_path *p, u32 rtt, u32 una, u32 nxt, u32 min_rtt,
		   u32 delivered, u32 *min)
{
	struct lc_ack a = { .una = una, .nxt = nxt, .delivered = delivered,
			    .min_rtt_us = min_rtt, .limited = true };

	return lc_path_rtt(p, rtt, &a, min);
}

/* the same for jersey and diffc: a round ends after 2 windows of 40 too */
static bool rtt_bounded(struct lc_path *p, u32 rtt, u32 una, u32 nxt,
			u32 min_rtt, u32 delivered, u32 *min)
{
	struct lc_ack a = { .una = una, .nxt = nxt, .delivered = delivered,
			    .min_rtt_us = min_rtt, .cwnd = 40, .limited = true };

	return lc_path_rtt(p, rtt, &a, min);
}

/*
 * the same with SACK: @rack_end, the end of the last-sent segment delivered
 * (@sack false: none known)
 */
static bool rtt_sack(struct lc_path *p, u32 rtt, u32 una, u32 nxt,
		     bool sack, u32 rack_end, u32 delivered, u32 *min)
{
	struct lc_ack a = { .una = una, .nxt = nxt, .delivered = delivered,
			    .min_rtt_us = 40000, .cwnd = 40, .limited = true,
			    .has_rack_end = sack, .rack_end = rack_end };

	return lc_path_rtt(p, rtt, &a, min);
}

/* the same, rack_end 0 meaning none */
static bool rtt_sacked(struct lc_path *p, u32 rtt, u32 una, u32 nxt,
		       u32 rack_end, u32 delivered, u32 *min)
{
	return rtt_sack(p, rtt, una, nxt, rack_end != 0, rack_end, delivered,
			min);
}

static void test_standing_queue(void)
{
	/* 40 ms base: the threshold is 5 ms */
	CHECK_CMP(lc_queue_threshold(40000), ==, 5000);
	CHECK(!lc_standing_queue(44000, 40000));
	CHECK(!lc_standing_queue(45000, 40000));
	CHECK(lc_standing_queue(45001, 40000));
	/* a full drop-tail buffer of one BDP doubles the RTT */
	CHECK(lc_standing_queue(80000, 40000));
	/* RFC 9406's clamp: at least 4 ms, at most 16 ms ... */
	CHECK_CMP(lc_queue_threshold(8000), ==, 4000);
	CHECK_CMP(lc_queue_threshold(20000), ==, 4000);
	CHECK(!lc_standing_queue(12000, 8000));
	CHECK(lc_standing_queue(12001, 8000));
	CHECK_CMP(lc_queue_threshold(560000), ==, 16000);
	/*
	 * ... but never above half a short path's minimum RTT: a drop-tail
	 * buffer of one BDP (4 ms) on a 4 ms path is a standing queue from
	 * 2 ms (RFC 9406's 4 ms alone: never)
	 */
	CHECK_CMP(lc_queue_threshold(4000), ==, 2000);
	CHECK(!lc_standing_queue(6000, 4000));
	CHECK(lc_standing_queue(6001, 4000));
	CHECK(lc_standing_queue(7000, 4000));
	CHECK_CMP(lc_queue_threshold(7000), ==, 3500);
	/* and never below 0.5 ms */
	CHECK_CMP(lc_queue_threshold(1000), ==, 500);
	CHECK_CMP(lc_queue_threshold(200), ==, 500);
	CHECK(!lc_standing_queue(700, 200));
	CHECK(lc_standing_queue(701, 200));
	CHECK(lc_standing_queue(576001, 560000));
	/* no minimum yet, or an RTT below it: no queue */
	CHECK(!lc_standing_queue(80000, 0));
	CHECK(!lc_standing_queue(30000, 40000));
}

/* the minimum RTT sample of each round trip, across the sequence wrap */
static void test_round_minimum(void)
{
	struct lc_path r = { 0 };
	u32 rtt = 0;

	/* first sample starts a round ending at snd_nxt 1000 */
	CHECK(!rtt_at(&r, 100000, 0, 1000, 90000, 0, &rtt));
	CHECK(!rtt_at(&r, 140000, 500, 1500, 90000, 0, &rtt)); /* delayed ACK */
	CHECK(!rtt_at(&r, 0, 900, 1500, 90000, 0, &rtt));	/* no sample */
	CHECK_CMP(r.samples, ==, 2);
	CHECK(rtt_at(&r, 120000, 1000, 2000, 90000, 0, &rtt));
	CHECK_CMP(rtt, ==, 100000);
	CHECK_CMP(r.samples, ==, 0);
	/* the next round ends at 2000; across the sequence wrap too */
	CHECK(!rtt_at(&r, 130000, 1500, 2100, 90000, 0, &rtt));
	CHECK(rtt_at(&r, 125000, 2001, 0xfffffff0U, 90000, 0, &rtt));
	CHECK_CMP(rtt, ==, 125000);
	CHECK(!rtt_at(&r, 110000, 0xfffffff0U - 1, 5, 90000, 0, &rtt));
	CHECK(rtt_at(&r, 111000, 3, 10, 90000, 0, &rtt));
	CHECK_CMP(rtt, ==, 110000);
}

/*
 * A standing queue raises every sample of a round; jitter and bursts only
 * some.  Rounds of 20 samples on a 40 ms path.
 */
static u32 round_of(struct lc_path *p, u32 una, u32 base, u32 step, u32 low)
{
	u32 rtt, i;

	for (i = 0; i < 19; i++)
		rtt_at(p, i == 10 ? low : base + (i % 4) * step, una + i,
		       una + 100, 40000, 0, &rtt);
	rtt_at(p, base, una + 100, una + 200, 40000, 0, &rtt);
	return una + 100;
}

static void test_queued_by_round_minimum(void)
{
	struct lc_path p = { 0 };
	u32 una = 0, rtt;

	rtt_at(&p, 40000, 0, 100, 40000, 0, &rtt);	/* starts round 1 */
	/* jitter up to 12 ms over a 41 ms base: one low sample, no queue */
	una = round_of(&p, una, 41000, 4000, 40500);
	CHECK(!p.queued && !lc_path_queued(&p, 40000));
	/* a 6 ms standing queue: every sample above 46 ms */
	una = round_of(&p, una, 46500, 3000, 46100);
	CHECK(p.queued && lc_path_queued(&p, 40000));
	/* it drains: the next round clears it */
	una = round_of(&p, una, 40200, 3000, 40100);
	CHECK(!p.queued);
	/* within a round: after LC_ROUND_SAMPLES samples above the threshold */
	for (rtt = 0; rtt < LC_ROUND_SAMPLES - 1; rtt++) {
		u32 m;

		rtt_at(&p, 50000, una + rtt, una + 100, 40000, 0, &m);
	}
	CHECK(!lc_path_queued(&p, 40000));
	rtt_at(&p, 50000, una + 8, una + 100, 40000, 0, &rtt);
	CHECK(lc_path_queued(&p, 40000));
	CHECK(lc_slow_start_over(&p, 40000, LC_SS_LOW_WINDOW));
	/* not below the low window: a spike raises a small round's samples */
	CHECK(!lc_slow_start_over(&p, 40000, LC_SS_LOW_WINDOW - 1));
	CHECK(!lc_path_queued(&p, 0));	/* no minimum RTT known */
}

/*
 * While the path marks, a queue counts above half the path's minimum RTT
 * (never below the threshold of a path that does not mark).
 */
static void test_overflow_queue(void)
{
	struct lc_path p = { 0 };
	u32 una = 0, rtt;

	CHECK_CMP(lc_overflow_threshold(40000), ==, 20000);
	CHECK(!lc_overflow_queue(60000, 40000));
	CHECK(lc_overflow_queue(60001, 40000));
	/* short paths: RFC 9406's 4 ms (a marking AQM keeps its own queue) */
	CHECK_CMP(lc_overflow_threshold(4000), ==, 4000);
	CHECK_CMP(lc_overflow_threshold(1000), ==, 4000);
	CHECK_CMP(lc_overflow_threshold(560000), ==, 280000);
	CHECK(!lc_overflow_queue(80000, 0));
	rtt_at(&p, 40000, 0, 100, 40000, 0, &rtt);	/* starts round 1 */
	una = round_of(&p, una, 41000, 2000, 40500);
	CHECK(!p.queued && !p.overflow);
	/* the queue behind CW (a third of one BDP, 13 ms): standing, held */
	una = round_of(&p, una, 53500, 2000, 53100);
	CHECK(p.queued && !p.overflow && !lc_path_overflow(&p, 40000));
	/* a full buffer of one BDP behind VCRR and Cubic: 40 ms more */
	una = round_of(&p, una, 80500, 2000, 80100);
	CHECK(p.queued && p.overflow && lc_path_overflow(&p, 40000));
	una = round_of(&p, una, 41000, 2000, 40500);
	CHECK(!p.overflow);
	/* within a round, after LC_ROUND_SAMPLES samples */
	for (rtt = 0; rtt < LC_ROUND_SAMPLES; rtt++) {
		u32 m;

		CHECK(!lc_path_overflow(&p, 40000));
		rtt_at(&p, 70000, una + rtt, una + 100, 40000, 0, &m);
	}
	CHECK(lc_path_overflow(&p, 40000));
}

static void test_ce_age(void)
{
	struct lc_path p = { 0 };
	u32 una = 0, i, rtt;

	CHECK(!lc_path_marks(&p));	/* never marked */
	lc_path_ce(&p);
	CHECK(lc_path_marks(&p));
	for (i = 0; i < LC_CE_ROUNDS; i++) {
		rtt_at(&p, 40000, una, una + 10, 40000, 0, &rtt);
		una += 10;
	}
	/* the first sample only started the first round: 31 rounds ended */
	CHECK(lc_path_marks(&p));
	rtt_at(&p, 40000, una, una + 10, 40000, 0, &rtt);
	CHECK(!lc_path_marks(&p));
	for (i = 0; i < 1000; i++) {	/* saturates, never wraps to "just" */
		una += 10;
		rtt_at(&p, 40000, una, una + 10, 40000, 0, &rtt);
	}
	CHECK(!lc_path_marks(&p));
}

static void test_drain_window(void)
{
	/* a 5 ms queue on 40 ms: keep 40/45 */
	CHECK_CMP(lc_drain_window(90, 45000, 5000), ==, 80);
	/* a full BDP buffer: Reno's half, never less */
	CHECK_CMP(lc_drain_window(132, 80000, 40000), ==, 66);
	CHECK_CMP(lc_drain_window(132, 200000, 160000), ==, 66);
	/* no queue: nothing to drain */
	CHECK_CMP(lc_drain_window(90, 40000, 0), ==, 90);
	CHECK_CMP(lc_drain_window(90, 45000, 0), ==, 90);
}

static void test_queue_delay(void)
{
	struct lc_path p = { 0 };
	u32 rtt;

	/* no sample in this round yet: srtt's excess; no minimum: none */
	CHECK_CMP(lc_path_queue_delay(&p, 46000, 40000), ==, 6000);
	CHECK_CMP(lc_path_queue_delay(&p, 46000, 0), ==, 0);
	/* jitter on a path without a standing queue: the round's minimum */
	rtt_at(&p, 43000, 0, 100, 40000, 0, &rtt);	/* starts a round */
	rtt_at(&p, 47000, 10, 100, 40000, 0, &rtt);
	rtt_at(&p, 41000, 20, 100, 40000, 0, &rtt);
	rtt_at(&p, 52000, 30, 100, 40000, 0, &rtt);
	CHECK_CMP(lc_path_queue_delay(&p, 46000, 40000), ==, 1000);
	/* the drain then keeps the window, jitter and all (srtt's excess
	 * as the queue took 13 %)
	 */
	CHECK_CMP(lc_drain_window(71, 46000, 1000), ==, 69);
	CHECK_CMP(lc_drain_window(71, 46000, 6000), ==, 61);
	/* a standing queue shows in every sample: it is drained, the
	 * jitter above it kept
	 */
	rtt_at(&p, 45000, 100, 200, 40000, 0, &rtt);	/* ends the round */
	rtt_at(&p, 45500, 110, 200, 40000, 0, &rtt);
	rtt_at(&p, 48000, 120, 200, 40000, 0, &rtt);
	CHECK_CMP(lc_path_queue_delay(&p, 47000, 40000), ==, 5500);
	CHECK_CMP(lc_drain_window(94, 47000, 5500), ==, 83);
	/* srtt below the round's minimum (the queue just built): srtt's */
	CHECK_CMP(lc_path_queue_delay(&p, 44000, 40000), ==, 4000);
}

static void test_window_excess(void)
{
	/* unknown (no round counted yet): never */
	CHECK(!lc_window_excess(1000, 0));
	/* over half again what the last round delivered, at least 2 more */
	CHECK(!lc_window_excess(150, 100));
	CHECK(lc_window_excess(151, 100));
	CHECK(!lc_window_excess(6, 4));
	CHECK(lc_window_excess(7, 4));
	CHECK(!lc_window_excess(80, 100));
}

/* segments delivered per round trip, counted from tp->delivered */
static void test_round_delivered(void)
{
	struct lc_path p = { 0 };
	u32 rtt, d = 0xfff0;	/* the 16-bit count wraps */

	rtt_at(&p, 40000, 0, 100, 40000, d, &rtt);
	CHECK_CMP(p.delivered, ==, 0);
	rtt_at(&p, 40000, 50, 150, 40000, d + 40, &rtt);
	CHECK(rtt_at(&p, 40000, 100, 200, 40000, d + 90, &rtt));
	CHECK_CMP(p.delivered, ==, 90);
	CHECK(rtt_at(&p, 40000, 200, 300, 40000, d + 180, &rtt));
	CHECK_CMP(p.delivered, ==, 90);
	/* a policer: the window grows, the path delivers 90 a round */
	CHECK(lc_window_excess(150, p.delivered));
	/* 5 % random loss: 95 of 100 delivered, not an excess */
	CHECK(rtt_at(&p, 40000, 300, 400, 40000, d + 275, &rtt));
	CHECK_CMP(p.delivered, ==, 95);
	CHECK(!lc_window_excess(100, p.delivered));
	/* a round cut short by a recovery counts 10: the count falls by a quarter */
	CHECK(rtt_at(&p, 40000, 400, 500, 40000, d + 285, &rtt));
	CHECK_CMP(p.delivered, ==, 72);
	CHECK(!lc_window_excess(100, p.delivered));
}

/*
 * A loss recovery stalls snd_una while SACKs deliver: the round that began
 * before the queue built would keep its early minimum and hide the queue;
 * bounded, it ends after delivering twice the window, and the next round
 * shows the queue after LC_ROUND_SAMPLES samples.
 */
static void test_long_round(void)
{
	struct lc_path p = { 0 }, q;
	u32 rtt = 0, d = 0, i, una;

	/* 40 ms path, a window of 40: a short first round, then rounds of 40 */
	rtt_bounded(&p, 40000, 0, 2, 40000, d, &rtt);
	d += 2;
	CHECK(rtt_bounded(&p, 41000, 2, 40, 40000, d, &rtt));
	CHECK_CMP(p.delivered, ==, 2);
	for (una = 40; una <= 120; una += 40) {
		/* the short round bounds none of the next ones */
		for (i = 1; i < 38; i++)
			CHECK(!rtt_bounded(&p, 41000, una - 38 + i, una + 40,
					   40000, d + i, &rtt));
		d += una == 40 ? 38 : 40;
		CHECK(rtt_bounded(&p, 41000, una, una + 40, 40000, d, &rtt));
	}
	CHECK_CMP(p.delivered, ==, 40);
	/* a round delivering twice the window ends by snd_una, not before */
	q = p;
	CHECK(!rtt_bounded(&q, 41000, 150, 200, 40000, d + 80, &rtt));
	CHECK(rtt_bounded(&q, 41000, 160, 240, 40000, d + 80, &rtt));
	CHECK_CMP(q.delivered, ==, 80);
	/* one that delivered more than twice the window before snd_una
	 * ended it is not one round trip's count either (a recovery's
	 * repairs acknowledged with what was SACKed after them, or a window
	 * cut to less than half what the round carried): the counts stay
	 */
	q = p;
	q.full = 40;
	CHECK(rtt_bounded(&q, 41000, 160, 240, 40000, d + 81, &rtt));
	CHECK_CMP(q.delivered, ==, 40);
	CHECK_CMP(q.full, ==, 40);
	CHECK_CMP(q.round_end, ==, 240);
	/* a hole at 121: snd_una stays there while SACKs deliver 2 a sample,
	 * first at the base RTT, then behind a 40 ms queue; unbounded, the
	 * round never ends and its minimum hides the queue
	 */
	q = p;
	for (i = 1; i <= 100; i++)
		CHECK(!rtt_at(&q, i <= 5 ? 41000 : 80000, 121, 160 + 2 * i,
			      40000, d + 2 * i, &rtt));
	CHECK(!lc_path_queued(&q, 40000));
	/* bounded, it ends after 2 x 40 segments, the last count kept */
	for (i = 1; i <= 100; i++)
		if (rtt_bounded(&p, i <= 5 ? 41000 : 80000, 121, 160 + 2 * i,
				40000, d + 2 * i, &rtt))
			break;
	CHECK_CMP(i, ==, 41);
	CHECK_CMP(rtt, ==, 41000);
	CHECK_CMP(p.delivered, ==, 40);
	CHECK(!p.queued);
	d += 2 * i;
	/* the next round shows the queue after LC_ROUND_SAMPLES samples */
	for (i = 0; i < LC_ROUND_SAMPLES; i++) {
		CHECK(!lc_path_queued(&p, 40000));
		d += 2;
		CHECK(!rtt_bounded(&p, 80000, 121, 300, 40000, d, &rtt));
	}
	CHECK(lc_path_queued(&p, 40000));
	/* a window of 0 (unknown) bounds nothing */
	CHECK(!lc_round_long(1000, 0));
	CHECK(!lc_round_long(80, 40));
	CHECK(lc_round_long(81, 40));
}

/*
 * A hole at 121 stalls snd_una while SACKs deliver one segment a sample:
 * the round that began with snd_nxt 160 ends when segment 160, the first
 * sent after it began, is delivered, one round trip, not when the hole is
 * repaired nor after two windows; its successor shows the queue that built
 * meanwhile.
 */
static void test_round_over_by_sack(void)
{
	struct lc_path p = { 0 }, q;
	u32 rtt = 0, d = 0, i;

	CHECK(!rtt_sacked(&p, 41000, 121, 160, 0, d, &rtt));	/* begins */
	q = p;
	for (i = 1; i <= 39; i++)
		CHECK(!rtt_sacked(&p, i <= 5 ? 41000 : 80000, 121, 160 + i,
				  121 + i, d + i, &rtt));
	CHECK(!lc_path_queued(&p, 40000));
	CHECK(rtt_sacked(&p, 80000, 121, 200, 161, d + 40, &rtt));
	CHECK_CMP(rtt, ==, 41000);
	CHECK_CMP(p.delivered, ==, 40);
	CHECK_CMP(p.round_end, ==, 200);
	for (i = 1; i <= 39; i++)
		CHECK(!rtt_sacked(&p, 80000, 121, 200 + i, 161 + i,
				  d + 40 + i, &rtt));
	CHECK(rtt_sacked(&p, 80000, 121, 240, 201, d + 80, &rtt));
	CHECK_CMP(rtt, ==, 80000);
	CHECK(p.queued);
	/* without SACK the same ACKs end no round before two windows */
	for (i = 1; i <= 80; i++)
		CHECK(!rtt_sacked(&q, i <= 5 ? 41000 : 80000, 121, 160 + i, 0,
				  d + i, &rtt));
	CHECK(rtt_sacked(&q, 80000, 121, 241, 0, d + 81, &rtt));
	CHECK_CMP(rtt, ==, 41000);
	/* a segment sent before the round began ends nothing */
	q = (struct lc_path){ 0 };
	rtt_sacked(&q, 41000, 121, 160, 0, 0, &rtt);
	CHECK(!rtt_sacked(&q, 41000, 121, 170, 160, 5, &rtt));
	CHECK(rtt_sacked(&q, 41000, 121, 170, 161, 6, &rtt));
	/* across the sequence space's wrap */
	q = (struct lc_path){ 0 };
	rtt_sack(&q, 41000, 0xffffffd0U, 0xfffffff0U, false, 0, 0, &rtt);
	CHECK(!rtt_sack(&q, 41000, 0xffffffd0U, 0x10, true, 0xfffffff0U, 5,
			&rtt));
	CHECK(rtt_sack(&q, 41000, 0xffffffd0U, 0x10, true, 0x8, 6, &rtt));
}

static void test_classification(void)
{
	struct lc_input i;

	/* ECE: congestion in both modes */
	i = in(100, 100, true, true, false);
	CHECK_CMP(lc_congestion(&i, LC_SAFE), ==, LC_WHY_ECE);
	CHECK_CMP(lc_congestion(&i, LC_PAPER), ==, LC_WHY_ECE);
	/* no queue, window delivered: wireless */
	i = in(100, 99, false, false, false);
	CHECK_CMP(lc_congestion(&i, LC_SAFE), ==, LC_WHY_NONE);
	/* drop-tail overflow: a standing queue, no marks ever: congestion;
	 * the paper's classifier calls it wireless
	 */
	i = in(200, 198, false, false, true);
	CHECK_CMP(lc_congestion(&i, LC_SAFE), ==, LC_WHY_QUEUE);
	CHECK_CMP(lc_congestion(&i, LC_PAPER), ==, LC_WHY_NONE);
	/* the same queue while the path marks: the AQM owns it, wireless */
	i = in(150, 148, false, true, true);
	CHECK_CMP(lc_congestion(&i, LC_SAFE), ==, LC_WHY_NONE);
	/* unless it is over half the base RTT: a buffer the AQM does not
	 * control overflows (traffic that ignores its marks)
	 */
	i.overflow = true;
	CHECK_CMP(lc_congestion(&i, LC_SAFE), ==, LC_WHY_QUEUE);
	CHECK_CMP(lc_congestion(&i, LC_PAPER), ==, LC_WHY_NONE);
	/* a policer or a shallow buffer: no queue but half the window lost */
	i = in(200, 100, false, false, false);
	CHECK_CMP(lc_congestion(&i, LC_SAFE), ==, LC_WHY_EXCESS);
	i = in(200, 100, false, true, false);
	CHECK_CMP(lc_congestion(&i, LC_SAFE), ==, LC_WHY_EXCESS);
	CHECK_CMP(lc_congestion(&i, LC_PAPER), ==, LC_WHY_NONE);
	/* in slow start the window doubled since the last round was counted */
	i = in(200, 100, false, false, false);
	i.slow_start = true;
	CHECK_CMP(lc_congestion(&i, LC_SAFE), ==, LC_WHY_NONE);
	i.cwnd = 302;
	CHECK_CMP(lc_congestion(&i, LC_SAFE), ==, LC_WHY_EXCESS);
}

/* the increase in effect: the fair one only where flows compete for a queue */
static void test_ai_now(void)
{
	struct lc_path p = { 0 };

	CHECK_CMP(lc_ai_now(&p, 40000, 40), ==, LC_AI_ONE);
	p.queued = 1;
	CHECK_CMP(lc_ai_now(&p, 40000, 40), ==, 40);
	/* behind a marking gateway, which keeps its queue short: the marks */
	p.queued = 0;
	lc_path_ce(&p);
	CHECK_CMP(lc_ai_now(&p, 40000, 40), ==, 40);
	/* remembered as long as the classifier remembers them */
	p.ce_age = 100;
	CHECK_CMP(lc_ai_now(&p, 40000, 40), ==, 40);
	p.ce_age = LC_CE_ROUNDS;
	CHECK_CMP(lc_ai_now(&p, 40000, 40), ==, 40);
	CHECK(lc_path_marks(&p));
	/* after them, with no queue, the path has room: Reno's increase */
	p.ce_age = LC_CE_ROUNDS + 1;
	CHECK_CMP(lc_ai_now(&p, 40000, 40), ==, LC_AI_ONE);
	CHECK(!lc_path_marks(&p));
	p.ce_age = 0xff;	/* saturated: long ago */
	CHECK_CMP(lc_ai_now(&p, 40000, 40), ==, LC_AI_ONE);
	p.queued = 1;
	CHECK_CMP(lc_ai_now(&p, 40000, 40), ==, 40);
}

static void test_fair_increase(void)
{
	/* Reno's halving: alpha 1 */
	CHECK_CMP(lc_ai_gain(100, 50), ==, LC_AI_ONE);
	/* a response that kept 90 %: alpha 3 * 0.1 / 1.9 = 0.158 (40/256) */
	CHECK_CMP(lc_ai_gain(100, 90), ==, 40);
	/* deeper than halving: still one segment per RTT */
	CHECK_CMP(lc_ai_gain(100, 20), ==, LC_AI_ONE);
	/* no decrease: the minimum */
	CHECK_CMP(lc_ai_gain(100, 100), ==, LC_AI_MIN);
	CHECK_CMP(lc_ai_gain(100, 99), ==, LC_AI_MIN);
	CHECK_CMP(lc_ai_gain(0, 0), ==, LC_AI_MIN);
	/* the window for tcp_cong_avoid_ai(): cwnd / alpha */
	CHECK_CMP(lc_ai_window(100, LC_AI_ONE), ==, 100);
	CHECK_CMP(lc_ai_window(100, 40), ==, 640);
	CHECK_CMP(lc_ai_window(100, LC_AI_MIN), ==, 1600);
	CHECK_CMP(lc_ai_window(0x7fffffffU, LC_AI_MIN), ==, 0x7fffffffU);
}

/*
 * Two flows marked together (synchronised AIMD): one halves and adds one
 * segment per RTT, the other keeps beta of its window and adds
 * lc_ai_gain(); their average windows end up within 10 % of each other.
 */
static void test_synchronised_flows_share(void)
{
	double reno = 10, other = 100, sum_r = 0, sum_o = 0;
	double cap = 200;	/* marks when the windows exceed it */
	u32 ai = LC_AI_ONE;
	int rtt, n = 0;

	for (rtt = 0; rtt < 200000; rtt++) {
		if (reno + other > cap) {
			u32 before = (u32)other;
			/* keeps 90 %: a short queue against the BDP */
			u32 after = before * 9 / 10;

			reno /= 2;
			other = after;
			ai = lc_ai_gain(before, after);
		}
		reno += 1;
		other += (double)ai / LC_AI_ONE;
		if (rtt > 100000) {
			sum_r += reno;
			sum_o += other;
			n++;
		}
	}
	CHECK_NEAR(sum_o / n, sum_r / n, 0.1);
}

/*
 * Slow start, round by round (segment numbers as sequence numbers, one
 * segment of iperf3's cookie first): the rounds a lone flow makes, what
 * each counts, and how a loss is classified along them.
 */
static bool ss_ack(struct lc_path *p, u32 una, u32 nxt, u32 delivered,
		   u32 window, bool slow_start, bool limited)
{
	struct lc_ack a = { .una = una, .nxt = nxt, .delivered = delivered,
			    .min_rtt_us = 40000, .cwnd = window,
			    .slow_start = slow_start, .limited = limited };
	u32 min;

	return lc_path_rtt(p, 40000, &a, &min);
}

/*
 * A flow whose sawtooth is longer than 32 round trips (a window of 100,
 * marked at 100, keeping 90 %: alpha 0.158, 63 rounds a cycle) grows by
 * the fair increase through the whole cycle: the marks are remembered
 * longer than a cycle lasts.
 */
static void test_fair_increase_long_cycle(void)
{
	struct lc_path p = { 0 };
	u32 ai = lc_ai_gain(100, 90), grow = 0, w = 90, marks = 0, last = 0;
	u32 rnd, shortest = ~0U, nxt = 1 + w;

	ss_ack(&p, 1, nxt, 0, w, false, true);	/* the first round */
	for (rnd = 1; rnd < 2000; rnd++) {
		/* the flight acknowledged: the round ends, the next window goes */
		CHECK(ss_ack(&p, nxt, nxt + w, nxt, w, false, true));
		nxt += w;
		if (w >= 100) {
			lc_path_ce(&p);
			if (marks++)
				shortest = cc_min_u32(shortest, rnd - last);
			last = rnd;
			w = 90;
			grow = 0;
			continue;
		}
		/* one round: w segments acknowledged, one segment per ai window */
		grow += w;
		if (grow >= lc_ai_window(w, lc_ai_now(&p, 40000, ai))) {
			grow = 0;
			w++;
		}
	}
	CHECK(marks > 10);
	CHECK_CMP(shortest, >=, 60);
}

/* a loss at @cwnd when @delivered segments were delivered so far */
static u8 ss_loss(const struct lc_path *p, u32 cwnd, bool slow_start,
		  u32 delivered)
{
	struct lc_input i = {
		.cwnd = cwnd, .slow_start = slow_start,
		.round_ss = p->round_ss, .last_ss = p->last_ss,
		.round_delivered = lc_round_delivered(p, delivered),
		.delivered = lc_path_delivered(p),
	};

	return lc_congestion(&i, LC_SAFE);
}

static void test_slow_start_rounds(void)
{
	struct lc_path p = { 0 };

	/* the cookie's ACK starts a round that one segment limited */
	ss_ack(&p, 1, 1, 1, 1, true, false);
	/* the first ACK of the initial window (10) ends it: not counted */
	CHECK(ss_ack(&p, 3, 11, 3, 10, true, true));
	CHECK_CMP(p.delivered, ==, 0);
	/* a loss in the initial window: unknown, no excess (counted, the
	 * cookie's round would make it one: 5 > 2 + 2)
	 */
	CHECK_CMP(ss_loss(&p, 10, true, 5), ==, LC_WHY_NONE);
	/* that round ends: 10 delivered, the next begins with 20 */
	CHECK(ss_ack(&p, 11, 30, 13, 20, true, true));
	CHECK_CMP(p.delivered, ==, 10);
	/* late in it, 18 delivered, cwnd 38: half of cwnd (19) exceeds
	 * 10 + 5, but the round began with 20, twice what the last carried
	 */
	CHECK_CMP(ss_loss(&p, 38, true, 31), ==, LC_WHY_NONE);
	/* slow start ended in that round at a standing queue, cwnd 34: the
	 * next round compares half of it with the last round's 18
	 */
	CHECK(ss_ack(&p, 30, 64, 31, 34, false, true));
	CHECK_CMP(p.delivered, ==, 18);
	CHECK(!p.round_ss && p.last_ss);
	CHECK_CMP(ss_loss(&p, 34, false, 40), ==, LC_WHY_NONE);
	/* one round later, congestion avoidance: the whole window counts */
	CHECK(ss_ack(&p, 64, 98, 65, 34, false, true));
	CHECK_CMP(p.delivered, ==, 34);
	CHECK(!p.last_ss);
	CHECK_CMP(ss_loss(&p, 34, false, 70), ==, LC_WHY_NONE);
	CHECK_CMP(ss_loss(&p, 54, false, 70), ==, LC_WHY_EXCESS);
}

/*
 * A policer of 30 segments a round under slow start (held recoveries grow
 * the window by slow start too): the rounds deliver 30 while the window
 * each begins with grows; an excess once it is over three times that.
 */
static void test_slow_start_policer(void)
{
	struct lc_path p = { 0 };

	ss_ack(&p, 0, 40, 0, 40, true, true);
	CHECK(ss_ack(&p, 40, 110, 30, 70, true, true));
	CHECK_CMP(p.delivered, ==, 30);
	CHECK_CMP(ss_loss(&p, 70, true, 30), ==, LC_WHY_NONE);
	CHECK(ss_ack(&p, 110, 210, 60, 100, true, true));
	CHECK_CMP(p.delivered, ==, 30);
	CHECK_CMP(ss_loss(&p, 100, true, 60), ==, LC_WHY_EXCESS);
	CHECK_CMP(ss_loss(&p, 120, true, 80), ==, LC_WHY_EXCESS);
}

/* ss_ack() at which the receiver's window held data back (@rwnd) or not */
static bool rwnd_ack(struct lc_path *p, u32 una, u32 nxt, u32 delivered,
		     u32 window, bool rwnd)
{
	struct lc_ack a = { .una = una, .nxt = nxt, .delivered = delivered,
			    .min_rtt_us = 40000, .cwnd = window,
			    .slow_start = true, .limited = true,
			    .rwnd_limited = rwnd };
	u32 min;

	return lc_path_rtt(p, 40000, &a, &min);
}

/*
 * The same rounds of 30 segments as the policer's, but the receiver's
 * window held the data back (a receiver's window of 30 early in the
 * connection, or its right edge stalled at a hole): what they delivered
 * is unknown to the classifier, no excess, however far a held recovery's
 * slow start took the window; known again from the second round after
 * the receiver's window opened (the first delivers the flight it held
 * back).  The count goes on underneath: a round cut short after such
 * rounds falls from it by a quarter at most.
 */
static void test_slow_start_receiver_window(void)
{
	struct lc_path p = { 0 };

	rwnd_ack(&p, 0, 40, 0, 40, false);
	CHECK(rwnd_ack(&p, 40, 110, 30, 70, false));
	CHECK_CMP(lc_path_delivered(&p), ==, 30);
	/* held back within the round: it counts for nothing */
	CHECK(!rwnd_ack(&p, 50, 110, 40, 80, true));
	CHECK(rwnd_ack(&p, 110, 210, 60, 100, false));
	CHECK_CMP(lc_path_delivered(&p), ==, 0);
	CHECK_CMP(p.delivered, ==, 30);
	CHECK_CMP(ss_loss(&p, 100, true, 60), ==, LC_WHY_NONE);
	CHECK_CMP(ss_loss(&p, 120, true, 80), ==, LC_WHY_NONE);
	/* the round after one held back delivers what it held: unknown */
	CHECK(rwnd_ack(&p, 210, 330, 90, 120, false));
	CHECK_CMP(lc_path_delivered(&p), ==, 0);
	CHECK_CMP(ss_loss(&p, 150, true, 100), ==, LC_WHY_NONE);
	/* a round the receiver's window did not hold back counts again */
	CHECK(rwnd_ack(&p, 330, 450, 120, 120, false));
	CHECK_CMP(lc_path_delivered(&p), ==, 30);
	CHECK_CMP(ss_loss(&p, 150, true, 130), ==, LC_WHY_EXCESS);
	/* held again, then a round cut short (3): 30 less a quarter, 23 */
	CHECK(!rwnd_ack(&p, 340, 450, 125, 120, true));
	CHECK(rwnd_ack(&p, 450, 560, 150, 120, false));
	CHECK_CMP(lc_path_delivered(&p), ==, 0);
	CHECK(rwnd_ack(&p, 560, 600, 180, 120, false));
	CHECK(rwnd_ack(&p, 600, 640, 183, 120, false));
	CHECK_CMP(lc_path_delivered(&p), ==, 23);
}

/*
 * the round under way on a 40 ms path ends, @n delivered in it, its minimum
 * RTT @rtt; the next begins with @n in flight
 */
static void shallow_round(struct lc_path *p, u32 rtt, u32 *una, u32 *del,
			  u32 n)
{
	struct lc_ack a = { .min_rtt_us = 40000, .cwnd = n, .limited = true };
	u32 min;

	*una += n;
	*del += n;
	a.una = *una;
	a.nxt = *una + n;
	a.delivered = *del;
	p->round_min = rtt;
	CHECK(lc_path_rtt(p, rtt, &a, &min));
	CHECK_CMP(min, ==, rtt);
}

/* a loss at @cwnd on @p as cc_lc_input() sees it, @slow_start: cwnd < ssthresh */
static u8 glue_loss(const struct lc_path *p, u32 cwnd, bool slow_start,
		    bool marks)
{
	struct lc_input i = {
		.cwnd = cwnd, .slow_start = slow_start,
		.round_ss = p->round_ss, .last_ss = p->last_ss,
		.delivered = lc_path_delivered(p), .marks = marks,
		.queued = lc_path_queue_stands(p, 40000),
		.overflow = lc_path_overflow_stands(p, 40000),
		.limited = p->round_limited,
		.queue_round = lc_path_queued(p, 40000),
		.overflow_round = lc_path_overflow(p, 40000),
		.full = p->full,
	};

	return lc_congestion(&i, LC_SAFE);
}

/* a loss at @cwnd on that path in congestion avoidance */
static u8 shallow_loss(const struct lc_path *p, u32 cwnd, bool marks)
{
	return glue_loss(p, cwnd, false, marks);
}

/*
 * A drop-tail buffer of 7 packets (4.2 ms at 20 Mb/s) on a 40 ms path of
 * 73 segments: the path carries 80 a round, and its queue never reaches
 * the standing-queue threshold (5 ms).  The window excess finds the first
 * overflow; after it a loss at the window that overflowed is the buffer
 * full again; below it a loss is judged as before, and a round that
 * delivers more says the path carries more.
 */
static void test_shallow_buffer(void)
{
	struct lc_path p = { 0 };
	struct lc_ack a = { .una = 1, .nxt = 81, .min_rtt_us = 40000,
			    .limited = true };
	u32 una = 1, del = 0, min;

	CHECK(!lc_path_rtt(&p, 44200, &a, &min));	/* the first round */
	shallow_round(&p, 44200, &una, &del, 80);
	CHECK(!lc_path_queued(&p, 40000));
	CHECK_CMP(p.delivered, ==, 80);
	/* never overflowed: the queue is too short to tell, held */
	CHECK_CMP(shallow_loss(&p, 100, false), ==, LC_WHY_NONE);
	CHECK_CMP(lc_ai_now(&p, 40000, 40), ==, LC_AI_ONE);
	/* the window outgrew the path: an excess; 80 is remembered */
	CHECK_CMP(shallow_loss(&p, 130, false), ==, LC_WHY_EXCESS);
	lc_path_overflowed(&p, LC_WHY_EXCESS, 40000);
	CHECK_CMP(p.full, ==, 80);
	/* from now on a loss a sixteenth past 80 is the buffer full again */
	CHECK_CMP(shallow_loss(&p, 85, false), ==, LC_WHY_FULL);
	CHECK_CMP(shallow_loss(&p, 84, false), ==, LC_WHY_NONE);
	CHECK_CMP(shallow_loss(&p, 80, false), ==, LC_WHY_NONE);
	/* but a path that marks tells congestion by CE */
	CHECK_CMP(shallow_loss(&p, 85, true), ==, LC_WHY_NONE);
	/* flows compete for such a buffer: the fair increase applies */
	CHECK_CMP(lc_ai_now(&p, 40000, 40), ==, 40);
	/* a response to it does not lower what the path carries (at a
	 * random loss rate the round before counts less than the window)
	 */
	p.delivered = 70;
	lc_path_overflowed(&p, LC_WHY_FULL, 40000);
	CHECK_CMP(p.full, ==, 80);
	/* a round that delivers more raises it */
	shallow_round(&p, 40400, &una, &del, 80);
	CHECK_CMP(p.full, ==, 80);
	shallow_round(&p, 40400, &una, &del, 86);
	CHECK_CMP(p.full, ==, 86);
	/* and again: the rounds know nothing of loss recoveries, so one with
	 * a recovery in it raises it too (at 5 % PER nearly every round has
	 * one: a window remembered early must not hold the flow)
	 */
	shallow_round(&p, 40400, &una, &del, 100);
	CHECK_CMP(p.full, ==, 100);
	CHECK_CMP(shallow_loss(&p, 105, false), ==, LC_WHY_NONE);
	CHECK_CMP(shallow_loss(&p, 106, false), ==, LC_WHY_FULL);
	/* a new excess without a queue remembers anew */
	p.delivered = 60;
	lc_path_overflowed(&p, LC_WHY_EXCESS, 40000);
	CHECK_CMP(p.full, ==, 60);
	/* but not a round too small to say what the path carries */
	p.delivered = LC_SS_LOW_WINDOW - 1;
	lc_path_overflowed(&p, LC_WHY_EXCESS, 40000);
	CHECK_CMP(p.full, ==, 60);
	p.full = 0;
	lc_path_overflowed(&p, LC_WHY_EXCESS, 40000);
	CHECK_CMP(p.full, ==, 0);
	p.delivered = LC_SS_LOW_WINDOW;
	lc_path_overflowed(&p, LC_WHY_EXCESS, 40000);
	CHECK_CMP(p.full, ==, LC_SS_LOW_WINDOW);
}

/*
 * A remembered window too low (an excess late in slow start at 5 % PER,
 * when the round before had delivered 47 of a path's 133): a window cut
 * whenever it reached 47 never delivered more, and held the flow at a
 * third of the path.  Past it by a sixteenth (at least two segments), the
 * rounds in between deliver more and raise it; a buffer that is full
 * delivers no more, and the window that passes it is answered.
 */
static void test_full_too_low(void)
{
	struct lc_path p = { .full = 47, .delivered = 40 };
	u32 una = 1, del = 0, w, min;

	/* the first round's minimum starts the rounds */
	CHECK(!rtt_at(&p, 40400, 1, 41, 40000, 0, &min));
	CHECK_CMP(shallow_loss(&p, 47, false), ==, LC_WHY_NONE);
	CHECK_CMP(shallow_loss(&p, 48, false), ==, LC_WHY_NONE);
	CHECK_CMP(shallow_loss(&p, 49, false), ==, LC_WHY_FULL);
	/* the path carries more: each round delivers its window, held */
	for (w = 48; w < 133; w++) {
		shallow_round(&p, 40400, &una, &del, w);
		CHECK_CMP(shallow_loss(&p, w + 1, false), ==, LC_WHY_NONE);
	}
	CHECK_CMP(p.full, ==, 132);
	/* the buffer full: rounds of 133, the window grows past 133 + 8 */
	shallow_round(&p, 40400, &una, &del, 133);
	shallow_round(&p, 40400, &una, &del, 133);
	CHECK_CMP(shallow_loss(&p, 140, false), ==, LC_WHY_NONE);
	CHECK_CMP(shallow_loss(&p, 141, false), ==, LC_WHY_FULL);
	/* a small one: two segments at least */
	p.full = LC_SS_LOW_WINDOW;
	CHECK_CMP(shallow_loss(&p, LC_SS_LOW_WINDOW + 1, false), ==,
		  LC_WHY_NONE);
	CHECK_CMP(shallow_loss(&p, LC_SS_LOW_WINDOW + 2, false), ==,
		  LC_WHY_FULL);
}

/*
 * Slow start fills a buffer in a round or two: a loss in a window-limited
 * slow start, or in the round after it, is the queue's after one round of
 * it (the one that ends slow start), where congestion avoidance waits for
 * LC_QUEUE_ROUNDS.  Behind one BDP of drop-tail the first loss of a lone
 * flow came so, 14-40 ms above the path's 40 ms, after no earlier round
 * of queue.
 */
static void test_slow_start_queue(void)
{
	struct lc_path p = { 0 };
	u32 una = 0, rtt, k;

	rtt_at(&p, 40000, 0, 100, 40000, 0, &rtt);
	una = round_of(&p, una, 40500, 3000, 40100);
	p.round_ss = 1;		/* the round under way began in slow start */
	p.round_limited = 1;	/* ... with the window full */
	una = round_of(&p, una, 60000, 3000, 58000);
	CHECK_CMP(p.queued, ==, 1);
	p.round_ss = 1;
	p.last_ss = 1;
	p.round_limited = 1;
	CHECK(!lc_path_queue_stands(&p, 40000));
	/* in slow start: the queue's */
	CHECK_CMP(glue_loss(&p, 150, true, false), ==, LC_WHY_QUEUE);
	/* slow start just ended (HyStart's exit): still */
	CHECK_CMP(glue_loss(&p, 150, false, false), ==, LC_WHY_QUEUE);
	p.round_ss = 0;
	CHECK_CMP(glue_loss(&p, 150, false, false), ==, LC_WHY_QUEUE);
	/* congestion avoidance: LC_QUEUE_ROUNDS rounds of it first */
	p.last_ss = 0;
	CHECK_CMP(glue_loss(&p, 150, false, false), ==, LC_WHY_NONE);
	/* a flight the window did not limit (the receiver's, the
	 * application's): the delay is the path's own
	 */
	p.round_ss = 1;
	p.round_limited = 0;
	CHECK_CMP(glue_loss(&p, 150, true, false), ==, LC_WHY_NONE);
	/* a window too small to tell a burst from a queue */
	p.round_limited = 1;
	CHECK_CMP(glue_loss(&p, LC_SS_LOW_WINDOW - 1, true, false), ==,
		  LC_WHY_NONE);
	CHECK_CMP(glue_loss(&p, LC_SS_LOW_WINDOW, true, false), ==,
		  LC_WHY_QUEUE);
	/* a path that marks: only a queue above half its base RTT */
	CHECK_CMP(glue_loss(&p, 150, true, true), ==, LC_WHY_NONE);
	una = round_of(&p, una, 70000, 3000, 62000);
	p.round_ss = 1;
	p.round_limited = 1;
	CHECK_CMP(glue_loss(&p, 150, true, true), ==, LC_WHY_QUEUE);
	/* the round under way counts once it has LC_ROUND_SAMPLES samples */
	una = round_of(&p, una, 58000, 3000, 40100);
	CHECK_CMP(p.queued, ==, 0);
	p.round_ss = 1;
	p.round_limited = 1;
	CHECK_CMP(glue_loss(&p, 150, true, false), ==, LC_WHY_NONE);
	for (k = 0; k < LC_ROUND_SAMPLES; k++) {
		CHECK_CMP(glue_loss(&p, 150, true, false), ==, LC_WHY_NONE);
		rtt_at(&p, 58000, una + k, una + 100, 40000, 0, &rtt);
	}
	CHECK_CMP(glue_loss(&p, 150, true, false), ==, LC_WHY_QUEUE);
	/* the paper's mode knows none of it */
	{
		struct lc_input i = { .cwnd = 150, .slow_start = true,
				      .round_ss = true, .limited = true,
				      .queue_round = true };

		CHECK_CMP(lc_congestion(&i, LC_PAPER), ==, LC_WHY_NONE);
		CHECK_CMP(lc_congestion(&i, LC_SAFE), ==, LC_WHY_QUEUE);
	}
}

/*
 * Only an excess without a standing queue says the buffer is shallow: a
 * deep buffer's overflow is the queue rule's; nor does any other reason.
 */
static void test_deep_buffer_excess(void)
{
	struct lc_path p = { 0 };
	struct lc_ack a = { .una = 1, .nxt = 81, .min_rtt_us = 40000,
			    .limited = true };
	u32 una = 1, del = 0, min;

	CHECK(!lc_path_rtt(&p, 50000, &a, &min));
	shallow_round(&p, 50000, &una, &del, 80);
	CHECK(lc_path_queued(&p, 40000));
	CHECK_CMP(shallow_loss(&p, 130, false), ==, LC_WHY_EXCESS);
	lc_path_overflowed(&p, LC_WHY_EXCESS, 40000);
	CHECK_CMP(p.full, ==, 0);
	shallow_round(&p, 42000, &una, &del, 80);
	CHECK_CMP(shallow_loss(&p, 80, false), ==, LC_WHY_NONE);
	lc_path_overflowed(&p, LC_WHY_QUEUE, 40000);
	lc_path_overflowed(&p, LC_WHY_ECE, 40000);
	lc_path_overflowed(&p, LC_WHY_NONE, 40000);
	CHECK_CMP(p.full, ==, 0);
	/* and a round that delivers much raises nothing unknown */
	shallow_round(&p, 42000, &una, &del, 120);
	CHECK_CMP(p.full, ==, 0);
}

/*
 * A loss is the queue's only after LC_QUEUE_ROUNDS rounds in a row showed
 * it: a path's own delay rises for a round or three (at 5 % PER a lone flow
 * below the BDP saw runs of 1-3), a drop-tail buffer fills over many.
 */
static void test_queue_stands(void)
{
	struct lc_path p = { 0 };
	u32 una = 0, rtt, k;

	rtt_at(&p, 40000, 0, 100, 40000, 0, &rtt);	/* starts round 1 */
	una = round_of(&p, una, 41000, 3000, 40500);
	CHECK(!lc_path_queue_stands(&p, 40000));
	/* three rounds 6-18 ms up: queued, but it does not stand */
	una = round_of(&p, una, 46500, 3000, 46100);
	una = round_of(&p, una, 58500, 3000, 58100);
	una = round_of(&p, una, 47000, 3000, 46600);
	CHECK_CMP(p.queued, ==, 3);
	CHECK(lc_path_queued(&p, 40000));
	CHECK(!lc_path_queue_stands(&p, 40000));
	/* the classifier holds a loss then, as the modules ask it */
	CHECK_CMP(shallow_loss(&p, 60, false), ==, LC_WHY_NONE);
	/* and the slow-start exit and the fair increase still see it */
	CHECK(lc_slow_start_over(&p, 40000, LC_SS_LOW_WINDOW));
	CHECK_CMP(lc_ai_now(&p, 40000, 40), ==, 40);
	/* a fourth: it stands */
	una = round_of(&p, una, 47000, 3000, 46600);
	CHECK_CMP(p.queued, ==, LC_QUEUE_ROUNDS);
	CHECK(lc_path_queue_stands(&p, 40000));
	CHECK_CMP(shallow_loss(&p, 60, false), ==, LC_WHY_QUEUE);
	/* this round's minimum, once it counts, can end the run already */
	for (k = 0; k < LC_ROUND_SAMPLES; k++)
		rtt_at(&p, 40500, una + k, una + 100, 40000, 0, &rtt);
	CHECK_CMP(p.queued, ==, LC_QUEUE_ROUNDS);
	CHECK(!lc_path_queue_stands(&p, 40000));
	/* one round without ends the run */
	una = round_of(&p, una, 41000, 3000, 40500);
	CHECK_CMP(p.queued, ==, 0);
	CHECK(!lc_path_queue_stands(&p, 40000));
	/* the round under way counts once it has LC_ROUND_SAMPLES samples */
	for (k = 0; k < LC_QUEUE_ROUNDS - 1; k++)
		una = round_of(&p, una, 47000, 3000, 46600);
	CHECK(!lc_path_queue_stands(&p, 40000));
	for (k = 0; k < LC_ROUND_SAMPLES - 1; k++)
		rtt_at(&p, 47000, una + k, una + 100, 40000, 0, &rtt);
	CHECK(!lc_path_queue_stands(&p, 40000));
	rtt_at(&p, 47000, una + k, una + 100, 40000, 0, &rtt);
	CHECK(lc_path_queue_stands(&p, 40000));
	/* and ends the run when its minimum shows none */
	rtt_at(&p, 40500, una + k + 1, una + 100, 40000, 0, &rtt);
	CHECK(!lc_path_queue_stands(&p, 40000));
	/* the count saturates */
	p.queued = 0xff;
	CHECK_CMP(lc_rounds_in_a_row(p.queued, true), ==, 0xff);
	CHECK_CMP(lc_rounds_in_a_row(p.queued, false), ==, 0);
}

/*
 * On a path under 8 ms, whose queue threshold is half its own minimum RTT,
 * a standing queue stands after LC_SHORT_QUEUE_ROUNDS rounds (one), the
 * round under way counting after LC_SHORT_ROUND_SAMPLES samples: a
 * drop-tail buffer of one BDP (7 packets, 4.2 ms, on a 20 Mb/s, 4 ms path
 * of 4.8 ms minimum RTT) holds only a few packets above it, and a round of
 * a window of 16 brings 8 ACKs.  The same rounds on a 40 ms path stand
 * after 4; the overflow threshold of a path that marks keeps its 4.
 */
static void test_short_path_queue_rounds(void)
{
	struct lc_path p = { 0 };
	u32 rtt, i;

	CHECK_CMP(lc_queue_rounds(4800), ==, LC_SHORT_QUEUE_ROUNDS);
	CHECK_CMP(lc_queue_rounds(7999), ==, LC_SHORT_QUEUE_ROUNDS);
	CHECK_CMP(lc_queue_rounds(8000), ==, LC_QUEUE_ROUNDS);
	CHECK_CMP(lc_queue_rounds(40000), ==, LC_QUEUE_ROUNDS);
	CHECK_CMP(LC_SHORT_QUEUE_ROUNDS, <, LC_QUEUE_ROUNDS);
	CHECK_CMP(LC_SHORT_ROUND_SAMPLES, <, LC_ROUND_SAMPLES);
	/* a round 3.6 ms up: above 2.4 ms, half of 4.8 ms */
	rtt_at(&p, 8400, 0, 16, 4800, 0, &rtt);	/* starts round 1 */
	for (i = 1; i < LC_SHORT_ROUND_SAMPLES - 1; i++)
		rtt_at(&p, 8400 + 100 * i, i, 16, 4800, 0, &rtt);
	CHECK(!lc_path_queue_stands(&p, 4800));	/* 3 samples: not yet */
	rtt_at(&p, 8400 + 100 * i, i, 16, 4800, 0, &rtt);
	CHECK(lc_path_queue_stands(&p, 4800));	/* 4: the round counts */
	CHECK(!lc_path_queue_stands(&p, 40000));
	CHECK(rtt_at(&p, 8600, 16, 32, 4800, 0, &rtt));
	CHECK_CMP(p.queued, ==, 1);
	CHECK(lc_path_queue_stands(&p, 4800));
	/* not on a 40 ms path, nor as an overflow run (below 4 ms) */
	CHECK(!lc_path_queue_stands(&p, 40000));
	CHECK_CMP(p.overflow, ==, 0);
	/* the round under way ends it once it has 4 samples of no queue */
	for (i = 0; i < LC_SHORT_ROUND_SAMPLES - 1; i++)
		rtt_at(&p, 5000, 16 + i, 32, 4800, 0, &rtt);
	CHECK(lc_path_queue_stands(&p, 4800));
	rtt_at(&p, 5000, 16 + i, 32, 4800, 0, &rtt);
	CHECK(!lc_path_queue_stands(&p, 4800));
	/* and a round of none: a queue again after 4 samples of one */
	CHECK(rtt_at(&p, 5000, 32, 48, 4800, 0, &rtt));
	CHECK_CMP(p.queued, ==, 0);
	for (i = 0; i < LC_SHORT_ROUND_SAMPLES - 1; i++)
		rtt_at(&p, 8400, 32 + i, 48, 4800, 0, &rtt);
	CHECK(!lc_path_queue_stands(&p, 4800));
	rtt_at(&p, 8400, 32 + i, 48, 4800, 0, &rtt);
	CHECK(lc_path_queue_stands(&p, 4800));
	CHECK(!lc_path_queue_stands(&p, 40000));
	/* a path that marks: LC_QUEUE_ROUNDS rounds above 4 ms */
	p.overflow = LC_QUEUE_ROUNDS - 1;
	p.samples = 0;
	CHECK(!lc_path_overflow_stands(&p, 4800));
	p.overflow = LC_QUEUE_ROUNDS;
	CHECK(lc_path_overflow_stands(&p, 4800));
}

/* the same for the overflow threshold of a path that marks */
static void test_overflow_stands(void)
{
	struct lc_path p = { 0 };
	u32 una = 0, rtt, k;

	rtt_at(&p, 40000, 0, 100, 40000, 0, &rtt);	/* starts round 1 */
	una = round_of(&p, una, 41000, 2000, 40500);
	for (k = 0; k < LC_QUEUE_ROUNDS - 1; k++)
		una = round_of(&p, una, 80500, 2000, 80100);
	CHECK(lc_path_overflow(&p, 40000));
	CHECK(!lc_path_overflow_stands(&p, 40000));
	CHECK_CMP(shallow_loss(&p, 60, true), ==, LC_WHY_NONE);
	una = round_of(&p, una, 80500, 2000, 80100);
	CHECK(lc_path_overflow_stands(&p, 40000));
	CHECK_CMP(shallow_loss(&p, 60, true), ==, LC_WHY_QUEUE);
	/* a round above the standing threshold only: no overflow run */
	una = round_of(&p, una, 53500, 2000, 53100);
	CHECK_CMP(p.overflow, ==, 0);
	CHECK_CMP(p.queued, ==, LC_QUEUE_ROUNDS + 1);
}

int main(void)
{
	RUN(test_standing_queue);
	RUN(test_round_minimum);
	RUN(test_queued_by_round_minimum);
	RUN(test_overflow_queue);
	RUN(test_ce_age);
	RUN(test_drain_window);
	RUN(test_queue_delay);
	RUN(test_window_excess);
	RUN(test_round_delivered);
	RUN(test_long_round);
	RUN(test_round_over_by_sack);
	RUN(test_classification);
	RUN(test_slow_start_rounds);
	RUN(test_slow_start_policer);
	RUN(test_slow_start_receiver_window);
	RUN(test_shallow_buffer);
	RUN(test_full_too_low);
	RUN(test_slow_start_queue);
	RUN(test_deep_buffer_excess);
	RUN(test_queue_stands);
	RUN(test_overflow_stands);
	RUN(test_short_path_queue_rounds);
	RUN(test_ai_now);
	RUN(test_fair_increase);
	RUN(test_fair_increase_long_cycle);
	RUN(test_synchronised_flows_share);
	return check_summary();
}
