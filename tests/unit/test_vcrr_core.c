// SPDX-License-Identifier: GPL-2.0
/* Unit tests of qdisc/vcrr_core.h (and the helpers of qdisc/jq_math.h). */
#include <math.h>

/* counts jq_div128() calls: none may happen per packet */
static unsigned long div128_calls;
#define JQ_DIV128_HOOK() (div128_calls++)

#include "check.h"
#include "vcrr_core.h"

#define MS 1000000ULL			/* ns */
#define SEC 1000000000ULL		/* ns */
#define G095 62259			/* 0.95 * 65536, rounded */
#define GAMMA(g) ((double)(g) / 65536.0)

static double p_d(u64 p)
{
	return (double)p / (double)VCRR_P_ONE;
}

static double q16_d(u64 x)
{
	return (double)x / 65536.0;
}

/* deterministic 32-bit generator (xorshift) */
static u32 rnd_state = 2463534242u;
static u32 rnd32(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 17;
	rnd_state ^= rnd_state << 5;
	return rnd_state;
}

static void mul_div_matches_128bit(void)
{
	static const u64 vals[] = {
		0, 1, 3, 1000, 65535, 65536, 1000000, 999999999, 1000000000,
		(1ULL << 32) - 1, 1ULL << 32, (1ULL << 32) + 1, 60000000000ULL,
		1ULL << 40, 12500000000ULL << 16, 1ULL << 57, (1ULL << 63) + 5,
		~0ULL,
	};
	unsigned int n = sizeof(vals) / sizeof(vals[0]), i, j, k;

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			for (k = 1; k < n; k++) {
				unsigned __int128 e = (unsigned __int128)vals[i] *
					vals[j] / vals[k];
				u64 want = e > U64_MAX ? U64_MAX : (u64)e;
				u64 got = jq_mul_div(vals[i], vals[j], vals[k]);

				CHECK(got == want);	/* exact */
			}
	CHECK_CMP(jq_mul_div(5, 5, 0), ==, -1);	/* U64_MAX */
	for (i = 0; i < 100000; i++) {
		u64 a = ((u64)rnd32() << 32 | rnd32()) >> (rnd32() % 64);
		u64 b = ((u64)rnd32() << 32 | rnd32()) >> (rnd32() % 64);
		u64 c = (((u64)rnd32() << 32 | rnd32()) >> (rnd32() % 64)) | 1;
		unsigned __int128 e = (unsigned __int128)a * b / c;
		u64 want = e > U64_MAX ? U64_MAX : (u64)e;
		u64 got = jq_mul_div(a, b, c);

		CHECK(got == want);
		e = (unsigned __int128)a * b >> 32;
		want = e > U64_MAX ? U64_MAX : (u64)e;
		CHECK(jq_mul_shr32(a, b) == want);
	}
}

static void virtual_capacity_per_interval(void)
{
	struct vcrr_params pp;

	/* 10 Mbit/s, gamma 0.95, 20 ms: 23750 bytes per interval */
	vcrr_params_set(&pp, 1250000, G095, 20 * MS, 20 * MS, 20 * MS,
			VCRR_EST_COUNT);
	CHECK_NEAR(q16_d(pp.vc), 1250000 * GAMMA(G095), 1e-12);
	CHECK_NEAR(q16_d(pp.vc_dt), 23750, 1e-5);
}

static void vc_dt_no_overflow_over_ranges(void)
{
	/* 1 kbit/s .. 100 Gbit/s, 1 ms .. 1 s (and the 2^40 / 60 s limits) */
	static const u64 rates[] = { 125, 1250, 125000, 1250000, 12500000,
				     1250000000, 12500000000ULL, 1ULL << 40 };
	static const u64 ivs[] = { 1 * MS, 10 * MS, 20 * MS, 100 * MS, SEC,
				   60 * SEC };
	static const u32 gammas[] = { 1, G095, 65536, 98304 };
	unsigned int i, j, k;

	for (i = 0; i < 8; i++)
		for (j = 0; j < 6; j++)
			for (k = 0; k < 4; k++) {
				struct vcrr_params pp;
				double want = (double)rates[i] * gammas[k] *
					ivs[j] / 1e9;	/* q16 bytes */

				vcrr_params_set(&pp, rates[i], gammas[k],
						ivs[j], ivs[j], ivs[j],
						VCRR_EST_COUNT);
				CHECK(pp.vc_dt >= 1);
				/* exact, rounded down (but at least 1) */
				CHECK((double)pp.vc_dt <= want + 1e-9 * want ||
				      pp.vc_dt == 1);
				CHECK((double)pp.vc_dt > want - 1 - 1e-9 * want);
			}
}

