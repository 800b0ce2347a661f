// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of kmod/balde_core.h: the SARBE sampler (receiver timestamps,
 * accumulation, wrap, reordering, the no-timestamp fallback, the tick
 * check), the stability filter's gains, ocwnd and BaLDE's reactions.
 * Scenarios are simulated in double precision; the header is integer only.
 */
#include <math.h>

#include "check.h"
#include "balde_core.h"

#define MSS 1448

static u64 lcg_state = 0x9e3779b97f4a7c15ULL;

static double rnd(void)
{
	lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(lcg_state >> 11) / 9007199254740992.0;
}

static void test_filter_first_and_constant(void)
{
	struct balde_est e;
	int i;

	balde_est_init(&e);
	CHECK_CMP(balde_filter(&e, 625000), ==, 0);
	CHECK_CMP(e.ebw, ==, 625000);
	CHECK_CMP(e.nu, ==, 1);
	/* identical samples: U stays 0, Umax 0, a = 0, eBw = the sample */
	for (i = 0; i < 20; i++)
		CHECK_CMP(balde_filter(&e, 625000), ==, 0);
	CHECK_CMP(e.ebw, ==, 625000);
	CHECK_CMP(balde_u_max(&e), ==, 0);
	CHECK_CMP(e.nu, ==, BALDE_N);
}

/* the gain formula on hand-computed numbers */
static void test_filter_gains(void)
{
	struct balde_est e;
	u32 a;

	balde_est_init(&e);
	balde_filter(&e, 1000000);
	/* U_2 = 0.05 * 200000 = 10000 = Umax: a = 1, eBw unchanged */
	a = balde_filter(&e, 1200000);
	CHECK_NEAR(balde_u_now(&e), 10000, 0.001);	/* b is Q16 */
	CHECK_CMP(a, ==, BALDE_GAIN_ONE);
	CHECK_CMP(e.ebw, ==, 1000000);
	/* same sample again: U_3 = 0.95 * 10000 = 9500, a = 0.95 */
	a = balde_filter(&e, 1200000);
	CHECK_NEAR(balde_u_now(&e), 9500, 0.001);
	CHECK_NEAR(a, 0.95 * BALDE_GAIN_ONE, 0.001);
	/* eBw = 0.95 * 1e6 + 0.05 * 1.2e6 = 1.01e6 */
	CHECK_NEAR(e.ebw, 1010000, 0.0005);
	/* a big jump is "unstable": a = 1, the estimate ignores it */
	a = balde_filter(&e, 5000000);
	CHECK_CMP(a, ==, BALDE_GAIN_ONE);
	CHECK_NEAR(e.ebw, 1010000, 0.0005);
}

/* Umax covers only the last N = 8 instabilities */
static void test_filter_window(void)
{
	struct balde_est e;
	u32 u;
	int i;

	balde_est_init(&e);
	balde_filter(&e, 1000000);
	balde_filter(&e, 3000000);	/* U = 100000 */
	for (i = 0; i < BALDE_N - 1; i++)
		balde_filter(&e, 3000000);	/* U decays */
	CHECK_NEAR(balde_u_max(&e), 100000, 0.001);
	u = balde_u_max(&e);
	balde_filter(&e, 3000000);	/* the 100000 leaves the window */
	CHECK_CMP(balde_u_max(&e), <, u);
	CHECK_NEAR(balde_u_max(&e), 100000 * pow(0.95, 1), 0.01);
}

/* persistent change: the estimate follows within a few dozen samples */
static void test_filter_step_response(void)
{
	struct balde_est e;
	int i, n = -1;

	balde_est_init(&e);
	for (i = 0; i < 50; i++)
		balde_filter(&e, 625000 + (i & 1) * 10000);
	CHECK_NEAR(e.ebw, 630000, 0.02);
	for (i = 0; i < 400; i++) {
		balde_filter(&e, 312500 + (i & 1) * 10000);
		if (n < 0 && e.ebw < 330000)
			n = i;
	}
	CHECK_CMP(n, >, 0);
	CHECK_CMP(n, <, 120);
	CHECK_NEAR(e.ebw, 317500, 0.03);
}

