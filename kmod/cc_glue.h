/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The module glue our congestion controls share: how the kernel's calls
 * (tcp_congestion_ops) become the events of cc_core.h, and how a decision
 * (a cwnd and an ssthresh) is put into effect while the kernel's own loss
 * recovery (PRR) keeps running.  Each module keeps only its algorithm.
 *
 * The kernel's sequence, and what the glue takes from it:
 *   .in_ack_event   first thing for every ACK: whether it carried ECE
 *                   (CA_ACK_ECE) and whether it acknowledges a tail loss
 *                   probe that retransmitted data (the kernel then enters
 *                   CWR for a loss the probe repaired, tcp_process_tlp_ack);
 *   .ssthresh       tcp_init_cwnd_reduction() (CWR, Recovery) and
 *                   tcp_enter_loss() (RTO) ask for the new ssthresh; during
 *                   CWR and Recovery the kernel's PRR steers cwnd towards it;
 *   .cwnd_event     CA_EVENT_LOSS: tcp_enter_loss() for the first timeout
 *                   of an episode (not for backed-off timeouts, not for
 *                   tcp_simple_retransmit() after a path MTU drop);
 *   .set_state      the state entered: CWR (ECE; a loss repaired by a tail
 *                   loss probe; or tcp_transmit_skb() when our own qdisc
 *                   refused a packet: local congestion), Recovery, Loss;
 *   .cwnd_event     CA_EVENT_COMPLETE_CWR: tcp_end_cwnd_reduction() has set
 *                   cwnd = ssthresh;
 *   .undo_cwnd      the reduction was spurious (D-SACK, timestamps).
 * The target of a reduction is returned by .ssthresh (snd_ssthresh is what
 * PRR steers cwnd to); the ssthresh wanted afterwards may differ (e.g. a
 * held loss keeps the old one) and is installed at CA_EVENT_COMPLETE_CWR.
 * An ECE that arrives while the kernel is in Recovery or Loss is ignored by
 * the kernel (its reduction covers the window); a module that held that
 * recovery reduces by hand, once, and queues CWR as the kernel would
 * (tcp_ecn_queue_cwr()): otherwise the receiver keeps echoing ECE and the
 * same mark is answered again after the recovery.
 */
#ifndef _JERSEY_CC_GLUE_H
#define _JERSEY_CC_GLUE_H

#include <linux/inet_diag.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <net/inet_ecn.h>
#include <net/tcp.h>

#include "cc_core.h"
#include "compat.h"
#include "lossclass_core.h"

#define CC_SSTHRESH_MIN	2U

/* in each module's init: its private struct fits and starts with the glue */
#define CC_GLUE_FIRST(type)						\
	do {								\
		BUILD_BUG_ON(sizeof(type) > ICSK_CA_PRIV_SIZE);		\
		BUILD_BUG_ON(offsetof(type, g) != 0);			\
	} while (0)

/*
 * Per-socket glue state: the first member of each module's private struct
 * (CC_GLUE_FIRST), so that .cwnd_event, .undo_cwnd and .set_state can be
 * the glue's own functions.
 */
struct cc_glue {
	u32	ss_prev;	/* snd_ssthresh before .ssthresh ran */
	u32	ss_after;	/* ssthresh to install when the reduction completes */
	u32	cwr_seq;	/* snd_nxt when ECE was last answered by hand */
	u32	ece:1,		/* the latest ACK carried ECE (ECN on) */
		tlp:1,		/* the latest ACK repaired a loss by a probe */
		ss_saved:1,	/* ss_prev is fresh: .ssthresh just ran */
		ss_fix:1,	/* install ss_after at CA_EVENT_COMPLETE_CWR */
		rto:1,		/* CA_EVENT_LOSS: the next Loss is a timeout */
		cwr_valid:1,	/* ACKs up to cwr_seq echo that mark */
		answered:1,	/* this episode was answered as congestion */
		held:1,		/* this reduction holds the window */
		counted:1,	/* a held recovery counted this ACK */
		grow:23;	/* segments acked towards the next increase
				 * (safe mode, cc_glue_increase())
				 */
};

#define CC_GROW_MAX	((1U << 23) - 1)

static inline bool cc_ecn_ok(const struct sock *sk)
{
	return compat_tcp_ecn_ok(tcp_sk(sk));
}

static inline void cc_glue_init(struct cc_glue *g)
{
	memset(g, 0, sizeof(*g));
}

/*
 * .init: we asked for ECN (TCP_CONG_NEEDS_ECN) and the peer declined.  Like
 * dctcp-reno, continue with @noecn (the same ops without the flag) so that
 * the caller stops sending ECT packets, which a marking gateway would mark
 * instead of drop with nobody reacting.
 */
