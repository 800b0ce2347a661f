// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of kmod/jersey_core.h: the TCP-Jersey rate estimators (ACK-ARE
 * 5.9, TS-ARE 7.1, filter types 1 and 2), the receiver tick learning, ownd
 * and the loss decisions.  Real-number scenarios are simulated in double
 * precision; the header itself is integer only.
 */
#include <math.h>
#include <string.h>

#include "check.h"
#include "jersey_core.h"

#define MSS		1448
#define U32MAX		0xffffffffU

/* deterministic pseudo-random numbers in [0, 1) */
static u64 lcg_state = 88172645463325252ULL;

static double rnd(void)
{
	lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(lcg_state >> 11) / 9007199254740992.0;
}

static u64 rnd64(void)
{
	u64 hi, lo;

	lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
	hi = lcg_state >> 32;
	lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
	lo = lcg_state >> 32;
	return hi << 32 | lo;
}

/* an estimator and the ACKs fed to it */
struct run {
	struct jersey_est e;
	u8 mode;
	u8 filter;
	int samples;
	int ts_samples;
};

static void run_init(struct run *r, u8 mode, u8 filter, u64 now)
{
	memset(r, 0, sizeof(*r));
	jersey_est_init(&r->e, now);
	r->mode = mode;
	r->filter = filter;
}

static bool feed(struct run *r, u64 now, u32 bytes, bool has_ts, u32 tsval,
		 u32 tau)
{
	struct jersey_ack a = {
		.ack = { .now_us = now, .bytes = bytes, .tsval = tsval,
			 .has_ts = has_ts },
		.tau_us = tau, .mode = r->mode, .filter = r->filter,
	};
	struct jersey_sample s;

	if (!jersey_est_ack(&r->e, &a, &s))
		return false;
	r->samples++;
	r->ts_samples += s.ts;
	return true;
}

/* ARE in bits per second */
static double bps(const struct run *r)
{
	return (double)r->e.are / (1 << JERSEY_RATE_SHIFT) * 8.0;
}

/* receiver TSval of receiver time t_us with tick_us per tick */
static u32 tsval_at(double t_us, double tick_us, u32 off)
{
	return off + (u32)(u64)floor(t_us / tick_us);
}

static void test_mul_frac_exact(void)
{
	int i;

	for (i = 0; i < 200000; i++) {
		u64 a = rnd64() >> (rnd64() % 64);
		u32 c = (u32)(rnd64() % 0x7fffffffULL) + 1;
		u32 b = (u32)(rnd64() % ((u64)c + 1));
		unsigned __int128 want = ((unsigned __int128)a * b + c / 2) / c;

		if (jersey_mul_frac(a, b, c) != (u64)want) {
			CHECK_CMP(jersey_mul_frac(a, b, c), ==, (u64)want);
			return;
		}
	}
	CHECK(jersey_mul_frac(~0ULL, 0x7ffffffe, 0x7ffffffe) == ~0ULL);
	CHECK(jersey_mul_frac(~0ULL, 0, 1) == 0);
	CHECK(jersey_mul_frac(~0ULL, 1, 0x7fffffff) ==
	      (u64)(((unsigned __int128)~0ULL + 0x3fffffff) / 0x7fffffff));
	CHECK(jersey_mul_frac(3, 1, 2) == 2);	/* 1.5 rounds up */
}

static void test_tau(void)
{
	CHECK_CMP(jersey_tau(0, 5000), ==, JERSEY_TAU_INIT_US);
	CHECK_CMP(jersey_tau(40000, 5000), ==, 45000);
	CHECK_CMP(jersey_tau(10, 0), ==, 10);
	CHECK_CMP(jersey_tau(U32MAX, U32MAX), ==, JERSEY_TAU_MAX_US);
}

/*
 * Constant input: 10 Mb/s, an ACK per 2 segments, tau 50 ms.  The estimate
 * must still be rising after tau/5 (it is a filter) and be within 5% of the
 * rate after 5 tau, for ACK-ARE with both filters.
 */
static void check_constant_rate(u8 filter)
{
	const double rate = 10e6, gap = 2.0 * MSS * 8 / rate * 1e6;
	const u32 tau = 50000;
	struct run r;
	int k;

	run_init(&r, JERSEY_MODE_ACK, filter, 0);
	for (k = 1; k * gap <= 5.0 * tau; k++) {
		feed(&r, (u64)llround(k * gap), 2 * MSS, false, 0, tau);
		if (k == (int)(0.2 * tau / gap))
			CHECK_CMP(bps(&r), <, 0.5 * rate);
	}
	CHECK_NEAR(bps(&r), rate, 0.05);
	for (; k * gap <= 20.0 * tau; k++)
		feed(&r, (u64)llround(k * gap), 2 * MSS, false, 0, tau);
	CHECK_NEAR(bps(&r), rate, 0.01);
	CHECK_CMP(r.samples, ==, k - 1);
}

