// SPDX-License-Identifier: GPL-2.0
/*
 * sch_vcrr.c	Virtual Capacity Rate Regulation (VCRR): probabilistic ECN
 *		marking FIFO (TCP-Jersey thesis, section 8.6).
 *
 * A packet FIFO of `limit` packets (tail drop when full).  Every `interval`
 * the marking probability integrates the input's excess over the virtual
 * capacity vc = gamma * rate (8.33-8.36):
 *	p <- clamp(p + (arrived - vc * interval) / (vc * qref), 0, 1)
 * with "arrived" the bytes counted in the interval (figure 8.15), or the
 * input rate estimated by TSW (8.37) or CSFQ averaging (8.38) times the
 * interval; p is the virtual queueing delay over qref (default 1 s: the
 * thesis's p = virtual queue / vc; see vcrr_core.h).  Each ECT arrival
 * is marked CE with probability p; non-ECT
 * packets pass, or are dropped with "nonect drop".  Interval ends are
 * evaluated lazily at enqueue and stats dump (see vcrr_core.h), so the
 * qdisc owns no timer.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/skbuff.h>
#include <linux/timekeeping.h>
#include <linux/types.h>
#include <net/inet_ecn.h>
#include <net/netlink.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>

#include "compat.h"
#include "jersey_pkt_sched.h"
#include "jq_skb.h"
#include "vcrr_core.h"

#define CREATE_TRACE_POINTS
#include "trace_vcrr.h"

#define VCRR_DEFAULT_LIMIT	1000
#define VCRR_DEFAULT_GAMMA	62259	/* 0.95 * 65536 */
#define VCRR_DEFAULT_INTERVAL	20000	/* us */
#define VCRR_DEFAULT_QREF	1000000	/* us: p = virtual queue in seconds */

struct vcrr_cfg {
	u32	limit;		/* packets */
	u64	rate;		/* link capacity, bytes/s */
	u32	gamma;		/* 1/65536 */
	u32	interval;	/* us */
	u32	window;		/* us, TSW window / CSFQ constant */
	u32	qref;		/* us, virtual queueing delay at which p = 1 */
	bool	window_set;	/* else window = interval */
	u32	est;		/* TC_VCRR_EST_* */
	u32	nonect;		/* TC_JERSEY_NONECT_* */
};

struct vcrr_sched_data {
	struct vcrr_cfg		cfg;
	struct vcrr_params	pp;
	struct vcrr_state	vs;
	u64			marked;
	u64			tail_drops;
	u64			nonect_drops;
	u64			overlimits;
};

/*
 * Parsed strictly (nla_parse_nested): unknown attributes, wrong lengths and
 * trailing bytes are refused; vcrr_validate() checks the ranges, each with
 * its own message.
 */
static const struct nla_policy vcrr_policy[TCA_VCRR_MAX + 1] = {
	[TCA_VCRR_PAD]		= { .type = NLA_REJECT },
	[TCA_VCRR_LIMIT]	= { .type = NLA_U32 },
	[TCA_VCRR_RATE]		= { .type = NLA_U64 },
	[TCA_VCRR_GAMMA]	= { .type = NLA_U32 },
	[TCA_VCRR_INTERVAL]	= { .type = NLA_U32 },
	[TCA_VCRR_ESTIMATOR]	= { .type = NLA_U32 },
	[TCA_VCRR_WINDOW]	= { .type = NLA_U32 },
	[TCA_VCRR_NONECT]	= { .type = NLA_U32 },
	[TCA_VCRR_QREF]		= { .type = NLA_U32 },
};

/* decide whether this arrival carries a congestion signal */
static bool vcrr_signal(const struct vcrr_sched_data *q)
{
	return q->vs.p && vcrr_mark(q->vs.p, get_random_u32());
}

static void vcrr_trace(struct Qdisc *sch, const struct vcrr_sched_data *q,
		       u32 qlen, u8 ecn, u8 action, u32 len)
{
	trace_vcrr_enqueue(sch, qlen, q->vs.p, q->vs.updates,
			   q->vs.y_used >> VCRR_FRAC_SHIFT, ecn, action, len);
}