static inline void cc_noecn_fallback(struct sock *sk,
				     const struct tcp_congestion_ops *noecn)
{
	if (!cc_ecn_ok(sk) &&
	    (inet_csk(sk)->icsk_ca_ops->flags & TCP_CONG_NEEDS_ECN)) {
		inet_csk(sk)->icsk_ca_ops = noecn;
		INET_ECN_dontxmit(sk);
	}
}

/*
 * .init: with @on, the kernel paces the connection (as bbr asks for it),
 * where no fq qdisc does: tcp_update_pacing_rate() sets the rate from
 * cwnd / srtt (net.ipv4.tcp_pacing_ss_ratio, 200 %, while cwnd is below
 * half of ssthresh, tcp_pacing_ca_ratio, 120 %, after), and the flight
 * leaves spaced by it rather than in bursts at the sender's line rate.  A
 * burst of a window opened at once (slow start, an ACK that covers many
 * segments, the end of a recovery) overflows a drop-tail buffer shallower
 * than the burst while the path's queue is short.  As with bbr, the socket
 * stays paced if it later changes its congestion control.
 */
static inline void cc_glue_pacing(struct sock *sk, bool on)
{
	if (on)
		cmpxchg(&sk->sk_pacing_status, SK_PACING_NONE, SK_PACING_NEEDED);
}

/* module init: @noecn = @ops without TCP_CONG_NEEDS_ECN, named @name */
static inline void cc_make_noecn(struct tcp_congestion_ops *noecn,
				 const struct tcp_congestion_ops *ops,
				 const char *name)
{
	*noecn = *ops;
	INIT_LIST_HEAD(&noecn->list);
	noecn->flags &= ~TCP_CONG_NEEDS_ECN;
	strscpy(noecn->name, name, sizeof(noecn->name));
}

/* .in_ack_event */
static inline void cc_glue_ack(struct sock *sk, struct cc_glue *g, u32 flags)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	g->ece = (flags & CA_ACK_ECE) && cc_ecn_ok(sk);
	g->cwr_valid = cc_echo_open(g->cwr_valid, g->cwr_seq, tp->snd_una);
	/* tcp_process_tlp_ack() will enter CWR for a repaired loss */
	g->tlp = tp->tlp_high_seq && tp->tlp_retrans &&
		 after(tp->snd_una, tp->tlp_high_seq);
	g->ss_saved = 0;
	g->counted = 0;
}

/* .ssthresh: remember the ssthresh in force before the event */
static inline void cc_glue_ssthresh(struct sock *sk, struct cc_glue *g)
{
	g->ss_prev = tcp_sk(sk)->snd_ssthresh;
	g->ss_saved = 1;
}

/* the ssthresh in force before the kernel asked .ssthresh for a new one */
static inline u32 cc_glue_old_ssthresh(const struct sock *sk,
				       const struct cc_glue *g)
{
	return g->ss_saved ? g->ss_prev : tcp_sk(sk)->snd_ssthresh;
}

/*
 * The ssthresh for after the reduction under way: the one it installs when
 * it completes (ss_after), or the socket's when it installs none.
 */
static inline u32 cc_glue_ss_after(const struct sock *sk,
				   const struct cc_glue *g)
{
	return g->ss_fix ? g->ss_after : tcp_sk(sk)->snd_ssthresh;
}

/*
 * Loss entered from a CWR or Recovery the module held: tcp_enter_loss()
 * asks no .ssthresh and sends no CA_EVENT_LOSS inside a reduction (it
 * takes the reduction for the timeout's answer), and sets cwnd to the
 * flight + 1; tcp_simple_retransmit() (a path MTU drop) keeps cwnd.  A held
 * reduction answered nothing: the glue makes this the timeout it is
 * (cc_glue_held_timeout_save()), so that the module decides it as any
 * other.  Left alone, cwnd stayed one segment and ssthresh the held window,
 * whatever the cause, and the held target was installed at the next
 * completed CWR.
 */
static inline bool cc_glue_held_timeout(const struct sock *sk,
					const struct cc_glue *g)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	u8 state = inet_csk(sk)->icsk_ca_state;	/* still the old one */

	return g->held && (state == TCP_CA_CWR || state == TCP_CA_Recovery) &&
	       tcp_snd_cwnd(tp) == tcp_packets_in_flight(tp) + 1;
}

/*
 * What tcp_enter_loss() would have saved outside a reduction: prior_cwnd
 * the window held, .ssthresh's ssthresh the one before the episode.
 */
static inline void cc_glue_held_timeout_save(struct sock *sk,
					     struct cc_glue *g)
{
	struct tcp_sock *tp = tcp_sk(sk);

	tp->prior_cwnd = cc_max_u32(tp->prior_cwnd, tp->snd_ssthresh);
	g->ss_prev = cc_glue_ss_after(sk, g);
	g->ss_saved = 1;
}