static void test_atsw_constant_rate(void)
{
	check_constant_rate(JERSEY_FILTER_ATSW);
}

static void test_lpf_constant_rate(void)
{
	check_constant_rate(JERSEY_FILTER_LPF);
}

/*
 * Rate step 2 Mb/s -> 1 Mb/s (1000-byte packets, one ACK each, tau 100 ms):
 * not followed instantly (still above 1.3 Mb/s tau/4 after the step), but
 * within 5% of 1 Mb/s 5 tau after it.
 */
static void check_step(u8 mode, u8 filter)
{
	const u32 tau = 100000;
	double t = 0, tick = 1000.0;
	struct run r;
	int k;

	run_init(&r, mode, filter, 0);
	for (k = 0; t < 3e6; k++) {	/* 3 s at 2 Mb/s */
		t += 1000 * 8 / 2e6 * 1e6;
		feed(&r, (u64)t + 20000, 1000, true, tsval_at(t, tick, 7), tau);
	}
	CHECK_NEAR(bps(&r), 2e6, 0.05);
	while (t < 3e6 + tau / 4) {
		t += 1000 * 8 / 1e6 * 1e6;
		feed(&r, (u64)t + 20000, 1000, true, tsval_at(t, tick, 7), tau);
	}
	CHECK_CMP(bps(&r), >, 1.3e6);
	while (t < 3e6 + 5 * tau) {
		t += 1000 * 8 / 1e6 * 1e6;
		feed(&r, (u64)t + 20000, 1000, true, tsval_at(t, tick, 7), tau);
	}
	CHECK_NEAR(bps(&r), 1e6, 0.05);
	if (mode != JERSEY_MODE_ACK)
		CHECK_CMP(r.ts_samples, >, r.samples / 2);
}

static void test_step_response(void)
{
	check_step(JERSEY_MODE_ACK, JERSEY_FILTER_ATSW);
	check_step(JERSEY_MODE_ACK, JERSEY_FILTER_LPF);
	check_step(JERSEY_MODE_AUTO, JERSEY_FILTER_ATSW);
	check_step(JERSEY_MODE_AUTO, JERSEY_FILTER_LPF);
}

/*
 * ACK compression (thesis 7.3, fig. 7.1/7.2): the forward bottleneck
 * (1.5 Mb/s, 1000-byte packets) spaces the packets evenly, the receiver
 * ACKs each one and stamps its ms clock, the ACKs cross a reverse link that
 * a CBR flow blocks for 200 ms every second; the queued ACKs then leave
 * back to back (40 us apart).  ACK-ARE must overestimate by >= 30%, TS-ARE
 * must stay within +-10% of 1.5 Mb/s (after a 1 s warm-up).
 */
static void check_ack_compression(u8 filter)
{
	const double rate = 1.5e6, gap = 1000 * 8 / rate * 1e6;
	const double period = 1e6, blocked = 200e3, svc = 40, prop = 30e3;
	const u32 tau = 80000;
	double dep = 0, ack_max = 0, ts_min = 1e18, ts_max = 0;
	struct run ack, ts;
	int k;

	run_init(&ack, JERSEY_MODE_ACK, filter, 0);
	run_init(&ts, JERSEY_MODE_AUTO, filter, 0);
	for (k = 1; k * gap < 10e6; k++) {
		double g = k * gap + prop, d = fmax(g, dep + svc);
		double ph = fmod(d, period);
		u32 tsv = tsval_at(g, 1000.0, 12345);
		u64 now;

		if (ph >= period - blocked)	/* reverse link busy */
			d += period - ph;
		dep = d;
		now = (u64)llround(d + prop);
		feed(&ack, now, 1000, false, 0, tau);
		feed(&ts, now, 1000, true, tsv, tau);
		if (now < 1000000)
			continue;
		ack_max = fmax(ack_max, bps(&ack));
		ts_min = fmin(ts_min, bps(&ts));
		ts_max = fmax(ts_max, bps(&ts));
	}
	CHECK_CMP(ack_max, >=, 1.3 * rate);
	CHECK_CMP(ts_min, >=, 0.9 * rate);
	CHECK_CMP(ts_max, <=, 1.1 * rate);
	CHECK_CMP(ts.e.tick, ==, JERSEY_TICK_US(1000));
	CHECK_CMP(ts.ts_samples, >, ts.samples * 9 / 10);
}

static void test_ts_are_ack_compression(void)
{
	check_ack_compression(JERSEY_FILTER_ATSW);
	check_ack_compression(JERSEY_FILTER_LPF);
}

/*
 * A receiver stream with reverse-path jitter: rate (b/s), a delayed ACK per
 * two segments, TSval ticking every tick_us from ts_off, each ACK delayed by
 * 5 ms + uniform [0, jitter_us).  Leaves the extreme ARE values after warm_us in
 * lo and hi.
 */
