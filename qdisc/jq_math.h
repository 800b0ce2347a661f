/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-independent integer helpers shared by cw_core.h and vcrr_core.h.
 *
 * Compiles in the kernel (u32/u64 and div64_u64_rem from linux/math64.h) and
 * in userspace (a small typedef shim), so that the arithmetic can be unit
 * tested with tests/unit.  Integer only, no 128-bit arithmetic.
 */
#ifndef JERSEY_JQ_MATH_H
#define JERSEY_JQ_MATH_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/math64.h>
#include <linux/limits.h>
#else
#include <stdbool.h>
#include <stdint.h>
typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;
#ifndef U32_MAX
#define U32_MAX ((u32)~0U)
#endif
#ifndef U64_MAX
#define U64_MAX ((u64)~0ULL)
#endif
static inline u64 div64_u64_rem(u64 dividend, u64 divisor, u64 *remainder)
{
	*remainder = dividend % divisor;
	return dividend / divisor;
}

static inline u64 div64_u64(u64 dividend, u64 divisor)
{
	return dividend / divisor;
}
#endif

#define JQ_NSEC_PER_SEC		1000000000ULL
#define JQ_NSEC_PER_USEC	1000ULL

/* a * b / c for b, c < 2^32: exact, rounded down, saturating at U64_MAX */
static inline u64 jq_mul_div32(u64 a, u64 b, u64 c)
{
	u64 q, r, hi, lo;

	q = div64_u64_rem(a, c, &r);
	if (q && b > U64_MAX / q)
		return U64_MAX;
	hi = q * b;
	lo = div64_u64(r * b, c);	/* r < c < 2^32, b < 2^32 */
	return hi > U64_MAX - lo ? U64_MAX : hi + lo;
}

/*
 * a * b / c, rounded down, saturating at U64_MAX (also for c == 0).
 * Exact whenever c < 2^32.  A larger divisor is halved together with the
 * larger factor until it fits, which bounds the error by result * 2^-31 + 1.
 */
static inline u64 jq_mul_div(u64 a, u64 b, u64 c)
{
	u64 t, qb, rb, hi, lo;

	if (!c)
		return U64_MAX;
	if (a < b) {
		t = a;
		a = b;
		b = t;
	}
	while (c > U32_MAX) {
		a >>= 1;
		c >>= 1;
	}
	if (a < b) {
		t = a;
		a = b;
		b = t;
	}
	if (b <= U32_MAX)
		return jq_mul_div32(a, b, c);
	/* both factors >= 2^32: a * b / c = a * (b / c) + a * (b % c) / c */
	qb = div64_u64_rem(b, c, &rb);
	if (a > U64_MAX / qb)
		return U64_MAX;
	hi = a * qb;
	lo = jq_mul_div32(a, rb, c);
	return hi > U64_MAX - lo ? U64_MAX : hi + lo;
}

/* x << 16 saturating at U64_MAX */
static inline u64 jq_shl16_sat(u64 x)
{
	return x > (U64_MAX >> 16) ? U64_MAX : x << 16;
}

#endif /* JERSEY_JQ_MATH_H */