/*
 * Recovery undone (a D-SACK or a timestamp showed its retransmissions
 * spurious) without a call of .undo_cwnd: tcp_undo_cwnd_reduction() asks
 * it only when prior_ssthresh is set, which the kernel clears for an
 * episode with ECE in it (tcp_fastretrans_alert(), tcp_enter_recovery()
 * from CWR).  It clears undo_marker, so tcp_end_cwnd_reduction() leaves
 * cwnd where PRR had it, and the reduction's target, the answer to a mark
 * (cc_glue_reduce_in_recovery()), was lost: a mark in a held recovery that
 * halved the target, 118 -> 59, ended at cwnd 115
 * (tests/scripted/diffc/ece_held_recovery_undo.pkt).  A spurious
 * retransmission cancels a loss's reduction, not a mark's: the reduction
 * ends at its target, as without the undo.  Called as Open is entered,
 * before CA_EVENT_COMPLETE_CWR (which a D-SACK undo never sends).
 */
static inline void cc_glue_undone(struct sock *sk, struct cc_glue *g)
{
	struct tcp_sock *tp = tcp_sk(sk);

	if (!g->ss_fix || tp->undo_marker ||
	    inet_csk(sk)->icsk_ca_state != TCP_CA_Recovery)
		return;
	tcp_snd_cwnd_set(tp, cc_min_u32(tcp_snd_cwnd(tp), tp->snd_ssthresh));
	tp->snd_ssthresh = g->ss_after;
	g->ss_fix = 0;
	g->held = 0;
}

/*
 * .set_state: an event of cc_core.h, or -1 when entering @new_state is none
 * (Open, Disorder, tcp_simple_retransmit()'s Loss, a backed-off timeout).
 * Without a .ssthresh call just before (cc_glue_reducing()), a reduction of
 * this window is already under way (e.g. Recovery entered from CWR).
 */
static inline int cc_glue_event(struct sock *sk, struct cc_glue *g,
				u8 new_state)
{
	int ev = -1;

	switch (new_state) {
	case TCP_CA_CWR:
		ev = g->ece ? CC_EV_ECE : g->tlp ? CC_EV_TLP : CC_EV_LOCAL;
		g->tlp = 0;
		break;
	case TCP_CA_Recovery:
		ev = CC_EV_DUPACK;
		break;
	case TCP_CA_Loss:
		if (g->rto) {
			ev = CC_EV_RTO;
		} else if (cc_glue_held_timeout(sk, g)) {
			cc_glue_held_timeout_save(sk, g);
			ev = CC_EV_RTO;
		}
		g->rto = 0;
		break;
	case TCP_CA_Disorder:	/* a D-SACK undo, SACKed data left */
		cc_glue_undone(sk, g);
		break;
	case TCP_CA_Open:
		cc_glue_undone(sk, g);
		g->answered = 0;
		g->held = 0;
		break;
	}
	return ev;
}

/* the module answered this episode (CWR, Recovery, Loss) as congestion */
static inline void cc_glue_answered(struct cc_glue *g)
{
	g->answered = 1;
}

static inline bool cc_glue_reducing(const struct cc_glue *g)
{
	return !g->ss_saved;
}

/*
 * A reduction under way (Recovery entered from CWR) in an episode already
 * answered as congestion: its losses are in the window that response
 * covers (the ECE on their DUPACKs echoes the same mark), no second one.
 */
static inline bool cc_glue_covered(const struct cc_glue *g)
{
	return cc_glue_reducing(g) && g->answered;
}

/* end of .set_state */
static inline void cc_glue_state_done(struct cc_glue *g)
{
	g->ss_saved = 0;
}

/*
 * During CWR/Recovery PRR steers cwnd to snd_ssthresh and sets cwnd =
 * snd_ssthresh when the reduction ends; then ssthresh becomes @ssthresh.
 * The reduction holds the window if @cwnd is no lower than the window
 * @before it (cc_glue_reduce_to(): the socket's cwnd).
 */
static inline void cc_glue_reduce_from(struct sock *sk, struct cc_glue *g,
				       u32 before, u32 cwnd, u32 ssthresh)
{
	g->ss_after = cc_max_u32(ssthresh, CC_SSTHRESH_MIN);
	tcp_sk(sk)->snd_ssthresh = cc_max_u32(cwnd, CC_SSTHRESH_MIN);
	g->ss_fix = 1;
	g->held = cwnd >= before;
	if (!g->held)		/* a congestion response starts afresh */
		g->grow = 0;
}

