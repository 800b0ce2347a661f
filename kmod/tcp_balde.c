// SPDX-License-Identifier: GPL-2.0
/*
 * TCP BaLDE: SARBE bandwidth estimation + Vegas loss differentiation
 * (T.-A. Le & C. S. Hong, "TCP BaLDE for improving TCP performance over
 * heterogeneous networks"; SPEC.md 1.4).
 *
 * Estimator (balde_core.h): bandwidth samples from the receiver's timestamps
 * of consecutive ACKs, Bw_k = L_k / (ts_k - ts_{k-1}), through the stability
 * filter (b = 0.95, N = 8) into eBw; ocwnd = eBw * rtt_min / mss.  L_k is
 * the data newly delivered by the ACK, (tp->delivered - previous) * mss,
 * i.e. cumulatively ACKed or SACKed; ts is tp->rx_opt.rcv_tsval, 1 ms ticks
 * (1 us if the connection negotiated tcp_usec_ts).  Without timestamps the
 * interval is the one between ACK arrivals (the documented fallback).
 * LDEA: the Vegas predictor of newrenolp_core.h (alpha 1, beta 3) on every
 * ACK with an RTT sample; rtt_min is the minimum RTT sample, seeded from
 * the kernel's windowed minimum (SYN RTT) at init.
 *
 * Reactions: new ACK in slow start with incipient congestion: ssthresh =
 * ocwnd (.cong_avoid, before Reno's increase).  3rd DUPACK (Recovery):
 * ssthresh = ocwnd; congested and cwnd > ocwnd: cwnd -> ocwnd, otherwise
 * cwnd is kept.  RTO: ssthresh = ocwnd, cwnd = 1.  ECE (only if the
 * connection negotiated ECN; not requested by this module) and local
 * congestion (our own qdisc refused a packet): as a congested loss.  As in
 * tcp_jersey.c the kernel's PRR is kept, through the shared glue
 * (cc_glue.h): .ssthresh returns the cwnd the reduction should end at and
 * the wanted ssthresh is installed at CA_EVENT_COMPLETE_CWR; .set_state
 * decides for the event the glue found (a timeout only from CA_EVENT_LOSS),
 * records it (tracepoint balde:balde_loss) and answers an RTO.  .undo_cwnd
 * as Reno.
 *
 * Observability: .get_info fills INET_DIAG_BBRINFO (also answered for
 * VEGASINFO requests), so `ss -tin` prints "bbr:(bw:<eBw>bps,mrtt:<rtt_min
 * ms>)" (gains are 0).  Tracepoints balde:balde_loss and balde:balde_sample
 * (trace_balde.h).
 */
#define pr_fmt(fmt) "tcp_balde: " fmt

#include <linux/inet_diag.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <net/tcp.h>

#include "cc_glue.h"
#include "balde_core.h"

#define CREATE_TRACE_POINTS
#include "trace_balde.h"

struct balde {
	struct cc_glue g;		/* events and reductions (cc_glue.h), first */
	struct balde_est est;		/* SARBE */
	struct nrlp_pred pred;		/* Vegas LDEA */
	u32	delivered;		/* tp->delivered at the previous ACK */
};

static u32 balde_ocwnd_now(const struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	const struct balde *ca = inet_csk_ca(sk);
	u32 w = balde_ocwnd(ca->est.ebw, ca->pred.rtt_min, tp->mss_cache);

	return min(w, max(tp->snd_cwnd_clamp, BALDE_OCWND_MIN));
}

static void balde_record(struct sock *sk, u8 ev, u32 cwnd_before, u32 ocwnd,
			 const struct balde_decision *d)
{
	const struct balde *ca = inet_csk_ca(sk);

	trace_balde_loss(sk, ev, d, cwnd_before, ca->est.ebw, ocwnd,
			 &ca->pred);
}

static void balde_init(struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	struct balde *ca = inet_csk_ca(sk);
	u32 rtt = tcp_min_rtt(tp);

	memset(ca, 0, sizeof(*ca));
	cc_glue_init(&ca->g);
	balde_est_init(&ca->est);
	ca->pred.rtt_min = rtt == ~0U ? 0 : min(rtt, NRLP_RTT_MAX_US);
	ca->delivered = tp->delivered;
}

static void balde_in_ack_event(struct sock *sk, u32 flags)
{
	struct balde *ca = inet_csk_ca(sk);

	cc_glue_ack(sk, &ca->g, flags);
}

