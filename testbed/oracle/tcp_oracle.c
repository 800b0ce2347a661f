// SPDX-License-Identifier: GPL-2.0
/*
 * The oracle ("TCP-Perfect", "Ideal-LP"; SPEC.md 1.5): Reno that knows
 * which of its losses were the medium's.  The upper bound the papers judge
 * every loss-differentiating scheme against.  Testbed only: it reads the
 * drops of the emulated network, which a real sender cannot; make install
 * and DKMS never build it.
 *
 * Ground truth.  A probe on the kernel's skb:kfree_skb tracepoint sees
 * every packet the kernel drops.  A TCP data segment dropped on a device
 * whose root qdisc is netem -- in the testbed, the medium of a link
 * (testbed/net/path.py: the air ports) -- is a corruption loss; one
 * dropped anywhere else (the gateway's queue, any other qdisc, a full
 * backlog) is a congestion drop and goes into the drop table
 * (oracle_table.h: bounded buckets by flow, a spinlock each).  The
 * receiver's discards of data it already has (the drop reasons of
 * oracle_not_a_loss()) are no losses at all and stay out of it.
 *
 * Window.  Reno (tcp_reno_cong_avoid), with the decisions of Diff-C-TCP
 * (diffc_core.h) and the shared glue of the modules (cc_glue.h), but the
 * question "was this congestion?" answered by the table: when the kernel
 * enters Recovery, CWR or Loss, any segment of [snd_una, snd_nxt) that a
 * queue dropped, or an ECE, makes it a congestion event (Reno's halving;
 * at a timeout cwnd = 1), and otherwise the window is held (at a timeout,
 * the cwnd before it).  Local congestion (our own qdisc refused a packet)
 * halves.  Recovery entered during a halving CWR keeps that halving.
 *
 * Tracepoints (trace_oracle.h): oracle:oracle_loss, one per decision, in
 * the format of the modules' loss events; oracle:oracle_drop, one per
 * drop recorded, with the kernel's reason for it.
 */
#define pr_fmt(fmt) "tcp_oracle: " fmt

#include <linux/ip.h>
#include <linux/jhash.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/spinlock.h>
#include <linux/tcp.h>
#include <linux/tracepoint.h>
#include <net/sch_generic.h>
#include <net/tcp.h>
#include <trace/events/skb.h>

#include "cc_glue.h"
#include "diffc_core.h"
#include "oracle_table.h"

#define CREATE_TRACE_POINTS
#include "trace_oracle.h"

#define ORACLE_BUCKETS	256U	/* a power of 2 */
/* the qdisc kind of the emulated medium: its drops are corruption */
#define ORACLE_MEDIUM	"netem"

struct oracle {
	struct cc_glue g;	/* events and reductions (cc_glue.h), first */
};

static struct oracle_bucket oracle_table[ORACLE_BUCKETS];
static spinlock_t oracle_locks[ORACLE_BUCKETS];

static u32 oracle_hash(const struct oracle_flow *f)
{
	return jhash_3words(f->saddr, f->daddr,
			    ((u32)f->sport << 16) | f->dport, 0) &
	       (ORACLE_BUCKETS - 1);
}

/* a drop on the medium: the device's root qdisc is netem */
static bool oracle_on_medium(const struct net_device *dev)
{
	const struct Qdisc *q;
	bool medium;

	if (!dev)
		return false;
	rcu_read_lock();
	q = rcu_dereference(dev->qdisc);
	medium = q && !strcmp(q->ops->id, ORACLE_MEDIUM);
	rcu_read_unlock();
	return medium;
}