/*
 * An ECE that the kernel ignores in Recovery, answered by hand: the target
 * lowered from @before (cc_glue_reduce_from()), and PRR started afresh
 * from it, as tcp_init_cwnd_reduction() starts it at entry (prior_cwnd the
 * window reduced, nothing delivered or sent yet).  The held recovery's
 * accounting (prr_delivered kept at prr_out by cc_glue_refill_held())
 * made PRR's proportional part, ssthresh * prr_delivered / prior_cwnd -
 * prr_out, negative by a share of all the recovery had sent: nothing went
 * out until the deliveries caught up.  At 5 % PER behind cw aq, after a
 * mark answered so (117 -> 80), a lone jersey flow's flight fell from 79 to
 * 2-4 segments for three round trips (6.12, traced); the round that
 * followed delivered 3, and the next loss cut the window to 9 as an excess.
 */
static inline void cc_glue_reduce_in_recovery(struct sock *sk,
					      struct cc_glue *g, u32 before,
					      u32 cwnd, u32 ssthresh)
{
	struct tcp_sock *tp = tcp_sk(sk);

	cc_glue_reduce_from(sk, g, before, cwnd, ssthresh);
	if (g->held)
		return;
	tp->prior_cwnd = cc_max_u32(before, 1);
	tp->prr_delivered = 0;
	tp->prr_out = 0;
}

static inline void cc_glue_reduce_to(struct sock *sk, struct cc_glue *g,
				     u32 cwnd, u32 ssthresh)
{
	cc_glue_reduce_from(sk, g, tcp_snd_cwnd(tcp_sk(sk)), cwnd, ssthresh);
}

/*
 * The segments congestion avoidance adds for @acked more segments
 * acknowledged, one per @w (as tcp_cong_avoid_ai() counts), in the safe
 * mode: the count lives in g->grow, not in snd_cwnd_cnt, which the kernel
 * clears at every CWR and Recovery.  At a loss rate of a percent a recovery
 * held for corruption starts every few round trips, and a count cleared by
 * each would seldom reach w: with alpha = 1/8 after a mark, 57 segments
 * need w = 456 acknowledged, eight round trips, and a lone flow behind a
 * marking gateway at 1 % PER stayed at 57 segments (BDP: 69) for 15 s.
 * Only a congestion response clears it (cc_glue_reduce_to(), cc_glue_set()).
 * A count made at a larger w (a smaller alpha, lc_ai_now()) gives one
 * segment and starts afresh, as in tcp_cong_avoid_ai(): released at once,
 * the count of 32 round trips at alpha 1/12 added 8 segments in one ACK.
 */
static inline u32 cc_glue_increase(struct cc_glue *g, u32 w, u32 acked)
{
	u32 sum, n, q;

	w = cc_max_u32(w, 1);
	n = g->grow >= w;
	if (n)
		g->grow = 0;
	sum = g->grow + cc_min_u32(acked, CC_GROW_MAX);
	q = sum / w;
	g->grow = cc_min_u32(sum - q * w, CC_GROW_MAX);
	return n + q;
}

/* a reduction that holds the window (a loss taken for corruption) is under way */
static inline bool cc_glue_holding(const struct sock *sk,
				   const struct cc_glue *g)
{
	u8 state = inet_csk(sk)->icsk_ca_state;

	return g->held && state >= TCP_CA_CWR && state <= TCP_CA_Recovery;
}

/*
 * A reduction that holds the window (a loss taken for corruption) goes on
 * growing, in the safe mode: the kernel raises cwnd only outside CWR and
 * Recovery, so at a loss rate of a few percent, where a sender is in loss
 * recovery most of the time, a held window would hardly ever grow.  Per
 * ACK that delivered @acked segments (ACKed or SACKed: tp->delivered, what
 * the kernel's own tcp_cong_avoid() counts as acked_sacked) the target PRR
 * steers cwnd to (snd_ssthresh; PRR raises cwnd to it as the ACKs allow)
 * grows as the window would outside recovery: by slow start below the
 * ssthresh kept for after the recovery, otherwise by @ai (Q8 segments per
 * RTT, lossclass_core.h).  Not by the cumulatively ACKed segments: snd_una
 * stalls at the hole, so the target stayed at the window of the loss, PRR
 * held the flight there, and the ACK of the repair raised cwnd by all that
 * was SACKed behind it at once (a burst of tens of segments at the end of
 * the recovery, after rounds that delivered only the held flight, against
 * which the new window looked not delivered: at 5 % PER behind cw aq 4 of
 * 10 lone jersey flows cut 48-116 segments to 22-54, why=excess, in their
 * first second; tests/scripted/jersey/held_growth_sacked.pkt).  Slow start
 * ends here as in cc_cong_avoid(), at a standing queue on @p
 * (lc_slow_start_over() against @min_rtt, seen on any ACK, SACKs too): the
 * ssthresh kept becomes the target.  Without that exit, recoveries held
 * back to back on a drop-tail path at 1 % PER doubled the window each
 * round trip while its buffer overflowed.
 */
