// SPDX-License-Identifier: GPL-2.0
/*
 * Diff-C-TCP / SpecTCP: ECN-gated window holding (Bai & Atiquzzaman,
 * "Enhancing TCP throughput over lossy links using ECN-capable RED
 * gateways"; Bai, Lilja & Atiquzzaman, "Applying speculative technique to
 * improve TCP throughput over lossy links"; SPEC.md 1.2).
 *
 * Speculate that every loss is corruption unless ECN says otherwise; the
 * gateways (RED + ECN with the zero-loss max_th of testbed/redmodel.py) are
 * dimensioned so that congestion shows up as CE marks, not drops.  The
 * decisions are in diffc_core.h:
 *   ECE (the kernel enters CWR, once per window as RFC 3168): Reno halving;
 *   3rd DUPACK with no ECE on the ACK: hold cwnd and ssthresh; with ECE:
 *     halve (inside CWR the halving of this window is already under way);
 *   RTO with no ECE: resume at the cwnd before the timeout; with ECE:
 *     cwnd = 1, ssthresh = cwnd / 2.
 * "ECE seen" is the ECE flag of the latest ACK: an RFC 3168 receiver sets it
 * on every ACK from the CE mark until it sees our CWR, about one RTT.
 *
 * The safe mode (classify=safe): a loss without ECE is speculated to be
 * corruption only while the round trips show no standing queue (one that
 * stood 4 round trips in a row, or in a window-limited slow start and the
 * round after it one that showed; while the path has echoed CE within the
 * last 250 round trips, none of more than half its minimum RTT: a marking
 * gateway keeps a shorter one, a longer one overflows) and the window is
 * delivered (lossclass_core.h, as tcp_jersey.c).  Otherwise it is
 * congestion: at a standing queue the window drains it (cwnd * (srtt - q)
 * / srtt, q the round's minimum RTT above the path's, at least half: at a
 * full drop-tail buffer of one BDP that is Reno's halving, at a short queue
 * a random loss costs only the queue; action "drain"), when the window is
 * not delivered (a shallow buffer, a policer) Reno's halving, and so on a
 * path that does not mark once the window passes by a sixteenth the one
 * such a buffer overflowed at (why=full).  After a drain,
 * congestion avoidance adds 3 (1 - beta) / (1 + beta) segments per RTT, as
 * jersey's (Reno's one after a halving), so that with the same signals
 * diffc is no greedier than Reno where flows compete (a standing queue,
 * marks within LC_CE_ROUNDS round trips, or a buffer found shallow:
 * lc_ai_now()), Reno's one
 * segment per RTT elsewhere.  Slow start ends at a standing queue, and
 * a held recovery goes on growing the window with each segment delivered,
 * SACKed too (by slow start only up to a standing queue), and refills its
 * flight (as jersey).  A drop-tail
 * bottleneck, a policer or an AQM that drops is then answered as
 * congestion.  In this mode losses are told apart with or without ECN on
 * the connection.  classify=paper is the papers' speculation: every loss
 * without ECE held, without ECN Reno.
 *
 * Linux mechanics as in tcp_jersey.c, through the shared glue (cc_glue.h):
 * the kernel's loss recovery (PRR) is kept, .ssthresh gives the PRR target
 * (cwnd to hold, cwnd / 2 to halve), .set_state knows which event it is
 * (ECE, a loss repaired by a tail loss probe, local congestion: CWR;
 * Recovery; the first timeout of an episode, also one inside a held
 * recovery: Loss) and records the
 * decision; a held ssthresh is put back at CA_EVENT_COMPLETE_CWR, when the
 * reduction (with target = cwnd) ends.  After an RTO we set cwnd to
 * prior_cwnd (hold) or 1; backed-off timeouts keep the kernel's one
 * segment.  An ECE arriving while a held loss is being repaired (Recovery,
 * Loss), where the kernel ignores it, halves the target (in Loss the
 * window before the timeout, never raising cwnd) by hand once per episode
 * (in Recovery PRR then starts afresh from the target it had,
 * cc_glue_reduce_in_recovery()) and queues CWR, so that the same mark is
 * not answered twice.
 * Between events: Reno slow start and congestion avoidance (cc_cong_avoid(),
 * with the safe mode's slow-start exit and increase); .undo_cwnd as Reno.
 *
 * ECN.  As tcp_jersey.c: needs_ecn=Y (default) sets TCP_CONG_NEEDS_ECN (ECT
 * SYN; Linux peers accept only if their listener's CC needs ECN too), and a
 * connection whose peer declined continues as "diffc-noecn" without ECT.
 * needs_ecn=N leaves ECN to net.ipv4.tcp_ecn / the route.  Without ECN on a
 * connection congestion and corruption cannot be told apart, and holding the
 * window through congestion would be unsafe: every loss is then answered as
 * by Reno (halve; RTO -> 1).
 *
 * Observability: .get_info fills INET_DIAG_DCTCPINFO (also for VEGASINFO
 * requests), so `ss -tin` prints "dctcp:(ce_state:<ECE on the latest ACK>,
 * alpha:<losses held>,ab_ecn:<halvings>,ab_tot:<RTOs>)", or
 * "dctcp:fallback_mode" without ECN.  Tracepoint diffc:diffc_loss
 * (trace_diffc.h).
 */
