// SPDX-License-Identifier: GPL-2.0
/*
 * TCP-Jersey: achievable-rate-estimation (ARE) based AIAD congestion control
 * that tells wireless losses from congestion losses by ECN congestion
 * warnings (Kai Xu, thesis ch. 5, 7, 8 and appendix B; SPEC.md 1.1).
 *
 * Rate estimator (jersey_core.h): ACK-ARE (5.9) or TS-ARE (7.1), filter type
 * 1 (ATSW) or 2 (5.20), fed from .pkts_acked with the bytes newly delivered
 * by each ACK: (tp->delivered - previous tp->delivered) * mss, i.e. data
 * cumulatively ACKed or SACKed (DUPACKs with SACK blocks count).  Local time
 * is tp->tcp_mstamp (us, taken when the ACK arrived); the receiver's time is
 * tp->rx_opt.rcv_tsval, whose tick length jersey_core.h learns.
 * tau = srtt + rttvar with the RFC 6298 quantities: srtt_us >> 3 and
 * mdev_us >> 2 (tp->rttvar_us is floored at rto_min, unusable here).
 * rtt_min (D) is the kernel's minimum RTT (tcp_min_rtt(): the minimum of
 * the same ACK RTT samples, windowed over net.ipv4.tcp_min_rtt_wlen).
 *
 * Window control.  We keep the kernel's loss recovery and use .cong_avoid,
 * not .cong_control: with .cong_control the kernel would skip PRR, the
 * cwnd = ssthresh at the end of a reduction, pacing-rate updates and
 * slow-start-after-idle, which we would have to re-implement.  The glue
 * shared with the other modules (cc_glue.h) tells which event the kernel
 * is reacting to and puts a decision into effect (the cwnd PRR steers to,
 * the ssthresh installed when the reduction completes); jersey_decide()
 * (jersey_core.h) makes the decisions:
 *   ECE (CWR entry): rate control; cwnd -> ownd (classify=paper: in slow
 *     start cwnd is held and only ssthresh becomes ownd, never above the
 *     old one);
 *   Recovery (3rd DUPACK, SACK, RACK) or CWR after a loss repaired by a
 *     tail loss probe: with ECE (or, classify=paper, without ECN) a
 *     congestion loss, cwnd -> ownd; otherwise (safe: unless the
 *     classifier below calls it congestion) a wireless loss: the target is
 *     the current cwnd, so PRR keeps the flight and cwnd is unchanged when
 *     recovery ends;
 *   CWR because our own qdisc refused a packet (tcp_transmit_skb): local
 *     congestion, cwnd -> ownd;
 *   RTO (CA_EVENT_LOSS, the first timeout of an episode, or Loss entered
 *     from a held recovery, cc_glue_held_timeout()): cwnd = 1
 *     (congested) or ownd (wireless, no ECN), ssthresh = ownd; backed-off
 *     timeouts of the same episode keep the kernel's cwnd of one segment;
 *   ECE while in Recovery or Loss (the kernel ignores it there): the target
 *     is lowered by hand once, PRR starts afresh from the window it had
 *     (in Recovery, cc_glue_reduce_in_recovery()), and CWR is queued for
 *     the receiver.
 * Between events: Reno slow start / congestion avoidance (cc_cong_avoid(),
 * alpha segments per RTT, see below).  .undo_cwnd restores max(cwnd, prior_cwnd) (the
 * kernel saved prior_cwnd/prior_ssthresh before our decision) and cancels a
 * pending ssthresh change.
 *
 * The safe mode (classify=safe).  The thesis calls every loss without
 * ECE a wireless loss; that is right only behind a gateway that marks before
 * it drops.  A real host mostly meets drop-tail queues, policers and AQMs
 * that mark only some traffic, where holding the window through losses
 * never backs off.  So (lossclass_core.h, with the path's round trips
 * watched in .pkts_acked) a loss without ECE counts as wireless only while
 *   - no standing queue: the minimum RTT of one of the last 4 round trips
 *     (the last may be this one, after 8 samples; a drop-tail buffer fills
 *     over many, a path's own delay rises for a few) is within min_rtt / 8,
 *     clamped to [4 ms, 16 ms] and at most half the path's minimum RTT (a
 *     short path's one-BDP buffer holds less than 4 ms), of the path's
 *     minimum RTT (in a window-limited slow start and the round after it,
 *     the last round or this one: slow start fills a buffer in a round)
 *     (while the path marks, CE echoed within the last 250 round trips,
 *     half the minimum RTT: the AQM keeps a shorter queue, a longer one is
 *     its buffer overflowing), and
 *   - the window is delivered: cwnd (half of it in slow start) is at most
 *     3/2 of the segments the path delivered in the last round trip (not
 *     known after a round the receiver's window held back), and
 *   - on a path that does not mark, the window is below the one its buffer
 *     overflowed at without a standing queue, by a sixteenth more (a
 *     buffer shallower than the queue threshold, where the rule before
 *     found the overflow; a round that delivers more raises it);
 * otherwise it is congestion, answered with cwnd = ownd.  Taking a wireless
 * loss for congestion costs little: ownd = ARE * rtt_min only drains the
 * queue.  One round's standing queue ends slow start (HyStart's delay
 * increase), so a lone flow does not overflow a drop-tail buffer with half
 * a window at the end of slow start.  A recovery held for corruption goes
 * on growing the window with each segment delivered, SACKed too
 * (cc_glue_grow_held()): the kernel raises cwnd only
 * outside recovery, and at a few percent of random loss a sender is in
 * recovery most of the time; its slow start ends at a standing queue too,
 * and a round trip that a stalled recovery keeps open ends when a segment
 * sent after it began is delivered (RACK's, with SACK), or after two
 * windows delivered (lc_round_long()), so that the queue shows; and its
 * flight, which PRR would let each loss shrink for good, grows back to the
 * window as slow start would (cc_glue_refill_held(): at 5 % PER behind
 * fq_codel, 14.35 -> 16.36 Mb/s, bbr 16.61; medians of 5 runs on 6.12).
 * The fair increase below applies while the path shows a standing queue
 * or has marked within LC_CE_ROUNDS round trips, or its buffer was found
 * shallow (where flows compete), Reno's one segment per RTT otherwise
 * (lc_ai_now()).  In this mode losses are
 * told apart with or without ECN on the connection (ECN adds the CE
 * signal); the tracepoint
 * says why a loss was congestion (why=ece, excess, queue, full).
 * Fairness: cwnd -> ownd keeps beta = ownd / cwnd of the window (only the
 * queue's share) where Reno keeps 1/2; with equal increase jersey took 2-3x
 * Reno's share behind marking gateways.  After a congestion response,
 * congestion avoidance therefore adds alpha = 3 (1 - beta) / (1 + beta)
 * segments per RTT (RFC 8312's TCP-friendly relation: equal average windows
 * for flows that get the same signals), at most one, while flows compete
 * (above); a response takes the window to ownd or the queue-drained
 * window, where a lone flow keeps the link about full, and where a delay
 * spike took it lower it regains the BDP at Reno's pace.  classify=paper restores
 * the thesis: every loss without ECE wireless, Reno's increase, slow start
 * until a loss or ECE, a held recovery holds, and without ECN every loss
 * congestion (AIAD).
 *
 * ECN.  The paper's loss differentiation needs ECN on the connection (the
 * safe mode uses it when present).  With needs_ecn=Y
 * (default) the ops carry TCP_CONG_NEEDS_ECN: ECN is requested without the
 * net.ipv4.tcp_ecn sysctl, but the SYN is then ECT, and a Linux receiver
 * accepts ECN from an ECT SYN only when its listener's congestion control
 * needs ECN too (jersey, dctcp) or its route says so; other Linux receivers
 * decline.  A connection whose peer declined continues as "jersey-noecn"
 * (as dctcp does with dctcp-reno): no ECT on its packets, every loss a
 * congestion loss answered with cwnd = ownd (AIAD).  With needs_ecn=N the
 * kernel's RFC 3168 negotiation applies (non-ECT SYN, requested when
 * net.ipv4.tcp_ecn=1 or the route has "features ecn"), which every ECN
 * capable receiver accepts (Linux's default tcp_ecn=2).
 *
 * Observability: .get_info fills INET_DIAG_BBRINFO (also answered for
 * VEGASINFO requests), so `ss -tin` prints "bbr:(bw:<ARE>bps,mrtt:<rtt_min
 * ms>)" (bw = ARE in bytes/s, min_rtt = rtt_min in us; gains are 0).
 * Tracepoints jersey:jersey_loss, jersey:jersey_round and jersey:jersey_sample
 * (trace_jersey.h).
 */
