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
 * Linux mechanics as in tcp_jersey.c: the kernel's loss recovery (PRR) is
 * kept, .ssthresh gives the PRR target (cwnd to hold, cwnd / 2 to halve)
 * and remembers the old ssthresh, .set_state knows which state is entered
 * (CWR, Recovery, Loss) and records the decision; a held ssthresh is put
 * back at CA_EVENT_COMPLETE_CWR, when the reduction (with target = cwnd)
 * ends.  After an RTO, tcp_enter_loss() has set cwnd = in_flight + 1 when it
 * calls .set_state(TCP_CA_Loss); we set cwnd to prior_cwnd (hold) or 1.  An
 * ECE arriving while a held loss is being repaired (Recovery, Loss), where
 * the kernel ignores it, halves the target by hand once per episode.
 * Between events: Reno (tcp_reno_cong_avoid); .undo_cwnd as Reno.
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
#include <linux/moduleparam.h>
#include <net/inet_ecn.h>
#include <net/tcp.h>

#include "compat.h"
#include "diffc_core.h"

#define CREATE_TRACE_POINTS
#include "trace_diffc.h"

struct diffc {
	struct diffc_counts n;
	u32	ss_prev;		/* snd_ssthresh before .ssthresh ran */
	u32	ss_after;		/* ssthresh when the reduction completes */
	u8	congested:1,		/* the latest ACK carried ECE */
		ss_saved:1,		/* ss_prev is valid (.ssthresh just ran) */
		ss_fix:1,		/* install ss_after at COMPLETE_CWR */
		reduced:1;		/* halved in the current episode */
};

static bool diffc_needs_ecn = true;
module_param_named(needs_ecn, diffc_needs_ecn, bool, 0444);
MODULE_PARM_DESC(needs_ecn,
		 "request ECN on every connection (TCP_CONG_NEEDS_ECN, ECT SYN; Linux peers accept it only if their listener's CC needs ECN) [Y]; N: RFC 3168 negotiation by net.ipv4.tcp_ecn=1 or a route with 'features ecn'");

static bool diffc_ecn_ok(const struct sock *sk)
{
	return compat_tcp_ecn_ok(tcp_sk(sk));
}

static void diffc_record(struct sock *sk, u8 ev,
			 const struct diffc_decision *d, u32 cwnd_before)
{
	struct diffc *ca = inet_csk_ca(sk);

	diffc_count(&ca->n, ev, d);
	if (d->action != DIFFC_HOLD)
		ca->reduced = 1;
	trace_diffc_loss(sk, ev, d, cwnd_before, ca->congested, &ca->n);
}

/* ssthresh in force before the kernel asked .ssthresh for a new one */
static u32 diffc_old_ssthresh(const struct sock *sk)
{
	const struct diffc *ca = inet_csk_ca(sk);

	return ca->ss_saved ? ca->ss_prev : tcp_sk(sk)->snd_ssthresh;
}

/*
 * Entering CWR (ECE, or a loss repaired by a TLP) or Recovery.  .ssthresh
 * has set the PRR target; a hold also restores the old ssthresh when the
 * reduction completes.
 */
static void diffc_reduce(struct sock *sk, u8 ev)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct diffc *ca = inet_csk_ca(sk);
	u32 cwnd = tcp_snd_cwnd(tp);
	struct diffc_decision d;

	if (!ca->ss_saved) {
		/* no .ssthresh call: a reduction of this window is under way */
		d.action = ca->reduced ? DIFFC_HALVE : DIFFC_HOLD;
		d.cwnd = tp->snd_ssthresh;
		d.ssthresh = ca->ss_fix ? ca->ss_after : tp->snd_ssthresh;
		diffc_record(sk, ev, &d, cwnd);
		return;
	}
	diffc_decide(&d, ev, diffc_ecn_ok(sk), ca->congested, cwnd,
		     ca->ss_prev);
	tp->snd_ssthresh = max(d.cwnd, DIFFC_SSTHRESH_MIN);
	ca->ss_after = d.ssthresh;
	ca->ss_fix = d.action == DIFFC_HOLD;
	diffc_record(sk, ev, &d, cwnd);
}

/*
 * .set_state(TCP_CA_Loss) comes from tcp_enter_loss() (RTO, SACK reneging),
 * which has just set cwnd = in_flight + 1 and snd_cwnd_cnt = 0, and from
 * tcp_simple_retransmit() (path MTU shrank), which is no loss.
 */
static bool diffc_rto_entry(const struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	return !tp->snd_cwnd_cnt &&
	       tcp_snd_cwnd(tp) == tcp_packets_in_flight(tp) + 1;
}

static void diffc_rto(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct diffc *ca = inet_csk_ca(sk);
	u32 before = tp->prior_cwnd;	/* saved by tcp_enter_loss() */
	struct diffc_decision d;

	diffc_decide(&d, DIFFC_EV_RTO, diffc_ecn_ok(sk), ca->congested,
		     before, diffc_old_ssthresh(sk));
	tcp_snd_cwnd_set(tp, min(d.cwnd, max(tp->snd_cwnd_clamp, 1U)));
	tp->snd_ssthresh = d.ssthresh;
	ca->ss_fix = 0;
	diffc_record(sk, DIFFC_EV_RTO, &d, before);
}

