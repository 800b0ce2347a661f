#!/bin/sh
# Functional smoke test of sch_cw and sch_vcrr with the patched tc.
# Run as root on a kernel with the modules loaded, e.g.
#   testbed/vm --kernel 6.1 -- qdisc/tests/smoke.sh
# Needs build/tc (iproute2-patch/build-tc.sh), iperf3 and python3.
# Prints one line per check and "N passed, N failed"; exit status 1 on failure.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
TC=${TC:-$TOP/build/tc}
PY=${PY:-/usr/bin/python3}
IP=${IP:-/usr/sbin/ip}
passed=0 failed=0

ok() { echo "ok   $*"; passed=$((passed + 1)); }
bad() { echo "FAIL $*"; failed=$((failed + 1)); }
check() { # check DESCRIPTION COMMAND...
	d=$1
	shift
	if "$@"; then ok "$d"; else bad "$d"; fi
}
expect_ok() { # expect_ok TC-ARGS...
	if out=$("$TC" "$@" 2>&1); then ok "tc $*"; else bad "tc $* -> $out"; fi
}
expect_err() { # expect_err MESSAGE TC-ARGS...
	msg=$1
	shift
	if out=$("$TC" "$@" 2>&1); then
		bad "tc $* succeeded, expected '$msg'"
	elif printf '%s' "$out" | grep -qF -- "$msg"; then
		ok "tc $* -> $msg"
	else
		bad "tc $* -> '$out', expected '$msg'"
	fi
}
shows() { # shows DEV STRING: tc qdisc show dev DEV contains STRING
	"$TC" qdisc show dev "$1" | grep -qF -- "$2"
}
# jq_ns NS DEV KIND PYEXPR: evaluate PYEXPR on the JSON object q of the qdisc
jq_ns() {
	ns=$1 dev=$2 kind=$3 expr=$4
	$IP netns exec "$ns" "$TC" -s -j qdisc show dev "$dev" | $PY -c "
import json, sys
q = [q for q in json.load(sys.stdin) if q['kind'] == '$kind'][0]
o = q.get('options', {})
ok = bool($expr)
if not ok:
    print('  ', q, file=sys.stderr)
sys.exit(0 if ok else 1)"
}

[ -x "$TC" ] || { echo "smoke: $TC missing; run iproute2-patch/build-tc.sh" >&2; exit 2; }
for m in sch_cw sch_vcrr; do
	grep -q "^$m " /proc/modules || { echo "smoke: module $m not loaded" >&2; exit 2; }
done

echo "== kernel $(uname -r)"
$IP link add d0 type dummy && $IP link set d0 up

echo "== cw options"
expect_ok qdisc add dev d0 root cw
check "cw defaults shown" shows d0 "limit 1000p thresh 333p mode aq w 0.2 interval 20ms nonect pass"
expect_ok qdisc change dev d0 root cw limit 50
check "default thresh follows limit" shows d0 "limit 50p thresh 16p"
expect_ok qdisc replace dev d0 root cw limit 50 thresh 16 mode pq interval 10ms
check "cw pq shown" shows d0 "limit 50p thresh 16p mode pq w 0.2 interval 10ms nonect pass"
expect_ok qdisc change dev d0 root cw thresh 30kb w 0.5 nonect drop
check "cw bytes thresh shown" shows d0 "thresh 30Kb mode pq w 0.5 interval 10ms nonect drop"
out=$("$TC" -j qdisc show dev d0)
check "cw json" $PY -c "
import json,sys
o=json.loads(sys.argv[1])[0]['options']
assert o=={'limit':50,'thresh':30720,'thresh_unit':'bytes','mode':'pq','w':0.5,'interval':10000,'nonect':'drop'}, o" "$out"
expect_ok -s qdisc show dev d0
check "cw xstats shown" sh -c "'$TC' -s qdisc show dev d0 | grep -q 'marked 0 tail_drops 0 nonect_drops 0 overlimit 0'"
expect_err "cw: limit must be at least 1 packet" qdisc change dev d0 root cw limit 0
expect_err "cw: thresh (packets) exceeds limit" qdisc change dev d0 root cw thresh 60
expect_err "cw: w must be in (0, 1]" qdisc change dev d0 root cw w 0
expect_err "cw: w must be in (0, 1]" qdisc change dev d0 root cw w 1.5
expect_err "cw: interval must be in (0, 60s]" qdisc change dev d0 root cw interval 0
expect_err 'Illegal "mode"' qdisc change dev d0 root cw mode xq
expect_err 'Illegal "nonect"' qdisc change dev d0 root cw nonect maybe
expect_err 'What is "foo"' qdisc change dev d0 root cw foo
check "failed changes left cw unchanged" shows d0 "limit 50p thresh 30Kb mode pq w 0.5"
expect_ok qdisc del dev d0 root
expect_err "cw: limit must be at least 1 packet" qdisc add dev d0 root cw limit 0
expect_err "cw: thresh (packets) exceeds limit" qdisc add dev d0 root cw limit 10 thresh 11