/* run k counted intervals with arrived = factor * vc * dt */
static void run_intervals(const struct vcrr_params *pp, struct vcrr_state *s,
			  u64 *now, double factor, int k)
{
	int i;

	for (i = 0; i < k; i++) {
		u64 bytes = (u64)llround(factor * q16_d(pp->vc_dt));
		u64 sent = 0;

		/* spread over the interval in 1000-byte packets */
		while (sent < bytes) {
			u32 len = bytes - sent > 1000 ? 1000 : bytes - sent;

			vcrr_advance(pp, s, *now);
			vcrr_arrival(pp, s, *now, len);
			sent += len;
			*now += pp->interval * len / (bytes + 1);
		}
		*now = s->next;		/* next event right at the boundary */
		vcrr_advance(pp, s, *now);
		*now += 1;
	}
}

static void integrator_rises_and_falls(void)
{
	struct vcrr_params pp;
	struct vcrr_state s;
	u64 now = 7 * SEC;
	int k;

	vcrr_params_set(&pp, 1250000, G095, 20 * MS, 20 * MS, 20 * MS,
			VCRR_EST_COUNT);
	vcrr_state_init(&s, &pp, now);
	/* 10% overload: p = 0.1 k after k intervals */
	for (k = 1; k <= 9; k++) {
		run_intervals(&pp, &s, &now, 1.1, 1);
		CHECK_NEAR(p_d(s.p), 0.1 * k, 1e-3);
		CHECK_CMP(s.updates, ==, k);
	}
	/* clamps at 1 */
	run_intervals(&pp, &s, &now, 1.1, 3);
	CHECK_CMP(s.p, ==, VCRR_P_ONE);
	/* arrivals exactly at the virtual capacity: p holds */
	run_intervals(&pp, &s, &now, 1.0, 2);
	CHECK_NEAR(p_d(s.p), 1.0, 1e-4);
	/* 10% underload: falls by 0.1 per interval, clamps at 0 */
	s.p = VCRR_P_ONE;
	for (k = 1; k <= 9; k++) {
		run_intervals(&pp, &s, &now, 0.9, 1);
		CHECK_NEAR(p_d(s.p), 1.0 - 0.1 * k, 1e-3);
	}
	run_intervals(&pp, &s, &now, 0.9, 3);
	CHECK_CMP(s.p, ==, 0);
	/* a single burst of twice the capacity saturates at once */
	run_intervals(&pp, &s, &now, 2.5, 1);
	CHECK_CMP(s.p, ==, VCRR_P_ONE);
	/* an empty interval takes p back to 0 */
	run_intervals(&pp, &s, &now, 0.0, 1);
	CHECK_CMP(s.p, ==, 0);
}

/*
 * The thesis's gain (8.36), qref = 1 s: p is the virtual queue in seconds.
 * 10 Mbit/s, gamma 0.95, 20 ms: 10% overload adds 0.1 * 20 ms = 0.002 per
 * interval, so p = 0.1 after 50 intervals (a virtual queue of 0.1 s).
 */
static void thesis_gain_p_is_virtual_delay(void)
{
	struct vcrr_params pp;
	struct vcrr_state s;
	u64 now = 3 * SEC;

	vcrr_params_set(&pp, 1250000, G095, 20 * MS, 20 * MS, SEC,
			VCRR_EST_COUNT);
	CHECK_NEAR(q16_d(pp.ref), 1250000 * GAMMA(G095), 1e-9);
	CHECK_NEAR(p_d(pp.empty), 0.02, 1e-6);
	vcrr_state_init(&s, &pp, now);
	run_intervals(&pp, &s, &now, 1.1, 1);
	CHECK_NEAR(p_d(s.p), 0.002, 1e-4);
	run_intervals(&pp, &s, &now, 1.1, 49);
	CHECK_NEAR(p_d(s.p), 0.1, 1e-3);
	/* one packet of 1500 bytes above the 23750 of an interval */
	s.p = 0;
	s.arrived = 23750 + 1500;
	vcrr_advance(&pp, &s, s.next);
	CHECK_NEAR(p_d(s.p), 1500 / (1250000 * GAMMA(G095)), 1e-4);
	/* at the virtual capacity p holds; below it p drains */
	s.p = VCRR_P_ONE / 10;
	run_intervals(&pp, &s, &now, 1.0, 10);
	CHECK_NEAR(p_d(s.p), 0.1, 1e-4);
	run_intervals(&pp, &s, &now, 0.5, 4);
	CHECK_NEAR(p_d(s.p), 0.1 - 4 * 0.5 * 0.02, 1e-4);
}

