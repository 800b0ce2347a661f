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
 * rtt_min (D) is the minimum ack_sample RTT seen, seeded from the kernel's
 * windowed minimum (SYN RTT) at init.
 *
 * Window control.  We keep the kernel's loss recovery and use .cong_avoid,
 * not .cong_control: with .cong_control the kernel would skip PRR, the
 * cwnd = ssthresh at the end of a reduction, pacing-rate updates and
 * slow-start-after-idle, which we would have to re-implement.  Instead the
 * Jersey decision of an event is turned into the PRR target: the kernel
 * calls .ssthresh and then .set_state(new state) when it enters CWR (ECE),
 * Recovery (3rd DUPACK / RACK) or Loss (RTO); .ssthresh only records the old
 * ssthresh (it cannot tell the three apart), .set_state decides:
 *   ECE (CWR entry, `congested`): rate control; in CA cwnd -> ownd, in slow
 *     start cwnd is held and only ssthresh becomes ownd;
 *   Recovery with ECE, or without ECN: congestion loss, cwnd -> ownd;
 *   Recovery without ECE: wireless loss, the target is the current cwnd, so
 *     PRR keeps the flight and cwnd is unchanged when recovery ends;
 *   Loss (RTO): tcp_enter_loss() has set cwnd = in_flight + 1 before calling
 *     .set_state, so we set cwnd = 1 (congested) or ownd (wireless, no ECN)
 *     directly, and ssthresh = ownd.
 * snd_ssthresh is the cwnd target during CWR/Recovery; the ssthresh the rules
 * want afterwards is installed at CA_EVENT_COMPLETE_CWR (emitted by
 * tcp_end_cwnd_reduction() right after cwnd = ssthresh).  ECE arriving while
 * in Recovery or Loss (the kernel ignores it there) lowers the target by hand
 * (.in_ack_event).  Between events: Reno slow start / congestion avoidance
 * (tcp_reno_cong_avoid).  .undo_cwnd restores max(cwnd, prior_cwnd) (the
 * kernel saved prior_cwnd/prior_ssthresh before our decision) and cancels a
 * pending ssthresh change.  Loss decisions are in jersey_decide().
 *
 * ECN.  Loss differentiation needs ECN on the connection.  With needs_ecn=Y
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
 * Tracepoints jersey:jersey_loss and jersey:jersey_sample (trace_jersey.h).
 */
#define pr_fmt(fmt) "tcp_jersey: " fmt

#include <linux/inet_diag.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <net/inet_ecn.h>
#include <net/tcp.h>

#include "compat.h"
#include "jersey_core.h"

#define CREATE_TRACE_POINTS
#include "trace_jersey.h"

struct jersey {
	struct jersey_est est;		/* ARE and its sampler */
	struct jersey_counts n;		/* decisions so far */
	u32	rtt_min;		/* D: min RTT seen (us), 0 = none */
	u32	delivered;		/* tp->delivered at the previous ACK */
	u32	ss_prev;		/* snd_ssthresh before .ssthresh ran */
	u32	ss_after;		/* ssthresh when the reduction completes */
	u8	mode;			/* enum jersey_mode */
	u8	filter;			/* enum jersey_filter */
	u8	congested:1,		/* last ACK/DUPACK carried ECE */
		ss_saved:1,		/* ss_prev is valid (.ssthresh just ran) */
		ss_fix:1;		/* install ss_after at COMPLETE_CWR */
};

static int jersey_estimator = JERSEY_MODE_AUTO;
static int jersey_filter_type = JERSEY_FILTER_ATSW;

static const char * const jersey_estimator_names[] = {
	[JERSEY_MODE_AUTO]	= "auto",
	[JERSEY_MODE_TS]	= "ts",
	[JERSEY_MODE_ACK]	= "ack",
};

