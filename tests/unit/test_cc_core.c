// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of kmod/cc_core.h: sequence-number order and the window of
 * echoes of a mark answered by hand, across the 2^32 wrap and the 2^31
 * bytes after which sequence numbers compare the other way.
 */
#include "check.h"
#include "cc_core.h"

static void test_seq_after(void)
{
	CHECK(cc_seq_after(2, 1));
	CHECK(!cc_seq_after(1, 1));
	CHECK(!cc_seq_after(1, 2));
	CHECK(cc_seq_after(5, 0xfffffff0U));	/* across the wrap */
	CHECK(!cc_seq_after(0xfffffff0U, 5));
	CHECK(!cc_seq_after(0x80000002U, 1));	/* > 2^31 on: "before" again */
}

/*
 * ACKs of a bulk flow, 64 KB apart, from an answer at @end - @sent: the
 * window of echoes stays open up to @end and closed after it for 2^32 +
 * 2^31 bytes more (a window that reopened would take the ECE of the bytes
 * 2^31 to 2^32 past @end for echoes of the answered mark).
 */
static void echoes_from(u32 end, u32 sent)
{
	u64 moved, step = 65536;
	bool open = true;
	u32 una = end - sent;
	u64 first_closed = 0;

	for (moved = 0; moved < (1ULL << 32) + (1ULL << 31); moved += step) {
		una += (u32)step;
		open = cc_echo_open(open, end, una);
		if (!open && !first_closed)
			first_closed = moved + step;
		if (moved + step <= sent)
			CHECK(open);
		else
			CHECK(!open);
	}
	CHECK_CMP(first_closed, >, sent);
	CHECK_CMP(first_closed, <=, sent + step);
}

static void test_echo_window(void)
{
	echoes_from(1000000, 65536 * 10);
	echoes_from(0xffff0000U, 65536 * 40);	/* @end across the wrap */
	echoes_from(0x10000U, 65536 * 40);	/* the answer before the wrap */
	/* closed stays closed, whatever the ACK */
	CHECK(!cc_echo_open(false, 100, 50));
	/* an ACK at @end still echoes (data sent before the answer) */
	CHECK(cc_echo_open(true, 100, 100));
}

int main(void)
{
	RUN(test_seq_after);
	RUN(test_echo_window);
	return check_summary();
}