/* noisy samples around a mean: eBw near the mean, much less noisy */
static void test_filter_noise(void)
{
	struct balde_est e;
	double sum = 0, sum2 = 0, mean, sd;
	int i, n = 0;

	balde_est_init(&e);
	for (i = 0; i < 3000; i++) {
		u32 bw = (u32)(625000 * (0.6 + 0.8 * rnd()));

		balde_filter(&e, bw);
		if (i >= 500) {
			sum += e.ebw;
			sum2 += (double)e.ebw * e.ebw;
			n++;
		}
	}
	mean = sum / n;
	sd = sqrt(sum2 / n - mean * mean);
	CHECK_NEAR(mean, 625000, 0.05);
	/* the samples' sd is 0.23 * 625000; the estimate's a fraction */
	CHECK_CMP(sd, <, 0.1 * 625000);
}

static bool feed64(struct balde_est *e, u64 now, u32 bytes, bool has_ts,
		   u32 tsval, struct balde_sample *s)
{
	struct cc_ack a = {
		.now_us = now, .bytes = bytes, .tsval = tsval, .tick_us = 1000,
		.has_ts = has_ts,
	};

	return balde_est_ack(e, &a, s);
}

static bool feed(struct balde_est *e, u32 now, u32 bytes, bool has_ts,
		 u32 tsval, struct balde_sample *s)
{
	return feed64(e, now, bytes, has_ts, tsval, s);
}

/*
 * 5 Mb/s, a delayed ACK per 2 segments every 4.63 ms at the receiver, 1 ms
 * TSval ticks; the ACKs reach the sender compressed (all within 0.1 ms of
 * each other in bursts of 4): the TSval estimate is the forward rate, not
 * the ACK arrival rate.
 */
static void test_ts_samples_and_ack_compression(void)
{
	struct balde_est e;
	struct balde_sample s;
	const double gap_us = 2 * MSS * 8 / 5.0;	/* 4633 us */
	int i, samples = 0;

	balde_est_init(&e);
	for (i = 0; i < 2000; i++) {
		double t_rx = 1000 + i * gap_us;
		u32 tsval = 77 + (u32)(t_rx / 1000);
		u32 now = 500000 + (u32)((i / 4) * 4 * gap_us) + (i % 4) * 25;

		if (feed(&e, now, 2 * MSS, true, tsval, &s)) {
			samples++;
			CHECK(s.ts);
			CHECK_CMP(s.span_us, >=, BALDE_MIN_SPAN_US);
		}
	}
	CHECK_CMP(samples, >, 900);
	CHECK_NEAR(e.ebw, 5e6 / 8, 0.05);
	CHECK(!(e.flags & BALDE_F_TS_BAD));
	CHECK(e.flags & BALDE_F_CHECKED);
}

/* TSval wraps around 2^32 in the middle of the transfer */
static void test_ts_wrap(void)
{
	struct balde_est e;
	struct balde_sample s;
	int i, samples = 0;

	balde_est_init(&e);
	for (i = 0; i < 400; i++) {
		u32 tsval = 0xffffff00U + (u32)(i * 5);	/* 5 ms per ACK */

		samples += feed(&e, 1000 + i * 5000, 3125, true, tsval, &s);
	}
	CHECK_CMP(samples, ==, 399);
	CHECK_NEAR(e.ebw, 625000, 0.001);
}

/* an older TSval (reordered ACK) only adds its bytes */
static void test_ts_backwards(void)
{
	struct balde_est e;
	struct balde_sample s;

	balde_est_init(&e);
	CHECK(!feed(&e, 0, 1000, true, 100, &s));
	CHECK(!feed(&e, 1000, 1000, true, 99, &s));
	CHECK_CMP(e.acc, ==, 1000);
	CHECK(!feed(&e, 2000, 1000, true, 102, &s));	/* 2 ms < 4 ms */
	CHECK(feed(&e, 5000, 1000, true, 105, &s));	/* 3000 B / 5 ms */
	CHECK_CMP(s.bw, ==, 600000);
	CHECK_CMP(s.span_us, ==, 5000);
}

