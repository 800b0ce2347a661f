/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the congestion controls' arithmetic headers (jersey_core.h,
 * diffc_core.h, newrenolp_core.h, balde_core.h, lossclass_core.h) share,
 * independent of the kernel so that they build in userspace too
 * (tests/unit): the kernel's integer types, 64-bit division that links on
 * 32-bit kernels, and the congestion events the module glue (cc_glue.h)
 * tells the algorithms about.
 */
#ifndef _JERSEY_CC_CORE_H
#define _JERSEY_CC_CORE_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/math64.h>

static inline u64 cc_div64(u64 n, u64 d)
{
	return div64_u64(n, d);
}

static inline u64 cc_div64_u32(u64 n, u32 d)
{
	return div_u64(n, d);
}
#else
#include <stdbool.h>
#include <stdint.h>
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef int32_t s32;
typedef uint64_t u64;
typedef int64_t s64;

static inline u64 cc_div64(u64 n, u64 d)
{
	return n / d;
}

static inline u64 cc_div64_u32(u64 n, u32 d)
{
	return n / d;
}
#endif

static inline u32 cc_min_u32(u32 a, u32 b)
{
	return a < b ? a : b;
}

static inline u32 cc_max_u32(u32 a, u32 b)
{
	return a > b ? a : b;
}

static inline u64 cc_min_u64(u64 a, u64 b)
{
	return a < b ? a : b;
}

static inline u64 cc_max_u64(u64 a, u64 b)
{
	return a > b ? a : b;
}

/* sequence number @a is after @b (as the kernel's after()) */
static inline bool cc_seq_after(u32 a, u32 b)
{
	return (s32)(b - a) < 0;
}

/*
 * The echoes of a mark the glue answered by hand (cc_glue.h): ECE on the
 * ACKs of data sent before the answer, up to @end (snd_nxt then), echo
 * that mark.  Sequence numbers compare only within 2^31 bytes, so the
 * window closes for good at the first ACK past @end: left open, the ACKs
 * of the 2^31 bytes that follow the next 2^31 would compare as before
 * @end again, and their ECE be taken for echoes (unanswered marks for 14
 * min at 20 Mb/s, 17 s at 1 Gb/s).  An ACK to @una arrived: does the
 * window (@open) stay open?
 */
static inline bool cc_echo_open(bool open, u32 end, u32 una)
{
	return open && !cc_seq_after(una, end);
}

/*
 * What made the kernel reduce (or ask about reducing) the window.  The glue
 * (cc_glue.h) finds out which from the kernel's own events; the tracepoints
 * print them as "kind=" with the names below.
 */
enum cc_event {
	CC_EV_DUPACK,	/* 3rd DUPACK, SACK or RACK: entering Recovery */
	CC_EV_RTO,	/* retransmission timeout (the first of an episode) */
	CC_EV_ECE,	/* ACK carrying ECE: CWR, or by hand in Recovery/Loss */
	CC_EV_TLP,	/* a loss repaired by a tail loss probe: CWR */
	CC_EV_LOCAL,	/* our own qdisc refused a packet: CWR */
};

#define CC_EVENT_NAMES				\
	{ CC_EV_DUPACK,	"dupack" },		\
	{ CC_EV_RTO,	"rto" },		\
	{ CC_EV_ECE,	"ece" },		\
	{ CC_EV_TLP,	"tlp" },		\
	{ CC_EV_LOCAL,	"local" }

/*
 * One ACK as a delivery-rate estimator sees it (jersey's ARE, balde's
 * SARBE); the glue fills it with cc_ack_read().
 */
struct cc_ack {
	u64	now_us;		/* local arrival time */
	u32	bytes;		/* newly delivered bytes (L) */
	u32	tsval;		/* receiver timestamp, if has_ts */
	u32	tick_us;	/* receiver us per TSval tick (1 or 1000) */
	bool	has_ts;
};

#endif /* _JERSEY_CC_CORE_H */