#define pr_fmt(fmt) "tcp_jersey: " fmt

#include <linux/inet_diag.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <net/tcp.h>

#include "cc_glue.h"
#include "jersey_core.h"

#define CREATE_TRACE_POINTS
#include "trace_jersey.h"

struct jersey {
	struct cc_glue g;		/* events and reductions (cc_glue.h), first */
	struct jersey_est est;		/* ARE and its sampler */
	struct lc_path path;		/* round trips: queue, CE echoes */
	u16	delivered;		/* tp->delivered at the previous ACK
					 * (low 16 bits: an ACK delivers less)
					 */
	u16	ai:9,			/* additive increase, Q8 segments/RTT */
		mode:2,			/* enum jersey_mode */
		filter:2,		/* enum jersey_filter */
		classify:1;		/* enum lc_mode */
};

static int jersey_estimator = JERSEY_MODE_AUTO;
static int jersey_filter_type = JERSEY_FILTER_ATSW;
static int jersey_classify = LC_SAFE;

static const char * const jersey_classify_names[] = {
	[LC_SAFE]	= "safe",
	[LC_PAPER]	= "paper",
};

CC_PARAM_ENUM(classify, jersey_classify, jersey_classify_names,
	      "losses without ECE: safe (congestion when the round trips show a standing queue or the window is not delivered; slow start ends at a standing queue; fair increase after congestion) or paper (always wireless, Reno increase; the thesis) [safe]");

