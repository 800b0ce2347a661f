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
#include <linux/bitops.h>
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

/* the bit length of x (0 for 0) */
static inline unsigned int jq_fls64(u64 x)
{
#ifdef __KERNEL__
	return fls64(x);
#else
	return x ? 64 - __builtin_clzll(x) : 0;
#endif
}

#define JQ_NSEC_PER_SEC		1000000000ULL
#define JQ_NSEC_PER_USEC	1000ULL
#define JQ_USEC_PER_SEC		1000000ULL

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

/* the 128-bit product a * b as *hi : *lo */
static inline void jq_mul64(u64 a, u64 b, u64 *hi, u64 *lo)
{
	u64 al = a & U32_MAX, ah = a >> 32, bl = b & U32_MAX, bh = b >> 32;
	u64 ll = al * bl, lh = al * bh, hl = ah * bl;
	u64 mid = (ll >> 32) + (lh & U32_MAX) + (hl & U32_MAX);

	*lo = (mid << 32) | (ll & U32_MAX);
	*hi = ah * bh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

/* the unit tests count the slow divisions (none per packet) */
#ifndef JQ_DIV128_HOOK
#define JQ_DIV128_HOOK() do { } while (0)
#endif

/* hi : lo / c, rounded down, saturating at U64_MAX; c > 0.  Bitwise. */
static inline u64 jq_div128(u64 hi, u64 lo, u64 c)
{
	u64 q = 0, r = hi;
	bool carry;
	int i;

	JQ_DIV128_HOOK();

	if (hi >= c)
		return U64_MAX;
	for (i = 63; i >= 0; i--) {	/* invariant: r < c */
		carry = r >> 63;
		r = (r << 1) | ((lo >> i) & 1);
		q <<= 1;
		if (carry || r >= c) {
			r -= c;
			q |= 1;
		}
	}
	return q;
}

/* (a * b) >> 32, exact, saturating at U64_MAX */
static inline u64 jq_mul_shr32(u64 a, u64 b)
{
	u64 hi, lo;

	jq_mul64(a, b, &hi, &lo);
	if (hi >> 32)
		return U64_MAX;
	return hi << 32 | lo >> 32;
}

/*
 * a * b / c, exact, rounded down, saturating at U64_MAX (also for c == 0).
 * Cheap when c and the smaller factor fit in 32 bits; otherwise it falls
 * back to a 64-step long division.
 */
static inline u64 jq_mul_div(u64 a, u64 b, u64 c)
{
	u64 hi, lo;

	if (!c)
		return U64_MAX;
	if (c <= U32_MAX && b <= U32_MAX)
		return jq_mul_div32(a, b, c);
	if (c <= U32_MAX && a <= U32_MAX)
		return jq_mul_div32(b, a, c);
	jq_mul64(a, b, &hi, &lo);
	return jq_div128(hi, lo, c);
}

/* x << 16 saturating at U64_MAX */
static inline u64 jq_shl16_sat(u64 x)
{
	return x > (U64_MAX >> 16) ? U64_MAX : x << 16;
}

#endif /* JERSEY_JQ_MATH_H */