static int vcrr_enqueue_one(struct sk_buff *skb, struct Qdisc *sch,
			    struct sk_buff **to_free)
{
	struct vcrr_sched_data *q = qdisc_priv(sch);
	u32 qlen = sch->q.qlen, len = qdisc_pkt_len(skb);
	/* the codepoint before marking, only when someone is tracing */
	u8 ecn = trace_vcrr_enqueue_enabled() ? jq_skb_ecn(skb) : 0;
	u8 action = JQ_ENQUEUED;
	u64 now = ktime_get_ns();
	int ret;

	vcrr_advance(&q->pp, &q->vs, now);
	vcrr_arrival(&q->pp, &q->vs, now, len);

	if (unlikely(sch->q.qlen >= q->cfg.limit)) {
		q->tail_drops++;
		vcrr_trace(sch, q, qlen, ecn, JQ_TAIL_DROP, len);
		return qdisc_drop(skb, sch, to_free);
	}
	if (vcrr_signal(q)) {
		q->overlimits++;
		qdisc_qstats_overlimit(sch);
		if (INET_ECN_set_ce(skb)) {
			q->marked++;
			action = JQ_MARKED;
		} else if (q->cfg.nonect == TC_JERSEY_NONECT_DROP) {
			q->nonect_drops++;
			vcrr_trace(sch, q, qlen, ecn, JQ_NONECT_DROP, len);
			qdisc_drop(skb, sch, to_free);
			return NET_XMIT_CN;
		}
	}
	ret = qdisc_enqueue_tail(skb, sch);
	vcrr_trace(sch, q, qlen, ecn, action, len);
	return ret;
}

/* a GSO packet is measured, marked and counted segment by segment */
static int vcrr_enqueue(struct sk_buff *skb, struct Qdisc *sch,
			struct sk_buff **to_free)
{
	if (skb_is_gso(skb))
		return jq_enqueue_segments(skb, sch, to_free, vcrr_enqueue_one);
	return vcrr_enqueue_one(skb, sch, to_free);
}

static void vcrr_reset(struct Qdisc *sch)
{
	struct vcrr_sched_data *q = qdisc_priv(sch);

	qdisc_reset_queue(sch);
	sch->qstats.backlog = 0;
	vcrr_state_init(&q->vs, &q->pp, ktime_get_ns());
}

static int vcrr_validate(struct vcrr_cfg *c, struct nlattr **tb,
			 struct netlink_ext_ack *extack)
{
	if (!c->limit) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_VCRR_LIMIT],
				    "vcrr: limit must be at least 1 packet");
		return -EINVAL;
	}
	if (!tb[TCA_VCRR_RATE] && !c->rate) {
		NL_SET_ERR_MSG(extack, "vcrr: rate (the link capacity) is required");
		return -EINVAL;
	}
	if (!c->rate || c->rate > TC_VCRR_RATE_MAX) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_VCRR_RATE],
				    "vcrr: rate must be in (0, 2^40] bytes/s");
		return -EINVAL;
	}
	if (!c->gamma || c->gamma > TC_VCRR_GAMMA_MAX) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_VCRR_GAMMA],
				    "vcrr: gamma must be in (0, 1.5]");
		return -EINVAL;
	}
	if (!c->interval || c->interval > TC_JERSEY_INTERVAL_MAX_US) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_VCRR_INTERVAL],
				    "vcrr: interval must be in (0, 60s]");
		return -EINVAL;
	}
	if (!c->window_set)
		c->window = c->interval;
	if (!c->window || c->window > TC_JERSEY_INTERVAL_MAX_US) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_VCRR_WINDOW],
				    "vcrr: window must be in (0, 60s]");
		return -EINVAL;
	}
	if (c->window > (u64)c->interval * VCRR_WINDOW_INTERVALS) {
		NL_SET_ERR_MSG_ATTR(extack,
				    tb[TCA_VCRR_WINDOW] ?: tb[TCA_VCRR_INTERVAL],
				    "vcrr: window must be at most 64 intervals");
		return -EINVAL;
	}
	if (!c->qref || c->qref > TC_JERSEY_INTERVAL_MAX_US) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_VCRR_QREF],
				    "vcrr: qref must be in (0, 60s]");
		return -EINVAL;
	}
	if (c->est >= __TC_VCRR_EST_MAX) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_VCRR_ESTIMATOR],
				    "vcrr: unknown estimator (count, tsw or csfq)");
		return -EINVAL;
	}
	if (c->nonect >= __TC_JERSEY_NONECT_MAX) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_VCRR_NONECT],
				    "vcrr: nonect must be pass or drop");
		return -EINVAL;
	}
	return 0;
}