static inline void cc_glue_grow_held(struct sock *sk, struct cc_glue *g,
				     const struct lc_path *p, u32 min_rtt,
				     u32 acked, u32 ai)
{
	struct tcp_sock *tp = tcp_sk(sk);
	u32 target = tp->snd_ssthresh;

	if (!cc_glue_holding(sk, g) || !g->ss_fix)
		return;
	if (target < g->ss_after && lc_slow_start_over(p, min_rtt, target))
		g->ss_after = cc_max_u32(target, CC_SSTHRESH_MIN);
	if (!acked || !tcp_is_cwnd_limited(sk))
		return;
	if (target < g->ss_after)
		target = min(target + acked, g->ss_after);
	else
		target += cc_glue_increase(g, lc_ai_window(target, ai), acked);
	g->counted = 1;		/* if this ACK ends the recovery, not again */
	tp->snd_ssthresh = min(target, tp->snd_cwnd_clamp);
}

/*
 * A held recovery keeps its window, but PRR (tcp_cwnd_reduction()) refills
 * the flight towards the target (snd_ssthresh) only by what each ACK
 * delivers, and each loss it marks leaves the flight for good: at a few
 * percent of random loss, recoveries back to back, the flight of a lone
 * flow shrank to 40 segments of a held window of 70 (a traced run at 5 %).
 * Below the target PRR sends max(prr_delivered - prr_out, delivered) for
 * an ACK that delivered @newly segments; raising prr_delivered to prr_out
 * + @newly (before PRR adds @newly) lets this ACK send two segments per
 * segment delivered, as slow start does, never above the target (PRR's
 * bound).  The credit does not accumulate: each ACK sets it afresh from
 * prr_out.
 */
static inline void cc_glue_refill_held(struct sock *sk,
				       const struct cc_glue *g, u32 newly)
{
	struct tcp_sock *tp = tcp_sk(sk);

	if (!cc_glue_holding(sk, g) || !newly ||
	    tcp_packets_in_flight(tp) >= tp->snd_ssthresh)
		return;
	if ((s32)(tp->prr_out + newly - tp->prr_delivered) > 0)
		tp->prr_delivered = tp->prr_out + newly;
}

/* after a timeout or by hand in Loss: cwnd and ssthresh directly */
static inline void cc_glue_set(struct sock *sk, struct cc_glue *g, u32 cwnd,
			       u32 ssthresh)
{
	struct tcp_sock *tp = tcp_sk(sk);

	tp->snd_ssthresh = cc_max_u32(ssthresh, CC_SSTHRESH_MIN);
	tcp_snd_cwnd_set(tp, cc_max_u32(cc_min_u32(cwnd, tp->snd_cwnd_clamp), 1));
	g->ss_fix = 0;
	g->held = 0;
	g->grow = 0;
}

/*
 * .in_ack_event, after cc_glue_ack(): an ECE the kernel will ignore because
 * it is in Recovery or Loss, in an episode not yet answered as congestion,
 * and that is not an echo of a mark already answered by hand.
 */
static inline bool cc_glue_late_ece(const struct sock *sk,
				    const struct cc_glue *g)
{
	return g->ece && !g->answered && !g->cwr_valid &&
	       inet_csk(sk)->icsk_ca_state >= TCP_CA_Recovery;
}

/*
 * The window an ECE in Loss marked: cwnd, or where a backed-off timeout
 * took cwnd to one segment (tcp_enter_loss() asks no .ssthresh then), the
 * window before the first timeout (prior_cwnd).  Halving one segment gave
 * ssthresh 2 for a mark on a window of 70.
 */
static inline u32 cc_glue_loss_window(const struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	return cc_max_u32(tcp_snd_cwnd(tp), tp->prior_cwnd);
}

/*
 * The answer to an ECE in Loss (@cwnd and @ssthresh decided against
 * cc_glue_loss_window()): it never raises cwnd, which the timeout's
 * retransmissions are rebuilding.  Returns the cwnd set.
 */
static inline u32 cc_glue_loss_answer(struct sock *sk, struct cc_glue *g,
				      u32 cwnd, u32 ssthresh)
{
	cwnd = cc_min_u32(cwnd, tcp_snd_cwnd(tcp_sk(sk)));
	cc_glue_set(sk, g, cwnd, ssthresh);
	return cwnd;
}

/*
 * ECE answered by hand: send CWR on the next new segment (as
 * tcp_ecn_queue_cwr() does), take ECE on ACKs of data sent before it as
 * echoes of the same mark; an undo of the episode then keeps the answer
 * (cc_glue_undone()).
 */