#define pr_fmt(fmt) "tcp_diffc: " fmt

#include <linux/inet_diag.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <net/tcp.h>

#include "cc_glue.h"
#include "diffc_core.h"

#define CREATE_TRACE_POINTS
#include "trace_diffc.h"

struct diffc {
	struct cc_glue g;		/* events and reductions (cc_glue.h), first */
	struct diffc_counts n;		/* shown by ss -tin (get_info) */
	struct lc_path path;		/* round trips: queue, CE echoes */
	u32	delivered;		/* tp->delivered at the previous ACK */
	u16	ai;			/* additive increase, Q8 segments/RTT */
	u8	classify:1;		/* enum lc_mode */
};

static int diffc_classify = LC_SAFE;

static const char * const diffc_classify_names[] = {
	[LC_SAFE]	= "safe",
	[LC_PAPER]	= "paper",
};

CC_PARAM_ENUM(classify, diffc_classify, diffc_classify_names,
	      "losses without ECE: safe (congestion when the round trips show a standing queue or the window is not delivered: the queue drained, or halved; slow start ends at a standing queue) or paper (always speculated corruption; the papers) [safe]");

static bool diffc_pacing;
module_param_named(pacing, diffc_pacing, bool, 0644);
MODULE_PARM_DESC(pacing,
		 "pace the connections that take this congestion control (the kernel's internal pacing, as bbr's: 200 % of cwnd/srtt while cwnd < ssthresh/2, 120 % after) [N]");

static bool diffc_needs_ecn = true;
module_param_named(needs_ecn, diffc_needs_ecn, bool, 0444);
MODULE_PARM_DESC(needs_ecn,
		 "request ECN on every connection (TCP_CONG_NEEDS_ECN, ECT SYN; Linux peers accept it only if their listener's CC needs ECN) [Y]; N: RFC 3168 negotiation by net.ipv4.tcp_ecn=1 or a route with 'features ecn'");

/* is a loss now congestion, and why?  ECE, or lossclass_core.h's classifier */
static u8 diffc_congested(const struct sock *sk, u32 cwnd, u32 ssthresh)
{
	const struct diffc *ca = inet_csk_ca(sk);
	struct lc_input in;

	cc_lc_input(sk, &ca->g, &ca->path, cwnd, ssthresh, &in);
	return lc_congestion(&in, ca->classify);
}

/*
 * A decision of diffc_decide() for @ev.  In the safe mode losses are told
 * apart with or without ECN (ECN adds the CE signal); in the papers', only
 * with ECN.
 */
static void diffc_decide_now(struct sock *sk, struct diffc_decision *d, u8 ev,
			     u32 cwnd, u32 ssthresh)
{
	struct diffc *ca = inet_csk_ca(sk);
	bool differ = cc_ecn_ok(sk) || ca->classify == LC_SAFE;
	u8 why = diffc_congested(sk, cwnd, ssthresh);

	lc_path_overflowed(&ca->path, why, cc_min_rtt(tcp_sk(sk)));
	diffc_decide(d, ev, differ, why != LC_WHY_NONE, cwnd, ssthresh);
	d->why = why;
	if (why == LC_WHY_QUEUE)
		diffc_drain(d, cwnd, cc_drain_window(sk, &ca->path, cwnd));
}

static void diffc_record(struct sock *sk, u8 ev,
			 const struct diffc_decision *d, u32 cwnd_before)
{
	struct diffc *ca = inet_csk_ca(sk);

	diffc_count(&ca->n, ev, d);
	if (d->action != DIFFC_HOLD) {
		cc_glue_answered(&ca->g);
		/* the safe mode's fair increase after a congestion response */
		if (ca->classify == LC_SAFE && d->cwnd < cwnd_before)
			ca->ai = lc_ai_gain(cwnd_before, d->action == DIFFC_RESET ?
					    cwnd_before / 2 : d->cwnd);
	}
	trace_diffc_loss(sk, ev, d, cwnd_before, d->why == LC_WHY_ECE, &ca->n,
			 &ca->path);
}