/* merge the attributes present in tb into c, then validate c */
static int vcrr_parse(struct vcrr_cfg *c, struct nlattr **tb,
		      struct netlink_ext_ack *extack)
{
	if (tb[TCA_VCRR_LIMIT])
		c->limit = nla_get_u32(tb[TCA_VCRR_LIMIT]);
	if (tb[TCA_VCRR_RATE])
		c->rate = nla_get_u64(tb[TCA_VCRR_RATE]);
	if (tb[TCA_VCRR_GAMMA])
		c->gamma = nla_get_u32(tb[TCA_VCRR_GAMMA]);
	if (tb[TCA_VCRR_INTERVAL])
		c->interval = nla_get_u32(tb[TCA_VCRR_INTERVAL]);
	if (tb[TCA_VCRR_WINDOW]) {
		c->window = nla_get_u32(tb[TCA_VCRR_WINDOW]);
		c->window_set = true;
	}
	if (tb[TCA_VCRR_ESTIMATOR])
		c->est = nla_get_u32(tb[TCA_VCRR_ESTIMATOR]);
	if (tb[TCA_VCRR_NONECT])
		c->nonect = nla_get_u32(tb[TCA_VCRR_NONECT]);
	if (tb[TCA_VCRR_QREF])
		c->qref = nla_get_u32(tb[TCA_VCRR_QREF]);
	return vcrr_validate(c, tb, extack);
}

static void vcrr_params_apply(struct vcrr_sched_data *q)
{
	vcrr_params_set(&q->pp, q->cfg.rate, q->cfg.gamma,
			(u64)q->cfg.interval * NSEC_PER_USEC,
			(u64)q->cfg.window * NSEC_PER_USEC,
			(u64)q->cfg.qref * NSEC_PER_USEC, q->cfg.est);
}

static int vcrr_change(struct Qdisc *sch, struct nlattr *opt,
		       struct netlink_ext_ack *extack)
{
	struct vcrr_sched_data *q = qdisc_priv(sch);
	struct nlattr *tb[TCA_VCRR_MAX + 1];
	struct vcrr_cfg c = q->cfg;
	u64 now;
	int err;

	if (!opt) {
		NL_SET_ERR_MSG(extack, "vcrr: rate (the link capacity) is required");
		return -EINVAL;
	}
	err = nla_parse_nested(tb, TCA_VCRR_MAX, opt, vcrr_policy, extack);
	if (err < 0)
		return err;
	err = vcrr_parse(&c, tb, extack);
	if (err)
		return err;

	sch_tree_lock(sch);
	now = ktime_get_ns();
	/* close the intervals due under the old parameters */
	vcrr_advance(&q->pp, &q->vs, now);
	if (c.interval != q->cfg.interval)
		q->vs.next = now + (u64)c.interval * NSEC_PER_USEC;
	if (c.est != q->cfg.est) {
		q->vs.y = 0;
		q->vs.last = now;
	}
	q->cfg = c;
	sch->limit = c.limit;
	vcrr_params_apply(q);
	jq_trim(sch, q->cfg.limit, &q->tail_drops);
	sch_tree_unlock(sch);
	return 0;
}

static int vcrr_init(struct Qdisc *sch, struct nlattr *opt,
		     struct netlink_ext_ack *extack)
{
	struct vcrr_sched_data *q = qdisc_priv(sch);

	q->cfg = (struct vcrr_cfg) {
		.limit		= VCRR_DEFAULT_LIMIT,
		.gamma		= VCRR_DEFAULT_GAMMA,
		.interval	= VCRR_DEFAULT_INTERVAL,
		.window		= VCRR_DEFAULT_INTERVAL,
		.qref		= VCRR_DEFAULT_QREF,
		.est		= TC_VCRR_EST_COUNT,
		.nonect		= TC_JERSEY_NONECT_PASS,
	};
	sch->limit = q->cfg.limit;
	/* placeholder parameters until change() validated a rate */
	vcrr_params_set(&q->pp, 1, q->cfg.gamma,
			(u64)q->cfg.interval * NSEC_PER_USEC,
			(u64)q->cfg.window * NSEC_PER_USEC,
			(u64)q->cfg.qref * NSEC_PER_USEC, q->cfg.est);
	vcrr_state_init(&q->vs, &q->pp, ktime_get_ns());
	return vcrr_change(sch, opt, extack);
}