static int jersey_estimator_set(const char *val, const struct kernel_param *kp)
{
	int i = sysfs_match_string(jersey_estimator_names, val);

	if (i < 0) {
		pr_err("invalid estimator '%.*s': use auto, ts or ack\n",
		       (int)strcspn(val, "\n"), val);
		return -EINVAL;
	}
	WRITE_ONCE(*(int *)kp->arg, i);
	return 0;
}

static int jersey_estimator_get(char *buf, const struct kernel_param *kp)
{
	return scnprintf(buf, PAGE_SIZE, "%s\n",
			 jersey_estimator_names[READ_ONCE(*(int *)kp->arg)]);
}

static const struct kernel_param_ops jersey_estimator_ops = {
	.set = jersey_estimator_set,
	.get = jersey_estimator_get,
};

static int jersey_filter_set(const char *val, const struct kernel_param *kp)
{
	int v;

	if (kstrtoint(val, 10, &v) ||
	    (v != JERSEY_FILTER_ATSW && v != JERSEY_FILTER_LPF)) {
		pr_err("invalid filter '%.*s': use 1 (ATSW, 5.9) or 2 (5.20)\n",
		       (int)strcspn(val, "\n"), val);
		return -EINVAL;
	}
	WRITE_ONCE(*(int *)kp->arg, v);
	return 0;
}

static const struct kernel_param_ops jersey_filter_ops = {
	.set = jersey_filter_set,
	.get = param_get_int,
};

module_param_cb(estimator, &jersey_estimator_ops, &jersey_estimator, 0644);
MODULE_PARM_DESC(estimator,
		 "rate estimator: auto (default: TS-ARE if timestamps, else ACK-ARE), ts, ack");
module_param_cb(filter, &jersey_filter_ops, &jersey_filter_type, 0644);
MODULE_PARM_DESC(filter,
		 "ARE filter: 1 = adaptive TSW (5.9, default), 2 = Westwood low-pass (5.20)");

static bool jersey_needs_ecn = true;
module_param_named(needs_ecn, jersey_needs_ecn, bool, 0444);
MODULE_PARM_DESC(needs_ecn,
		 "request ECN on every connection (TCP_CONG_NEEDS_ECN, ECT SYN; Linux peers accept it only if their listener's CC needs ECN) [Y]; N: RFC 3168 negotiation by net.ipv4.tcp_ecn=1 or a route with 'features ecn'");

static bool jersey_ecn_ok(const struct sock *sk)
{
	return compat_tcp_ecn_ok(tcp_sk(sk));
}

/* ownd = ARE * rtt_min / mss, at least 2, at most the cwnd clamp */
static u32 jersey_ownd_now(const struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	const struct jersey *ca = inet_csk_ca(sk);
	u32 w = jersey_ownd(ca->est.are, ca->rtt_min, tp->mss_cache);

	return min(w, max(tp->snd_cwnd_clamp, JERSEY_OWND_MIN));
}

static void jersey_record(struct sock *sk, const struct jersey_decision *d,
			  u32 cwnd_before)
{
	struct jersey *ca = inet_csk_ca(sk);

	switch (d->cause) {
	case JERSEY_CAUSE_ECN:
		ca->n.ecn++;
		break;
	case JERSEY_CAUSE_RTO_WIRELESS:
	case JERSEY_CAUSE_RTO_CONGESTION:
		ca->n.rto++;
		fallthrough;
	default:
		if (jersey_cause_is_wireless(d->cause))
			ca->n.wireless++;
		else
			ca->n.congestion++;
	}
	trace_jersey_loss(sk, d, cwnd_before, jersey_rate_bps(ca->est.are),
			  ca->rtt_min, &ca->n);
}

/*
 * During CWR/Recovery the kernel (PRR) steers cwnd to snd_ssthresh and sets
 * cwnd = snd_ssthresh when the reduction ends; then ssthresh becomes
 * @ssthresh (jersey_cwnd_event()).
 */