static void stream(struct run *r, double rate, double tick_us, u32 ts_off,
		   double jitter_us, double dur_us, double warm_us, u32 tau,
		   double *lo, double *hi)
{
	const double gap = 2.0 * MSS * 8 / rate * 1e6;
	double last = 0;
	int k;

	*lo = 1e18;
	*hi = 0;
	for (k = 1; k * gap < dur_us; k++) {
		double rx = k * gap;
		double at = fmax(rx + 5000 + jitter_us * rnd(), last);

		last = at;	/* FIFO: no reordering */
		feed(r, (u64)llround(at), 2 * MSS, true,
		     tsval_at(rx, tick_us, ts_off), tau);
		if (at >= warm_us) {
			*lo = fmin(*lo, bps(r));
			*hi = fmax(*hi, bps(r));
		}
	}
}

/* Linux ms clock, 100 Mb/s: ~4 ACKs per tick, one sample per tick */
static void test_ts_ms_clock_100mbit(void)
{
	struct run r;
	double lo, hi;

	run_init(&r, JERSEY_MODE_AUTO, JERSEY_FILTER_ATSW, 0);
	stream(&r, 100e6, 1000.0, 0x9e3779b9, 1000, 3e6, 1e6, 25000, &lo, &hi);
	CHECK_CMP(r.e.tick, ==, JERSEY_TICK_US(1000));
	CHECK_CMP(lo, >=, 0.95 * 100e6);
	CHECK_CMP(hi, <=, 1.05 * 100e6);
	/* 3 s of 1 ms ticks: ~3000 samples, not one per ACK (~12950) */
	CHECK_CMP(r.samples, <, 3300);
	CHECK_CMP(r.samples, >, 2700);

	run_init(&r, JERSEY_MODE_AUTO, JERSEY_FILTER_LPF, 0);
	stream(&r, 100e6, 1000.0, 0, 1000, 3e6, 1e6, 25000, &lo, &hi);
	CHECK_CMP(lo, >=, 0.95 * 100e6);
	CHECK_CMP(hi, <=, 1.05 * 100e6);
}

/* Linux tcp_usec_ts: 1 us ticks, 2 ms reverse jitter */
static void test_ts_us_clock(void)
{
	struct run r;
	double lo, hi;

	run_init(&r, JERSEY_MODE_AUTO, JERSEY_FILTER_ATSW, 0);
	stream(&r, 50e6, 1.0, 4000000000U, 2000, 3e6, 1e6, 30000, &lo, &hi);
	CHECK_CMP(r.e.tick, ==, JERSEY_TICK_US(1));
	CHECK_CMP(lo, >=, 0.95 * 50e6);
	CHECK_CMP(hi, <=, 1.05 * 50e6);
	CHECK_CMP(r.ts_samples, >, r.samples * 9 / 10);
}

/* unknown receiver clocks: 10 ms, 4 ms (snapped) and 7 ms, 2.5 ms (learnt) */
static void check_unknown_tick(double tick_us, double tick_tol)
{
	struct run r;
	double lo, hi;

	run_init(&r, JERSEY_MODE_AUTO, JERSEY_FILTER_ATSW, 0);
	stream(&r, 10e6, tick_us, 77, 2000, 20e6, 5e6, 100000, &lo, &hi);
	CHECK_NEAR((double)r.e.tick / (1 << JERSEY_TICK_SHIFT), tick_us,
		   tick_tol);
	CHECK_CMP(lo, >=, 0.95 * 10e6);
	CHECK_CMP(hi, <=, 1.05 * 10e6);
	CHECK_CMP(r.ts_samples, >, r.samples * 9 / 10);
}

static void test_ts_unknown_tick(void)
{
	check_unknown_tick(10000.0, 0.0);
	check_unknown_tick(4000.0, 0.0);
	check_unknown_tick(7000.0, 0.01);
	check_unknown_tick(2500.0, 0.01);
}

/* until the tick is learnt, auto mode samples with ACK timing */
static void test_ts_learning_phase(void)
{
	struct run r;
	int k;

	run_init(&r, JERSEY_MODE_AUTO, JERSEY_FILTER_ATSW, 0);
	for (k = 1; k <= 40; k++)	/* 40 ms of 1 ms ACKs: too early */
		feed(&r, 1000 * k, MSS, true, 500 + k, 20000);
	CHECK_CMP(r.e.tick, ==, 0);
	CHECK_CMP(r.ts_samples, ==, 0);
	CHECK_CMP(r.samples, ==, 40);
	for (; k <= 150; k++)
		feed(&r, 1000 * k, MSS, true, 500 + k, 20000);
	CHECK_CMP(r.e.tick, ==, JERSEY_TICK_US(1000));
	CHECK_CMP(r.ts_samples, >, 40);
}

