#!/bin/bash
# Two flows of a scheme beside two Cubic flows on bottlenecks' 20 Mb/s, 40 ms
# path behind every gateway kind of the safety table (drop-tail pfifo, cw aq,
# vcrr, fq_codel ecn), PER 0, 5 runs of 30 s two at a time: the table's share
# rows alone, for a change that acts on how flows share (what an ECE does
# during a held recovery):
#   bash results/bottlenecks-shares.sh 6.12 jersey [diffc reno ...]
# (about 12 min per scheme on TCG; a scheme's points already measured with
# this code are kept, so schemes may be added one command at a time) then:
#   .venv/bin/python -m testbed report bottlenecks --out results/shares
set -euo pipefail
cd "$(dirname "$0")/.."
K=${1:?kernel series, e.g. 6.12}
shift
[ $# -gt 0 ] || { echo "name at least one scheme, e.g. jersey" >&2; exit 2; }
OURS=$(printf '"%s",' "$@")
. results/bottlenecks-sets.sh
bottlenecks_run results/shares "$K" --set "sweep.gw=[$PFIFO,$CWAQ,$VCRR,$FQ]" --set 'sweep.per=[0]' \
	--set "sweep.mix=[$MIX]" --set "sweep.ours=[${OURS%,}]"
