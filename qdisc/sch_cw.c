// SPDX-License-Identifier: GPL-2.0
/*
 * sch_cw.c	Congestion Warning (CW): deterministic ECN marking FIFO
 *		(TCP-Jersey thesis, sections 5.3 and 8.5).
 *
 * A packet FIFO of `limit` packets (tail drop when full) that sets CE on
 * every ECT packet arriving while the congestion measure exceeds `thresh`:
 *   aq  EWMA of the queue seen by each arrival, weight w (8.30), or
 *   pq  persistent queue: the minimum queue left by departures during the
 *       last `interval` (figure 8.9).
 * Non-ECT packets pass unmarked, or are dropped with "nonect drop".
 * The pq interval timer is evaluated lazily at enqueue, dequeue and stats
 * dump (see cw_core.h), so the qdisc owns no timer.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/skbuff.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/types.h>
#include <net/inet_ecn.h>
#include <net/netlink.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>

#include "compat.h"
#include "cw_core.h"
#include "jersey_pkt_sched.h"
#include "jq_skb.h"

#define CREATE_TRACE_POINTS
#include "trace_cw.h"

#define CW_DEFAULT_LIMIT	1000
#define CW_DEFAULT_WEIGHT	13107	/* 0.2 * 65536 */
#define CW_DEFAULT_INTERVAL	20000	/* us */

struct cw_params {
	u32	limit;		/* packets */
	u32	thresh;		/* packets, or bytes if bytemode */
	bool	thresh_set;	/* thresh given by the user (else limit / 3) */
	bool	bytemode;
	u32	mode;		/* TC_CW_MODE_* */
	u32	weight;		/* 1/65536 */
	u32	interval;	/* us */
	u32	nonect;		/* TC_JERSEY_NONECT_* */
};

struct cw_sched_data {
	struct cw_params	p;
	u64			qavg;	/* aq: EWMA, 16 fractional bits */
	struct cw_pq		pq;	/* pq: persistent queue tracker */
	u64			marked;
	u64			tail_drops;
	u64			nonect_drops;
	u64			overlimits;
};

/*
 * Parsed strictly (nla_parse_nested): unknown attributes, wrong lengths and
 * trailing bytes are refused; cw_validate() checks the ranges, each with
 * its own message.
 */
static const struct nla_policy cw_policy[TCA_CW_MAX + 1] = {
	[TCA_CW_LIMIT]		= { .type = NLA_U32 },
	[TCA_CW_THRESH]		= { .type = NLA_U32 },
	[TCA_CW_THRESH_BYTES]	= { .type = NLA_U32 },
	[TCA_CW_MODE]		= { .type = NLA_U32 },
	[TCA_CW_WEIGHT]		= { .type = NLA_U32 },
	[TCA_CW_INTERVAL]	= { .type = NLA_U32 },
	[TCA_CW_NONECT]		= { .type = NLA_U32 },
};

static u64 cw_interval_ns(const struct cw_sched_data *q)
{
	return (u64)q->p.interval * NSEC_PER_USEC;
}

/* the queue the measures look at: packets, or bytes in bytemode */
static u32 cw_qlen(const struct Qdisc *sch, const struct cw_sched_data *q)
{
	return q->p.bytemode ? sch->qstats.backlog : sch->q.qlen;
}

/* restart both measures from the current queue */
static void cw_measure_reset(struct Qdisc *sch, struct cw_sched_data *q)
{
	u32 cur = cw_qlen(sch, q);

	q->qavg = (u64)cur << CW_FRAC_SHIFT;
	cw_pq_init(&q->pq, ktime_get_ns(), cw_interval_ns(q), cur);
}

/* update the measure for an arrival and return it */
static u64 cw_arrival_measure(struct Qdisc *sch, struct cw_sched_data *q)
{
	u32 cur = cw_qlen(sch, q);

	if (q->p.mode == TC_CW_MODE_AQ) {
		q->qavg = cw_ewma(q->qavg, q->p.weight, cur);
		return q->qavg;
	}
	cw_pq_advance(&q->pq, ktime_get_ns(), cw_interval_ns(q), cur);
	return cw_pq_measure(&q->pq);
}

static int cw_enqueue_one(struct sk_buff *skb, struct Qdisc *sch,
			  struct sk_buff **to_free)
{
	struct cw_sched_data *q = qdisc_priv(sch);
	u32 qlen = cw_qlen(sch, q), len = qdisc_pkt_len(skb);
	u64 measure = cw_arrival_measure(sch, q);
	bool congested = cw_over(measure, q->p.thresh);
	/* the codepoint before marking, only when someone is tracing */
	u8 ecn = trace_cw_enqueue_enabled() ? jq_skb_ecn(skb) : 0;
	u8 action = JQ_ENQUEUED;
	int ret;