static void jersey_reduce_to(struct sock *sk, u32 cwnd, u32 ssthresh)
{
	struct jersey *ca = inet_csk_ca(sk);

	tcp_sk(sk)->snd_ssthresh = max(cwnd, JERSEY_OWND_MIN);
	ca->ss_after = ssthresh;
	ca->ss_fix = 1;
}

/* ssthresh in force before the kernel asked .ssthresh for a new one */
static u32 jersey_old_ssthresh(const struct sock *sk)
{
	const struct jersey *ca = inet_csk_ca(sk);

	return ca->ss_saved ? ca->ss_prev : tcp_sk(sk)->snd_ssthresh;
}

/* entering CWR because of ECE: rate control */
static void jersey_rate_control(struct sock *sk)
{
	u32 cwnd = tcp_snd_cwnd(tcp_sk(sk));
	struct jersey_decision d;

	jersey_decide(&d, JERSEY_EV_ECE, true, true, cwnd,
		      jersey_old_ssthresh(sk), jersey_ownd_now(sk));
	jersey_reduce_to(sk, d.cwnd, d.ssthresh);
	jersey_record(sk, &d, cwnd);
}

/* entering Recovery (or CWR without ECE: a loss repaired by a TLP) */
static void jersey_loss(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct jersey *ca = inet_csk_ca(sk);
	/* no .ssthresh call: already in CWR, a reduction is under way */
	bool reducing = !ca->ss_saved;
	u32 cwnd = tcp_snd_cwnd(tp);
	struct jersey_decision d;

	jersey_decide(&d, JERSEY_EV_LOSS, jersey_ecn_ok(sk), ca->congested,
		      cwnd, jersey_old_ssthresh(sk), jersey_ownd_now(sk));
	if (!jersey_cause_is_wireless(d.cause)) {
		if (reducing)	/* never raise the target of a reduction */
			d.cwnd = min(d.cwnd, tp->snd_ssthresh);
		d.ssthresh = d.cwnd;
		jersey_reduce_to(sk, d.cwnd, d.ssthresh);
	} else if (!reducing) {
		/* explicit retransmit: hold cwnd and ssthresh */
		jersey_reduce_to(sk, d.cwnd, d.ssthresh);
	}
	jersey_record(sk, &d, cwnd);
}

/*
 * .set_state(TCP_CA_Loss) comes from tcp_enter_loss() (RTO, SACK reneging),
 * which has just set cwnd = in_flight + 1 and snd_cwnd_cnt = 0, and from
 * tcp_simple_retransmit() (path MTU shrank), which is no loss and leaves
 * cwnd alone.
 */
static bool jersey_rto_entry(const struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	return !tp->snd_cwnd_cnt &&
	       tcp_snd_cwnd(tp) == tcp_packets_in_flight(tp) + 1;
}

/* retransmission timeout (appendix B, algorithm 2) */
static void jersey_rto(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct jersey *ca = inet_csk_ca(sk);
	/* cwnd before the timeout, saved by tcp_enter_loss() */
	u32 before = tp->prior_cwnd;
	struct jersey_decision d;

	jersey_decide(&d, JERSEY_EV_RTO, jersey_ecn_ok(sk), ca->congested,
		      before, tp->snd_ssthresh, jersey_ownd_now(sk));
	tcp_snd_cwnd_set(tp, d.cwnd);
	tp->snd_ssthresh = d.ssthresh;
	ca->ss_fix = 0;
	jersey_record(sk, &d, before);
}

/* ECE while in Recovery or Loss, where the kernel does not react to it */
static void jersey_ece_in_recovery(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	u32 cwnd = tcp_snd_cwnd(tp);
	struct jersey_decision d;

	if (inet_csk(sk)->icsk_ca_state == TCP_CA_Loss) {
		jersey_decide(&d, JERSEY_EV_ECE, true, true, cwnd,
			      tp->snd_ssthresh, jersey_ownd_now(sk));
		tcp_snd_cwnd_set(tp, d.cwnd);
		tp->snd_ssthresh = d.ssthresh;
	} else {
		/* Recovery: snd_ssthresh is the cwnd target of PRR */
		jersey_decide(&d, JERSEY_EV_ECE, true, true, tp->snd_ssthresh,
			      tp->snd_ssthresh, jersey_ownd_now(sk));
		jersey_reduce_to(sk, d.cwnd, d.ssthresh);
	}
	jersey_record(sk, &d, cwnd);
}

