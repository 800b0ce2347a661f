#!/bin/sh
# Runs as root on the target kernel (inside the VM, or on the host with
# --host): loads our freshly built modules and the kernel's own modules the
# experiments use, makes every congestion control usable from network
# namespaces, then runs the command and exits with its status.
#   testbed/guest-init.sh [--started FILE] [--host-stat FILE] [--bare] CMD [ARGS...]
# --started FILE: we run in testbed/vm's guest; create FILE first (testbed/vm
# tells a guest that never came up from a command that failed); --host-stat
# FILE: testbed/vm's copy of the host's /proc/stat cpu line, named to CMD in
# JERSEY_HOST_STAT (the trials record the host's CPU steal from it); --bare:
# do not load our modules (a fresh machine, to test `make install` and
# autoloading); everything else is the same.
set -eu
vm=0
if [ "${1:-}" = --started ]; then
	: >"$2"
	vm=1
	shift 2
fi
if [ "${1:-}" = --host-stat ]; then
	export JERSEY_HOST_STAT="$2"
	shift 2
fi
bare=0
if [ "${1:-}" = --bare ]; then
	bare=1
	shift
fi
top=$(cd "$(dirname "$0")/.." && pwd)
abi=$(uname -r)
dir=$top/build/$abi
# A kernel of another Debian release (testbed/kernels.txt) has its modules in
# build/kernel-<abi>/, to which virtme-ng links /lib/modules/<abi>: a
# throwaway overlay on top keeps what the guest writes there (depmod, make
# install) out of the shared checkout.
if [ -L "/lib/modules/$abi" ]; then
	lower=$(readlink -f "/lib/modules/$abi")
	case "$lower" in
	"$top"/build/kernel-*)
		rm "/lib/modules/$abi"
		mkdir -p /run/jersey-modules/upper /run/jersey-modules/work "/lib/modules/$abi"
		mount -t overlay jersey-modules -o "lowerdir=$lower,upperdir=/run/jersey-modules/upper,workdir=/run/jersey-modules/work" "/lib/modules/$abi"
		;;
	esac
fi
if [ "$bare" = 0 ] && [ ! -d "$dir" ]; then
	echo "guest-init: no modules built for $abi ($dir); run 'make KVER=$abi'" >&2
	exit 125
fi
for ko in "$dir"/kmod/*.ko "$dir"/qdisc/*.ko "$dir"/testbed/oracle/*.ko; do
	[ "$bare" = 0 ] || break
	[ -e "$ko" ] || continue
	name=$(basename "$ko" .ko)
	grep -q "^$name " /proc/modules && continue
	insmod "$ko" || { echo "guest-init: insmod $ko failed" >&2; exit 125; }
done
# The kernel's own modules: comparators and the qdiscs of the path emulation.
for m in tcp_westwood tcp_vegas tcp_veno tcp_bbr tcp_dctcp sch_netem sch_red \
	sch_htb sch_tbf sch_fq_codel sch_pie veth bridge; do
	modprobe -q "$m" 2>/dev/null || true
done
sysctl -qw net.ipv4.tcp_allowed_congestion_control="$(cat /proc/sys/net/ipv4/tcp_available_congestion_control)"
# Enabling any trace event makes ftrace record task names by hooking the
# scheduler's tracepoints, i.e. patching the scheduler's hot code while it
# runs (text_poke_bp); under QEMU's TCG that left a stale int3 in
# ttwu_do_activate and panicked the guest ("Oops: int3 ... Fatal exception
# in interrupt") or hung it.  Our tests and experiments do not need task
# names in the trace.
for opt in record-cmd record-tgid; do
	f=/sys/kernel/tracing/options/$opt
	[ -w "$f" ] && echo 0 >"$f"
done
# In the VM (--started): ping turns the kernel's receive-timestamp static
# key on and off at every trial, and each turn patches the receive path while
# it runs, which under TCG left a stale int3 in __netif_receive_skb_core (the
# same panic).  A socket that holds the key on from here on (its holder
# forks and dies with the guest) means it is patched only once.
if [ "$vm" = 1 ]; then
	python3 "$top/testbed/hold_netstamp.py" </dev/null >/dev/null 2>&1 ||
		echo "guest-init: warning: could not hold receive timestamps on" >&2
fi
export JERSEY_TOP="$top"
export PYTHONPATH="$top${PYTHONPATH:+:$PYTHONPATH}"
exec "$@"
