#!/bin/bash
# The 56 points of bottlenecks (into results/safety/<kernel series>/) that the README's "Safe and fair by default"
# table comes from, 5 runs each (the fig 5.11 Reno mixes 10), on one kernel (6.12 or 6.1): the accept
# profile's rows that the criteria name, 2 + 2 Reno on the thesis fig 5.11
# path, and a lone flow on the short path's drop-tail queue:
#   bash results/bottlenecks-safety.sh 6.12 [PART...]
# PART picks the rows (all six by default): reno (2 + 2 Reno on the fig 5.11
# path), droptail (a lone flow on the drop-tail queue, PER 0, 1 and 5 %), short
# (the same on the short path, 20 Mb/s, 4 ms), cubic
# (2 + 2 Cubic behind every gateway kind), lossy (a lone lossy flow behind the
# marking gateways), gamma1 (the same behind vcrr with gamma 1, a reference
# row); e.g. after a change to what an ECE does, which a path
# without marks never sees: bash results/bottlenecks-safety.sh 6.12 reno cubic lossy gamma1
# (KEEP=1 bash results/bottlenecks-safety.sh 6.12 cubic lossy: adds parts to those kept)
# (all six: about 145 min on TCG, 325 runs of 30 s, two at a time; the 2 Mb/s
# fig 5.11 points four at a time, every lone flow one at a time)
# then: .venv/bin/python -m testbed report bottlenecks --out results/safety
set -euo pipefail
cd "$(dirname "$0")/.."
K=${1:?kernel series, e.g. 6.12}
shift
PARTS=${*:-reno droptail short cubic lossy gamma1}
for p in $PARTS; do
	case $p in
	reno | droptail | short | cubic | lossy | gamma1) ;;
	*) echo "unknown part $p (reno, droptail, short, cubic, lossy, gamma1)" >&2; exit 2 ;;
	esac
done
want() { [[ " $PARTS " == *" $1 "* ]]; }
. results/bottlenecks-sets.sh
# the first run of the sitting starts afresh: earlier points of this kernel go,
# so that every point of the report comes from this commit; KEEP=1 keeps them,
# to add parts run at the same code commit in an earlier sitting
FRESH=(--fresh)
[[ ${KEEP:-0} == 1 ]] && FRESH=()
run() {
	bottlenecks_run results/safety "$K" "${FRESH[@]}" "$@"
	FRESH=()
}
# 2 + 2 Reno on the thesis fig 5.11 path (2 Mb/s, 92 ms), every gateway kind, PER 0
# 10 runs: the share of one such point spreads over 0.8-1.35 (per-flow windows of
# 4-10 packets), and Reno against Reno (ours = reno, behind pfifo) shows how far
# the share of two identical schemes spreads there
if want reno; then
run --set "sweep.path=[$F511]" --set "sweep.gw=[$PFIFO,$CWAQ,$VCRR,$FQ]" --set 'sweep.per=[0]' \
	--set "sweep.mix=[$RENO]" --set 'sweep.ours=["jersey","diffc"]' --set parallel=4 --set runs=10
run --set "sweep.path=[$F511]" --set "sweep.gw=[$PFIFO]" --set 'sweep.per=[0]' \
	--set "sweep.mix=[$RENO]" --set 'sweep.ours=["reno"]' --set parallel=4 --set runs=10
fi
# drop-tail alone, PER 0 and 1 % (a lone flow on the 20 Mb/s path runs one
# trial at a time: the scenario's override)
want droptail && run --set "sweep.gw=[$PFIFO]" --set 'sweep.per=[0,0.01]' --set "sweep.mix=[$ALONE]" \
	--set 'sweep.ours=["jersey","diffc","cubic","bbr"]'
# and at 5 % PER, where no gateway marks and nearly every round has a loss
# recovery: the window that lossclass remembers from an overflow must not
# hold a lone flow below the link (at 41ae8c6 one jersey run of three made
# 5.1 Mb/s of 20 behind fq_codel at 5 %)
want droptail && run --set "sweep.gw=[$PFIFO]" --set 'sweep.per=[0.05]' --set "sweep.mix=[$ALONE]" \
	--set 'sweep.ours=["jersey","diffc","bbr"]'
want short && run --set "sweep.path=[$SHORT]" --set "sweep.gw=[$PFIFO]" --set 'sweep.per=[0,0.01]' \
	--set "sweep.mix=[$ALONE]" --set 'sweep.ours=["jersey","diffc","cubic","bbr"]'
# 2 + 2 cubic behind every gateway kind, PER 0; Reno in jersey's place shows
# the share the kernel's own Reno takes from Cubic under the same marks (1.13-1.26
# behind cw aq on 6.12, where diffc, which answers an ECE as Reno does, took 1.02-1.26)
want cubic && run --set "sweep.gw=[$PFIFO,$CWAQ,$VCRR,$FQ]" --set 'sweep.per=[0]' --set "sweep.mix=[$MIX]" \
	--set 'sweep.ours=["jersey","diffc","reno"]'
# one lossy flow behind the marking gateways, PER 1 % and 5 %, one trial at a
# time as well (two at a time, bbr made 15.7-17.6 Mb/s there against 18.0-18.1
# alone); behind vcrr also with gamma 1: the default gamma 0.95 marks from 95 % of the
# rate, which holds a sender that honours the marks below what bbr (which
# ignores them) takes, so gamma 1 shows what jersey makes of the whole link
VCRR1='{ label = "vcrr-gamma1", q = { kind = "vcrr", gamma = 1.0 } }'
want lossy && run --set "sweep.gw=[$CWAQ,$VCRR,$FQ]" --set 'sweep.per=[0.01,0.05]' --set "sweep.mix=[$ALONE]" \
	--set 'sweep.ours=["jersey","bbr"]'
if want gamma1; then
run --set "sweep.gw=[$VCRR1]" --set 'sweep.per=[0.01,0.05]' --set "sweep.mix=[$ALONE]" \
	--set 'sweep.ours=["jersey","bbr"]'
fi