/* idle intervals drain p by interval / qref each, in closed form */
static void thesis_gain_idle_drain(void)
{
	struct vcrr_params pp;
	struct vcrr_state s;
	u64 now = SEC;

	vcrr_params_set(&pp, 1250000, G095, 20 * MS, 20 * MS, SEC,
			VCRR_EST_COUNT);
	vcrr_state_init(&s, &pp, now);
	s.p = VCRR_P_ONE / 2;
	s.arrived = (u64)(q16_d(pp.vc_dt));	/* exactly vc dt: no change */
	/* silence: the interval ending at next, then 4 more empty ones */
	vcrr_advance(&pp, &s, s.next + 4 * pp.interval + MS);
	CHECK_CMP(s.updates, ==, 5);
	CHECK_NEAR(p_d(s.p), 0.5 - 4 * 0.02, 1e-5);
	/* 10 s of silence takes it to 0, on the interval grid */
	now = s.next + 10 * SEC - 3 * MS;
	vcrr_advance(&pp, &s, now);
	CHECK_CMP(s.p, ==, 0);
	CHECK_CMP(s.next - now, ==, 3 * MS);
	/* the same with an estimator: decayed estimates, then closed form */
	vcrr_params_set(&pp, 1250000, G095, 20 * MS, 20 * MS, SEC,
			VCRR_EST_CSFQ);
	vcrr_state_init(&s, &pp, SEC);
	s.p = VCRR_P_ONE / 2;
	vcrr_advance(&pp, &s, SEC + 200 * SEC);
	CHECK_CMP(s.p, ==, 0);
	s.p = VCRR_P_ONE / 2;
	vcrr_advance(&pp, &s, s.next + 99 * pp.interval);	/* 100 empty */
	CHECK_CMP(s.p, ==, 0);	/* 100 * 0.02 > 0.5: clamped */
}

static void p_clamps_and_excess_saturates(void)
{
	CHECK_CMP(vcrr_excess(0, 1000, 1000), ==, -(s64)VCRR_P_ONE);
	CHECK_CMP(vcrr_excess(2000, 1000, 1000), ==, (s64)VCRR_P_ONE);
	CHECK_CMP(vcrr_excess(~0ULL, 1000, 1000), ==, (s64)VCRR_P_ONE);
	CHECK_CMP(vcrr_excess(1500, 1000, 1000), ==, (s64)VCRR_P_ONE / 2);
	CHECK_CMP(vcrr_excess(750, 1000, 1000), ==, -(s64)VCRR_P_ONE / 4);
	CHECK_NEAR((double)vcrr_excess((1ULL << 57) / 10 * 11, 1ULL << 57,
				       1ULL << 57), 0.1 * VCRR_P_ONE, 1e-8);
	/* relative to a reference 50 times the virtual link's interval */
	CHECK_CMP(vcrr_excess(1500, 1000, 50000), ==, (s64)VCRR_P_ONE / 100);
	CHECK_CMP(vcrr_excess(0, 1000, 50000), ==, -(s64)VCRR_P_ONE / 50);
	CHECK_CMP(vcrr_excess(100000, 1000, 50000), ==, (s64)VCRR_P_ONE);
	CHECK_CMP(vcrr_p_add(0, -5), ==, 0);
	CHECK_CMP(vcrr_p_add(VCRR_P_ONE, 5), ==, VCRR_P_ONE);
	CHECK_CMP(vcrr_p_add(VCRR_P_ONE, -(s64)VCRR_P_ONE), ==, 0);
	CHECK_CMP(vcrr_p_add(VCRR_P_ONE / 2, VCRR_P_ONE / 4), ==,
		  VCRR_P_ONE / 4 * 3);
}

