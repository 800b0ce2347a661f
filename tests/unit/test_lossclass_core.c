// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of kmod/lossclass_core.h: the safe loss classifier of jersey
 * and diffc and the fair additive increase after a congestion response.
 */
#include "check.h"
#include "lossclass_core.h"

static struct lc_input in(u32 srtt, u32 min_rtt, u32 cwnd, u32 bdp, bool ece,
			  bool marks)
{
	struct lc_input i = {
		.srtt_us = srtt, .min_rtt_us = min_rtt, .cwnd = cwnd,
		.bdp = bdp << LC_BDP_SHIFT, .ece = ece, .marks = marks,
	};

	return i;
}

static void test_standing_queue(void)
{
	/* 40 ms base: the threshold is 5 ms */
	CHECK(!lc_standing_queue(44000, 40000));
	CHECK(!lc_standing_queue(45000, 40000));
	CHECK(lc_standing_queue(45001, 40000));
	/* a full drop-tail buffer of one BDP doubles the RTT */
	CHECK(lc_standing_queue(80000, 40000));
	/* short paths: at least 1 ms of queue */
	CHECK(!lc_standing_queue(1900, 1000));
	CHECK(lc_standing_queue(2100, 1000));
	/* no minimum yet, or an RTT below it: no queue */
	CHECK(!lc_standing_queue(80000, 0));
	CHECK(!lc_standing_queue(30000, 40000));
}

#define Q(segments) ((u32)(segments) << LC_BDP_SHIFT)

static void test_window_excess(void)
{
	/*
	 * A slow path: 1.7 segments per 8.5 ms minimum RTT (200 segments/s),
	 * srtt 300 ms: it holds 60.  Taken as 1 segment it would hold 35 and
	 * a 60-segment window would look like a shallow buffer's excess.
	 */
	CHECK(!lc_window_excess(60, (u32)(1.7 * (1 << LC_BDP_SHIFT)), 300000, 8500));
	CHECK(lc_window_excess(60, Q(1), 300000, 8500));

	/* no queue (srtt = min_rtt): over 3/2 of the delivered BDP */
	CHECK(!lc_window_excess(100, Q(0), 40000, 40000));	/* unknown */
	CHECK(!lc_window_excess(100, Q(100), 40000, 0));
	CHECK(!lc_window_excess(100, Q(100), 40000, 40000));
	CHECK(!lc_window_excess(150, Q(100), 40000, 40000));
	CHECK(lc_window_excess(151, Q(100), 40000, 40000));
	CHECK(!lc_window_excess(6, Q(4), 40000, 40000));	/* at least 2 over */
	CHECK(lc_window_excess(7, Q(4), 40000, 40000));
	CHECK(!lc_window_excess(80, Q(100), 40000, 40000));
	/* a standing queue explains the window: RTT 1.5x, cwnd 1.5x BDP */
	CHECK(!lc_window_excess(150, Q(100), 60000, 40000));
	CHECK(!lc_window_excess(225, Q(100), 60000, 40000));
	CHECK(lc_window_excess(226, Q(100), 60000, 40000));
}

static void test_classification(void)
{
	struct lc_input i;

	/* ECE: congestion in both modes */
	i = in(40000, 40000, 100, 100, true, true);
	CHECK(lc_congestion(&i, LC_SAFE));
	CHECK(lc_congestion(&i, LC_PAPER));
	/* no queue, window delivered: wireless */
	i = in(41000, 40000, 100, 99, false, false);
	CHECK(!lc_congestion(&i, LC_SAFE));
	/* drop-tail overflow: RTT doubled, no marks ever: congestion; the
	 * paper's classifier calls it wireless
	 */
	i = in(80000, 40000, 200, 100, false, false);
	CHECK(lc_congestion(&i, LC_SAFE));
	CHECK(!lc_congestion(&i, LC_PAPER));
	/* the same queue while the path marks: the AQM owns it, wireless */
	i = in(60000, 40000, 150, 100, false, true);
	CHECK(!lc_congestion(&i, LC_SAFE));
	/* a policer or a shallow buffer: no queue but half the window lost */
	i = in(40500, 40000, 200, 100, false, false);
	CHECK(lc_congestion(&i, LC_SAFE));
	i = in(40500, 40000, 200, 100, false, true);
	CHECK(lc_congestion(&i, LC_SAFE));
	CHECK(!lc_congestion(&i, LC_PAPER));
}

static void test_recent(void)
{
	/* 32 RTTs of 20 ms: 640 ms */
	CHECK(lc_recent(1000, 400, 20000, LC_CE_RTTS));
	CHECK(!lc_recent(1100, 400, 20000, LC_CE_RTTS));
	/* RTTs below 1 ms count as 1 ms */
	CHECK(lc_recent(30, 0, 100, LC_CE_RTTS));
	CHECK(!lc_recent(33, 0, 100, LC_CE_RTTS));
	/* a stamp in the future: not recent */
	CHECK(!lc_recent(1000, 2000, 20000, LC_CE_RTTS));
	/* across the wrap of the millisecond counter */
	CHECK(lc_recent(100, 0xffffff00U, 20000, LC_CE_RTTS));
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

int main(void)
{
	RUN(test_standing_queue);
	RUN(test_window_excess);
	RUN(test_classification);
	RUN(test_recent);
	RUN(test_fair_increase);
	RUN(test_synchronised_flows_share);
	return check_summary();
}