/*
 * Tick learning under reverse-path queueing: after a quiet first 100 ms,
 * 10% of the ACKs find a queue of up to 100 ms (the ACKs behind them wait
 * too).  Queueing only adds delay, so the estimate must follow the least
 * delayed ACKs: within 1% of an unknown 7 ms clock from 2 s on, exactly 1 ms
 * for a 1 ms clock.  If the very first ACK (the anchor) was delayed by
 * anchor_q, estimates are low by anchor_q / elapsed: the 1 ms clock must be
 * exact again after 16 * anchor_q (snapping), the 7 ms one within 1% after
 * 100 * anchor_q.
 */
static void check_tick_jitter(double tick_us, double anchor_q, double from,
			      double tol)
{
	const double gap = 2.0 * MSS * 8 / 10e6 * 1e6;
	double last = 0, worst = 0;
	struct run r;
	int k;

	run_init(&r, JERSEY_MODE_AUTO, JERSEY_FILTER_ATSW, 0);
	for (k = 1; k * gap < 30e6; k++) {
		double rx = k * gap, q = rnd() < 0.1 ? 100e3 * rnd() : 0;
		double at, t;

		if (rx < 100e3)
			q = k == 1 ? anchor_q : 0;
		at = fmax(rx + 5000 + q, last);
		last = at;
		feed(&r, (u64)llround(at), 2 * MSS, true,
		     tsval_at(rx, tick_us, 3), 100000);
		t = (double)r.e.tick / (1 << JERSEY_TICK_SHIFT);
		if (at > from && fabs(t - tick_us) > worst)
			worst = fabs(t - tick_us);
	}
	CHECK_CMP(worst, <=, tol * tick_us);
}

static void test_ts_tick_learning_jitter(void)
{
	check_tick_jitter(7000.0, 0, 2e6, 0.01);
	check_tick_jitter(1000.0, 0, 1e6, 0.0);
	check_tick_jitter(1000.0, 90e3, 16 * 90e3 + 90e3, 0.0);
	check_tick_jitter(7000.0, 90e3, 100 * 90e3, 0.01);
}

/*
 * A slow receiver clock (250 ms per tick, RFC 7323 allows up to 1 s): no
 * estimate from points fewer than 16 ticks apart (+-1 tick would be +-6% and
 * worse), then within 2%; ACK timing until then.
 */
static void test_ts_slow_clock(void)
{
	const double gap = 2.0 * MSS * 8 / 10e6 * 1e6, tick = 250e3;
	double worst = 0;
	struct run r;
	int k;

	run_init(&r, JERSEY_MODE_AUTO, JERSEY_FILTER_ATSW, 0);
	for (k = 1; k * gap < 60e6; k++) {
		double rx = k * gap, t;

		feed(&r, (u64)llround(rx + 5000 + 2000 * rnd()), 2 * MSS, true,
		     tsval_at(rx, tick, 1), 1000000);
		t = (double)r.e.tick / (1 << JERSEY_TICK_SHIFT);
		if (r.e.tick && fabs(t - tick) > worst)
			worst = fabs(t - tick);
		if (rx < 4e6)
			CHECK_CMP(r.e.tick, ==, 0);
	}
	CHECK_CMP(r.e.tick, !=, 0);
	CHECK_CMP(worst, <=, 0.02 * tick);
	CHECK_CMP(r.ts_samples, >, 0);
	CHECK_NEAR(bps(&r), 10e6, 0.05);
}

/* the receiver's clock restarts (TSval jumps back): learn it again */
static void test_ts_clock_restart(void)
{
	struct run r;
	int k;

	run_init(&r, JERSEY_MODE_AUTO, JERSEY_FILTER_ATSW, 0);
	for (k = 1; k <= 250; k++)	/* 250 ms, 1 ms clock */
		feed(&r, 1000 * k, MSS, true, 5000000 + k, 20000);
	CHECK_CMP(r.e.tick, ==, JERSEY_TICK_US(1000));
	for (; k <= 1000; k++)		/* now a 1 us clock, from 1000 */
		feed(&r, 1000 * k, MSS, true, 1000 + 1000 * (k - 200), 20000);
	CHECK_CMP(r.e.tick, ==, JERSEY_TICK_US(1));
	CHECK_NEAR(bps(&r), MSS * 8e3, 0.05);
}

/* TSval wraps around 2^32 in the middle of the transfer (1 ms ticks) */
static void test_ts_wraparound(void)
{
	struct run r;
	double lo, hi;

	run_init(&r, JERSEY_MODE_AUTO, JERSEY_FILTER_ATSW, 0);
	stream(&r, 20e6, 1000.0, U32MAX - 2500, 1000, 6e6, 1e6, 40000, &lo,
	       &hi);
	CHECK_CMP(r.e.tick, ==, JERSEY_TICK_US(1000));
	CHECK_CMP(lo, >=, 0.95 * 20e6);
	CHECK_CMP(hi, <=, 1.05 * 20e6);
	CHECK_CMP(r.ts_samples, >, r.samples * 9 / 10);

	/* the same with a 1 us clock, wrapping after 1.5 s */
	run_init(&r, JERSEY_MODE_AUTO, JERSEY_FILTER_ATSW, 0);
	stream(&r, 20e6, 1.0, U32MAX - 1500000, 1000, 4e6, 1e6, 40000, &lo,
	       &hi);
	CHECK_CMP(lo, >=, 0.95 * 20e6);
	CHECK_CMP(hi, <=, 1.05 * 20e6);
}