/* the flow and sequence range of an IPv4 TCP segment with data */
static bool oracle_parse(const struct sk_buff *skb, struct oracle_drop *d)
{
	struct iphdr _iph;
	struct tcphdr _th;
	const struct iphdr *iph;
	const struct tcphdr *th;
	int off = skb_network_offset(skb);
	u32 hdrs, len;

	if (skb->protocol != htons(ETH_P_IP) || off < -(int)skb_headroom(skb))
		return false;
	iph = skb_header_pointer(skb, off, sizeof(_iph), &_iph);
	if (!iph || iph->version != 4 || iph->ihl < 5 ||
	    iph->protocol != IPPROTO_TCP || ip_is_fragment(iph))
		return false;
	th = skb_header_pointer(skb, off + iph->ihl * 4, sizeof(_th), &_th);
	if (!th || th->doff < 5)
		return false;
	hdrs = iph->ihl * 4 + th->doff * 4;
	len = ntohs(iph->tot_len);
	if (len <= hdrs)
		return false;	/* no data: an ACK */
	d->flow.saddr = (__force u32)iph->saddr;
	d->flow.daddr = (__force u32)iph->daddr;
	d->flow.sport = (__force u16)th->source;
	d->flow.dport = (__force u16)th->dest;
	d->seq = ntohl(th->seq);
	d->end = d->seq + (len - hdrs);
	return true;
}

/*
 * A segment the receiving TCP discards because it has its data already (a
 * spurious retransmission: go-back-N after a timeout the CPU's stall made,
 * a probe) or because it lies outside the receive window.  Nothing was
 * lost: the receiver answers with a DSACK, and a later recovery must not
 * find it in the table.
 */
static bool oracle_not_a_loss(enum skb_drop_reason reason)
{
	switch (reason) {
	case SKB_DROP_REASON_TCP_OLD_DATA:
	case SKB_DROP_REASON_TCP_OFOMERGE:
	case SKB_DROP_REASON_TCP_INVALID_SEQUENCE:
		return true;
	default:
		return compat_drop_old_sequence(reason);
	}
}

/*
 * The device a segment was dropped on, or NULL.  None for a segment the
 * receiving TCP held (charged to its socket by skb_set_owner_r()): its
 * out-of-order queue is an rbtree whose node shares skb->dev's memory, so
 * that a segment pruned from it (tcp_prune_ofo_queue()) carries a left
 * child's address there, not a device.
 */
static const struct net_device *oracle_drop_dev(const struct sk_buff *skb)
{
	return skb->destructor == sock_rfree ? NULL : skb->dev;
}

static void oracle_dropped(struct sk_buff *skb, enum skb_drop_reason reason)
{
	const struct net_device *dev;
	struct oracle_drop d;
	unsigned long flags;
	u32 h;

	if (!skb || oracle_not_a_loss(reason) || !oracle_parse(skb, &d))
		return;
	dev = oracle_drop_dev(skb);
	if (oracle_on_medium(dev))
		return;
	h = oracle_hash(&d.flow);
	spin_lock_irqsave(&oracle_locks[h], flags);
	oracle_record(&oracle_table[h], &d);
	spin_unlock_irqrestore(&oracle_locks[h], flags);
	trace_oracle_drop(&d, reason, dev ? dev->ifindex : 0);
}

COMPAT_KFREE_SKB_PROBE(oracle_kfree_skb, oracle_dropped);

/* did a queue drop a segment this connection still has outstanding? */
static bool oracle_congested(const struct sock *sk)
{
	const struct inet_sock *inet = inet_sk(sk);
	const struct tcp_sock *tp = tcp_sk(sk);
	struct oracle_flow f = {
		.saddr = (__force u32)inet->inet_saddr,
		.daddr = (__force u32)inet->inet_daddr,
		.sport = (__force u16)inet->inet_sport,
		.dport = (__force u16)inet->inet_dport,
	};
	unsigned long flags;
	u32 h = oracle_hash(&f);
	bool found;

	spin_lock_irqsave(&oracle_locks[h], flags);
	found = oracle_lookup(&oracle_table[h], &f, tp->snd_una, tp->snd_nxt);
	spin_unlock_irqrestore(&oracle_locks[h], flags);
	return found;
}

static void oracle_decide(struct sock *sk, struct diffc_decision *d, u8 ev,
			  u32 cwnd, u32 ssthresh)
{
	const struct oracle *ca = inet_csk_ca(sk);

	diffc_decide(d, ev, true, ca->g.ece || oracle_congested(sk), cwnd,
		     ssthresh);
}

