// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of kmod/newrenolp_core.h: the Vegas loss predictor (V, its
 * hysteresis, rtt_min, edge cases) and NewReno-LP's reactions.
 */
#include "check.h"
#include "newrenolp_core.h"
#include "lossclass_core.h"

static void test_v_value(void)
{
	/* V = cwnd (rtt - rtt_min) / rtt: 20 * (120 - 100) / 120 = 3.333 */
	CHECK_CMP(nrlp_v_milli(20, 120000, 100000), ==, 3333);
	CHECK_CMP(nrlp_v_milli(100, 200000, 100000), ==, 50000);
	/* zero RTT delta, rtt below rtt_min, zero rtt: V = 0 */
	CHECK_CMP(nrlp_v_milli(50, 100000, 100000), ==, 0);
	CHECK_CMP(nrlp_v_milli(50, 90000, 100000), ==, 0);
	CHECK_CMP(nrlp_v_milli(50, 0, 100000), ==, 0);
	/* saturates instead of wrapping */
	CHECK_CMP(nrlp_v_milli(0xffffffffU, 1U << 27, 1), ==, NRLP_V_MAX);
}

static void test_hysteresis(void)
{
	struct nrlp_pred p = { 0 };

	/* first sample sets rtt_min: V = 0, not congested */
	CHECK(!nrlp_sample(&p, 100000, 30, 1, 3));
	CHECK_CMP(p.rtt_min, ==, 100000);
	/* V = 30 * 5/105 = 1.43: between alpha and beta, state kept (0) */
	CHECK(!nrlp_sample(&p, 105000, 30, 1, 3));
	CHECK_CMP(p.v_milli, ==, 1428);
	/* V = 30 * 12/112 = 3.21 >= beta: congested */
	CHECK(nrlp_sample(&p, 112000, 30, 1, 3));
	/* back in between: still congested */
	CHECK(nrlp_sample(&p, 105000, 30, 1, 3));
	CHECK(nrlp_sample(&p, 110000, 30, 1, 3));	/* V = 2.73 */
	/* V = 1 exactly (alpha, inclusive): not congested */
	CHECK(!nrlp_sample(&p, 150000, 3, 1, 3));	/* 3 * 50/150 = 1 */
	/* V = 3 exactly (beta, inclusive): congested */
	CHECK(nrlp_sample(&p, 150000, 9, 1, 3));	/* 9 * 50/150 = 3 */
	/* just below beta from below: stays not congested */
	p.congested = 0;
	CHECK(!nrlp_sample(&p, 150000, 8, 1, 3));	/* 2.67 */
}

static void test_rtt_min_and_edges(void)
{
	struct nrlp_pred p = { 0 };

	CHECK(!nrlp_sample(&p, 0, 10, 1, 3));	/* ignored */
	CHECK_CMP(p.rtt_min, ==, 0);
	nrlp_sample(&p, 50000, 10, 1, 3);
	nrlp_sample(&p, 200000, 10, 1, 3);	/* V = 7.5: congested */
	CHECK(p.congested);
	/* a lower RTT lowers rtt_min first: V = 0, not congested */
	CHECK(!nrlp_sample(&p, 40000, 10, 1, 3));
	CHECK_CMP(p.rtt_min, ==, 40000);
	CHECK_CMP(p.v_milli, ==, 0);
	/* huge RTTs are clamped, no overflow in the comparison */
	CHECK(nrlp_sample(&p, 0xffffffffU, 0xffffffffU, 1, 3));
	CHECK_CMP(p.rtt, ==, NRLP_RTT_MAX_US);
	/* other thresholds */
	p = (struct nrlp_pred){ 0 };
	nrlp_sample(&p, 100000, 10, 2, 6);
	CHECK(!nrlp_sample(&p, 150000, 12, 2, 6));	/* V = 4 */
	CHECK(nrlp_sample(&p, 150000, 18, 2, 6));	/* V = 6 */
	CHECK(nrlp_thresholds_ok(1, 3));
	CHECK(nrlp_thresholds_ok(0, 1));
	CHECK(!nrlp_thresholds_ok(3, 3));
	CHECK(!nrlp_thresholds_ok(4, 3));
	CHECK(!nrlp_thresholds_ok(1, NRLP_THRESH_MAX + 1));
}