	if (unlikely(sch->q.qlen >= q->p.limit)) {
		q->tail_drops++;
		trace_cw_enqueue(sch, qlen, measure, q->p.thresh, ecn,
				 JQ_TAIL_DROP, len);
		return qdisc_drop(skb, sch, to_free);
	}
	if (congested) {
		q->overlimits++;
		qdisc_qstats_overlimit(sch);
		if (INET_ECN_set_ce(skb)) {
			q->marked++;
			action = JQ_MARKED;
		} else if (q->p.nonect == TC_JERSEY_NONECT_DROP) {
			q->nonect_drops++;
			trace_cw_enqueue(sch, qlen, measure, q->p.thresh, ecn,
					 JQ_NONECT_DROP, len);
			qdisc_drop(skb, sch, to_free);
			return NET_XMIT_CN;
		}
	}
	ret = qdisc_enqueue_tail(skb, sch);
	trace_cw_enqueue(sch, qlen, measure, q->p.thresh, ecn, action, len);
	return ret;
}

/* a GSO packet is measured, marked and counted segment by segment */
static int cw_enqueue(struct sk_buff *skb, struct Qdisc *sch,
		      struct sk_buff **to_free)
{
	if (skb_is_gso(skb))
		return jq_enqueue_segments(skb, sch, to_free, cw_enqueue_one);
	return cw_enqueue_one(skb, sch, to_free);
}

static struct sk_buff *cw_dequeue(struct Qdisc *sch)
{
	struct cw_sched_data *q = qdisc_priv(sch);
	struct sk_buff *skb;

	if (q->p.mode != TC_CW_MODE_PQ)
		return qdisc_dequeue_head(sch);
	if (!sch->q.qlen)
		return NULL;
	cw_pq_advance(&q->pq, ktime_get_ns(), cw_interval_ns(q),
		      cw_qlen(sch, q));
	skb = qdisc_dequeue_head(sch);
	cw_pq_depart(&q->pq, cw_qlen(sch, q));
	return skb;
}

static void cw_reset(struct Qdisc *sch)
{
	struct cw_sched_data *q = qdisc_priv(sch);

	qdisc_reset_queue(sch);
	sch->qstats.backlog = 0;
	cw_measure_reset(sch, q);
}

static int cw_validate(struct cw_params *p, struct nlattr **tb,
		       struct netlink_ext_ack *extack)
{
	if (!p->limit) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_CW_LIMIT],
				    "cw: limit must be at least 1 packet");
		return -EINVAL;
	}
	if (p->mode >= __TC_CW_MODE_MAX) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_CW_MODE],
				    "cw: unknown mode (aq or pq)");
		return -EINVAL;
	}
	if (!p->weight || p->weight > TC_JERSEY_FRAC_ONE) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_CW_WEIGHT],
				    "cw: w must be in (0, 1]");
		return -EINVAL;
	}
	if (!p->interval || p->interval > TC_JERSEY_INTERVAL_MAX_US) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_CW_INTERVAL],
				    "cw: interval must be in (0, 60s]");
		return -EINVAL;
	}
	if (p->nonect >= __TC_JERSEY_NONECT_MAX) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_CW_NONECT],
				    "cw: nonect must be pass or drop");
		return -EINVAL;
	}
	if (!p->thresh_set)
		p->thresh = cw_default_thresh(p->limit);
	if (!p->bytemode && p->thresh > p->limit) {
		NL_SET_ERR_MSG_ATTR(extack,
				    tb[TCA_CW_THRESH] ?: tb[TCA_CW_LIMIT],
				    "cw: thresh (packets) exceeds limit");
		return -EINVAL;
	}
	return 0;
}

/* merge the attributes present in tb into p, then validate p */
static int cw_parse(struct cw_params *p, struct nlattr **tb,
		    struct netlink_ext_ack *extack)
{
	if (tb[TCA_CW_THRESH] && tb[TCA_CW_THRESH_BYTES]) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_CW_THRESH_BYTES],
				    "cw: thresh in packets or in bytes, not both");
		return -EINVAL;
	}
	if (tb[TCA_CW_LIMIT])
		p->limit = nla_get_u32(tb[TCA_CW_LIMIT]);
	if (tb[TCA_CW_THRESH]) {
		p->thresh = nla_get_u32(tb[TCA_CW_THRESH]);
		p->thresh_set = true;
		p->bytemode = false;
	}
	if (tb[TCA_CW_THRESH_BYTES]) {
		p->thresh = nla_get_u32(tb[TCA_CW_THRESH_BYTES]);
		p->thresh_set = true;
		p->bytemode = true;
	}
	if (tb[TCA_CW_MODE])
		p->mode = nla_get_u32(tb[TCA_CW_MODE]);
	if (tb[TCA_CW_WEIGHT])
		p->weight = nla_get_u32(tb[TCA_CW_WEIGHT]);
	if (tb[TCA_CW_INTERVAL])
		p->interval = nla_get_u32(tb[TCA_CW_INTERVAL]);
	if (tb[TCA_CW_NONECT])
		p->nonect = nla_get_u32(tb[TCA_CW_NONECT]);
	return cw_validate(p, tb, extack);
}

