/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the marking qdiscs share (kernel only): packet helpers, queueing a
 * GSO packet segment by segment, trimming the FIFO to a lowered limit.
 */
#ifndef JERSEY_JQ_SKB_H
#define JERSEY_JQ_SKB_H

#include <linux/if_ether.h>
#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <net/dsfield.h>
#include <net/inet_ecn.h>
#include <net/sch_generic.h>

#include "compat.h"

/* the ECN codepoint of an IPv4/IPv6 packet (INET_ECN_*), NOT_ECT otherwise */
static inline u8 jq_skb_ecn(struct sk_buff *skb)
{
	switch (skb_protocol(skb, true)) {
	case htons(ETH_P_IP):
		if (pskb_network_may_pull(skb, sizeof(struct iphdr)))
			return ipv4_get_dsfield(ip_hdr(skb)) & INET_ECN_MASK;
		break;
	case htons(ETH_P_IPV6):
		if (pskb_network_may_pull(skb, sizeof(struct ipv6hdr)))
			return ipv6_get_dsfield(ipv6_hdr(skb)) & INET_ECN_MASK;
		break;
	}
	return INET_ECN_NOT_ECT;
}

/* what an enqueue did with a packet, for the tracepoints */
enum jq_action {
	JQ_ENQUEUED,		/* queued unmarked */
	JQ_MARKED,		/* queued with CE set */
	JQ_TAIL_DROP,		/* dropped: the queue was full */
	JQ_NONECT_DROP,		/* dropped: non-ECT under "nonect drop" */
};

#define jq_show_action(a)						\
	__print_symbolic(a,						\
		{ JQ_ENQUEUED,		"enqueued" },			\
		{ JQ_MARKED,		"marked" },			\
		{ JQ_TAIL_DROP,		"tail_drop" },			\
		{ JQ_NONECT_DROP,	"nonect_drop" })

/* the inode number of the qdisc's network namespace (ip netns identify) */
static inline u32 jq_netns(const struct Qdisc *sch)
{
	return dev_net(qdisc_dev(sch))->ns.inum;
}

/*
 * What both qdiscs' enqueue tracepoints record around their own measures:
 * the qdisc (netns, device, major handle) and queue length first, the
 * packet's length, codepoint and fate last.
 */
#define JQ_TP_QDISC_ENTRY						\
	__field(u32, netns)						\
	__array(char, dev, IFNAMSIZ)					\
	__field(u32, handle)						\
	__field(u32, qlen)

#define JQ_TP_PACKET_ENTRY						\
	__field(u32, len)						\
	__field(u8, ecn)						\
	__field(u8, action)

#define JQ_TP_ASSIGN(sch, queued, length, codepoint, fate)		\
	do {								\
		__entry->netns = jq_netns(sch);				\
		strscpy(__entry->dev, qdisc_dev(sch)->name, IFNAMSIZ);	\
		__entry->handle = (sch)->handle;			\
		__entry->qlen = (queued);				\
		__entry->len = (length);				\
		__entry->ecn = (codepoint);				\
		__entry->action = (fate);				\
	} while (0)

#define JQ_TP_QDISC_FMT		"netns=%u dev=%s handle=%x qlen=%u"
#define JQ_TP_QDISC_ARGS						\
	__entry->netns, __entry->dev, __entry->handle >> 16, __entry->qlen
#define JQ_TP_PACKET_FMT	"len=%u ecn=%u action=%s"
#define JQ_TP_PACKET_ARGS						\
	__entry->len, __entry->ecn, jq_show_action(__entry->action)

typedef int (*jq_enqueue_fn)(struct sk_buff *skb, struct Qdisc *sch,
			     struct sk_buff **to_free);

/*
 * Queue a GSO packet as the segments the link will carry, each through the
 * qdisc's own per-packet enqueue.  A gateway receives GRO aggregates (and a
 * local sender TSO ones) of up to 64 segments: counted whole, a queue of 5
 * skbs held 100 kB, so limits and thresholds in packets meant nothing and
 * a mark covered a whole aggregate.  The parents are told that one packet
 * became the segments queued.  Bounded by the device's gso_max_segs.
 */
static inline int jq_enqueue_segments(struct sk_buff *skb, struct Qdisc *sch,
				      struct sk_buff **to_free,
				      jq_enqueue_fn enqueue_one)
{
	netdev_features_t features = netif_skb_features(skb);
	unsigned int len = qdisc_pkt_len(skb), queued_len = 0;
	struct sk_buff *segs, *seg, *next;
	int queued = 0;

	segs = skb_gso_segment(skb, features & ~NETIF_F_GSO_MASK);
	if (IS_ERR_OR_NULL(segs))
		return qdisc_drop(skb, sch, to_free);

	skb_list_walk_safe(segs, seg, next) {
		unsigned int seg_len = seg->len;

		skb_mark_not_on_list(seg);
		qdisc_skb_cb(seg)->pkt_len = seg_len;
		if (enqueue_one(seg, sch, to_free) == NET_XMIT_SUCCESS) {
			queued++;
			queued_len += seg_len;
		}
	}
	if (!queued) {
		kfree_skb(skb);
		return NET_XMIT_DROP;
	}
	qdisc_tree_reduce_backlog(sch, 1 - queued, (int)len - (int)queued_len);
	consume_skb(skb);
	return NET_XMIT_SUCCESS;
}

/* drop packets from the head until the queue fits a lowered limit */
static inline void jq_trim(struct Qdisc *sch, u32 limit, u64 *drops)
{
	unsigned int qlen = sch->q.qlen, bytes = 0;

	while (sch->q.qlen > limit) {
		struct sk_buff *skb = __qdisc_dequeue_head(&sch->q);

		bytes += qdisc_pkt_len(skb);
		qdisc_qstats_backlog_dec(sch, skb);
		rtnl_qdisc_drop(skb, sch);
		(*drops)++;
	}
	qdisc_tree_reduce_backlog(sch, qlen - sch->q.qlen, bytes);
}

#endif /* JERSEY_JQ_SKB_H */