static const char * const jersey_estimator_names[] = {
	[JERSEY_MODE_AUTO]	= "auto",
	[JERSEY_MODE_TS]	= "ts",
	[JERSEY_MODE_ACK]	= "ack",
};

CC_PARAM_ENUM(estimator, jersey_estimator, jersey_estimator_names,
	      "rate estimator: auto (default: TS-ARE if timestamps, else ACK-ARE), ts, ack");

static const char * const jersey_filter_names[] = {
	[JERSEY_FILTER_ATSW]	= "1",
	[JERSEY_FILTER_LPF]	= "2",
};

CC_PARAM_ENUM(filter, jersey_filter_type, jersey_filter_names,
	      "ARE filter: 1 = adaptive TSW (5.9, default), 2 = Westwood low-pass (5.20)");

static bool jersey_pacing;
module_param_named(pacing, jersey_pacing, bool, 0644);
MODULE_PARM_DESC(pacing,
		 "pace the connections that take this congestion control (the kernel's internal pacing, as bbr's: 200 % of cwnd/srtt while cwnd < ssthresh/2, 120 % after) [N]");

static bool jersey_needs_ecn = true;
module_param_named(needs_ecn, jersey_needs_ecn, bool, 0444);
MODULE_PARM_DESC(needs_ecn,
		 "request ECN on every connection (TCP_CONG_NEEDS_ECN, ECT SYN; Linux peers accept it only if their listener's CC needs ECN) [Y]; N: RFC 3168 negotiation by net.ipv4.tcp_ecn=1 or a route with 'features ecn'");

/* ownd = ARE * rtt_min / mss, at least 2, at most the cwnd clamp */
static u32 jersey_ownd_now(const struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	const struct jersey *ca = inet_csk_ca(sk);
	u32 w = jersey_ownd(ca->est.are, cc_min_rtt(tp), tp->mss_cache);

	return min(w, max(tp->snd_cwnd_clamp, JERSEY_OWND_MIN));
}

static void jersey_record(struct sock *sk, u8 ev,
			  const struct jersey_decision *d, u32 cwnd_before)
{
	const struct jersey *ca = inet_csk_ca(sk);

	trace_jersey_loss(sk, ev, d, cwnd_before, jersey_rate_bps(ca->est.are),
			  cc_min_rtt(tcp_sk(sk)), &ca->path);
}

