#!/bin/bash
# One flow alone on bottlenecks' 20 Mb/s, 40 ms path, one trial at a time, 5 runs
# a point: the safety table's lone-flow rows (drop-tail at PER 0 and 1 % with
# jersey, diffc, cubic and bbr; jersey and bbr behind the marking gateways at
# 1 % and 5 %), for a change to the safe mode that acts on single flows (how
# a slow start's losses are classified):
#   bash results/bottlenecks-lone-flows.sh 6.12
# (about 60 min on TCG: 100 runs of 30 s) then:
#   .venv/bin/python -m testbed report bottlenecks --out results/lone-flows
set -euo pipefail
cd "$(dirname "$0")/.."
K=${1:?kernel series, e.g. 6.12}
. results/bottlenecks-sets.sh
run() { bottlenecks_run results/lone-flows "$K" "$@"; }
run --fresh --set "sweep.gw=[$PFIFO]" --set 'sweep.per=[0,0.01]' --set "sweep.mix=[$ALONE]" \
	--set 'sweep.ours=["jersey","diffc","cubic","bbr"]'
run --set "sweep.gw=[$CWAQ,$FQ,$VCRR]" --set 'sweep.per=[0.01,0.05]' --set "sweep.mix=[$ALONE]" \
	--set 'sweep.ours=["jersey","bbr"]'