echo "== vcrr options"
expect_err "vcrr: rate (the link capacity) is required" qdisc add dev d0 root vcrr
expect_err "vcrr: rate (the link capacity) is required" qdisc add dev d0 root vcrr limit 10
expect_err "vcrr: rate must be in (0, 2^40] bytes/s" qdisc add dev d0 root vcrr rate 0
expect_err "vcrr: gamma must be in (0, 1.5]" qdisc add dev d0 root vcrr rate 5mbit gamma 0
expect_err "vcrr: gamma must be in (0, 1.5]" qdisc add dev d0 root vcrr rate 5mbit gamma 1.6
expect_err "vcrr: interval must be in (0, 60s]" qdisc add dev d0 root vcrr rate 5mbit interval 0
expect_err "vcrr: qref must be in (0, 60s]" qdisc add dev d0 root vcrr rate 5mbit qref 0
expect_err "vcrr: qref must be in (0, 60s]" qdisc add dev d0 root vcrr rate 5mbit qref 61s
expect_err 'Illegal "qref"' qdisc add dev d0 root vcrr rate 5mbit qref soon
expect_err "vcrr: limit must be at least 1 packet" qdisc add dev d0 root vcrr rate 5mbit limit 0
expect_err 'Illegal "estimator"' qdisc add dev d0 root vcrr rate 5mbit estimator foo
expect_err 'Illegal "rate"' qdisc add dev d0 root vcrr rate fast
expect_ok qdisc add dev d0 root vcrr rate 5mbit
check "vcrr defaults shown" shows d0 "limit 1000p rate 5Mbit gamma 0.95 interval 20ms estimator count window 20ms qref 1s nonect pass"
expect_ok qdisc change dev d0 root vcrr gamma 0.9 interval 40ms estimator csfq window 100ms qref 40ms limit 200 nonect drop
check "vcrr change shown" shows d0 "limit 200p rate 5Mbit gamma 0.9 interval 40ms estimator csfq window 100ms qref 40ms nonect drop"
out=$("$TC" -j qdisc show dev d0)
check "vcrr json" $PY -c "
import json,sys
o=json.loads(sys.argv[1])[0]['options']
assert o=={'limit':200,'rate':625000,'gamma':0.9,'interval':40000,'estimator':'csfq','window':100000,'qref':40000,'nonect':'drop'}, o" "$out"
check "vcrr xstats shown" sh -c "'$TC' -s qdisc show dev d0 | grep -q 'prob 0.000000'"
expect_err "vcrr: rate must be in (0, 2^40] bytes/s" qdisc change dev d0 root vcrr rate 0
expect_err "vcrr: window must be at most 64 intervals" qdisc change dev d0 root vcrr interval 1ms window 65ms
expect_err "vcrr: window must be at most 64 intervals" qdisc change dev d0 root vcrr interval 1ms
expect_ok qdisc change dev d0 root vcrr interval 1ms window 64ms
check "vcrr window of 64 intervals" shows d0 "interval 1ms estimator csfq window 64ms"
expect_ok qdisc change dev d0 root vcrr interval 40ms window 100ms
expect_ok qdisc change dev d0 root vcrr rate 100gbit
check "vcrr 100gbit" shows d0 "rate 100Gbit"
expect_ok qdisc del dev d0 root

echo "== as child of tbf and htb"
expect_ok qdisc add dev d0 root handle 1: tbf rate 10mbit burst 10kb latency 50ms
expect_ok qdisc add dev d0 parent 1:1 handle 10: cw limit 50 thresh 5 mode pq
expect_ok qdisc replace dev d0 parent 1:1 vcrr rate 10mbit
check "vcrr grafted under tbf" shows d0 "vcrr"
expect_ok qdisc del dev d0 root
expect_ok qdisc add dev d0 root handle 1: htb default 1
expect_ok class add dev d0 parent 1: classid 1:1 htb rate 10mbit
expect_ok qdisc add dev d0 parent 1:1 handle 10: cw limit 50
expect_ok qdisc replace dev d0 parent 1:1 vcrr rate 10mbit estimator tsw
check "vcrr grafted under htb" shows d0 "estimator tsw"
expect_ok qdisc del dev d0 root
$IP link del d0

echo "== traffic: ns a --veth (tbf 2mbit + qdisc)--> ns b"
$IP netns add a && $IP netns add b
$IP link add va netns a type veth peer name vb netns b
$IP -n a addr add 10.9.0.1/24 dev va && $IP -n b addr add 10.9.0.2/24 dev vb
# keep the IPv6 address when the reset test below takes va down
$IP netns exec a sysctl -qw net.ipv6.conf.va.keep_addr_on_down=1
$IP -n a addr add fd09::1/64 dev va nodad && $IP -n b addr add fd09::2/64 dev vb nodad
$IP -n a link set va up && $IP -n b link set vb up
$IP -n a link set lo up && $IP -n b link set lo up
$IP netns exec b iperf3 -s -D --pidfile /tmp/smoke-iperf3.pid >/dev/null 2>&1
sleep 1
ATC() { $IP netns exec a "$TC" "$@"; }
# marked KIND: the marks counter of va's qdisc KIND
marked() {
	ATC -s -j qdisc show dev va |
		$PY -c "import json,sys; print([q for q in json.load(sys.stdin) if q['kind'] == '$1'][0]['marked'])"
}
# child QDISC-ARGS...: a fresh qdisc 10: under the tbf
child() {
	ATC qdisc del dev va parent 1:1 2>/dev/null
	ATC qdisc add dev va parent 1:1 handle 10: "$@"
}
# udp SENDER-ARGS...: 2 s of 4 Mbit/s UDP through the 2 Mbit/s bottleneck
udp() { $IP netns exec a iperf3 -c "$@" -u -b 4M -l 1000 -t 2 >/dev/null 2>&1; }