/* is a loss now congestion, and why?  lossclass_core.h */
static u8 jersey_congested(const struct sock *sk, u32 cwnd, u32 ssthresh)
{
	const struct jersey *ca = inet_csk_ca(sk);
	struct lc_input in;

	cc_lc_input(sk, &ca->g, &ca->path, cwnd, ssthresh, &in);
	return lc_congestion(&in, ca->classify);
}

/*
 * A decision of jersey_decide() for @ev with the socket's state.  In the
 * safe mode losses are told apart with or without ECN (ECN adds the CE
 * signal); in the paper's, only with ECN.  In the safe mode an ECE or a
 * loss at a standing queue drains no more than the queue: ownd, or the
 * window less the standing queue's share (cc_drain_window(): the round's
 * minimum RTT above the path's minimum, not srtt's, which holds jitter the
 * window must cover) if that is larger (ARE, a filtered rate, lags the
 * link's rate: by a few percent in congestion avoidance, by half at the end
 * of slow start, and the link would then run short of the BDP).  An ECE
 * in slow start is answered so too, where the paper holds cwnd and lowers
 * only ssthresh: the mark came from the queue that slow start built, and
 * the window held kept it standing (and the reduction was taken for a
 * window held for corruption, which goes on growing, cc_glue_grow_held()).
 */
static void jersey_decide_now(struct sock *sk, struct jersey_decision *d,
			      u8 ev, u32 cwnd, u32 ssthresh)
{
	struct jersey *ca = inet_csk_ca(sk);
	u32 ownd = jersey_ownd_now(sk);
	bool differ = cc_ecn_ok(sk) || ca->classify == LC_SAFE;
	u8 why = jersey_congested(sk, cwnd, ssthresh);

	lc_path_overflowed(&ca->path, why, cc_min_rtt(tcp_sk(sk)));
	if (ca->classify == LC_SAFE &&
	    (why == LC_WHY_QUEUE || why == LC_WHY_ECE))
		ownd = max(ownd, cc_drain_window(sk, &ca->path, cwnd));
	/* safe: an ECE in slow start is answered as in congestion avoidance */
	if (ca->classify == LC_SAFE && ev == CC_EV_ECE)
		ssthresh = min(ssthresh, cwnd);
	jersey_decide(d, ev, differ, why, cwnd, ssthresh, ownd);
}

/*
 * after a congestion response from @before to @after: the fair increase
 * (a response that kept the whole window, ownd >= cwnd, leaves it)
 */
static void jersey_responded(struct sock *sk, u32 before, u32 after)
{
	struct jersey *ca = inet_csk_ca(sk);

	cc_glue_answered(&ca->g);
	if (ca->classify == LC_SAFE && after < before)
		ca->ai = lc_ai_gain(before, after);
}

/* entering CWR (ECE, TLP, local congestion) or Recovery */
static void jersey_reduce(struct sock *sk, u8 ev)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct jersey *ca = inet_csk_ca(sk);
	/* no .ssthresh call: already in CWR, a reduction is under way */
	bool reducing = cc_glue_reducing(&ca->g);
	u32 cwnd = tcp_snd_cwnd(tp);
	struct jersey_decision d;

	if (ev == CC_EV_ECE && cc_glue_ece_echo(&ca->g)) {
		/* an echo of a mark answered in the recovery before: hold */
		cc_glue_reduce_to(sk, &ca->g, cwnd,
				  cc_glue_old_ssthresh(sk, &ca->g));
		return;
	}
	jersey_decide_now(sk, &d, ev, cwnd, cc_glue_old_ssthresh(sk, &ca->g));
	if (cc_glue_covered(&ca->g) && ca->classify == LC_SAFE) {
		/* keep the target of the CWR answered as congestion */
		d.cwnd = tp->snd_ssthresh;
		d.ssthresh = ca->g.ss_after;
		jersey_record(sk, ev, &d, cwnd);
		return;
	}
	if (d.cause == JERSEY_CAUSE_WIRELESS) {
		/* explicit retransmit: hold cwnd and ssthresh */
		if (!reducing)
			cc_glue_reduce_to(sk, &ca->g, d.cwnd, d.ssthresh);
	} else {
		if (reducing)	/* never raise the target of a reduction */
			d.cwnd = min(d.cwnd, tp->snd_ssthresh);
		if (d.cause != JERSEY_CAUSE_ECN)
			d.ssthresh = d.cwnd;
		cc_glue_reduce_to(sk, &ca->g, d.cwnd, d.ssthresh);
		/* paper: in slow start an ECE holds cwnd, ssthresh responds */
		jersey_responded(sk, cwnd, min(d.cwnd, d.ssthresh));
	}
	jersey_record(sk, ev, &d, cwnd);
}