/* TSval going backwards (reordered ACKs) or jumping: no bad samples */
static void test_ts_reorder_and_jumps(void)
{
	struct run r;
	int k;
	u64 are;

	run_init(&r, JERSEY_MODE_AUTO, JERSEY_FILTER_ATSW, 0);
	for (k = 1; k <= 2000; k++)
		feed(&r, 1000 * k, MSS, true, 1000 + k, 20000);
	CHECK_NEAR(bps(&r), MSS * 8e3, 0.02);
	are = r.e.are;
	/* an older TSval: bytes are kept for the next sample, no sample */
	CHECK(!feed(&r, 1000 * k + 500, MSS, true, 1000 + k - 5, 20000));
	CHECK_CMP(r.e.are, ==, are);
	CHECK_CMP(r.e.acc, ==, MSS);
	k++;
	CHECK(feed(&r, 1000 * k, MSS, true, 1000 + k, 20000));
	CHECK_NEAR(bps(&r), MSS * 8e3, 0.05);
	/* a jump of 2^31 - 1 ticks: clamped delta, the rate collapses */
	CHECK(feed(&r, 1000 * k + 1000, MSS, true, 1000 + k + 0x7fffffff,
		   20000));
	CHECK_CMP(bps(&r), <, 1000);
}

/* auto gives up on a TSval that stops moving, ts mode does not */
static void test_ts_stall(void)
{
	struct run a, t;
	int k;

	run_init(&a, JERSEY_MODE_AUTO, JERSEY_FILTER_ATSW, 0);
	run_init(&t, JERSEY_MODE_TS, JERSEY_FILTER_ATSW, 0);
	for (k = 1; k <= 1000; k++) {
		feed(&a, 1000 * k, MSS, true, k, 20000);
		feed(&t, 1000 * k, MSS, true, k, 20000);
	}
	for (; k <= 4000; k++) {	/* frozen for 3 s */
		feed(&a, 1000 * k, MSS, true, 1000, 20000);
		feed(&t, 1000 * k, MSS, true, 1000, 20000);
	}
	CHECK(a.e.flags & JERSEY_F_TS_BROKEN);
	CHECK(!(t.e.flags & JERSEY_F_TS_BROKEN));
	CHECK_NEAR(bps(&a), MSS * 8e3, 0.05);
	CHECK_CMP(t.samples, ==, 1000);
}

/* delta = 0: bytes wait for the next sample; identical to (5.9) per ACK */
static void test_delta_zero(void)
{
	const u32 tau = 10000;
	struct run r;
	double ref = 0;
	int k, i;

	run_init(&r, JERSEY_MODE_ACK, JERSEY_FILTER_ATSW, 0);
	for (k = 1; k <= 300; k++) {
		for (i = 0; i < 3; i++) {	/* 3 ACKs in the same us */
			double delta = i ? 0 : 1000;

			feed(&r, 1000 * k, MSS, false, 0, tau);
			ref = (tau * ref + MSS * 1e6) / (delta + tau);
		}
	}
	CHECK_CMP(r.samples, ==, 300);
	CHECK_CMP(r.e.acc, ==, 2 * MSS);
	/* two ACKs' bytes are pending: they count with the next ACK */
	feed(&r, 1000 * k, MSS, false, 0, tau);
	ref = (tau * ref + MSS * 1e6) / (1000.0 + tau);
	CHECK_NEAR((double)r.e.are / 256, ref, 1e-6);
	/* at sample points TSW gives 3 segments per ms */
	CHECK_NEAR((double)r.e.are / 256, 3 * MSS * 1e3, 0.001);

	/* direct filter calls with delta 0: no division by zero */
	r.e.are = 1000 << JERSEY_RATE_SHIFT;
	jersey_filter(&r.e, JERSEY_FILTER_ATSW, MSS, 0, tau);
	CHECK_CMP(r.e.are, ==, (1000 << JERSEY_RATE_SHIFT) +
		  (u64)MSS * JERSEY_RATE_UNIT / tau);
	r.e.are = 1000 << JERSEY_RATE_SHIFT;
	jersey_filter(&r.e, JERSEY_FILTER_LPF, MSS, 0, tau);
	CHECK_CMP(r.e.are, ==, 1000 << JERSEY_RATE_SHIFT);
	jersey_filter(&r.e, JERSEY_FILTER_ATSW, MSS, 0, 0);	/* tau 0 */
	CHECK_CMP(r.e.are, <=, JERSEY_RATE_MAX);
	/* the clock not moving forward at all */
	run_init(&r, JERSEY_MODE_ACK, JERSEY_FILTER_LPF, 5000);
	CHECK(!feed(&r, 5000, MSS, false, 0, tau));
	CHECK(!feed(&r, 4000, MSS, false, 0, tau));
	CHECK_CMP(r.e.acc, ==, 2 * MSS);
}

