/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The oracle's drop table, independent of the kernel so that it is unit
 * tested in userspace (tests/unit/test_oracle_table.c).  Integer only.
 *
 * Every TCP data segment the testbed's network drops in a queue (a
 * congestion drop: not the emulated medium's netem) is recorded as
 * (addresses, ports, first and end sequence number) in a bucket chosen by
 * the flow; a bucket is a ring of ORACLE_RING entries, so the table holds
 * the latest ORACLE_RING congestion drops of each bucket and bounded work
 * is done per drop and per lookup.  A sender asks whether any segment it
 * still has outstanding, [snd_una, snd_nxt), was dropped by a queue.  A
 * flow that loses more than ORACLE_RING segments to queues within one
 * window still finds the latest of them.  The kernel module
 * (tcp_oracle.c) adds the locking and the hash of the flow.
 */
#ifndef _JERSEY_ORACLE_TABLE_H
#define _JERSEY_ORACLE_TABLE_H

#include "cc_core.h"

#define ORACLE_RING	32U	/* entries per bucket, a power of 2 */

struct oracle_flow {
	u32	saddr;		/* as on the wire (network order) */
	u32	daddr;
	u16	sport;
	u16	dport;
};

struct oracle_drop {
	struct oracle_flow	flow;
	u32			seq;	/* first byte */
	u32			end;	/* one past the last byte */
};

struct oracle_bucket {
	struct oracle_drop	ring[ORACLE_RING];
	u32			head;	/* entries ever written */
};

static inline bool oracle_same_flow(const struct oracle_flow *a,
				    const struct oracle_flow *b)
{
	return a->saddr == b->saddr && a->daddr == b->daddr &&
	       a->sport == b->sport && a->dport == b->dport;
}

/* modulo 2^32, as the kernel's before()/after() */
static inline bool oracle_seq_before(u32 a, u32 b)
{
	return (s32)(a - b) < 0;
}

static inline void oracle_record(struct oracle_bucket *b,
				 const struct oracle_drop *d)
{
	b->ring[b->head & (ORACLE_RING - 1)] = *d;
	b->head++;
}

/* was a segment overlapping [una, nxt) of @f dropped by a queue? */
static inline bool oracle_lookup(const struct oracle_bucket *b,
				 const struct oracle_flow *f, u32 una, u32 nxt)
{
	u32 n = cc_min_u32(b->head, ORACLE_RING), i;

	for (i = 0; i < n; i++) {
		const struct oracle_drop *d = &b->ring[i];

		if (oracle_same_flow(&d->flow, f) &&
		    oracle_seq_before(una, d->end) &&
		    oracle_seq_before(d->seq, nxt))
			return true;
	}
	return false;
}

#endif /* _JERSEY_ORACLE_TABLE_H */