/* retransmission timeout (appendix B, algorithm 2) */
static void jersey_rto(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct jersey *ca = inet_csk_ca(sk);
	/* cwnd before the timeout, saved by tcp_enter_loss() */
	u32 before = tp->prior_cwnd;
	struct jersey_decision d;

	jersey_decide_now(sk, &d, CC_EV_RTO, before,
			  cc_glue_old_ssthresh(sk, &ca->g));
	cc_glue_set(sk, &ca->g, d.cwnd, d.ssthresh);
	if (!jersey_cause_is_wireless(d.cause))
		jersey_responded(sk, before, d.cwnd > 1 ? d.cwnd : before / 2);
	jersey_record(sk, CC_EV_RTO, &d, before);
}

/*
 * ECE while in Recovery or Loss, where the kernel does not react to it.  In
 * Recovery the window reduced is PRR's target (snd_ssthresh, the held
 * window), not cwnd, which PRR may have taken below it while the lost
 * segments were out: the trace, the fair increase's gain and the hold
 * (a target lowered is a response, not a held window) see the target.
 */
static void jersey_late_ece(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct jersey *ca = inet_csk_ca(sk);
	u32 before = tcp_snd_cwnd(tp);
	struct jersey_decision d;

	if (inet_csk(sk)->icsk_ca_state == TCP_CA_Loss) {
		before = cc_glue_loss_window(sk);
		jersey_decide_now(sk, &d, CC_EV_ECE, before, tp->snd_ssthresh);
		d.cwnd = cc_glue_loss_answer(sk, &ca->g, d.cwnd, d.ssthresh);
	} else {
		/* decided as in congestion avoidance (the thesis has no
		 * ECE during recovery; the safe mode answers every ECE so)
		 */
		before = tp->snd_ssthresh;
		jersey_decide_now(sk, &d, CC_EV_ECE, before, before);
		cc_glue_reduce_in_recovery(sk, &ca->g, before, d.cwnd,
					   d.ssthresh);
	}
	cc_glue_ece_answered(sk, &ca->g);
	jersey_responded(sk, before, min3(d.cwnd, d.ssthresh, before));
	jersey_record(sk, CC_EV_ECE, &d, before);
}

static struct tcp_congestion_ops tcp_jersey_noecn;

static void jersey_init(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct jersey *ca = inet_csk_ca(sk);

	/* the peer declined ECN: stop sending ECT; losses are then told
	 * apart by the classifier (safe), or all congestion (paper: AIAD)
	 */
	cc_noecn_fallback(sk, &tcp_jersey_noecn);
	memset(ca, 0, sizeof(*ca));
	cc_glue_init(&ca->g);
	jersey_est_init(&ca->est, tp->tcp_mstamp);
	ca->delivered = (u16)tp->delivered;
	ca->mode = READ_ONCE(jersey_estimator);
	ca->filter = READ_ONCE(jersey_filter_type);
	ca->classify = READ_ONCE(jersey_classify);
	ca->ai = LC_AI_ONE;
	cc_glue_pacing(sk, READ_ONCE(jersey_pacing));
}

/* called for every ACK before the kernel's loss/ECN processing */
static void jersey_in_ack_event(struct sock *sk, u32 flags)
{
	struct jersey *ca = inet_csk_ca(sk);

	cc_glue_ack(sk, &ca->g, flags);
	cc_path_ack(&ca->path, &ca->g);
	if (cc_glue_late_ece(sk, &ca->g))
		jersey_late_ece(sk);
}

