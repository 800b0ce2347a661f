// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark (not a test): the per-packet cost of qdisc/vcrr_core.h
 * (vcrr_advance + vcrr_arrival + the marking draw) at the default setting
 * and at the extreme accepted ones, packets of 1500 bytes about 1.2 us
 * apart (10 Gb/s) or 100 us apart (catching up on empty intervals).  `make -C tests/unit bench` prints ns per packet.
 */
#include <stdio.h>
#include <time.h>

#include "vcrr_core.h"

#define US 1000ULL
#define SEC 1000000000ULL

struct setting {
	const char *name;
	u64 rate, interval, window, qref;
	u32 est;
	u64 gap;	/* mean ns between packets */
};

/* Knuth's MMIX linear congruential generator, top 32 bits */
static u64 rnd = 1;
static u32 rnd32(void)
{
	rnd = rnd * 6364136223846793005ULL + 1442695040888963407ULL;
	return (u32)(rnd >> 32);
}

static double ns_per_packet(const struct setting *c, unsigned int n)
{
	struct vcrr_params pp;
	struct vcrr_state s;
	struct timespec t0, t1;
	u64 now = 1000 * SEC, marks = 0;
	unsigned int i;

	vcrr_params_set(&pp, c->rate, 62259, c->interval, c->window, c->qref,
			c->est);
	vcrr_state_init(&s, &pp, now);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < n; i++) {
		now += c->gap / 2 + rnd32() % (c->gap + 1);
		vcrr_advance(&pp, &s, now);
		vcrr_arrival(&pp, &s, now, 1500);
		marks += vcrr_mark(s.p, rnd32());
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (marks == ~0ULL)	/* keep the loop */
		printf("!");
	return ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / n;
}

int main(void)
{
	static const struct setting cs[] = {
		{ "default (count, 20 ms)", 125000000, 20000 * US, 20000 * US, SEC, VCRR_EST_COUNT, 1200 },
		{ "count, interval 1 us", 125000000, 1 * US, 1 * US, 60 * SEC, VCRR_EST_COUNT, 1200 },
		{ "tsw, 20 ms", 125000000, 20000 * US, 20000 * US, SEC, VCRR_EST_TSW, 1200 },
		{ "csfq, 20 ms", 125000000, 20000 * US, 20000 * US, SEC, VCRR_EST_CSFQ, 1200 },
		{ "tsw, 1 us, window 64 us", 125000000, 1 * US, 64 * US, 60 * SEC, VCRR_EST_TSW, 1200 },
		{ "csfq, 1 us, window 64 us", 125000000, 1 * US, 64 * US, 60 * SEC, VCRR_EST_CSFQ, 1200 },
		{ "tsw, 1 us, 64 us, gaps 100 us", 125000000, 1 * US, 64 * US, 60 * SEC, VCRR_EST_TSW, 100000 },
		{ "csfq, 1 us, 64 us, gaps 100 us", 125000000, 1 * US, 64 * US, 60 * SEC, VCRR_EST_CSFQ, 100000 },
		{ "tsw, 60 s, rate 2^40", 1ULL << 40, 60 * SEC, 60 * SEC, 60 * SEC, VCRR_EST_TSW, 1200 },
		{ "csfq, 60 s, rate 2^40", 1ULL << 40, 60 * SEC, 60 * SEC, 60 * SEC, VCRR_EST_CSFQ, 1200 },
	};
	unsigned int i;
	double base = 0;

	for (i = 0; i < sizeof(cs) / sizeof(cs[0]); i++) {
		double ns = ns_per_packet(&cs[i], 2000000);

		if (!i)
			base = ns;
		printf("%-28s %7.1f ns/packet  %5.2fx default\n", cs[i].name, ns,
		       ns / base);
	}
	return 0;
}