ATC qdisc add dev va root handle 1: tbf rate 2mbit burst 3000 limit 1000000
ATC qdisc add dev va parent 1:1 handle 10: cw limit 50 thresh 5
udp 10.9.0.2 --tos 2 &
sleep 1.5
ATC -s qdisc show dev va
wait
check "cw marks ECT(0) IPv4" jq_ns a va cw "q['marked'] > 100 and q['overlimit'] >= q['marked']"
m4=$(marked cw)
udp fd09::2 --tos 1
check "cw marks ECT(1) IPv6" jq_ns a va cw "q['marked'] > ${m4:-1000000} + 100"
udp 10.9.0.2
check "cw passes non-ECT by default" jq_ns a va cw "q['nonect_drops'] == 0"
ATC qdisc change dev va parent 1:1 handle 10: cw nonect drop mode pq interval 5ms
udp 10.9.0.2
check "cw nonect drop drops (pq)" jq_ns a va cw "q['nonect_drops'] > 0"
sleep 0.5
check "cw idle pq measure back to 0" jq_ns a va cw "q['measure'] == 0"
# change and reset while packets are queued
udp 10.9.0.2 --tos 2 &
sleep 1
ATC qdisc change dev va parent 1:1 handle 10: cw limit 10 thresh 3
check "cw change to a lower limit trims the queue" jq_ns a va cw "q['qlen'] <= 10"
wait
$IP -n a link set va down
check "cw reset empties the backlog" jq_ns a va cw "q['qlen'] == 0 and q['backlog'] == 0"
$IP -n a link set va up
check "tbf backlog consistent" jq_ns a va tbf "q['qlen'] == 0 and q['backlog'] == 0"

child vcrr rate 2mbit
udp 10.9.0.2 --tos 2
check "vcrr marks IPv4, p rose" jq_ns a va vcrr "q['marked'] > 50 and q['updates'] > 50 and q['vc'] == 237499"
m4=$(marked vcrr)
udp fd09::2 --tos 2
check "vcrr marks IPv6" jq_ns a va vcrr "q['marked'] > ${m4:-1000000} + 50"
sleep 1.2	# p drains by interval / qref = 0.02 per idle interval
check "vcrr p falls to 0 when idle" jq_ns a va vcrr "q['prob'] == 0"
for e in tsw csfq; do
	child vcrr rate 2mbit estimator $e
	udp 10.9.0.2 --tos 2
	check "vcrr $e marks" jq_ns a va vcrr "q['marked'] > 50 and q['estimator'] == '$e'"
done
child vcrr rate 2mbit nonect drop
udp 10.9.0.2
check "vcrr nonect drop drops" jq_ns a va vcrr "q['nonect_drops'] > 0"
ATC -s qdisc show dev va

kill "$(cat /tmp/smoke-iperf3.pid)" 2>/dev/null
$IP netns del a && $IP netns del b
sleep 0.5
check "rmmod sch_cw" rmmod sch_cw
check "rmmod sch_vcrr" rmmod sch_vcrr

# autoload by kind: the kernel's request_module() runs a modprobe that only
# sees a private module tree holding our two modules (only in a throwaway VM)
if grep -q virtme /proc/cmdline; then
	abi=$(uname -r) root=/tmp/smoke-modroot
	mkdir -p "$root/lib/modules/$abi/extra"
	cp "$TOP/build/$abi/qdisc/sch_cw.ko" "$TOP/build/$abi/qdisc/sch_vcrr.ko" \
		"$root/lib/modules/$abi/extra/"
	depmod -b "$root" "$abi"
	printf '#!/bin/sh\nexec /sbin/modprobe -d %s "$@"\n' "$root" >/tmp/smoke-modprobe
	chmod +x /tmp/smoke-modprobe
	old=$(cat /proc/sys/kernel/modprobe)
	echo /tmp/smoke-modprobe >/proc/sys/kernel/modprobe
	$IP link add d1 type dummy
	expect_ok qdisc add dev d1 root cw
	check "sch_cw autoloaded" grep -q '^sch_cw ' /proc/modules
	expect_ok qdisc replace dev d1 root vcrr rate 1mbit
	check "sch_vcrr autoloaded" grep -q '^sch_vcrr ' /proc/modules
	$IP link del d1
	echo "$old" >/proc/sys/kernel/modprobe
fi
check "no kernel warnings" sh -c "! dmesg | grep -E 'WARNING|BUG|Oops|leak'"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