static struct tcp_congestion_ops tcp_jersey_noecn;

static void jersey_init(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct jersey *ca = inet_csk_ca(sk);
	u32 rtt = tcp_min_rtt(tp);

	/*
	 * We asked for ECN (TCP_CONG_NEEDS_ECN) and the peer declined: like
	 * dctcp-reno, continue without the flag so that the caller
	 * (tcp_init_congestion_control) stops sending ECT packets, which a
	 * marking gateway would otherwise mark instead of drop with nobody
	 * reacting.  Without ECN every loss is a congestion loss (AIAD).
	 */
	if (!jersey_ecn_ok(sk) &&
	    (inet_csk(sk)->icsk_ca_ops->flags & TCP_CONG_NEEDS_ECN)) {
		inet_csk(sk)->icsk_ca_ops = &tcp_jersey_noecn;
		INET_ECN_dontxmit(sk);
	}

	memset(ca, 0, sizeof(*ca));
	jersey_est_init(&ca->est, tp->tcp_mstamp);
	ca->rtt_min = rtt == ~0U ? 0 : rtt;
	ca->delivered = tp->delivered;
	ca->mode = READ_ONCE(jersey_estimator);
	ca->filter = READ_ONCE(jersey_filter_type);
}

/* called for every ACK before the kernel's loss/ECN processing */
static void jersey_in_ack_event(struct sock *sk, u32 flags)
{
	struct jersey *ca = inet_csk_ca(sk);
	bool ece = (flags & CA_ACK_ECE) && jersey_ecn_ok(sk);

	ca->ss_saved = 0;
	if (ece && !ca->congested &&
	    inet_csk(sk)->icsk_ca_state >= TCP_CA_Recovery)
		jersey_ece_in_recovery(sk);
	ca->congested = ece;
}

/* called for every ACK that finds data outstanding: RTT and ARE samples */
static void jersey_pkts_acked(struct sock *sk, const struct ack_sample *sample)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	struct jersey *ca = inet_csk_ca(sk);
	u64 bytes = (u64)(tp->delivered - ca->delivered) * tp->mss_cache;
	struct jersey_sample out;
	struct jersey_ack ack = {
		.now_us	= tp->tcp_mstamp,
		.bytes	= (u32)min_t(u64, bytes, U32_MAX),
		.tsval	= tp->rx_opt.rcv_tsval,
		.tau_us	= jersey_tau(tp->srtt_us >> 3, tp->mdev_us >> 2),
		.has_ts	= tp->rx_opt.tstamp_ok && tp->rx_opt.saw_tstamp,
		.mode	= ca->mode,
		.filter	= ca->filter,
	};

	if (sample->rtt_us > 0 &&
	    (!ca->rtt_min || (u32)sample->rtt_us < ca->rtt_min))
		ca->rtt_min = sample->rtt_us;
	ca->delivered = tp->delivered;
	if (jersey_est_ack(&ca->est, &ack, &out))
		trace_jersey_sample(sk, jersey_rate_bps(ca->est.are), &out,
				    ca->est.tick);
}

/*
 * Entering CWR, Recovery or Loss.  Only records the old ssthresh and
 * proposes the loss answer; .set_state, which knows the state entered,
 * makes the decision.
 */
static u32 jersey_ssthresh(struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	struct jersey *ca = inet_csk_ca(sk);
	struct jersey_decision d;

	ca->ss_prev = tp->snd_ssthresh;
	ca->ss_saved = 1;
	jersey_decide(&d, JERSEY_EV_LOSS, jersey_ecn_ok(sk), ca->congested,
		      tcp_snd_cwnd(tp), tp->snd_ssthresh, jersey_ownd_now(sk));
	return max(d.cwnd, JERSEY_OWND_MIN);
}

