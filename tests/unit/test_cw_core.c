// SPDX-License-Identifier: GPL-2.0
/* Unit tests of qdisc/cw_core.h: EWMA, persistent queue, threshold. */
#include <math.h>

#include "check.h"
#include "cw_core.h"

#define ONE ((double)CW_FRAC_ONE)
#define W02 13107		/* 0.2 * 65536, rounded down */
#define MS 1000000ULL		/* ns */

static double avg_d(u64 avg)
{
	return (double)avg / ONE;
}

static void ewma_converges_to_constant_queue(void)
{
	u64 avg = 0;
	int i;

	for (i = 0; i < 200; i++)
		avg = cw_ewma(avg, W02, 50);
	/* within 3/65536 of a packet */
	CHECK_CMP(avg, <=, 50ULL << 16);
	CHECK_CMP(avg, >=, (50ULL << 16) - 3);
	/* and from above */
	avg = 400ULL << 16;
	for (i = 0; i < 200; i++)
		avg = cw_ewma(avg, W02, 50);
	CHECK_CMP(avg, >=, 50ULL << 16);
	CHECK_CMP(avg, <=, (50ULL << 16) + 3);
}

static void ewma_step_response_is_0_8_pow_n(void)
{
	double w = W02 / ONE;	/* the weight actually used */
	u64 down = 1000ULL << 16, up = 0;
	int n;

	for (n = 1; n <= 30; n++) {
		down = cw_ewma(down, W02, 0);
		up = cw_ewma(up, W02, 1000);
		CHECK_NEAR(avg_d(down), 1000 * pow(1 - w, n), 1e-4);
		CHECK_NEAR(avg_d(up), 1000 * (1 - pow(1 - w, n)), 1e-4);
		/* and 0.8^n itself within the encoding error of 0.2 */
		CHECK_NEAR(avg_d(down), 1000 * pow(0.8, n), 1e-3);
	}
	/* first steps exactly: 800, 640, 512 packets */
	down = cw_ewma(1000ULL << 16, CW_FRAC_ONE / 5 + 1, 0);
	CHECK_NEAR(avg_d(down), 800, 1e-4);
	down = cw_ewma(down, CW_FRAC_ONE / 5 + 1, 0);
	CHECK_NEAR(avg_d(down), 640, 1e-4);
	down = cw_ewma(down, CW_FRAC_ONE / 5 + 1, 0);
	CHECK_NEAR(avg_d(down), 512, 1e-4);
}

static void ewma_weight_extremes(void)
{
	u64 avg = 123ULL << 16;

	/* w = 1: the average is the instantaneous queue */
	CHECK_CMP(cw_ewma(avg, CW_FRAC_ONE, 7), ==, 7ULL << 16);
	/* w = 1/65536: one packet of difference moves it by one unit */
	CHECK_CMP(cw_ewma(avg, 1, 124), ==, avg + 1);
	CHECK_CMP(cw_ewma(avg, 1, 122), ==, avg - 1);
	/* small weight (RED's 0.002) still converges */
	avg = 0;
	for (int i = 0; i < 20000; i++)
		avg = cw_ewma(avg, 131, 30);
	CHECK_NEAR(avg_d(avg), 30, 1e-3);
}

static void ewma_no_overflow_at_u32_queue(void)
{
	u64 top = (u64)U32_MAX << 16, avg = 0;
	int i;

	CHECK_CMP(cw_ewma(top, CW_FRAC_ONE, U32_MAX), ==, top);
	CHECK_CMP(cw_ewma(top, 1, U32_MAX), ==, top);
	CHECK_CMP(cw_ewma(top, W02, U32_MAX), ==, top);
	for (i = 0; i < 300; i++)
		avg = cw_ewma(avg, W02, U32_MAX);
	CHECK_NEAR((double)avg, (double)top, 1e-9);
	CHECK(avg <= top);
	/* byte queues of a few MB */
	avg = 0;
	for (i = 0; i < 300; i++)
		avg = cw_ewma(avg, W02, 3000000);
	CHECK_NEAR(avg_d(avg), 3000000, 1e-9);
}

static void threshold_is_strict(void)
{
	CHECK(!cw_over(16ULL << 16, 16));
	CHECK(cw_over((16ULL << 16) + 1, 16));
	CHECK(!cw_over(0, 0));
	CHECK(cw_over(1, 0));
	CHECK(!cw_over((u64)U32_MAX << 16, U32_MAX));
	CHECK_CMP(cw_default_thresh(50), ==, 16);
	CHECK_CMP(cw_default_thresh(1000), ==, 333);
	CHECK_CMP(cw_default_thresh(2), ==, 0);
}

