/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Differences between the kernels the qdiscs are built for (Debian 6.1 and
 * 6.12).  The qdisc API they use is otherwise identical: enqueue with
 * to_free, init/change with extack, get_random_u32(), qdisc_peek_head().
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

#endif /* JERSEY_QDISC_COMPAT_H */
