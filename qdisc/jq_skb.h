/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Packet helpers shared by the marking qdiscs (kernel only).
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

#endif /* JERSEY_JQ_SKB_H */