static void pq_min_over_interval_and_reset(void)
{
	struct cw_pq s;
	u64 t0 = 5 * MS, iv = 20 * MS;

	cw_pq_init(&s, t0, iv, 0);
	CHECK_CMP(s.pq, ==, 0);
	/* queue builds, departures see 30, 12, 25 during the first interval */
	cw_pq_advance(&s, t0 + 1 * MS, iv, 0);
	s.qmin = 40;		/* as if the interval had started at 40 */
	cw_pq_depart(&s, 30);
	cw_pq_advance(&s, t0 + 5 * MS, iv, 30);
	cw_pq_depart(&s, 12);
	cw_pq_advance(&s, t0 + 10 * MS, iv, 12);
	cw_pq_depart(&s, 25);
	CHECK_CMP(s.pq, ==, 0);		/* not expired yet */
	CHECK_CMP(s.qmin, ==, 12);
	/* the timer expires at t0 + 20 ms; the next event is at t0 + 21 ms */
	cw_pq_advance(&s, t0 + 21 * MS, iv, 25);
	CHECK_CMP(s.pq, ==, 12);
	CHECK_CMP(s.qmin, ==, 25);	/* minimum_queue = instantaneous */
	CHECK_CMP(s.next, ==, t0 + 40 * MS);
	/* second interval: minimum 20, the old 12 is forgotten */
	cw_pq_depart(&s, 22);
	cw_pq_depart(&s, 20);
	cw_pq_advance(&s, t0 + 30 * MS, iv, 20);
	cw_pq_depart(&s, 24);
	cw_pq_advance(&s, t0 + 40 * MS, iv, 24);	/* exactly at expiry */
	CHECK_CMP(s.pq, ==, 20);
	CHECK_CMP(s.qmin, ==, 24);
	CHECK_CMP(cw_pq_measure(&s), ==, 20ULL << 16);
	CHECK(cw_over(cw_pq_measure(&s), 16));
	CHECK(!cw_over(cw_pq_measure(&s), 20));
}

static void pq_missed_intervals_take_current_queue(void)
{
	struct cw_pq s;
	u64 iv = 20 * MS;

	cw_pq_init(&s, 0, iv, 0);
	s.qmin = 3;
	/* no event for 3.5 intervals; the queue stood at 9 (a stalled link) */
	cw_pq_advance(&s, 70 * MS, iv, 9);
	CHECK_CMP(s.pq, ==, 9);
	CHECK_CMP(s.qmin, ==, 9);
	CHECK_CMP(s.next, ==, 80 * MS);	/* stays on the 20 ms grid */
	/* exactly one expiry missed: the old minimum counts */
	cw_pq_depart(&s, 4);
	cw_pq_advance(&s, 95 * MS, iv, 6);
	CHECK_CMP(s.pq, ==, 4);
	CHECK_CMP(s.qmin, ==, 6);
	CHECK_CMP(s.next, ==, 100 * MS);
	/* an idle queue gives pq 0 */
	cw_pq_depart(&s, 0);
	cw_pq_advance(&s, 1000 * MS, iv, 0);
	CHECK_CMP(s.pq, ==, 0);
}

static void pq_interval_range_no_overflow(void)
{
	static const u64 ivs[] = { 1 * MS, 20 * MS, 1000 * MS, 60000 * MS };
	u64 base = 1ULL << 62;	/* a long uptime */
	unsigned int i;

	for (i = 0; i < sizeof(ivs) / sizeof(ivs[0]); i++) {
		struct cw_pq s;
		u64 iv = ivs[i];

		cw_pq_init(&s, base, iv, 100);
		cw_pq_depart(&s, 50);
		cw_pq_advance(&s, base + iv, iv, 50);
		CHECK_CMP(s.pq, ==, 50);
		CHECK_CMP(s.next, ==, base + 2 * iv);
		cw_pq_advance(&s, base + 1000000 * iv + 1, iv, U32_MAX);
		CHECK_CMP(s.pq, ==, U32_MAX);
		CHECK_CMP(s.next, ==, base + 1000001 * iv);
		CHECK_CMP(cw_pq_measure(&s), ==, (u64)U32_MAX << 16);
	}
}

int main(void)
{
	RUN(ewma_converges_to_constant_queue);
	RUN(ewma_step_response_is_0_8_pow_n);
	RUN(ewma_weight_extremes);
	RUN(ewma_no_overflow_at_u32_queue);
	RUN(threshold_is_strict);
	RUN(pq_min_over_interval_and_reset);
	RUN(pq_missed_intervals_take_current_queue);
	RUN(pq_interval_range_no_overflow);
	return check_summary();
}