/* L = 0 (pure DUPACKs without SACK): decay by tau / (delta + tau) */
static void test_l_zero(void)
{
	struct run r;
	u64 before;
	int k;

	run_init(&r, JERSEY_MODE_ACK, JERSEY_FILTER_ATSW, 0);
	for (k = 1; k <= 1000; k++)
		feed(&r, 1000 * k, MSS, false, 0, 50000);
	before = r.e.are;
	CHECK(feed(&r, 1000 * (k - 1) + 50000, 0, false, 0, 50000));
	CHECK_NEAR((double)r.e.are, before / 2.0, 1e-6);
	for (k = 0; k < 200; k++)
		feed(&r, 2000000 + 100000 * k, 0, false, 0, 50000);
	CHECK_CMP(r.e.are, ==, 0);
	/* from zero, L = 0 stays zero, both filters */
	run_init(&r, JERSEY_MODE_ACK, JERSEY_FILTER_LPF, 0);
	for (k = 1; k <= 10; k++)
		feed(&r, 1000 * k, 0, false, 0, 50000);
	CHECK_CMP(r.e.are, ==, 0);
}

/*
 * Sweep 1 kb/s .. 100 Gb/s x RTT 10 us .. 10 s, both filters, ACK timing and
 * TS timing with us and ms clocks: the estimate converges to the input
 * within 5% and ownd = rate * rtt / mss (floor 2) -- no overflow anywhere.
 * ACKs carry at least one segment, at least 1 us apart, at most tau/16.
 */
static void test_sweep_no_overflow(void)
{
	static const double rates[] = { 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9,
					1e10, 1e11 };
	static const double rtts[] = { 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7 };
	static const double ticks[] = { 0, 1, 1000 };
	unsigned int ri, ti, ki, f, fails = 0;

	for (ri = 0; ri < 9; ri++)
	for (ti = 0; ti < 7; ti++)
	for (ki = 0; ki < 3; ki++)
	for (f = 1; f <= 2; f++) {
		double rate = rates[ri] / 8, rtt = rtts[ti];	/* B/s, us */
		u32 tau = jersey_tau((u32)rtt, (u32)rtt / 4);
		double gap = fmax(fmax(1.0, MSS / rate * 1e6), tau / 16.0);
		u32 bytes;
		double want_w, got;
		struct run r;
		u32 w;
		int k, n;

		gap = ceil(gap);
		bytes = (u32)llround(rate * gap / 1e6);
		rate = bytes / gap * 1e6;	/* what is really sent */
		n = (int)fmax(64, 20.0 * tau / gap);
		run_init(&r, ki ? JERSEY_MODE_AUTO : JERSEY_MODE_ACK, f, 0);
		for (k = 1; k <= n; k++) {
			double t = k * gap;

			feed(&r, (u64)t, bytes, ki != 0,
			     ki ? tsval_at(t, ticks[ki], 99) : 0, tau);
		}
		got = (double)r.e.are / (1 << JERSEY_RATE_SHIFT);
		if (fabs(got - rate) > 0.05 * rate) {
			if (fails++ < 5)
				fprintf(stderr, "rate %g rtt %g tick %g f %u: %g B/s\n",
					rate, rtt, ticks[ki], f, got);
		}
		w = jersey_ownd(r.e.are, (u32)rtt, MSS);
		want_w = got * rtt / 1e6 / MSS;
		if (want_w < 2)
			want_w = 2;
		if (fabs(w - want_w) > fmax(1.0, 0.001 * want_w)) {
			if (fails++ < 5)
				fprintf(stderr, "ownd %u want %g\n", w, want_w);
		}
	}
	CHECK_CMP(fails, ==, 0);
}

