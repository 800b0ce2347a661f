// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of kmod/diffc_core.h: Diff-C-TCP's decisions (hold on loss
 * without ECE, halve on ECE, RTO resume vs reset, Reno fallback without
 * ECN) and the counters.
 */
#include "check.h"
#include "diffc_core.h"

#define INF 0x7fffffffU

static void test_loss_without_ece_holds(void)
{
	struct diffc_decision d;

	diffc_decide(&d, CC_EV_DUPACK, true, false, 40, 25);
	CHECK_CMP(d.action, ==, DIFFC_HOLD);
	CHECK_CMP(d.cwnd, ==, 40);
	CHECK_CMP(d.ssthresh, ==, 25);
	/* in slow start the infinite ssthresh is kept too */
	diffc_decide(&d, CC_EV_DUPACK, true, false, 12, INF);
	CHECK_CMP(d.cwnd, ==, 12);
	CHECK_CMP(d.ssthresh, ==, INF);
	/* a TLP-repaired loss is a loss */
	diffc_decide(&d, CC_EV_TLP, true, false, 9, 30);
	CHECK_CMP(d.action, ==, DIFFC_HOLD);
	CHECK_CMP(d.cwnd, ==, 9);
	/* our own qdisc refused a packet: congestion, never held */
	diffc_decide(&d, CC_EV_LOCAL, true, false, 40, 25);
	CHECK_CMP(d.action, ==, DIFFC_HALVE);
	CHECK_CMP(d.cwnd, ==, 20);
	CHECK_CMP(d.ssthresh, ==, 20);
}

static void test_ece_halves(void)
{
	struct diffc_decision d;

	diffc_decide(&d, CC_EV_ECE, true, true, 40, INF);
	CHECK_CMP(d.action, ==, DIFFC_HALVE);
	CHECK_CMP(d.cwnd, ==, 20);
	CHECK_CMP(d.ssthresh, ==, 20);
	diffc_decide(&d, CC_EV_ECE, true, true, 41, 30);
	CHECK_CMP(d.ssthresh, ==, 20);
	/* never below 2 */
	diffc_decide(&d, CC_EV_ECE, true, true, 3, 30);
	CHECK_CMP(d.ssthresh, ==, 2);
	CHECK_CMP(d.cwnd, ==, 2);
	diffc_decide(&d, CC_EV_ECE, true, true, 1, 30);
	CHECK_CMP(d.cwnd, ==, 2);
	/* ECE is congestion even if the flag was not latched */
	diffc_decide(&d, CC_EV_ECE, true, false, 16, 30);
	CHECK_CMP(d.action, ==, DIFFC_HALVE);
	CHECK_CMP(d.cwnd, ==, 8);
}

static void test_loss_with_ece_halves(void)
{
	struct diffc_decision d;

	diffc_decide(&d, CC_EV_DUPACK, true, true, 30, INF);
	CHECK_CMP(d.action, ==, DIFFC_HALVE);
	CHECK_CMP(d.cwnd, ==, 15);
	CHECK_CMP(d.ssthresh, ==, 15);
}

static void test_rto(void)
{
	struct diffc_decision d;

	/* no ECE: resume at the cwnd before the timeout */
	diffc_decide(&d, CC_EV_RTO, true, false, 28, 50);
	CHECK_CMP(d.action, ==, DIFFC_HOLD);
	CHECK_CMP(d.cwnd, ==, 28);
	CHECK_CMP(d.ssthresh, ==, 50);
	/* ECE: classic */
	diffc_decide(&d, CC_EV_RTO, true, true, 28, 50);
	CHECK_CMP(d.action, ==, DIFFC_RESET);
	CHECK_CMP(d.cwnd, ==, 1);
	CHECK_CMP(d.ssthresh, ==, 14);
	/* unknown prior cwnd (0) is treated as 1 */
	diffc_decide(&d, CC_EV_RTO, true, false, 0, 50);
	CHECK_CMP(d.cwnd, ==, 1);
}