static inline void cc_glue_ece_answered(struct sock *sk, struct cc_glue *g)
{
	struct tcp_sock *tp = tcp_sk(sk);

	tp->prior_ssthresh = 0;		/* no undo asks .undo_cwnd */
	if (cc_ecn_ok(sk))
		tp->ecn_flags |= TCP_ECN_QUEUE_CWR;
	g->cwr_seq = tp->snd_nxt;
	g->cwr_valid = 1;
	g->answered = 1;
}

/*
 * At CWR entry by ECE: is it an echo of a mark answered by hand (during the
 * recovery that just ended)?  Then the module holds (no second reduction).
 * cc_glue_ack() closed the window of echoes at the first ACK past cwr_seq.
 */
static inline bool cc_glue_ece_echo(const struct cc_glue *g)
{
	return g->cwr_valid;
}

/* .cwnd_event */
static inline void cc_glue_cwnd_event(struct sock *sk, enum tcp_ca_event ev)
{
	struct cc_glue *g = inet_csk_ca(sk);

	if (ev == CA_EVENT_LOSS) {
		g->rto = 1;
	} else if (ev == CA_EVENT_COMPLETE_CWR && g->ss_fix) {
		tcp_sk(sk)->snd_ssthresh = g->ss_after;
		g->ss_fix = 0;
		g->held = 0;
	}
}

/* .undo_cwnd: the kernel restores prior_ssthresh, we restore cwnd */
static inline u32 cc_glue_undo(struct sock *sk)
{
	struct cc_glue *g = inet_csk_ca(sk);

	g->ss_fix = 0;
	g->held = 0;
	return tcp_reno_undo_cwnd(sk);
}

/*
 * .set_state of a module that answers a timeout with @rto and any other
 * event cc_glue_event() reports with @reduce (inlined: direct calls).
 */
static __always_inline void cc_glue_set_state(struct sock *sk, u8 new_state,
					      void (*rto)(struct sock *),
					      void (*reduce)(struct sock *, u8))
{
	struct cc_glue *g = inet_csk_ca(sk);
	int ev = cc_glue_event(sk, g, new_state);

	if (ev == CC_EV_RTO)
		rto(sk);
	else if (ev >= 0)
		reduce(sk, ev);
	cc_glue_state_done(g);
}

/*
 * .get_info as bbr's (ss -tin: "bbr:(bw:...,mrtt:...)"): a rate in bytes/s
 * and a minimum RTT in us; also answers a request for vegas' info.
 */
static inline size_t cc_bbr_info(u32 ext, int *attr, union tcp_cc_info *info,
				 u64 bw, u32 min_rtt_us)
{
	if (!(ext & (1 << (INET_DIAG_BBRINFO - 1))) &&
	    !(ext & (1 << (INET_DIAG_VEGASINFO - 1))))
		return 0;
	memset(&info->bbr, 0, sizeof(info->bbr));
	info->bbr.bbr_bw_lo = (u32)bw;
	info->bbr.bbr_bw_hi = (u32)(bw >> 32);
	info->bbr.bbr_min_rtt = min_rtt_us;
	*attr = INET_DIAG_BBRINFO;
	return sizeof(info->bbr);
}

/* the path's minimum RTT (us), 0 = unknown */
static inline u32 cc_min_rtt(const struct tcp_sock *tp)
{
	u32 rtt = tcp_min_rtt(tp);

	return rtt == ~0U ? 0 : rtt;
}

/*
 * Slow start: cwnd below ssthresh, or in a recovery held for corruption
 * its target (snd_ssthresh) below the ssthresh kept for after it, where
 * the target grows by slow start (cc_glue_grow_held()).  PRR keeps cwnd
 * below snd_ssthresh in every held recovery, slow start or not.
 */
static inline bool cc_glue_slow_start(const struct sock *sk,
				      const struct cc_glue *g)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	if (cc_glue_holding(sk, g))
		return g->ss_fix && tp->snd_ssthresh < g->ss_after;
	return tcp_in_slow_start(tp);
}

/*
 * The receiver's window holds back data waiting to be sent: the next
 * segment (one MSS of it) does not fit (tcp_snd_wnd_test()'s test).
 */
static inline bool cc_rwnd_limited(const struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	const struct sk_buff *skb = tcp_send_head(sk);
	u32 end;

	if (!skb)
		return false;
	end = TCP_SKB_CB(skb)->end_seq;
	if (skb->len > tp->mss_cache)
		end = TCP_SKB_CB(skb)->seq + tp->mss_cache;
	return after(end, tcp_wnd_end(tp));
}

/*
 * The round trips of lc_path (lossclass_core.h): .pkts_acked hands every
 * RTT sample to cc_path_rtt() (true when a round ended, *@min its minimum
 * RTT; @bounded: a round ends by SACK too, lc_round_over(), and a long
 * round by its count, lc_round_long();
 * @slow_start: the window doubles a round), .in_ack_event its CE echoes to
 * cc_path_ack().
 */