/* entering CWR (ECE, TLP, local congestion) or Recovery */
static void diffc_reduce(struct sock *sk, u8 ev)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct diffc *ca = inet_csk_ca(sk);
	u32 cwnd = tcp_snd_cwnd(tp);
	struct diffc_decision d;
	u32 old;

	if (ev == CC_EV_ECE && cc_glue_ece_echo(&ca->g)) {
		/* an echo of a mark answered in the recovery before: hold */
		cc_glue_reduce_to(sk, &ca->g, cwnd,
				  cc_glue_old_ssthresh(sk, &ca->g));
		return;
	}
	/* the ssthresh before this episode (a held one keeps it) */
	old = cc_glue_reducing(&ca->g) && ca->g.ss_fix ? ca->g.ss_after :
							 ca->g.ss_prev;
	if (cc_glue_covered(&ca->g)) {
		/* this window was already halved: no second reduction */
		d.action = DIFFC_HALVE;
		d.why = LC_WHY_NONE;
		d.cwnd = tp->snd_ssthresh;
		d.ssthresh = old;
		diffc_record(sk, ev, &d, cwnd);
		return;
	}
	/* a held reduction under way is decided anew for this event */
	diffc_decide_now(sk, &d, ev, cwnd, old);
	cc_glue_reduce_to(sk, &ca->g, d.cwnd, d.ssthresh);
	diffc_record(sk, ev, &d, cwnd);
}

static void diffc_rto(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct diffc *ca = inet_csk_ca(sk);
	u32 before = tp->prior_cwnd;	/* saved by tcp_enter_loss() */
	struct diffc_decision d;

	diffc_decide_now(sk, &d, CC_EV_RTO, before,
			 cc_glue_old_ssthresh(sk, &ca->g));
	cc_glue_set(sk, &ca->g, d.cwnd, d.ssthresh);
	diffc_record(sk, CC_EV_RTO, &d, before);
}

/*
 * ECE while a held loss is repaired (Recovery, Loss): halve once.  In
 * Recovery the window halved is PRR's target (snd_ssthresh, the held
 * window), not cwnd, which PRR may have taken below it while the lost
 * segments were out: the trace, the fair increase's gain and the hold
 * (a target lowered is a response, not a held window) see the target.
 */
static void diffc_late_ece(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct diffc *ca = inet_csk_ca(sk);
	u32 before = tcp_snd_cwnd(tp);
	struct diffc_decision d;

	if (inet_csk(sk)->icsk_ca_state == TCP_CA_Loss) {
		before = cc_glue_loss_window(sk);
		diffc_decide(&d, CC_EV_ECE, true, true, before,
			     tp->snd_ssthresh);
		d.why = LC_WHY_ECE;
		d.cwnd = cc_glue_loss_answer(sk, &ca->g, d.cwnd, d.ssthresh);
	} else {
		before = tp->snd_ssthresh;
		diffc_decide(&d, CC_EV_ECE, true, true, before, before);
		d.why = LC_WHY_ECE;
		cc_glue_reduce_in_recovery(sk, &ca->g, before, d.cwnd,
					   d.ssthresh);
	}
	cc_glue_ece_answered(sk, &ca->g);
	diffc_record(sk, CC_EV_ECE, &d, before);
}

static struct tcp_congestion_ops tcp_diffc_noecn;

static void diffc_init(struct sock *sk)
{
	struct diffc *ca = inet_csk_ca(sk);

	/* the peer declined ECN: stop sending ECT; losses are then told
	 * apart by the classifier (safe), or all congestion (paper: Reno)
	 */
	cc_noecn_fallback(sk, &tcp_diffc_noecn);
	memset(ca, 0, sizeof(*ca));
	cc_glue_init(&ca->g);
	ca->classify = READ_ONCE(diffc_classify);
	ca->ai = LC_AI_ONE;
	ca->delivered = tcp_sk(sk)->delivered;
	cc_glue_pacing(sk, READ_ONCE(diffc_pacing));
}