static void test_no_ecn_is_reno(void)
{
	struct diffc_decision d;

	diffc_decide(&d, CC_EV_DUPACK, false, false, 40, INF);
	CHECK_CMP(d.action, ==, DIFFC_HALVE);
	CHECK_CMP(d.cwnd, ==, 20);
	CHECK_CMP(d.ssthresh, ==, 20);
	diffc_decide(&d, CC_EV_TLP, false, false, 10, INF);
	CHECK_CMP(d.cwnd, ==, 5);
	diffc_decide(&d, CC_EV_RTO, false, false, 40, INF);
	CHECK_CMP(d.action, ==, DIFFC_RESET);
	CHECK_CMP(d.cwnd, ==, 1);
	CHECK_CMP(d.ssthresh, ==, 20);
}

/* the safe mode at a standing queue: drain it instead of halving */
static void test_drain(void)
{
	struct diffc_decision d;

	diffc_decide(&d, CC_EV_DUPACK, true, true, 90, INF);
	diffc_drain(&d, 90, 80);
	CHECK_CMP(d.action, ==, DIFFC_DRAIN);
	CHECK_CMP(d.cwnd, ==, 80);
	CHECK_CMP(d.ssthresh, ==, 80);
	/* never below Reno's half, never above the window */
	diffc_decide(&d, CC_EV_DUPACK, true, true, 90, INF);
	diffc_drain(&d, 90, 10);
	CHECK_CMP(d.cwnd, ==, 45);
	diffc_decide(&d, CC_EV_DUPACK, true, true, 90, INF);
	diffc_drain(&d, 90, 200);
	CHECK_CMP(d.cwnd, ==, 90);
	/* a held loss or a timeout stays what it was */
	diffc_decide(&d, CC_EV_DUPACK, true, false, 90, INF);
	diffc_drain(&d, 90, 80);
	CHECK_CMP(d.action, ==, DIFFC_HOLD);
	diffc_decide(&d, CC_EV_RTO, true, true, 90, INF);
	diffc_drain(&d, 90, 80);
	CHECK_CMP(d.action, ==, DIFFC_RESET);
	CHECK_CMP(d.cwnd, ==, 1);
}

static void test_counts(void)
{
	struct diffc_counts n = { 0 };
	struct diffc_decision d;

	diffc_decide(&d, CC_EV_DUPACK, true, false, 10, 20);
	diffc_count(&n, CC_EV_DUPACK, &d);
	diffc_decide(&d, CC_EV_RTO, true, false, 10, 20);
	diffc_count(&n, CC_EV_RTO, &d);
	diffc_decide(&d, CC_EV_ECE, true, true, 10, 20);
	diffc_count(&n, CC_EV_ECE, &d);
	diffc_decide(&d, CC_EV_RTO, true, true, 10, 20);
	diffc_count(&n, CC_EV_RTO, &d);
	CHECK_CMP(n.held, ==, 2);
	CHECK_CMP(n.halved, ==, 2);
	CHECK_CMP(n.rto, ==, 2);
}

/* a window's worth of losses without ECE never shrinks cwnd */
static void test_hold_is_stable(void)
{
	struct diffc_decision d;
	u32 cwnd = 64, ss = INF;
	int i;

	for (i = 0; i < 1000; i++) {
		diffc_decide(&d, i % 7 ? CC_EV_DUPACK : CC_EV_RTO, true,
			     false, cwnd, ss);
		cwnd = d.cwnd;
		ss = d.ssthresh;
	}
	CHECK_CMP(cwnd, ==, 64);
	CHECK_CMP(ss, ==, INF);
	/* one ECE per window then halves it 5 times: 64 -> 2 */
	for (i = 0; i < 5; i++) {
		diffc_decide(&d, CC_EV_ECE, true, true, cwnd, ss);
		cwnd = d.cwnd;
		ss = d.ssthresh;
	}
	CHECK_CMP(cwnd, ==, 2);
}

int main(void)
{
	RUN(test_loss_without_ece_holds);
	RUN(test_ece_halves);
	RUN(test_loss_with_ece_halves);
	RUN(test_rto);
	RUN(test_no_ecn_is_reno);
	RUN(test_drain);
	RUN(test_counts);
	RUN(test_hold_is_stable);
	return check_summary();
}