static inline bool cc_path_rtt(const struct sock *sk, struct lc_path *p,
			       s32 rtt_us, u32 *min, bool bounded,
			       bool slow_start)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	struct lc_ack a = {
		.una		= tp->snd_una,
		.nxt		= tp->snd_nxt,
		.delivered	= tp->delivered,
		.min_rtt_us	= cc_min_rtt(tp),
		.cwnd		= bounded ? tcp_snd_cwnd(tp) : 0,
		.slow_start	= slow_start,
		.limited	= tcp_is_cwnd_limited(sk),
		.rwnd_limited	= cc_rwnd_limited(sk),
	};

	/* RACK's last delivered segment, within the flight (SACK only) */
	if (bounded && tcp_is_sack(tp) &&
	    cc_seq_after(tp->rack.end_seq, tp->snd_una) &&
	    !cc_seq_after(tp->rack.end_seq, tp->snd_nxt)) {
		a.has_rack_end = true;
		a.rack_end = tp->rack.end_seq;
	}
	return rtt_us > 0 && lc_path_rtt(p, rtt_us, &a, min);
}

/*
 * .pkts_acked of jersey and diffc: the RTT sample to the round trips (long
 * rounds bounded) and, in the safe mode (@safe), a held recovery's growth by
 * @ai, its slow start ended by a standing queue (cc_glue_grow_held()), and
 * the refill of its flight with the @newly delivered segments
 * (cc_glue_refill_held()); true when a round ended, *@round_min its
 * minimum RTT
 */
static inline bool cc_path_pkts_acked(struct sock *sk, struct cc_glue *g,
				      struct lc_path *p,
				      const struct ack_sample *sample,
				      u32 ai, bool safe, u32 newly,
				      u32 *round_min)
{
	u32 min_rtt = cc_min_rtt(tcp_sk(sk));
	bool over = cc_path_rtt(sk, p, sample->rtt_us, round_min, true,
				cc_glue_slow_start(sk, g));

	if (!safe)
		return over;
	cc_glue_grow_held(sk, g, p, min_rtt, newly, lc_ai_now(p, min_rtt, ai));
	cc_glue_refill_held(sk, g, newly);
	return over;
}

/*
 * The window that drains the standing queue of @cwnd (lc_drain_window()):
 * the delay that this round's minimum RTT shows (lc_path_queue_delay()),
 * not srtt's excess, which holds the path's jitter too
 */
static inline u32 cc_drain_window(const struct sock *sk,
				  const struct lc_path *p, u32 cwnd)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	u32 srtt = tp->srtt_us >> 3;

	return lc_drain_window(cwnd, srtt,
			       lc_path_queue_delay(p, srtt, cc_min_rtt(tp)));
}

/* .in_ack_event, after cc_glue_ack() */
static inline void cc_path_ack(struct lc_path *p, const struct cc_glue *g)
{
	if (g->ece)
		lc_path_ce(p);
}

/*
 * .cong_avoid of jersey and diffc: Reno's slow start, which in the safe
 * mode (@safe) ends at a standing queue (lc_slow_start_over(), HyStart's
 * delay increase), and a congestion avoidance that adds @ai (Q8, LC_AI_ONE
 * = Reno's one segment) per RTT, in the safe mode only while the path
 * shows a standing queue or marks (lc_ai_now()), counted in @g across the
 * recoveries held for corruption (cc_glue_increase()); an ACK that ended
 * a held recovery grew the window there already (cc_glue_grow_held()).
 */
static inline void cc_cong_avoid(struct sock *sk, struct cc_glue *g,
				 const struct lc_path *p, u32 ai, bool safe,
				 u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	u32 cwnd, n;

	if (!tcp_is_cwnd_limited(sk) || (safe && g->counted))
		return;
	if (safe && tcp_in_slow_start(tp) &&
	    lc_slow_start_over(p, cc_min_rtt(tp), tcp_snd_cwnd(tp)))
		tp->snd_ssthresh = tcp_snd_cwnd(tp);
	if (tcp_in_slow_start(tp)) {
		acked = tcp_slow_start(tp, acked);
		if (!acked)
			return;
	}
	if (!safe) {
		tcp_cong_avoid_ai(tp, lc_ai_window(tcp_snd_cwnd(tp), ai), acked);
		return;
	}
	cwnd = tcp_snd_cwnd(tp);
	ai = lc_ai_now(p, cc_min_rtt(tp), ai);
	n = cc_glue_increase(g, lc_ai_window(cwnd, ai), acked);
	tcp_snd_cwnd_set(tp, min(cwnd + n, tp->snd_cwnd_clamp));
}