/* ECE while a held loss is repaired (Recovery, Loss): halve once */
static void diffc_ece_in_recovery(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct diffc *ca = inet_csk_ca(sk);
	u32 cwnd = tcp_snd_cwnd(tp);
	struct diffc_decision d;

	if (inet_csk(sk)->icsk_ca_state == TCP_CA_Loss) {
		diffc_decide(&d, DIFFC_EV_ECE, true, true, cwnd,
			     tp->snd_ssthresh);
		tcp_snd_cwnd_set(tp, d.cwnd);
		tp->snd_ssthresh = d.ssthresh;
	} else {
		/* Recovery: snd_ssthresh is the cwnd target of PRR */
		diffc_decide(&d, DIFFC_EV_ECE, true, true, tp->snd_ssthresh,
			     tp->snd_ssthresh);
		tp->snd_ssthresh = d.ssthresh;
	}
	ca->ss_fix = 0;
	diffc_record(sk, DIFFC_EV_ECE, &d, cwnd);
}

static struct tcp_congestion_ops tcp_diffc_noecn;

static void diffc_init(struct sock *sk)
{
	struct diffc *ca = inet_csk_ca(sk);

	/* as jersey_init(): the peer declined ECN, continue without ECT */
	if (!diffc_ecn_ok(sk) &&
	    (inet_csk(sk)->icsk_ca_ops->flags & TCP_CONG_NEEDS_ECN)) {
		inet_csk(sk)->icsk_ca_ops = &tcp_diffc_noecn;
		INET_ECN_dontxmit(sk);
	}
	memset(ca, 0, sizeof(*ca));
}

/* called for every ACK before the kernel's loss/ECN processing */
static void diffc_in_ack_event(struct sock *sk, u32 flags)
{
	struct diffc *ca = inet_csk_ca(sk);
	bool ece = (flags & CA_ACK_ECE) && diffc_ecn_ok(sk);

	ca->ss_saved = 0;
	ca->congested = ece;
	if (ece && !ca->reduced &&
	    inet_csk(sk)->icsk_ca_state >= TCP_CA_Recovery)
		diffc_ece_in_recovery(sk);
}

/* entering CWR, Recovery or Loss: the PRR target (hold or halve) */
static u32 diffc_ssthresh(struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	struct diffc *ca = inet_csk_ca(sk);
	struct diffc_decision d;

	ca->ss_prev = tp->snd_ssthresh;
	ca->ss_saved = 1;
	diffc_decide(&d, DIFFC_EV_LOSS, diffc_ecn_ok(sk), ca->congested,
		     tcp_snd_cwnd(tp), tp->snd_ssthresh);
	return max(d.cwnd, DIFFC_SSTHRESH_MIN);
}

/* called before icsk_ca_state changes to @new_state */
static void diffc_set_state(struct sock *sk, u8 new_state)
{
	struct diffc *ca = inet_csk_ca(sk);

	switch (new_state) {
	case TCP_CA_CWR:
		diffc_reduce(sk, ca->congested && diffc_ecn_ok(sk) ?
				 DIFFC_EV_ECE : DIFFC_EV_TLP);
		break;
	case TCP_CA_Recovery:
		diffc_reduce(sk, DIFFC_EV_LOSS);
		break;
	case TCP_CA_Loss:
		if (diffc_rto_entry(sk))
			diffc_rto(sk);
		break;
	case TCP_CA_Open:
		ca->reduced = 0;
		break;
	}
	ca->ss_saved = 0;
}

static void diffc_cwnd_event(struct sock *sk, enum tcp_ca_event ev)
{
	struct diffc *ca = inet_csk_ca(sk);

	if (ev == CA_EVENT_COMPLETE_CWR && ca->ss_fix) {
		tcp_sk(sk)->snd_ssthresh = ca->ss_after;
		ca->ss_fix = 0;
	}
}

/* spurious loss: the kernel restores prior_ssthresh, we restore cwnd */
static u32 diffc_undo_cwnd(struct sock *sk)
{
	struct diffc *ca = inet_csk_ca(sk);

	ca->ss_fix = 0;
	return tcp_reno_undo_cwnd(sk);
}

/* ss -tin: "dctcp:(ce_state:<ECE>,alpha:<held>,ab_ecn:<halved>,ab_tot:<rto>)" */
static size_t diffc_get_info(struct sock *sk, u32 ext, int *attr,
			     union tcp_cc_info *info)
{
	const struct diffc *ca = inet_csk_ca(sk);

	if (ext & (1 << (INET_DIAG_DCTCPINFO - 1)) ||
	    ext & (1 << (INET_DIAG_VEGASINFO - 1))) {
		memset(&info->dctcp, 0, sizeof(info->dctcp));
		info->dctcp.dctcp_enabled = diffc_ecn_ok(sk);
		info->dctcp.dctcp_ce_state = ca->congested;
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
	.cong_avoid	= tcp_reno_cong_avoid,
	.set_state	= diffc_set_state,
	.cwnd_event	= diffc_cwnd_event,
	.in_ack_event	= diffc_in_ack_event,
	.undo_cwnd	= diffc_undo_cwnd,
	.get_info	= diffc_get_info,
	.flags		= TCP_CONG_NEEDS_ECN,
	.owner		= THIS_MODULE,
	.name		= "diffc",
};

/* what a connection continues with when ECN was requested but declined */
static struct tcp_congestion_ops tcp_diffc_noecn __read_mostly = {
	.init		= diffc_init,
	.ssthresh	= diffc_ssthresh,
	.cong_avoid	= tcp_reno_cong_avoid,
	.set_state	= diffc_set_state,
	.cwnd_event	= diffc_cwnd_event,
	.in_ack_event	= diffc_in_ack_event,
	.undo_cwnd	= diffc_undo_cwnd,
	.get_info	= diffc_get_info,
	.owner		= THIS_MODULE,
	.name		= "diffc-noecn",
};

static int __init diffc_register(void)
{
	BUILD_BUG_ON(sizeof(struct diffc) > ICSK_CA_PRIV_SIZE);
	if (!diffc_needs_ecn)
		tcp_diffc.flags &= ~TCP_CONG_NEEDS_ECN;
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