/* extreme inputs stay in range */
static void test_extremes(void)
{
	struct jersey_est e;
	u64 prev = JERSEY_RATE_MAX;

	jersey_est_init(&e, 0);
	jersey_filter(&e, JERSEY_FILTER_ATSW, U32MAX, 1, 1);
	CHECK_CMP(e.are, ==, JERSEY_RATE_MAX);
	jersey_filter(&e, JERSEY_FILTER_ATSW, U32MAX, ~0ULL, U32MAX);
	CHECK_CMP(e.are, <=, JERSEY_RATE_MAX);
	jersey_filter(&e, JERSEY_FILTER_LPF, U32MAX, 1, 1);
	CHECK_CMP(e.are, <=, JERSEY_RATE_MAX);
	jersey_filter(&e, JERSEY_FILTER_LPF, U32MAX, ~0ULL, U32MAX);
	CHECK_CMP(e.are, <=, JERSEY_RATE_MAX);
	CHECK_CMP(jersey_filter_lpf(JERSEY_RATE_MAX, &prev, JERSEY_RATE_MAX,
				    1U << 30, 1U << 28), ==, JERSEY_RATE_MAX);
	CHECK_CMP(jersey_rate(U32MAX, 1), ==, JERSEY_RATE_MAX);
	CHECK_CMP(jersey_rate(1, ~0ULL), ==, 0);
	CHECK_CMP(jersey_ticks_to_us(U32MAX, U32MAX), ==, JERSEY_DELTA_MAX_US);
	/* 100 Gb/s over a 10 s RTT: 86 million segments */
	CHECK_NEAR(jersey_ownd(12500000000ULL << JERSEY_RATE_SHIFT, 10000000,
			       MSS), 12.5e9 * 10 / MSS, 1e-6);
	CHECK_CMP(jersey_ownd(~0ULL, U32MAX, 1), ==, JERSEY_OWND_MAX);
	CHECK_CMP(jersey_ownd(~0ULL, U32MAX, U32MAX), >, 2);
}

static void test_ownd_floor(void)
{
	CHECK_CMP(jersey_ownd(0, 50000, MSS), ==, 2);
	CHECK_CMP(jersey_ownd(1000000ULL << JERSEY_RATE_SHIFT, 0, MSS), ==, 2);
	CHECK_CMP(jersey_ownd(1000000ULL << JERSEY_RATE_SHIFT, 50000, 0), ==,
		  2);
	/* 1 MB/s * 2 ms = 2000 B = 1.38 segments -> 2 */
	CHECK_CMP(jersey_ownd(1000000ULL << JERSEY_RATE_SHIFT, 2000, MSS), ==,
		  2);
	/* 1 MB/s * 50 ms = 50000 B = 34.5 segments -> 34 */
	CHECK_CMP(jersey_ownd(1000000ULL << JERSEY_RATE_SHIFT, 50000, MSS), ==,
		  34);
	/* 2 Mb/s * 45 ms / 1000 B = 11.25 -> 11 (thesis fig. 5.11 path) */
	CHECK_CMP(jersey_ownd(250000ULL << JERSEY_RATE_SHIFT, 45000, 1000), ==,
		  11);
}

#define INF 0x7fffffffU

static void decide(struct jersey_decision *d, u8 ev, bool ecn, bool cong,
		   u32 cwnd, u32 ss, u32 ownd)
{
	memset(d, 0xa5, sizeof(*d));
	jersey_decide(d, ev, ecn, cong ? LC_WHY_QUEUE : LC_WHY_NONE, cwnd, ss,
		      ownd);
	CHECK_CMP(d->why, ==, cong ? LC_WHY_QUEUE : LC_WHY_NONE);
}

#define ROW(ev, ecn, cong, w0, s0, ow, c, w1, s1) do {		\
	decide(&d, ev, ecn, cong, w0, s0, ow);				\
	CHECK_CMP(d.cause, ==, c);					\
	CHECK_CMP(d.cwnd, ==, w1);					\
	CHECK_CMP(d.ssthresh, ==, s1);					\
} while (0)