/* every ACK that finds data outstanding: SARBE and LDEA samples */
static void balde_pkts_acked(struct sock *sk, const struct ack_sample *sample)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	struct balde *ca = inet_csk_ca(sk);
	struct balde_sample out;
	struct cc_ack ack;

	cc_ack_read(sk, &ca->delivered, &ack);
	if (balde_est_ack(&ca->est, &ack, &out))
		trace_balde_sample(sk, &out, ca->est.ebw);
	if (sample->rtt_us > 0)
		nrlp_sample(&ca->pred, sample->rtt_us,
			    cc_window_used(tp, tcp_snd_cwnd(tp)),
			    BALDE_ALPHA, BALDE_BETA);
}

/* new ACK: in slow start with incipient congestion, ssthresh = ocwnd */
static void balde_cong_avoid(struct sock *sk, u32 ack, u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct balde *ca = inet_csk_ca(sk);

	tp->snd_ssthresh = balde_new_ack(ca->pred.congested, ca->est.nu > 0,
					 tcp_snd_cwnd(tp), tp->snd_ssthresh,
					 balde_ocwnd_now(sk));
	tcp_reno_cong_avoid(sk, ack, acked);
}

/* entering CWR, Recovery or Loss: the cwnd the reduction should end at */
static u32 balde_ssthresh(struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	struct balde *ca = inet_csk_ca(sk);
	struct balde_decision d;

	cc_glue_ssthresh(sk, &ca->g);
	balde_decide(&d, ca->g.ece ? CC_EV_ECE : CC_EV_DUPACK,
		     ca->pred.congested, tcp_snd_cwnd(tp), balde_ocwnd_now(sk));
	return max(d.cwnd, BALDE_OCWND_MIN);
}

static void balde_set_state(struct sock *sk, u8 new_state)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct balde *ca = inet_csk_ca(sk);
	int ev = cc_glue_event(sk, &ca->g, new_state);
	u32 ocwnd = balde_ocwnd_now(sk);
	u32 cwnd = tcp_snd_cwnd(tp);
	struct balde_decision d;

	if (ev < 0)
		goto out;
	if (ev == CC_EV_DUPACK && ca->g.ece)
		ev = CC_EV_ECE;		/* the loss came with a CE echo */
	if (ev == CC_EV_RTO) {
		cwnd = tp->prior_cwnd;
		balde_decide(&d, ev, ca->pred.congested, cwnd, ocwnd);
		cc_glue_set(sk, &ca->g, d.cwnd, d.ssthresh);
	} else if (!cc_glue_reducing(&ca->g)) {
		balde_decide(&d, ev, ca->pred.congested, cwnd, ocwnd);
		cc_glue_reduce_to(sk, &ca->g, d.cwnd, d.ssthresh);
	} else {
		/* no .ssthresh call: a reduction is under way, unchanged */
		d.cause = ca->pred.congested ? BALDE_CAUSE_CONGESTION :
					       BALDE_CAUSE_WIRELESS;
		d.cwnd = tp->snd_ssthresh;
		d.ssthresh = cc_glue_ss_after(sk, &ca->g);
	}
	balde_record(sk, ev, cwnd, ocwnd, &d);
out:
	cc_glue_state_done(&ca->g);
}

/* ss -tin: "bbr:(bw:<eBw>,mrtt:<rtt_min>)" */
static size_t balde_get_info(struct sock *sk, u32 ext, int *attr,
			     union tcp_cc_info *info)
{
	const struct balde *ca = inet_csk_ca(sk);

	return cc_bbr_info(ext, attr, info, ca->est.ebw, ca->pred.rtt_min);
}

static struct tcp_congestion_ops tcp_balde __read_mostly = {
	.init		= balde_init,
	.ssthresh	= balde_ssthresh,
	.cong_avoid	= balde_cong_avoid,
	.set_state	= balde_set_state,
	.cwnd_event	= cc_glue_cwnd_event,
	.in_ack_event	= balde_in_ack_event,
	.pkts_acked	= balde_pkts_acked,
	.undo_cwnd	= cc_glue_undo,
	.get_info	= balde_get_info,
	.owner		= THIS_MODULE,
	.name		= "balde",
};

static int __init balde_register(void)
{
	CC_GLUE_FIRST(struct balde);
	return tcp_register_congestion_control(&tcp_balde);
}

static void __exit balde_unregister(void)
{
	tcp_unregister_congestion_control(&tcp_balde);
}

module_init(balde_register);
module_exit(balde_unregister);

MODULE_AUTHOR("jersey project");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("TCP BaLDE: SARBE bandwidth estimate + Vegas loss differentiation");
MODULE_ALIAS("tcp_balde");