static void p_to_random_threshold(void)
{
	u64 p = VCRR_P_ONE * 3 / 10;
	int i, n = 1000000, marks = 0;

	CHECK_CMP(vcrr_p_to_u32(0), ==, 0);
	CHECK_CMP(vcrr_p_to_u32(VCRR_P_ONE / 2), ==, 1U << 31);
	CHECK_CMP(vcrr_p_to_u32(VCRR_P_ONE), ==, U32_MAX);
	CHECK(!vcrr_mark(0, 0));
	CHECK(vcrr_mark(VCRR_P_ONE, U32_MAX));	/* p = 1 marks everything */
	CHECK(vcrr_mark(1, 0));
	CHECK(!vcrr_mark(1, 1));
	for (i = 0; i < n; i++)
		marks += vcrr_mark(p, rnd32());
	CHECK_NEAR(marks, 0.3 * n, 0.01);
}

static void idle_intervals_reset_p(void)
{
	struct vcrr_params pp;
	struct vcrr_state s;
	u64 now = SEC;

	vcrr_params_set(&pp, 1250000, G095, 20 * MS, 20 * MS, 20 * MS,
			VCRR_EST_COUNT);
	vcrr_state_init(&s, &pp, now);
	s.p = VCRR_P_ONE / 2;
	s.arrived = 100000;	/* a lot, then silence for 10 s */
	now += 10 * SEC + 5 * MS;
	vcrr_advance(&pp, &s, now);
	CHECK_CMP(s.p, ==, 0);
	CHECK(s.next > now);
	CHECK_CMP(s.next - now, ==, 15 * MS);	/* stays on the grid */
	CHECK_CMP(s.updates, ==, 500);
	/* one interval late: the first update still sees the counter */
	s.p = VCRR_P_ONE / 2;
	s.arrived = (u64)(q16_d(pp.vc_dt) * 1.2);
	vcrr_advance(&pp, &s, s.next + 1);
	CHECK_NEAR(p_d(s.p), 0.7, 1e-3);
}

static void exp_helpers_accuracy(void)
{
	static const double xs[] = { 0, 1e-9, 1e-6, 0.001, 0.1, 0.5, 0.999,
				     1, 1.5, 2.3, 7, 15, 22.9, 23, 40 };
	unsigned int i;

	for (i = 0; i < sizeof(xs) / sizeof(xs[0]); i++) {
		u64 x = (u64)(xs[i] * 4294967296.0);
		double e = (double)vcrr_exp_neg(x) / 4294967296.0;
		double f = (double)vcrr_expm1_over_x(x) / 4294967296.0;
		double xe = (double)x / 4294967296.0;
		double fe = xe > 0 ? -expm1(-xe) / xe : 1.0;

		CHECK(fabs(e - exp(-xe)) < 1e-8);
		CHECK(fabs(f - fe) < 1e-8);
	}
}

/* feed a constant rate; return the estimate after `dur` ns */
static double estimate(u32 est, u64 rate, u32 pkt, u64 win, u64 dur,
		       u64 start)
{
	struct vcrr_params pp;
	struct vcrr_state s;
	u64 now = start, t;
	double gap = (double)pkt * 1e9 / (double)rate, acc = 0;

	vcrr_params_set(&pp, rate, 65536, win, win, win, est);
	vcrr_state_init(&s, &pp, now);
	for (t = 0; t < dur;) {
		acc += gap;
		t = (u64)acc;
		vcrr_arrival(&pp, &s, start + t, pkt);
	}
	return q16_d(s.y);
}