/* no timestamps negotiated: ACK arrival times (the documented fallback) */
static void test_no_timestamps_fallback(void)
{
	struct balde_est e;
	struct balde_sample s;
	int i, samples = 0;

	balde_est_init(&e);
	for (i = 0; i < 100; i++) {
		if (feed(&e, 10000 + i * 2000, 1250, false, 0, &s)) {
			samples++;
			CHECK(!s.ts);
			CHECK_CMP(s.span_us, ==, 4000);
		}
	}
	CHECK_CMP(samples, ==, 49);
	CHECK_CMP(e.ebw, ==, 625000);
	/* the same bytes at the same times with zero gaps never divide by 0 */
	balde_est_init(&e);
	for (i = 0; i < 10; i++)
		CHECK(!feed(&e, 7, 1000, false, 0, &s));
	CHECK_CMP(e.ebw, ==, 0);
}

/* a receiver whose clock is not 1 ms (here 10 ms ticks) is detected */
static void test_tick_check(void)
{
	struct balde_est e;
	struct balde_sample s;
	int i;

	balde_est_init(&e);
	for (i = 0; i < 400; i++)
		feed(&e, i * 5000, 3125, true, 1000 + (u32)(i * 5 / 10), &s);
	CHECK(e.flags & BALDE_F_CHECKED);
	CHECK(e.flags & BALDE_F_TS_BAD);
	/* from then on the ACK timing is used and the rate is right */
	CHECK(!s.ts);
	CHECK_NEAR(e.ebw, 625000, 0.02);
}

/* 100 Gb/s: rates are u64, no saturation (u32 bytes/s stopped at 34 Gb/s) */
static void test_100_gbps(void)
{
	struct balde_est e;
	struct balde_sample s;
	int i;

	balde_est_init(&e);
	for (i = 0; i < 2000; i++) {
		/* 125 kB every 10 us, receiver clock 1 ms: 12.5 GB/s */
		feed(&e, 1000 + (u32)i * 10, 125000, true, 100 + (u32)i / 100, &s);
	}
	CHECK_NEAR(e.ebw, 12.5e9, 0.01);
	/* ocwnd at 100 Gb/s, 10 ms: 86 326 segments of 1448 bytes */
	CHECK_NEAR(balde_ocwnd(e.ebw, 10000, MSS), 12.5e9 * 0.01 / MSS, 0.01);
}

/* two hours idle: no sample across the gap, sampling resumes after it */
static void test_idle_two_hours(void)
{
	struct balde_est e;
	struct balde_sample s;
	u64 t, gap = 2ULL * 3600 * 1000000;
	u64 before;
	int i, samples = 0;

	balde_est_init(&e);
	for (i = 0; i < 200; i++)
		feed64(&e, 1000 + (u64)i * 5000, 3125, false, 0, &s);
	before = e.ebw;
	CHECK_NEAR(before, 625000, 0.001);
	t = 1000 + 200ULL * 5000 + gap;
	CHECK(!feed64(&e, t, 3125, false, 0, &s));
	CHECK_CMP(e.ebw, ==, before);
	for (i = 1; i <= 100; i++)
		samples += feed64(&e, t + (u64)i * 5000, 6250, false, 0, &s);
	CHECK_CMP(samples, ==, 100);
	CHECK_NEAR(e.ebw, 1250000, 0.01);
}

/* the 16-bit instabilities: 0.1 % relative error over 40 bits */
static void test_u16_codec(void)
{
	u64 v;

	for (v = 1; v < (1ULL << 41); v = v * 3 + 1) {
		u64 back = balde_u64(balde_u16(v));

		CHECK(back <= v);
		CHECK(v - back <= v / 1024);
	}
	CHECK_CMP(balde_u64(balde_u16(0)), ==, 0);
	CHECK_CMP(balde_u64(balde_u16(2047)), ==, 2047);
}