static int vcrr_dump(struct Qdisc *sch, struct sk_buff *skb)
{
	struct vcrr_sched_data *q = qdisc_priv(sch);
	const struct vcrr_cfg *c = &q->cfg;
	struct nlattr *opts;

	opts = nla_nest_start_noflag(skb, TCA_OPTIONS);
	if (!opts)
		return -EMSGSIZE;
	if (nla_put_u32(skb, TCA_VCRR_LIMIT, c->limit) ||
	    nla_put_u64_64bit(skb, TCA_VCRR_RATE, c->rate, TCA_VCRR_PAD) ||
	    nla_put_u32(skb, TCA_VCRR_GAMMA, c->gamma) ||
	    nla_put_u32(skb, TCA_VCRR_INTERVAL, c->interval) ||
	    nla_put_u32(skb, TCA_VCRR_ESTIMATOR, c->est) ||
	    nla_put_u32(skb, TCA_VCRR_WINDOW, c->window) ||
	    nla_put_u32(skb, TCA_VCRR_NONECT, c->nonect) ||
	    nla_put_u32(skb, TCA_VCRR_QREF, c->qref))
		goto nla_put_failure;
	return nla_nest_end(skb, opts);

nla_put_failure:
	nla_nest_cancel(skb, opts);
	return -EMSGSIZE;
}

static int vcrr_dump_stats(struct Qdisc *sch, struct gnet_dump *d)
{
	struct vcrr_sched_data *q = qdisc_priv(sch);
	struct tc_vcrr_xstats st = {};

	sch_tree_lock(sch);
	/* close the intervals that ended since the last arrival */
	vcrr_advance(&q->pp, &q->vs, ktime_get_ns());
	st.marked = q->marked;
	st.tail_drops = q->tail_drops;
	st.nonect_drops = q->nonect_drops;
	st.overlimits = q->overlimits;
	st.prob = q->vs.p;
	st.input_rate = q->vs.y_used >> VCRR_FRAC_SHIFT;
	st.vc = q->pp.vc >> VCRR_FRAC_SHIFT;
	st.updates = q->vs.updates;
	st.estimator = q->cfg.est;
	sch_tree_unlock(sch);
	return gnet_stats_copy_app(d, &st, sizeof(st));
}

static struct Qdisc_ops vcrr_qdisc_ops __read_mostly = {
	.id		= "vcrr",
	.priv_size	= sizeof(struct vcrr_sched_data),
	.enqueue	= vcrr_enqueue,
	.dequeue	= qdisc_dequeue_head,
	.peek		= qdisc_peek_head,
	.init		= vcrr_init,
	.reset		= vcrr_reset,
	.change		= vcrr_change,
	.dump		= vcrr_dump,
	.dump_stats	= vcrr_dump_stats,
	.owner		= THIS_MODULE,
};
MODULE_ALIAS_NET_SCH("vcrr");

static int __init vcrr_module_init(void)
{
	BUILD_BUG_ON(VCRR_P_ONE != TC_VCRR_PROB_ONE);
	BUILD_BUG_ON(VCRR_WINDOW_INTERVALS != 64);	/* the extack message */
	BUILD_BUG_ON((int)VCRR_EST_COUNT != (int)TC_VCRR_EST_COUNT);
	BUILD_BUG_ON((int)VCRR_EST_TSW != (int)TC_VCRR_EST_TSW);
	BUILD_BUG_ON((int)VCRR_EST_CSFQ != (int)TC_VCRR_EST_CSFQ);
	return register_qdisc(&vcrr_qdisc_ops);
}

static void __exit vcrr_module_exit(void)
{
	unregister_qdisc(&vcrr_qdisc_ops);
}

module_init(vcrr_module_init);
module_exit(vcrr_module_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Virtual Capacity Rate Regulation ECN marking FIFO (TCP-Jersey)");