/* Reno slow start (safe: ending at a standing queue); ai segments per RTT */
static void jersey_cong_avoid(struct sock *sk, u32 ack, u32 acked)
{
	struct jersey *ca = inet_csk_ca(sk);

	cc_cong_avoid(sk, &ca->g, &ca->path, ca->ai, ca->classify == LC_SAFE,
		      acked);
}

/* called for every ACK that finds data outstanding: RTT and ARE samples */
static void jersey_pkts_acked(struct sock *sk, const struct ack_sample *sample)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	struct jersey *ca = inet_csk_ca(sk);
	u32 newly = (u16)((u16)tp->delivered - ca->delivered);
	struct jersey_sample out;
	u32 round_min;
	struct jersey_ack ack = {
		.tau_us	= jersey_tau(tp->srtt_us >> 3, tp->mdev_us >> 2),
		.mode	= ca->mode,
		.filter	= ca->filter,
	};

	if (cc_path_pkts_acked(sk, &ca->g, &ca->path, sample, ca->ai,
			       ca->classify == LC_SAFE, newly, &round_min))
		trace_jersey_round(sk, round_min, cc_min_rtt(tp), &ca->path);
	cc_ack_sample(sk, newly, &ack.ack);
	ca->delivered = (u16)tp->delivered;
	if (jersey_est_ack(&ca->est, &ack, &out))
		trace_jersey_sample(sk, jersey_rate_bps(ca->est.are), &out,
				    ca->est.tick);
}

/*
 * Entering CWR, Recovery or Loss: the target of the reduction as if it were
 * a loss; .set_state, which knows the state entered, makes the decision.
 */
static u32 jersey_ssthresh(struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	struct jersey *ca = inet_csk_ca(sk);
	struct jersey_decision d;

	cc_glue_ssthresh(sk, &ca->g);
	jersey_decide_now(sk, &d, CC_EV_DUPACK, tcp_snd_cwnd(tp),
			  tp->snd_ssthresh);
	return max(d.cwnd, JERSEY_OWND_MIN);
}

/* called before icsk_ca_state changes to @new_state */
static void jersey_set_state(struct sock *sk, u8 new_state)
{
	cc_glue_set_state(sk, new_state, jersey_rto, jersey_reduce);
}

/* ss -tin: "bbr:(bw:<ARE>,mrtt:<rtt_min>)" */
static size_t jersey_get_info(struct sock *sk, u32 ext, int *attr,
			      union tcp_cc_info *info)
{
	const struct jersey *ca = inet_csk_ca(sk);

	return cc_bbr_info(ext, attr, info, jersey_rate_bps(ca->est.are),
			   cc_min_rtt(tcp_sk(sk)));
}

static struct tcp_congestion_ops tcp_jersey __read_mostly = {
	.init		= jersey_init,
	.ssthresh	= jersey_ssthresh,
	.cong_avoid	= jersey_cong_avoid,
	.set_state	= jersey_set_state,
	.cwnd_event	= cc_glue_cwnd_event,
	.in_ack_event	= jersey_in_ack_event,
	.pkts_acked	= jersey_pkts_acked,
	.undo_cwnd	= cc_glue_undo,
	.get_info	= jersey_get_info,
	.flags		= TCP_CONG_NEEDS_ECN,
	.owner		= THIS_MODULE,
	.name		= "jersey",
};

/* what a connection continues with when ECN was requested but declined */
static struct tcp_congestion_ops tcp_jersey_noecn __read_mostly;

static int __init jersey_register(void)
{
	CC_GLUE_FIRST(struct jersey);
	if (!jersey_needs_ecn)
		tcp_jersey.flags &= ~TCP_CONG_NEEDS_ECN;
	cc_make_noecn(&tcp_jersey_noecn, &tcp_jersey, "jersey-noecn");
	return tcp_register_congestion_control(&tcp_jersey);
}

static void __exit jersey_unregister(void)
{
	tcp_unregister_congestion_control(&tcp_jersey);
}

module_init(jersey_register);
module_exit(jersey_unregister);

MODULE_AUTHOR("jersey project");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("TCP-Jersey: ARE-based AIAD with ECN loss differentiation");
MODULE_ALIAS("tcp_jersey");
