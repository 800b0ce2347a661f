// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of testbed/oracle/oracle_table.h: the oracle's table of queue
 * drops (which flow, which bytes), its bounded ring per bucket and the
 * lookup of a sender's outstanding range, across sequence wrap.
 */
#include "check.h"
#include "oracle_table.h"

static const struct oracle_flow A = { 0x0100000a, 0x0200000a, 5201, 40000 };
static const struct oracle_flow B = { 0x0100000a, 0x0200000a, 5202, 40000 };

static struct oracle_drop drop(struct oracle_flow f, u32 seq, u32 len)
{
	struct oracle_drop d = { .flow = f, .seq = seq, .end = seq + len };

	return d;
}

static void test_empty_table_knows_nothing(void)
{
	struct oracle_bucket b = { 0 };

	CHECK(!oracle_lookup(&b, &A, 0, 0xffffffffU));
}

static void test_outstanding_range(void)
{
	struct oracle_bucket b = { 0 };
	struct oracle_drop d = drop(A, 10000, 1448);

	oracle_record(&b, &d);
	/* outstanding [snd_una, snd_nxt) covers the dropped bytes */
	CHECK(oracle_lookup(&b, &A, 10000, 20000));
	CHECK(oracle_lookup(&b, &A, 5000, 10001));
	CHECK(oracle_lookup(&b, &A, 11447, 20000));
	/* acknowledged since (snd_una past its end), or not sent yet */
	CHECK(!oracle_lookup(&b, &A, 11448, 20000));
	CHECK(!oracle_lookup(&b, &A, 5000, 10000));
	/* another flow (port) in the same bucket */
	CHECK(!oracle_lookup(&b, &B, 0, 20000));
}

static void test_sequence_wrap(void)
{
	struct oracle_bucket b = { 0 };
	struct oracle_drop d = drop(A, 0xfffffc00U, 2048);	/* ends at 0x400 */

	oracle_record(&b, &d);
	CHECK(oracle_lookup(&b, &A, 0xfffff000U, 0x1000));
	CHECK(oracle_lookup(&b, &A, 0x100, 0x1000));
	CHECK(!oracle_lookup(&b, &A, 0x400, 0x1000));
}

static void test_ring_keeps_the_latest(void)
{
	struct oracle_bucket b = { 0 };
	u32 i;

	for (i = 0; i < ORACLE_RING + 5; i++) {
		struct oracle_drop d = drop(i < 5 ? B : A, 1000 * i, 100);

		oracle_record(&b, &d);
	}
	CHECK_CMP(b.head, ==, ORACLE_RING + 5);
	/* B's five drops were overwritten by A's later ones */
	CHECK(!oracle_lookup(&b, &B, 0, 0x7fffffff));
	CHECK(oracle_lookup(&b, &A, 1000 * (ORACLE_RING + 4), 0x7fffffff));
	CHECK(oracle_lookup(&b, &A, 5000, 5001));
}

int main(void)
{
	RUN(test_empty_table_knows_nothing);
	RUN(test_outstanding_range);
	RUN(test_sequence_wrap);
	RUN(test_ring_keeps_the_latest);
	return check_summary();
}