/* called before icsk_ca_state changes to @new_state */
static void jersey_set_state(struct sock *sk, u8 new_state)
{
	struct jersey *ca = inet_csk_ca(sk);

	switch (new_state) {
	case TCP_CA_CWR:
		if (ca->congested && jersey_ecn_ok(sk))
			jersey_rate_control(sk);
		else
			jersey_loss(sk);
		break;
	case TCP_CA_Recovery:
		jersey_loss(sk);
		break;
	case TCP_CA_Loss:
		if (jersey_rto_entry(sk))
			jersey_rto(sk);
		break;
	}
	ca->ss_saved = 0;
}

static void jersey_cwnd_event(struct sock *sk, enum tcp_ca_event ev)
{
	struct jersey *ca = inet_csk_ca(sk);

	if (ev == CA_EVENT_COMPLETE_CWR && ca->ss_fix) {
		tcp_sk(sk)->snd_ssthresh = ca->ss_after;
		ca->ss_fix = 0;
	}
}

/* spurious loss: the kernel restores prior_ssthresh, we restore cwnd */
static u32 jersey_undo_cwnd(struct sock *sk)
{
	struct jersey *ca = inet_csk_ca(sk);

	ca->ss_fix = 0;
	return tcp_reno_undo_cwnd(sk);
}

/* ss -tin: "bbr:(bw:<ARE>,mrtt:<rtt_min>)" */
static size_t jersey_get_info(struct sock *sk, u32 ext, int *attr,
			      union tcp_cc_info *info)
{
	const struct jersey *ca = inet_csk_ca(sk);
	u64 bw = jersey_rate_bps(ca->est.are);

	if (ext & (1 << (INET_DIAG_BBRINFO - 1)) ||
	    ext & (1 << (INET_DIAG_VEGASINFO - 1))) {
		memset(&info->bbr, 0, sizeof(info->bbr));
		info->bbr.bbr_bw_lo = (u32)bw;
		info->bbr.bbr_bw_hi = (u32)(bw >> 32);
		info->bbr.bbr_min_rtt = ca->rtt_min;
		*attr = INET_DIAG_BBRINFO;
		return sizeof(info->bbr);
	}
	return 0;
}

static struct tcp_congestion_ops tcp_jersey __read_mostly = {
	.init		= jersey_init,
	.ssthresh	= jersey_ssthresh,
	.cong_avoid	= tcp_reno_cong_avoid,
	.set_state	= jersey_set_state,
	.cwnd_event	= jersey_cwnd_event,
	.in_ack_event	= jersey_in_ack_event,
	.pkts_acked	= jersey_pkts_acked,
	.undo_cwnd	= jersey_undo_cwnd,
	.get_info	= jersey_get_info,
	.flags		= TCP_CONG_NEEDS_ECN,
	.owner		= THIS_MODULE,
	.name		= "jersey",
};

/* what a connection continues with when ECN was requested but declined */
static struct tcp_congestion_ops tcp_jersey_noecn __read_mostly = {
	.init		= jersey_init,
	.ssthresh	= jersey_ssthresh,
	.cong_avoid	= tcp_reno_cong_avoid,
	.set_state	= jersey_set_state,
	.cwnd_event	= jersey_cwnd_event,
	.in_ack_event	= jersey_in_ack_event,
	.pkts_acked	= jersey_pkts_acked,
	.undo_cwnd	= jersey_undo_cwnd,
	.get_info	= jersey_get_info,
	.owner		= THIS_MODULE,
	.name		= "jersey-noecn",
};

static int __init jersey_register(void)
{
	BUILD_BUG_ON(sizeof(struct jersey) > ICSK_CA_PRIV_SIZE);
	if (!jersey_needs_ecn)
		tcp_jersey.flags &= ~TCP_CONG_NEEDS_ECN;
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
