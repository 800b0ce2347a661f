/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal userspace test harness for the kernel-independent arithmetic
 * headers.  Each test program defines test functions, lists them in main()
 * with RUN(fn) and ends with `return check_summary();`, which prints
 * "N passed, N failed" and returns non-zero when any check failed.
 */
#ifndef JERSEY_CHECK_H
#define JERSEY_CHECK_H
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

static int check_failed_in_test;
static int check_passed, check_failed;

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "%s:%d: CHECK(%s) failed\n",		\
			__FILE__, __LINE__, #cond);			\
		check_failed_in_test = 1;				\
	}								\
} while (0)

/* a and b as signed 64-bit; prints both on failure */
#define CHECK_CMP(a, op, b) do {					\
	long long _a = (long long)(a), _b = (long long)(b);		\
	if (!(_a op _b)) {						\
		fprintf(stderr, "%s:%d: %s %s %s: %lld vs %lld\n",	\
			__FILE__, __LINE__, #a, #op, #b, _a, _b);	\
		check_failed_in_test = 1;				\
	}								\
} while (0)

/* |a - b| <= tol * |b| (tol a double fraction) */
#define CHECK_NEAR(a, b, tol) do {					\
	double _a = (double)(a), _b = (double)(b);			\
	double _d = _a > _b ? _a - _b : _b - _a;			\
	if (_d > (tol) * (_b < 0 ? -_b : _b)) {				\
		fprintf(stderr, "%s:%d: %s ~ %s (tol %g): %g vs %g\n",	\
			__FILE__, __LINE__, #a, #b, (double)(tol), _a, _b); \
		check_failed_in_test = 1;				\
	}								\
} while (0)

#define RUN(fn) do {							\
	check_failed_in_test = 0;					\
	fn();								\
	printf("%s %s\n", check_failed_in_test ? "FAIL" : "ok  ", #fn);	\
	if (check_failed_in_test)					\
		check_failed++;						\
	else								\
		check_passed++;						\
} while (0)

static inline int check_summary(void)
{
	printf("%d passed, %d failed\n", check_passed, check_failed);
	return check_failed ? 1 : 0;
}
#endif