/* called for every ACK before the kernel's loss/ECN processing */
static void diffc_in_ack_event(struct sock *sk, u32 flags)
{
	struct diffc *ca = inet_csk_ca(sk);

	cc_glue_ack(sk, &ca->g, flags);
	cc_path_ack(&ca->path, &ca->g);
	if (cc_glue_late_ece(sk, &ca->g))
		diffc_late_ece(sk);
}

/* Reno (safe: slow start ends at a standing queue; the fair increase) */
static void diffc_cong_avoid(struct sock *sk, u32 ack, u32 acked)
{
	struct diffc *ca = inet_csk_ca(sk);

	cc_cong_avoid(sk, &ca->g, &ca->path, ca->ai, ca->classify == LC_SAFE,
		      acked);
}

/*
 * every ACK that finds data outstanding: the round trips' RTT; a held
 * recovery goes on growing and refills its flight (safe mode)
 */
static void diffc_pkts_acked(struct sock *sk, const struct ack_sample *sample)
{
	u32 delivered = tcp_sk(sk)->delivered, round_min;
	struct diffc *ca = inet_csk_ca(sk);

	cc_path_pkts_acked(sk, &ca->g, &ca->path, sample, ca->ai,
			   ca->classify == LC_SAFE, delivered - ca->delivered,
			   &round_min);
	ca->delivered = delivered;
}

/* entering CWR, Recovery or Loss: the PRR target (hold or halve) */
static u32 diffc_ssthresh(struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	struct diffc *ca = inet_csk_ca(sk);
	struct diffc_decision d;

	cc_glue_ssthresh(sk, &ca->g);
	diffc_decide_now(sk, &d, CC_EV_DUPACK, tcp_snd_cwnd(tp),
			 tp->snd_ssthresh);
	return max(d.cwnd, CC_SSTHRESH_MIN);
}

/* called before icsk_ca_state changes to @new_state */
static void diffc_set_state(struct sock *sk, u8 new_state)
{
	cc_glue_set_state(sk, new_state, diffc_rto, diffc_reduce);
}

/* ss -tin: "dctcp:(ce_state:<ECE>,alpha:<held>,ab_ecn:<halved>,ab_tot:<rto>)" */
static size_t diffc_get_info(struct sock *sk, u32 ext, int *attr,
			     union tcp_cc_info *info)
{
	const struct diffc *ca = inet_csk_ca(sk);

	if (ext & (1 << (INET_DIAG_DCTCPINFO - 1)) ||
	    ext & (1 << (INET_DIAG_VEGASINFO - 1))) {
		memset(&info->dctcp, 0, sizeof(info->dctcp));
		info->dctcp.dctcp_enabled = cc_ecn_ok(sk);
		info->dctcp.dctcp_ce_state = ca->g.ece;
		info->dctcp.dctcp_alpha = ca->n.held;
		info->dctcp.dctcp_ab_ecn = ca->n.halved;
		info->dctcp.dctcp_ab_tot = ca->n.rto;
		*attr = INET_DIAG_DCTCPINFO;
		return sizeof(info->dctcp);
	}
	return 0;
}

static struct tcp_congestion_ops tcp_diffc __read_mostly = {
	.init		= diffc_init,
	.ssthresh	= diffc_ssthresh,
	.cong_avoid	= diffc_cong_avoid,
	.set_state	= diffc_set_state,
	.cwnd_event	= cc_glue_cwnd_event,
	.in_ack_event	= diffc_in_ack_event,
	.pkts_acked	= diffc_pkts_acked,
	.undo_cwnd	= cc_glue_undo,
	.get_info	= diffc_get_info,
	.flags		= TCP_CONG_NEEDS_ECN,
	.owner		= THIS_MODULE,
	.name		= "diffc",
};

/* what a connection continues with when ECN was requested but declined */
static struct tcp_congestion_ops tcp_diffc_noecn __read_mostly;

static int __init diffc_register(void)
{
	CC_GLUE_FIRST(struct diffc);
	if (!diffc_needs_ecn)
		tcp_diffc.flags &= ~TCP_CONG_NEEDS_ECN;
	cc_make_noecn(&tcp_diffc_noecn, &tcp_diffc, "diffc-noecn");
	return tcp_register_congestion_control(&tcp_diffc);
}

static void __exit diffc_unregister(void)
{
	tcp_unregister_congestion_control(&tcp_diffc);
}

module_init(diffc_register);
module_exit(diffc_unregister);

MODULE_AUTHOR("jersey project");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Diff-C-TCP (SpecTCP): hold cwnd on loss unless ECN signals congestion");
MODULE_ALIAS("tcp_diffc");