static int cw_change(struct Qdisc *sch, struct nlattr *opt,
		     struct netlink_ext_ack *extack)
{
	struct cw_sched_data *q = qdisc_priv(sch);
	struct nlattr *tb[TCA_CW_MAX + 1];
	struct cw_params p = q->p;
	bool remeasure;
	int err;

	if (!opt) {
		NL_SET_ERR_MSG(extack, "cw: options are required");
		return -EINVAL;
	}
	err = nla_parse_nested(tb, TCA_CW_MAX, opt, cw_policy, extack);
	if (err < 0)
		return err;
	err = cw_parse(&p, tb, extack);
	if (err)
		return err;

	sch_tree_lock(sch);
	remeasure = p.mode != q->p.mode || p.bytemode != q->p.bytemode;
	if (p.interval != q->p.interval)
		q->pq.next = ktime_get_ns() + (u64)p.interval * NSEC_PER_USEC;
	q->p = p;
	sch->limit = p.limit;
	if (remeasure)
		cw_measure_reset(sch, q);
	jq_trim(sch, q->p.limit, &q->tail_drops);
	sch_tree_unlock(sch);
	return 0;
}

static int cw_init(struct Qdisc *sch, struct nlattr *opt,
		   struct netlink_ext_ack *extack)
{
	struct cw_sched_data *q = qdisc_priv(sch);

	q->p = (struct cw_params) {
		.limit		= CW_DEFAULT_LIMIT,
		.thresh		= cw_default_thresh(CW_DEFAULT_LIMIT),
		.mode		= TC_CW_MODE_AQ,
		.weight		= CW_DEFAULT_WEIGHT,
		.interval	= CW_DEFAULT_INTERVAL,
		.nonect		= TC_JERSEY_NONECT_PASS,
	};
	sch->limit = q->p.limit;
	cw_measure_reset(sch, q);
	return opt ? cw_change(sch, opt, extack) : 0;
}

static int cw_dump(struct Qdisc *sch, struct sk_buff *skb)
{
	struct cw_sched_data *q = qdisc_priv(sch);
	const struct cw_params *p = &q->p;
	struct nlattr *opts;

	opts = nla_nest_start_noflag(skb, TCA_OPTIONS);
	if (!opts)
		return -EMSGSIZE;
	if (nla_put_u32(skb, TCA_CW_LIMIT, p->limit) ||
	    nla_put_u32(skb, p->bytemode ? TCA_CW_THRESH_BYTES : TCA_CW_THRESH,
			p->thresh) ||
	    nla_put_u32(skb, TCA_CW_MODE, p->mode) ||
	    nla_put_u32(skb, TCA_CW_WEIGHT, p->weight) ||
	    nla_put_u32(skb, TCA_CW_INTERVAL, p->interval) ||
	    nla_put_u32(skb, TCA_CW_NONECT, p->nonect))
		goto nla_put_failure;
	return nla_nest_end(skb, opts);

nla_put_failure:
	nla_nest_cancel(skb, opts);
	return -EMSGSIZE;
}

static int cw_dump_stats(struct Qdisc *sch, struct gnet_dump *d)
{
	struct cw_sched_data *q = qdisc_priv(sch);
	struct tc_cw_xstats st = {};

	sch_tree_lock(sch);
	if (q->p.mode == TC_CW_MODE_PQ) {
		/* expire the interval timer if it is due */
		cw_pq_advance(&q->pq, ktime_get_ns(), cw_interval_ns(q),
			      cw_qlen(sch, q));
		st.measure = cw_pq_measure(&q->pq);
		st.qmin = q->pq.qmin;
	} else {
		st.measure = q->qavg;
	}
	st.marked = q->marked;
	st.tail_drops = q->tail_drops;
	st.nonect_drops = q->nonect_drops;
	st.overlimits = q->overlimits;
	st.mode = q->p.mode;
	st.bytemode = q->p.bytemode;
	st.thresh = q->p.thresh;
	sch_tree_unlock(sch);
	return gnet_stats_copy_app(d, &st, sizeof(st));
}

static struct Qdisc_ops cw_qdisc_ops __read_mostly = {
	.id		= "cw",
	.priv_size	= sizeof(struct cw_sched_data),
	.enqueue	= cw_enqueue,
	.dequeue	= cw_dequeue,
	.peek		= qdisc_peek_head,
	.init		= cw_init,
	.reset		= cw_reset,
	.change		= cw_change,
	.dump		= cw_dump,
	.dump_stats	= cw_dump_stats,
	.owner		= THIS_MODULE,
};
MODULE_ALIAS_NET_SCH("cw");

static int __init cw_module_init(void)
{
	BUILD_BUG_ON(CW_FRAC_ONE != TC_JERSEY_FRAC_ONE);
	return register_qdisc(&cw_qdisc_ops);
}

static void __exit cw_module_exit(void)
{
	unregister_qdisc(&cw_qdisc_ops);
}

module_init(cw_module_init);
module_exit(cw_module_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Congestion Warning: deterministic ECN marking FIFO (TCP-Jersey)");