static void test_decision_table(void)
{
	struct jersey_decision d;

	/* ECE on an ACK: rate control */
	ROW(CC_EV_ECE, 1, 1, 100, 50, 60, JERSEY_CAUSE_ECN, 60, 60);
	ROW(CC_EV_ECE, 1, 1, 20, INF, 60, JERSEY_CAUSE_ECN, 20, 60);
	ROW(CC_EV_ECE, 1, 1, 20, 30, 10, JERSEY_CAUSE_ECN, 20, 10);
	/* slow start under a finite ssthresh: the warning never raises it */
	ROW(CC_EV_ECE, 1, 1, 20, 30, 60, JERSEY_CAUSE_ECN, 20, 30);
	ROW(CC_EV_ECE, 1, 1, 50, 40, 80, JERSEY_CAUSE_ECN, 50, 50);
	ROW(CC_EV_ECE, 1, 1, 50, 40, 0, JERSEY_CAUSE_ECN, 2, 2);
	/* 3rd DUPACK with ECE: congestion, cwnd <- ownd, no halving */
	ROW(CC_EV_DUPACK, 1, 1, 100, 50, 60, JERSEY_CAUSE_CONGESTION, 60,
	    60);
	ROW(CC_EV_DUPACK, 1, 1, 100, 50, 90, JERSEY_CAUSE_CONGESTION, 90,
	    90);
	ROW(CC_EV_DUPACK, 1, 1, 40, 50, 90, JERSEY_CAUSE_CONGESTION, 40, 40);
	ROW(CC_EV_DUPACK, 1, 1, 100, 50, 1, JERSEY_CAUSE_CONGESTION, 2, 2);
	/* 3rd DUPACK without ECE: wireless, nothing changes */
	ROW(CC_EV_DUPACK, 1, 0, 100, 50, 60, JERSEY_CAUSE_WIRELESS, 100, 50);
	ROW(CC_EV_DUPACK, 1, 0, 10, INF, 60, JERSEY_CAUSE_WIRELESS, 10, INF);
	/* no ECN on the connection: every loss is congestion, AIAD */
	ROW(CC_EV_DUPACK, 0, 0, 100, 50, 60, JERSEY_CAUSE_CONGESTION, 60,
	    60);
	ROW(CC_EV_DUPACK, 0, 1, 100, 50, 60, JERSEY_CAUSE_CONGESTION, 60,
	    60);
	/* a loss repaired by a tail loss probe: as a 3rd DUPACK */
	ROW(CC_EV_TLP, 1, 0, 100, 50, 60, JERSEY_CAUSE_WIRELESS, 100, 50);
	ROW(CC_EV_TLP, 1, 1, 100, 50, 60, JERSEY_CAUSE_CONGESTION, 60, 60);
	/* our own qdisc refused a packet: congestion, whatever ECN says */
	ROW(CC_EV_LOCAL, 1, 0, 100, 50, 60, JERSEY_CAUSE_CONGESTION, 60, 60);
	ROW(CC_EV_LOCAL, 0, 0, 100, 50, 90, JERSEY_CAUSE_CONGESTION, 90, 90);
	/* RTO: congested -> 1; wireless -> ownd; no ECN -> ownd */
	ROW(CC_EV_RTO, 1, 1, 100, 50, 60, JERSEY_CAUSE_RTO_CONGESTION, 1,
	    60);
	ROW(CC_EV_RTO, 1, 0, 100, 50, 60, JERSEY_CAUSE_RTO_WIRELESS, 60,
	    60);
	ROW(CC_EV_RTO, 0, 0, 100, 50, 60, JERSEY_CAUSE_RTO_CONGESTION, 60,
	    60);
	ROW(CC_EV_RTO, 1, 0, 30, 50, 60, JERSEY_CAUSE_RTO_WIRELESS, 30,
	    30);
	ROW(CC_EV_RTO, 1, 0, 0, 50, 60, JERSEY_CAUSE_RTO_WIRELESS, 60, 60);
	ROW(CC_EV_RTO, 1, 0, 100, 50, 0, JERSEY_CAUSE_RTO_WIRELESS, 2, 2);
	ROW(CC_EV_RTO, 1, 1, 100, 50, 0, JERSEY_CAUSE_RTO_CONGESTION, 1,
	    2);

	CHECK(jersey_cause_is_wireless(JERSEY_CAUSE_WIRELESS));
	CHECK(jersey_cause_is_wireless(JERSEY_CAUSE_RTO_WIRELESS));
	CHECK(!jersey_cause_is_wireless(JERSEY_CAUSE_CONGESTION));
	CHECK(!jersey_cause_is_wireless(JERSEY_CAUSE_RTO_CONGESTION));
	CHECK(!jersey_cause_is_wireless(JERSEY_CAUSE_ECN));
}

/* end to end: ownd from a TS-ARE estimate of the thesis fig 5.11 path */
static void test_ownd_from_estimate(void)
{
	struct run r;
	double lo, hi;

	run_init(&r, JERSEY_MODE_AUTO, JERSEY_FILTER_ATSW, 0);
	stream(&r, 2e6, 1000.0, 5, 500, 5e6, 2e6, 120000, &lo, &hi);
	/* 2 Mb/s * 92 ms / 1448 B = 15.9 segments */
	CHECK_CMP(jersey_ownd(r.e.are, 92000, MSS), >=, 15);
	CHECK_CMP(jersey_ownd(r.e.are, 92000, MSS), <=, 16);
}

int main(void)
{
	RUN(test_mul_frac_exact);
	RUN(test_tau);
	RUN(test_atsw_constant_rate);
	RUN(test_lpf_constant_rate);
	RUN(test_step_response);
	RUN(test_ts_are_ack_compression);
	RUN(test_ts_ms_clock_100mbit);
	RUN(test_ts_us_clock);
	RUN(test_ts_unknown_tick);
	RUN(test_ts_learning_phase);
	RUN(test_ts_tick_learning_jitter);
	RUN(test_ts_clock_restart);
	RUN(test_ts_slow_clock);
	RUN(test_ts_wraparound);
	RUN(test_ts_reorder_and_jumps);
	RUN(test_ts_stall);
	RUN(test_delta_zero);
	RUN(test_l_zero);
	RUN(test_sweep_no_overflow);
	RUN(test_extremes);
	RUN(test_ownd_floor);
	RUN(test_decision_table);
	RUN(test_ownd_from_estimate);
	return check_summary();
}
