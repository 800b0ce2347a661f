/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Diff-C-TCP / SpecTCP decisions (Bai & Atiquzzaman; Bai, Lilja &
 * Atiquzzaman; SPEC.md 1.2), independent of the kernel so that they can be
 * unit tested in userspace (tests/unit/test_diffc_core.c).  Integer only.
 *
 * Speculate that every loss is corruption unless ECN says otherwise:
 *   ECE on an ACK (congestion): Reno fast-recovery halving,
 *     ssthresh = max(cwnd / 2, 2), cwnd -> ssthresh (once per window: the
 *     kernel's CWR state, RFC 3168).
 *   loss (3rd DUPACK) with no ECE seen: "hold", cwnd and ssthresh unchanged
 *     (the paper's "persist at the previous value"); with ECE: halve.
 *   RTO with no ECE seen: hold, i.e. resume at the cwnd in force before the
 *     timeout (not 1), ssthresh unchanged; with ECE: classic, ssthresh =
 *     max(cwnd / 2, 2), cwnd = 1.
 * Without ECN on the connection nothing tells congestion from corruption and
 * holding the window through congestion would be unsafe: every loss is then
 * a congestion loss, answered exactly like Reno (halve; RTO -> 1).  So is
 * local congestion (our own qdisc refused a packet).  The events are those
 * of cc_core.h; a loss repaired by a tail loss probe is a loss.
 */
#ifndef _DIFFC_CORE_H
#define _DIFFC_CORE_H

#include "cc_core.h"
#include "lossclass_core.h"

#define DIFFC_SSTHRESH_MIN	2U

enum diffc_action {
	DIFFC_HOLD,		/* speculated corruption: keep cwnd */
	DIFFC_HALVE,		/* congestion: Reno fast recovery halving */
	DIFFC_RESET,		/* congestion at RTO: cwnd = 1 */
	DIFFC_DRAIN,		/* a loss at a standing queue: drain it */
};

struct diffc_decision {
	u8	action;		/* enum diffc_action */
	u8	why;		/* enum lc_why (lossclass_core.h), set by the module */
	u32	cwnd;		/* cwnd when the reaction is complete */
	u32	ssthresh;	/* ssthresh afterwards */
};

/* per-socket running totals */
struct diffc_counts {
	u32	held;		/* losses held (speculated corruption) */
	u32	halved;		/* halvings: ECE, or losses with ECE/no ECN */
	u32	rto;		/* retransmission timeouts (held or reset) */
};

static inline u32 diffc_half(u32 cwnd)
{
	u32 h = cwnd >> 1;

	return h > DIFFC_SSTHRESH_MIN ? h : DIFFC_SSTHRESH_MIN;
}

/*
 * @ev: enum cc_event; @cwnd: cwnd now, or for CC_EV_RTO the cwnd before the
 * timeout (the kernel's prior_cwnd); @ssthresh: ssthresh in force before
 * the event; @ecn_ok: ECN negotiated; @congested: ECE seen on the latest
 * ACK (or the classifier calls the loss congestion).
 */
static inline void diffc_decide(struct diffc_decision *d, u8 ev, bool ecn_ok,
				bool congested, u32 cwnd, u32 ssthresh)
{
	bool speculate = ecn_ok && !congested && ev != CC_EV_ECE &&
			 ev != CC_EV_LOCAL;

	d->why = LC_WHY_NONE;	/* the module says why */
	if (!cwnd)
		cwnd = 1;
	if (speculate) {
		d->action = DIFFC_HOLD;
		d->cwnd = cwnd;
		d->ssthresh = ssthresh;
	} else if (ev == CC_EV_RTO) {
		d->action = DIFFC_RESET;
		d->cwnd = 1;
		d->ssthresh = diffc_half(cwnd);
	} else {
		d->action = DIFFC_HALVE;
		d->ssthresh = diffc_half(cwnd);
		d->cwnd = d->ssthresh;
	}
}

/*
 * The safe mode's answer to a loss without ECE at a standing queue
 * (lossclass_core.h, LC_WHY_QUEUE): instead of Reno's halving, drain the
 * queue, cwnd = ssthresh = @drain (lc_drain_window(): the window less
 * the standing queue's share, within [cwnd / 2, cwnd]).  A full drop-tail
 * buffer of one BDP doubles the RTT, so that is Reno's halving there; a
 * random loss that meets a short standing queue costs only the queue.
 */
static inline void diffc_drain(struct diffc_decision *d, u32 cwnd, u32 drain)
{
	if (d->action != DIFFC_HALVE || !cwnd)
		return;
	d->action = DIFFC_DRAIN;
	d->cwnd = cc_max_u32(cc_min_u32(drain, cwnd), diffc_half(cwnd));
	d->ssthresh = d->cwnd;
}

/* count a decision */
static inline void diffc_count(struct diffc_counts *n, u8 ev,
			       const struct diffc_decision *d)
{
	if (ev == CC_EV_RTO)
		n->rto++;
	if (d->action == DIFFC_HOLD)
		n->held++;
	else
		n->halved++;
}

#endif /* _DIFFC_CORE_H */
