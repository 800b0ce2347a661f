// SPDX-License-Identifier: GPL-2.0
/*
 * TCP NewReno-LP: NewReno whose loss reaction follows the Vegas loss
 * predictor (F. Martignon, "Improving TCP performance over wireless networks
 * using loss differentiation algorithms"; SPEC.md 1.3).
 *
 * Predictor (newrenolp_core.h): on every ACK with an RTT sample (cumulative
 * or SACK, ack_sample.rtt_us) V = cwnd * (rtt - rtt_min) / rtt segments;
 * V >= beta: congested, V <= alpha: not congested, in between: unchanged.
 * cwnd is the window used (cc_window_used(): no more than the packets out
 * in the last round, when the receive window or the application held the
 * flow below its cwnd).
 * rtt_min is the minimum RTT sample seen, seeded from the kernel's windowed
 * minimum (SYN RTT) at init.
 *
 * Reactions: a loss (3rd DUPACK / RACK: Recovery; RTO: Loss) is classified by
 * the predictor's state at that moment.  Congestion: NewReno, ssthresh =
 * FlightSize / 2; wireless: ssthresh = FlightSize (the kernel's PRR then
 * keeps the flight, which is the paper's cwnd = ssthresh + 3 with fast
 * retransmit / recovery); RTO: cwnd = 1 in both cases.  FlightSize is
 * tp->packets_out (RFC 5681: data outstanding) at the event.  With ECN
 * negotiated (net.ipv4.tcp_ecn; this module does not request it) an ECE is
 * a congestion signal answered by halving (CWR).  A loss repaired by a tail
 * loss probe (the kernel enters CWR) is classified like a DUPACK loss; CWR
 * entered because our own qdisc refused a packet is congestion.  The kernel
 * calls .ssthresh when it enters CWR, Recovery or Loss, then .set_state with
 * the state entered; the shared glue (cc_glue.h) tells which event it was
 * (a timeout only from CA_EVENT_LOSS: backed-off timeouts and path MTU
 * drops are none); .set_state decides, records (tracepoint
 * newrenolp:newrenolp_loss) and, for an RTO, sets cwnd = 1.  Between
 * events: Reno slow start / congestion avoidance; .undo_cwnd as Reno.
 *
 * Parameters alpha and beta (segments, defaults 1 and 3, the paper's best)
 * apply to connections opened after they are set; 0 <= alpha < beta <= 1000.
 * rtt = min (default: Vegas' own measurement, once per round trip the
 * minimum RTT sample of the round, lc_path_rtt() of lossclass_core.h, see
 * newrenolp_core.h; better accuracy and
 * goodput at every point measured) or latest (the paper's wording: every
 * ACK's RTT sample), also for new connections.
 *
 * Observability: .get_info fills INET_DIAG_VEGASINFO: tcpv_enabled = 1,
 * tcpv_rttcnt = the classification (1 = congested), tcpv_rtt = the latest
 * RTT sample and tcpv_minrtt = rtt_min (us); `ss -tin` derives its send rate
 * from tcpv_rtt as for vegas.
 */
#define pr_fmt(fmt) "tcp_newrenolp: " fmt

#include <linux/inet_diag.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <net/tcp.h>

#include "cc_glue.h"
#include "newrenolp_core.h"

#define CREATE_TRACE_POINTS
#include "trace_newrenolp.h"

struct nrlp {
	struct cc_glue g;		/* events and reductions (cc_glue.h), first */
	struct nrlp_pred pred;		/* Vegas predictor */
	struct nrlp_decision d;		/* the latest decision */
	struct lc_path round;		/* rtt=min: this round's minimum */
	u32	cwnd_before;		/* cwnd when .ssthresh ran */
	u32	flight;			/* FlightSize when .ssthresh ran */
	u16	alpha;			/* thresholds of this connection */
	u16	beta;
	u8	round_min:1;		/* rtt=min */
};

static unsigned int nrlp_alpha = 1;
static unsigned int nrlp_beta = 3;
static bool nrlp_live;		/* module initialised: check the pair */
static int nrlp_rtt_mode = 1;	/* 0 = latest sample, 1 = round minimum */