static void estimators_track_constant_rate(void)
{
	/* 1 kbit/s .. 100 Gbit/s; windows 1 ms .. 1 s */
	static const struct { u64 rate; u32 pkt; u64 win; } c[] = {
		{ 125, 40, SEC },		/* 1 kbit/s, 40 B every 0.32 s */
		{ 125, 100, 100 * MS },		/* gaps longer than the window */
		{ 125000, 1500, 100 * MS },	/* 1 Mbit/s */
		{ 1250000, 1500, 20 * MS },	/* 10 Mbit/s */
		{ 12500000, 1500, 20 * MS },	/* 100 Mbit/s */
		{ 125000000, 1500, 1 * MS },	/* 1 Gbit/s */
		{ 1250000000, 1500, 1 * MS },	/* 10 Gbit/s */
		{ 12500000000ULL, 1500, 1 * MS },	/* 100 Gbit/s */
		{ 12500000000ULL, 9000, SEC },	/* 100 Gbit/s, 1 s window */
		{ 12500000000ULL, 65535, 20 * MS },
	};
	unsigned int i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		u64 dur = 20 * c[i].win;
		double gap = (double)c[i].pkt * 1e9 / (double)c[i].rate;

		if (dur < 20 * gap)
			dur = (u64)(20 * gap);
		if (dur > 30 * SEC)
			dur = 30 * SEC;
		CHECK_NEAR(estimate(VCRR_EST_TSW, c[i].rate, c[i].pkt, c[i].win,
				    dur, 3 * SEC), (double)c[i].rate, 0.05);
		CHECK_NEAR(estimate(VCRR_EST_CSFQ, c[i].rate, c[i].pkt,
				    c[i].win, dur, 3 * SEC),
			   (double)c[i].rate, 0.05);
	}
}

static void estimators_decay_when_idle(void)
{
	struct vcrr_params pp;
	struct vcrr_state s;

	vcrr_params_set(&pp, 1250000, 65536, 20 * MS, 20 * MS, 20 * MS,
			VCRR_EST_TSW);
	vcrr_state_init(&s, &pp, 0);
	s.y = 1000000ULL << 16;
	s.last = 0;
	/* TSW: y T / (T + gap); CSFQ: y e^(-gap/K) */
	CHECK_NEAR(q16_d(vcrr_rate_at(&pp, &s, 20 * MS)), 500000, 1e-6);
	pp.est = VCRR_EST_CSFQ;
	CHECK_NEAR(q16_d(vcrr_rate_at(&pp, &s, 20 * MS)), 1e6 * exp(-1), 1e-6);
	CHECK_NEAR(q16_d(vcrr_rate_at(&pp, &s, 0)), 1e6, 1e-9);
}

static void estimator_drives_p(void)
{
	static const u32 ests[] = { VCRR_EST_TSW, VCRR_EST_CSFQ };
	unsigned int e;

	for (e = 0; e < 2; e++) {
		struct vcrr_params pp;
		struct vcrr_state s;
		u64 now = SEC, t0 = SEC, p10 = 0;
		double vc = 1250000 * GAMMA(G095);
		double gap = 1500 * 1e9 / (1.1 * vc);	/* 10% above vc */
		int k;

		vcrr_params_set(&pp, 1250000, G095, 20 * MS, 20 * MS, 20 * MS,
				ests[e]);
		vcrr_state_init(&s, &pp, now);
		for (k = 0; now < t0 + 300 * MS; k++) {
			now = t0 + (u64)(k * gap);
			vcrr_advance(&pp, &s, now);
			if (s.updates < 10)
				s.p = 0;	/* hold p during warm-up */
			else if (s.updates == 10 && !p10)
				p10 = s.p;	/* the 10th update */
			vcrr_arrival(&pp, &s, now, 1500);
		}
		CHECK_CMP(s.updates, ==, 15);
		/* six updates of +0.1 each */
		CHECK_NEAR(p_d(s.p), 0.6, 0.03);
		CHECK_NEAR(p_d(s.p - p10), 0.5, 0.03);
		CHECK_NEAR(q16_d(s.y_used), 1.1 * vc, 0.01);
		/* an interval without arrivals uses the decayed estimate */
		p10 = s.p;
		vcrr_advance(&pp, &s, s.next + pp.interval);
		CHECK_CMP(s.updates, ==, 17);
		CHECK(q16_d(s.y_used) < 0.6 * vc);
		CHECK(s.p < p10);
	}
}

/*
 * Packets through the extreme accepted settings (interval 1 us and 60 s,
 * window up to 64 intervals and 60 s, rate 1 and 2^40 bytes/s, qref 60 s,
 * every estimator, after gaps up to an hour): the per-packet path
 * (vcrr_advance + vcrr_arrival) takes no 128-bit division, and p stays
 * in [0, 1].
 */