static void oracle_record_decision(struct sock *sk, u8 ev,
				   const struct diffc_decision *d, u32 before)
{
	struct oracle *ca = inet_csk_ca(sk);

	if (d->action != DIFFC_HOLD)
		cc_glue_answered(&ca->g);
	trace_oracle_loss(sk, ev, d, before);
}

/* entering CWR (ECE, TLP, local congestion) or Recovery */
static void oracle_reduce(struct sock *sk, u8 ev)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct oracle *ca = inet_csk_ca(sk);
	u32 cwnd = tcp_snd_cwnd(tp);
	struct diffc_decision d;

	/* Recovery entered from a CWR that already halved this window */
	if (cc_glue_reducing(&ca->g) && ca->g.answered)
		return;
	oracle_decide(sk, &d, ev, cwnd, cc_glue_old_ssthresh(sk, &ca->g));
	cc_glue_reduce_to(sk, &ca->g, d.cwnd, d.ssthresh);
	oracle_record_decision(sk, ev, &d, cwnd);
}

/* the first timeout of an episode */
static void oracle_rto(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct oracle *ca = inet_csk_ca(sk);
	u32 before = tp->prior_cwnd;	/* saved by tcp_enter_loss() */
	struct diffc_decision d;

	oracle_decide(sk, &d, CC_EV_RTO, before,
		      cc_glue_old_ssthresh(sk, &ca->g));
	cc_glue_set(sk, &ca->g, d.cwnd, d.ssthresh);
	oracle_record_decision(sk, CC_EV_RTO, &d, before);
}

static void oracle_init(struct sock *sk)
{
	struct oracle *ca = inet_csk_ca(sk);

	cc_glue_init(&ca->g);
}

static void oracle_in_ack_event(struct sock *sk, u32 flags)
{
	struct oracle *ca = inet_csk_ca(sk);

	cc_glue_ack(sk, &ca->g, flags);
}

/* entering CWR, Recovery or Loss: the PRR target (hold or halve) */
static u32 oracle_ssthresh(struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	struct oracle *ca = inet_csk_ca(sk);
	struct diffc_decision d;

	cc_glue_ssthresh(sk, &ca->g);
	oracle_decide(sk, &d, CC_EV_DUPACK, tcp_snd_cwnd(tp),
		      tp->snd_ssthresh);
	return max(d.cwnd, CC_SSTHRESH_MIN);
}

static void oracle_set_state(struct sock *sk, u8 new_state)
{
	cc_glue_set_state(sk, new_state, oracle_rto, oracle_reduce);
}

static struct tcp_congestion_ops tcp_oracle __read_mostly = {
	.init		= oracle_init,
	.ssthresh	= oracle_ssthresh,
	.cong_avoid	= tcp_reno_cong_avoid,
	.set_state	= oracle_set_state,
	.cwnd_event	= cc_glue_cwnd_event,
	.in_ack_event	= oracle_in_ack_event,
	.undo_cwnd	= cc_glue_undo,
	.owner		= THIS_MODULE,
	.name		= "oracle",
};

static int __init oracle_register(void)
{
	unsigned int i;
	int err;

	CC_GLUE_FIRST(struct oracle);
	for (i = 0; i < ORACLE_BUCKETS; i++)
		spin_lock_init(&oracle_locks[i]);
	err = compat_kfree_skb_probe(oracle_kfree_skb, true);
	if (err)
		return err;
	err = tcp_register_congestion_control(&tcp_oracle);
	if (err) {
		compat_kfree_skb_probe(oracle_kfree_skb, false);
		tracepoint_synchronize_unregister();
	}
	return err;
}

static void __exit oracle_unregister(void)
{
	tcp_unregister_congestion_control(&tcp_oracle);
	compat_kfree_skb_probe(oracle_kfree_skb, false);
	/* no probe runs any more when the module's memory goes */
	tracepoint_synchronize_unregister();
}

module_init(oracle_register);
module_exit(oracle_unregister);

MODULE_AUTHOR("jersey project");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Testbed oracle: Reno that halves only for the drops of a queue (not the medium's)");
MODULE_ALIAS("tcp_oracle");