static const char * const nrlp_rtt_names[] = { "latest", "min" };

static int nrlp_thresh_set(const char *val, const struct kernel_param *kp)
{
	unsigned int v, alpha, beta;

	if (kstrtouint(val, 10, &v) || v > NRLP_THRESH_MAX) {
		pr_err("invalid %s '%.*s': use 0..%u segments\n", kp->name,
		       (int)strcspn(val, "\n"), val, NRLP_THRESH_MAX);
		return -EINVAL;
	}
	alpha = kp->arg == &nrlp_alpha ? v : READ_ONCE(nrlp_alpha);
	beta = kp->arg == &nrlp_beta ? v : READ_ONCE(nrlp_beta);
	/* at load time the pair is checked by module_init (any order) */
	if (READ_ONCE(nrlp_live) && !nrlp_thresholds_ok(alpha, beta)) {
		pr_err("invalid %s %u: alpha (%u) must be below beta (%u)\n",
		       kp->name, v, alpha, beta);
		return -EINVAL;
	}
	WRITE_ONCE(*(unsigned int *)kp->arg, v);
	return 0;
}

static const struct kernel_param_ops nrlp_thresh_ops = {
	.set = nrlp_thresh_set,
	.get = param_get_uint,
};

module_param_cb(alpha, &nrlp_thresh_ops, &nrlp_alpha, 0644);
MODULE_PARM_DESC(alpha,
		 "Vegas predictor: V <= alpha segments means not congested [1]");
module_param_cb(beta, &nrlp_thresh_ops, &nrlp_beta, 0644);
MODULE_PARM_DESC(beta,
		 "Vegas predictor: V >= beta segments means congested [3]; alpha < beta <= 1000");
CC_PARAM_ENUM(rtt, nrlp_rtt_mode, nrlp_rtt_names,
	      "RTT of the predictor: min (per round trip, its minimum, as Vegas; default) or latest (every ACK's sample, the paper's wording)");

static void nrlp_record(struct sock *sk, u8 ev)
{
	struct nrlp *ca = inet_csk_ca(sk);

	trace_newrenolp_loss(sk, ev, &ca->d, ca->cwnd_before, ca->flight,
			     &ca->pred);
}

static void nrlp_init(struct sock *sk)
{
	struct nrlp *ca = inet_csk_ca(sk);
	u32 rtt = tcp_min_rtt(tcp_sk(sk));

	memset(ca, 0, sizeof(*ca));
	cc_glue_init(&ca->g);
	ca->pred.rtt_min = rtt == ~0U ? 0 : min(rtt, NRLP_RTT_MAX_US);
	ca->alpha = READ_ONCE(nrlp_alpha);
	ca->beta = READ_ONCE(nrlp_beta);
	ca->round_min = READ_ONCE(nrlp_rtt_mode) == 1;
}

static void nrlp_in_ack_event(struct sock *sk, u32 flags)
{
	struct nrlp *ca = inet_csk_ca(sk);

	cc_glue_ack(sk, &ca->g, flags);
}

/* every ACK that acknowledged or SACKed data: the predictor */
static void nrlp_pkts_acked(struct sock *sk, const struct ack_sample *sample)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	struct nrlp *ca = inet_csk_ca(sk);
	u32 rtt = sample->rtt_us;

	if (sample->rtt_us <= 0)
		return;
	if (ca->round_min && !cc_path_rtt(sk, &ca->round, sample->rtt_us, &rtt,
					  false, tcp_in_slow_start(tp)))
		return;
	nrlp_sample(&ca->pred, rtt, cc_window_used(tp, tcp_snd_cwnd(tp)),
		    ca->alpha, ca->beta);
}

/* entering CWR, Recovery or Loss: classify as a loss (or ECE) */
static u32 nrlp_ssthresh(struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	struct nrlp *ca = inet_csk_ca(sk);

	cc_glue_ssthresh(sk, &ca->g);
	ca->cwnd_before = tcp_snd_cwnd(tp);
	ca->flight = tp->packets_out;
	nrlp_decide(&ca->d, ca->g.ece ? CC_EV_ECE : CC_EV_DUPACK,
		    ca->pred.congested, ca->cwnd_before, ca->flight);
	return ca->d.ssthresh;
}