static void no_slow_division_per_packet(void)
{
	static const u64 rates[] = { 1, 125000, 1ULL << 40 };
	static const u64 ivals[] = { 1000, 20 * MS, 60 * SEC };
	static const u64 gaps[] = { 0, 700, 3 * MS, 5 * SEC, 3600 * SEC };
	unsigned int r, i, w, e, g, n;

	for (r = 0; r < 3; r++)
	for (i = 0; i < 3; i++)
	for (w = 0; w < 2; w++)
	for (e = 0; e < 3; e++) {
		struct vcrr_params pp;
		struct vcrr_state s;
		u64 win = w ? ivals[i] * VCRR_WINDOW_INTERVALS : ivals[i];
		u64 now = 1000 * SEC;

		if (win > 60 * SEC)
			win = 60 * SEC;
		vcrr_params_set(&pp, rates[r], 3 * 65536 / 2, ivals[i], win,
				60 * SEC, e);
		vcrr_state_init(&s, &pp, now);
		div128_calls = 0;
		for (g = 0; g < 5; g++)
			for (n = 0; n < 50; n++) {
				now += gaps[g] + (rnd32() & 1023);
				vcrr_advance(&pp, &s, now);
				vcrr_arrival(&pp, &s, now, 64 + (rnd32() & 65535));
				CHECK_CMP(s.p, <=, VCRR_P_ONE);
			}
		CHECK_CMP(div128_calls, ==, 0);
	}
}

/*
 * A silence after a burst: vcrr_advance() closes the intervals without
 * arrivals in one step, with the estimate at the middle of the silence; the
 * exact stepwise integration (vcrr_close_interval() on each) ends within
 * 0.005 of it while p stays inside (0, 1).
 */
static void ln_accuracy(void)
{
	static const double xs[] = { 1, 1.5, 2, 3, 1000, 123456789, 1e15, 1.8e19 };
	unsigned int i;

	for (i = 0; i < sizeof(xs) / sizeof(xs[0]); i++)
		CHECK_NEAR((double)vcrr_ln((u64)xs[i]) / 4294967296.0,
			   log((double)(u64)xs[i]), 1e-8);
}

static void catch_up_in_one_step(void)
{
	static const u32 ests[] = { VCRR_EST_TSW, VCRR_EST_CSFQ };
	static const unsigned int silences[] = { 2, 5, 20, 64, 300 };
	unsigned int e, k;

	for (e = 0; e < 2; e++)
	for (k = 0; k < 5; k++) {
		struct vcrr_params pp;
		struct vcrr_state one, step;
		u64 t = 100 * SEC, end;

		/* 10 Mb/s, interval 1 ms, window 20 intervals, qref 1 s */
		vcrr_params_set(&pp, 1250000, G095, MS, 20 * MS, SEC, ests[e]);
		vcrr_state_init(&one, &pp, t);
		one.p = VCRR_P_ONE / 2;
		one.y = (u64)(1.5 * 1250000 * GAMMA(G095) * 65536);
		one.last = one.next - MS / 2;
		step = one;
		end = one.next + silences[k] * MS;
		vcrr_advance(&pp, &one, end);
		while (step.next <= end)
			vcrr_close_interval(&pp, &step);
		CHECK_CMP(one.updates, ==, step.updates);
		CHECK_CMP(one.next, ==, step.next);
		CHECK_NEAR(p_d(one.p), p_d(step.p), 0.005);
	}
}

int main(void)
{
	RUN(mul_div_matches_128bit);
	RUN(virtual_capacity_per_interval);
	RUN(vc_dt_no_overflow_over_ranges);
	RUN(integrator_rises_and_falls);
	RUN(thesis_gain_p_is_virtual_delay);
	RUN(thesis_gain_idle_drain);
	RUN(p_clamps_and_excess_saturates);
	RUN(p_to_random_threshold);
	RUN(idle_intervals_reset_p);
	RUN(exp_helpers_accuracy);
	RUN(estimators_track_constant_rate);
	RUN(estimators_decay_when_idle);
	RUN(estimator_drives_p);
	RUN(no_slow_division_per_packet);
	RUN(ln_accuracy);
	RUN(catch_up_in_one_step);
	return check_summary();
}
