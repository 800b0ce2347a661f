#!/bin/bash
# vcrr's rate estimators side by side, behind the gateway of bottlenecks'
# 20 Mb/s, 40 ms path: the thesis's default (bytes counted over each 20 ms
# interval, figure 8.15) against TSW over 200 ms (8.37), on one kernel:
#   bash results/vcrr-estimator.sh 6.12
# One lossy flow (jersey or bbr, PER 1 % and 5 %) one trial at a time, 5 runs;
# 2 jersey / diffc / reno + 2 cubic (PER 0) two at a time, 5 runs; 2 + 2 Reno
# on the thesis fig 5.11 path four at a time, 10 runs.  About 35 min on TCG.
# then: .venv/bin/python -m testbed report bottlenecks --out results/vcrr-estimator
set -euo pipefail
cd "$(dirname "$0")/.."
K=${1:?kernel series, e.g. 6.12}
. results/bottlenecks-sets.sh
run() { bottlenecks_run results/vcrr-estimator "$K" "$@"; }
COUNT=$VCRR
TSW='{ label = "vcrr-tsw200", q = { kind = "vcrr", estimator = "tsw", window = "200ms" } }'
run --fresh --set "sweep.gw=[$COUNT,$TSW]" --set 'sweep.per=[0.01,0.05]' --set "sweep.mix=[$ALONE]" \
	--set 'sweep.ours=["jersey","bbr"]'
run --set "sweep.gw=[$TSW]" --set 'sweep.per=[0]' --set "sweep.mix=[$MIX]" \
	--set 'sweep.ours=["jersey","diffc","reno"]'
run --set "sweep.path=[$F511]" --set "sweep.gw=[$TSW]" --set 'sweep.per=[0]' \
	--set "sweep.mix=[$RENO]" --set 'sweep.ours=["jersey","diffc"]' --set parallel=4 --set runs=10