/* entering a state without a .ssthresh call: a reduction is under way */
static void nrlp_continuing(struct sock *sk, u8 ev)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct nrlp *ca = inet_csk_ca(sk);

	ca->cwnd_before = tcp_snd_cwnd(tp);
	ca->flight = tp->packets_out;
	ca->d.cause = ca->pred.congested ? NRLP_CAUSE_CONGESTION :
					   NRLP_CAUSE_WIRELESS;
	ca->d.ssthresh = tp->snd_ssthresh;
	ca->d.cwnd = tp->snd_ssthresh;
}

static void nrlp_set_state(struct sock *sk, u8 new_state)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct nrlp *ca = inet_csk_ca(sk);
	int ev = cc_glue_event(sk, &ca->g, new_state);

	if (ev < 0)
		goto out;
	if (ev == CC_EV_DUPACK && ca->g.ece)
		ev = CC_EV_ECE;		/* the loss came with a CE echo */
	if (cc_glue_reducing(&ca->g)) {
		nrlp_continuing(sk, ev);
	} else {
		/* .ssthresh decided for a DUPACK loss or ECE */
		nrlp_decide(&ca->d, ev, ca->pred.congested, ca->cwnd_before,
			    ca->flight);
		if (ev == CC_EV_RTO) {
			ca->cwnd_before = tp->prior_cwnd;
			cc_glue_set(sk, &ca->g, ca->d.cwnd, ca->d.ssthresh);
		} else {
			cc_glue_reduce_to(sk, &ca->g, ca->d.cwnd,
					  ca->d.ssthresh);
		}
	}
	nrlp_record(sk, ev);
out:
	cc_glue_state_done(&ca->g);
}

/* ss -tin: VEGASINFO, rtt = the predictor's latest RTT */
static size_t nrlp_get_info(struct sock *sk, u32 ext, int *attr,
			    union tcp_cc_info *info)
{
	const struct nrlp *ca = inet_csk_ca(sk);

	if (ext & (1 << (INET_DIAG_VEGASINFO - 1))) {
		info->vegas.tcpv_enabled = 1;
		info->vegas.tcpv_rttcnt = ca->pred.congested;
		info->vegas.tcpv_rtt = ca->pred.rtt;
		info->vegas.tcpv_minrtt = ca->pred.rtt_min;
		*attr = INET_DIAG_VEGASINFO;
		return sizeof(struct tcpvegas_info);
	}
	return 0;
}

static struct tcp_congestion_ops tcp_newrenolp __read_mostly = {
	.init		= nrlp_init,
	.ssthresh	= nrlp_ssthresh,
	.cong_avoid	= tcp_reno_cong_avoid,
	.set_state	= nrlp_set_state,
	.cwnd_event	= cc_glue_cwnd_event,
	.in_ack_event	= nrlp_in_ack_event,
	.pkts_acked	= nrlp_pkts_acked,
	.undo_cwnd	= cc_glue_undo,
	.get_info	= nrlp_get_info,
	.owner		= THIS_MODULE,
	.name		= "newrenolp",
};

static int __init nrlp_register(void)
{
	CC_GLUE_FIRST(struct nrlp);
	if (!nrlp_thresholds_ok(nrlp_alpha, nrlp_beta)) {
		pr_err("invalid thresholds: alpha (%u) must be below beta (%u) <= %u\n",
		       nrlp_alpha, nrlp_beta, NRLP_THRESH_MAX);
		return -EINVAL;
	}
	WRITE_ONCE(nrlp_live, true);
	return tcp_register_congestion_control(&tcp_newrenolp);
}

static void __exit nrlp_unregister(void)
{
	tcp_unregister_congestion_control(&tcp_newrenolp);
}

module_init(nrlp_register);
module_exit(nrlp_unregister);

MODULE_AUTHOR("jersey project");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("TCP NewReno-LP: NewReno with the Vegas loss predictor");
MODULE_ALIAS("tcp_newrenolp");