/*
 * The window the flow used: @cwnd, or less when the receive window or the
 * application kept the flow below it (its cwnd may run ahead of anything
 * it sent, and a queue estimate from it would count segments never sent).
 */
static inline u32 cc_window_used(const struct tcp_sock *tp, u32 cwnd)
{
	return tp->max_packets_out ? min(cwnd, tp->max_packets_out) : cwnd;
}

/*
 * The delivery sample of an ACK for a rate estimator: the @newly delivered
 * segments since the previous ACK and the receiver's timestamp with its
 * tick.
 */
static inline void cc_ack_sample(const struct sock *sk, u32 newly,
				 struct cc_ack *a)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	u64 bytes = (u64)newly * tp->mss_cache;

	a->now_us = tp->tcp_mstamp;
	a->bytes = (u32)min_t(u64, bytes, U32_MAX);
	a->tsval = tp->rx_opt.rcv_tsval;
	a->tick_us = compat_tcp_usec_ts(tp) ? 1 : 1000;
	a->has_ts = tp->rx_opt.tstamp_ok && tp->rx_opt.saw_tstamp;
}

/*
 * cc_ack_sample() of the data delivered since tp->delivered was
 * *@delivered, which this advances
 */
static inline void cc_ack_read(const struct sock *sk, u32 *delivered,
			       struct cc_ack *a)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	cc_ack_sample(sk, tp->delivered - *delivered, a);
	*delivered = tp->delivered;
}

/*
 * The classifier's view of the path (@cwnd and @ssthresh: the socket's
 * before the event): the window used, what the round trips showed
 * (lc_path) and whether this ACK echoed a CE mark not yet answered.
 */
static inline void cc_lc_input(const struct sock *sk, const struct cc_glue *g,
			       const struct lc_path *p, u32 cwnd, u32 ssthresh,
			       struct lc_input *in)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	u32 min_rtt = cc_min_rtt(tp);

	in->cwnd = cc_window_used(tp, cwnd);
	in->slow_start = cwnd < ssthresh;
	in->round_ss = p->round_ss;
	in->last_ss = p->last_ss;
	in->round_delivered = lc_round_delivered(p, tp->delivered);
	in->delivered = lc_path_delivered(p);
	/* an echo of a mark answered by hand is no new signal: the loss is
	 * judged as any other (held as wireless, a new CE was not seen)
	 */
	in->ece = g->ece && !cc_glue_ece_echo(g);
	in->marks = lc_path_marks(p);
	in->queued = lc_path_queue_stands(p, min_rtt);
	in->overflow = lc_path_overflow_stands(p, min_rtt);
	in->limited = p->round_limited;
	in->queue_round = lc_path_queued(p, min_rtt);
	in->overflow_round = lc_path_overflow(p, min_rtt);
	in->full = p->full;
}

/*
 * Module parameters that take one of a few names (estimator=ts, rtt=min),
 * the names indexed by the values (a value without a name is skipped):
 *   static const char * const foo_names[] = { "a", "b" };
 *   static int foo_value;
 *   CC_PARAM_ENUM(foo, foo_value, foo_names, "description");
 */
struct cc_param_enum {
	int			*value;
	const char * const	*names;
	unsigned int		n;
};

static inline int cc_param_enum_set(const char *val,
				    const struct kernel_param *kp)
{
	const struct cc_param_enum *e = kp->arg;
	char list[64];
	unsigned int k;
	int len = 0;

	for (k = 0; k < e->n; k++) {
		if (e->names[k] && sysfs_streq(e->names[k], val)) {
			WRITE_ONCE(*e->value, k);
			return 0;
		}
	}
	for (k = 0; k < e->n; k++)
		if (e->names[k])
			len += scnprintf(list + len, sizeof(list) - len, "%s%s",
					 len ? ", " : "", e->names[k]);
	pr_err("invalid %s '%.*s': use %s\n", kp->name,
	       (int)strcspn(val, "\n"), val, list);
	return -EINVAL;
}

static inline int cc_param_enum_get(char *buf, const struct kernel_param *kp)
{
	const struct cc_param_enum *e = kp->arg;

	return scnprintf(buf, PAGE_SIZE, "%s\n", e->names[READ_ONCE(*e->value)]);
}

static const struct kernel_param_ops cc_param_enum_ops __maybe_unused = {
	.set = cc_param_enum_set,
	.get = cc_param_enum_get,
};

#define CC_PARAM_ENUM(name, var, names_, desc)				\
	static struct cc_param_enum cc_param_##name = {			\
		.value = &(var), .names = (names_),			\
		.n = ARRAY_SIZE(names_),				\
	};								\
	module_param_cb(name, &cc_param_enum_ops, &cc_param_##name, 0644); \
	MODULE_PARM_DESC(name, desc)

#endif /* _JERSEY_CC_GLUE_H */