/* a queue that fills up raises V past beta before it overflows */
static void test_queue_buildup_predicts_congestion(void)
{
	struct nrlp_pred p = { 0 };
	/* 10 Mb/s, 100 ms base RTT: BDP 83 packets, queue 83 packets */
	const double pkt_us = 1500 * 8 / 10.0;
	u32 cwnd;
	int first_congested = -1;

	for (cwnd = 10; cwnd <= 166; cwnd++) {
		double q = cwnd > 83 ? cwnd - 83 : 0;
		u32 rtt = (u32)(100000 + q * pkt_us);

		if (nrlp_sample(&p, rtt, cwnd, 1, 3) && first_congested < 0)
			first_congested = (int)cwnd;
	}
	/*
	 * V = q * cwnd / (83.3 + q) with q = cwnd - 83 packets queued, just
	 * below q: 2.99 at q = 3, so congested from the 4th queued packet
	 */
	CHECK_CMP(first_congested, ==, 87);
	CHECK(p.congested);
}

/* rtt=min: one classification per round with the round's minimum */
static void test_round_minimum(void)
{
	struct lc_path r = { 0 };
	struct nrlp_pred p = { 0 };
	struct lc_ack a;
	u32 rtt = 0;

	/*
	 * a 40 ms delayed-ACK sample latches "congested" with the latest-RTT
	 * predictor but not through the round minimum (lc_path_rtt(), tested
	 * with the loss classifier)
	 */
	nrlp_sample(&p, 100000, 40, 1, 3);
	CHECK(nrlp_sample(&p, 140000, 40, 1, 3));
	CHECK(nrlp_sample(&p, 103000, 40, 1, 3));	/* V = 1.17: latched */
	p = (struct nrlp_pred){ 0 };
	nrlp_sample(&p, 100000, 40, 1, 3);
	a = (struct lc_ack){ .una = 0, .nxt = 100, .min_rtt_us = 100000 };
	lc_path_rtt(&r, 101000, &a, &rtt);
	a.una = 50;
	a.nxt = 150;
	lc_path_rtt(&r, 140000, &a, &rtt);
	a.una = 100;
	a.nxt = 200;
	CHECK(lc_path_rtt(&r, 102000, &a, &rtt));
	CHECK(!nrlp_sample(&p, rtt, 40, 1, 3));
}

static void test_decisions(void)
{
	struct nrlp_decision d;

	/* congestion: NewReno, flight / 2 */
	nrlp_decide(&d, CC_EV_DUPACK, true, 40, 40);
	CHECK_CMP(d.cause, ==, NRLP_CAUSE_CONGESTION);
	CHECK_CMP(d.ssthresh, ==, 20);
	CHECK_CMP(d.cwnd, ==, 20);
	/* wireless: ssthresh = flight, cwnd ends at ssthresh */
	nrlp_decide(&d, CC_EV_DUPACK, false, 40, 38);
	CHECK_CMP(d.cause, ==, NRLP_CAUSE_WIRELESS);
	CHECK_CMP(d.ssthresh, ==, 38);
	CHECK_CMP(d.cwnd, ==, 38);
	/* RTO: cwnd 1 whatever the class */
	nrlp_decide(&d, CC_EV_RTO, false, 40, 40);
	CHECK_CMP(d.cwnd, ==, 1);
	CHECK_CMP(d.ssthresh, ==, 40);
	nrlp_decide(&d, CC_EV_RTO, true, 40, 40);
	CHECK_CMP(d.cwnd, ==, 1);
	CHECK_CMP(d.ssthresh, ==, 20);
	/* ECE: halve cwnd */
	nrlp_decide(&d, CC_EV_ECE, false, 30, 10);
	CHECK_CMP(d.cause, ==, NRLP_CAUSE_ECN);
	CHECK_CMP(d.ssthresh, ==, 15);
	/* small flights: ssthresh never below 2 */
	nrlp_decide(&d, CC_EV_DUPACK, true, 3, 3);
	CHECK_CMP(d.ssthresh, ==, 2);
	nrlp_decide(&d, CC_EV_DUPACK, false, 1, 0);
	CHECK_CMP(d.ssthresh, ==, 2);
	nrlp_decide(&d, CC_EV_ECE, false, 1, 0);
	CHECK_CMP(d.ssthresh, ==, 2);
	/* local congestion: congested whatever the predictor says */
	nrlp_decide(&d, CC_EV_LOCAL, false, 40, 40);
	CHECK_CMP(d.cause, ==, NRLP_CAUSE_CONGESTION);
	CHECK_CMP(d.ssthresh, ==, 20);
	/* a loss repaired by a probe: by the predictor */
	nrlp_decide(&d, CC_EV_TLP, false, 40, 38);
	CHECK_CMP(d.cause, ==, NRLP_CAUSE_WIRELESS);
	CHECK_CMP(d.ssthresh, ==, 38);
}

int main(void)
{
	RUN(test_v_value);
	RUN(test_hysteresis);
	RUN(test_rtt_min_and_edges);
	RUN(test_queue_buildup_predicts_congestion);
	RUN(test_round_minimum);
	RUN(test_decisions);
	return check_summary();
}