static void test_ocwnd(void)
{
	/* 5 Mb/s * 100 ms / 1448 B = 43.2 */
	CHECK_CMP(balde_ocwnd(625000, 100000, MSS), ==, 43);
	CHECK_CMP(balde_ocwnd(0, 100000, MSS), ==, 2);
	CHECK_CMP(balde_ocwnd(625000, 0, MSS), ==, 2);
	CHECK_CMP(balde_ocwnd(625000, 100000, 0), ==, 2);
	CHECK_CMP(balde_ocwnd(0xffffffffU, 0xffffffffU, 1), ==,
		  BALDE_OCWND_MAX);
}

static void test_decisions(void)
{
	struct balde_decision d;

	/* DUPACK, congested, cwnd above ocwnd: cwnd = ssthresh = ocwnd */
	balde_decide(&d, CC_EV_DUPACK, true, 60, 43);
	CHECK_CMP(d.cause, ==, BALDE_CAUSE_CONGESTION);
	CHECK_CMP(d.cwnd, ==, 43);
	CHECK_CMP(d.ssthresh, ==, 43);
	/* congested, cwnd below ocwnd: cwnd kept */
	balde_decide(&d, CC_EV_DUPACK, true, 30, 43);
	CHECK_CMP(d.cwnd, ==, 30);
	CHECK_CMP(d.ssthresh, ==, 43);
	/* not congested: cwnd kept, ssthresh = ocwnd */
	balde_decide(&d, CC_EV_DUPACK, false, 60, 43);
	CHECK_CMP(d.cause, ==, BALDE_CAUSE_WIRELESS);
	CHECK_CMP(d.cwnd, ==, 60);
	CHECK_CMP(d.ssthresh, ==, 43);
	/* RTO: cwnd 1, ssthresh ocwnd */
	balde_decide(&d, CC_EV_RTO, false, 60, 43);
	CHECK_CMP(d.cwnd, ==, 1);
	CHECK_CMP(d.ssthresh, ==, 43);
	/* ECE: as congested */
	balde_decide(&d, CC_EV_ECE, false, 60, 43);
	CHECK_CMP(d.cause, ==, BALDE_CAUSE_ECN);
	CHECK_CMP(d.cwnd, ==, 43);
	/* ocwnd below 2 is raised */
	balde_decide(&d, CC_EV_DUPACK, true, 60, 0);
	CHECK_CMP(d.ssthresh, ==, 2);
	CHECK_CMP(d.cwnd, ==, 2);
}

static void test_new_ack_slow_start_exit(void)
{
	/* slow start, congested: ssthresh = ocwnd */
	CHECK_CMP(balde_new_ack(true, true, 50, 0x7fffffff, 43), ==, 43);
	/* not congested, no estimate, or not in slow start: unchanged */
	CHECK_CMP(balde_new_ack(false, true, 50, 0x7fffffff, 43), ==,
		  0x7fffffff);
	CHECK_CMP(balde_new_ack(true, false, 50, 0x7fffffff, 43), ==,
		  0x7fffffff);
	CHECK_CMP(balde_new_ack(true, true, 50, 40, 43), ==, 40);
	CHECK_CMP(balde_new_ack(true, true, 50, 50, 43), ==, 50);
}

int main(void)
{
	RUN(test_filter_first_and_constant);
	RUN(test_filter_gains);
	RUN(test_filter_window);
	RUN(test_filter_step_response);
	RUN(test_filter_noise);
	RUN(test_ts_samples_and_ack_compression);
	RUN(test_ts_wrap);
	RUN(test_ts_backwards);
	RUN(test_no_timestamps_fallback);
	RUN(test_tick_check);
	RUN(test_100_gbps);
	RUN(test_idle_two_hours);
	RUN(test_u16_codec);
	RUN(test_ocwnd);
	RUN(test_decisions);
	RUN(test_new_ack_slow_start_exit);
	return check_summary();
}
