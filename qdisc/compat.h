/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Differences between the kernels the qdiscs are built for (Debian 6.1 and
 * 6.12; Debian 13's 6.12 and 7.3: see the block at the end).  The qdisc API
 * they use is otherwise identical: enqueue with to_free, init/change with
 * extack, get_random_u32(), qdisc_peek_head().
 */
#ifndef JERSEY_QDISC_COMPAT_H
#define JERSEY_QDISC_COMPAT_H

#include <linux/module.h>
#include <linux/version.h>
#include <net/pkt_sched.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0)
#error "jersey qdiscs need Linux >= 6.1"
#endif

/*
 * "tc qdisc add ... NAME" makes 6.1 load module "sch_NAME", which the file
 * name sch_NAME.ko already provides; newer kernels (6.12) request the alias
 * "net-sch-NAME" and define MODULE_ALIAS_NET_SCH() to declare it.
 */
#ifndef MODULE_ALIAS_NET_SCH
#define MODULE_ALIAS_NET_SCH(id)	MODULE_ALIAS("sch_" id)
#endif

/*
 * ---- Debian 13's kernels: 6.12 (trixie) and 7.3 (trixie-backports) --------
 *
 * Checked against the 7.3.4 headers (include/net/sch_generic.h,
 * include/net/pkt_sched.h): nothing our qdiscs use changed, so no shim.
 * struct Qdisc_ops (enqueue with to_free, dequeue, peek, init/change with
 * extack, reset, dump, dump_stats), qdisc_drop(), qdisc_enqueue_tail(),
 * __qdisc_dequeue_head(), qdisc_dequeue_head(), qdisc_peek_head(),
 * qdisc_reset_queue(), qdisc_tree_reduce_backlog(), sch_tree_lock(),
 * gnet_stats_copy_app(), nla_parse_nested_deprecated() and INET_ECN_set_ce()
 * are as in 6.1.  What did change, without consequence here:
 * - qdisc_priv() is a macro that keeps a const Qdisc const (_Generic); we
 *   call it on non-const ones, which get a void * as before;
 * - the qstats/qlen helpers store with WRITE_ONCE() (lockless dumps); we
 *   read those fields under the qdisc lock;
 * - qdisc_drop_reason() exists beside qdisc_drop() (a drop reason for
 *   tracing); our drops keep using qdisc_drop();
 * - MODULE_ALIAS_NET_SCH() is the kernel's (see above), so "tc qdisc add ...
 *   cw" autoloads sch_cw through the alias net-sch-cw.
 */

/* skb_gso_segment() moved from linux/netdevice.h to net/gso.h in 6.5 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
#include <net/gso.h>
#endif

#endif /* JERSEY_QDISC_COMPAT_H */
