#!/bin/bash
# One lossy flow (jersey, and bbr for reference) at 5 % PER behind one marking
# gateway of bottlenecks' 20 Mb/s, 40 ms path, 10 runs one trial at a time:
# the safety table's points whose verdict (jersey >= 0.97x bbr) sat within 0.003
# of the bound with 5 runs, cw aq on 6.12 and fq_codel on 6.1:
#   bash results/bottlenecks-lossy-10runs.sh 6.12 cw-aq
#   bash results/bottlenecks-lossy-10runs.sh 6.1 fq_codel-ecn
# (about 12 min each on TCG) then:
#   .venv/bin/python -m testbed report bottlenecks --out results/lossy-10runs
set -euo pipefail
cd "$(dirname "$0")/.."
K=${1:?kernel series, e.g. 6.12}
. results/bottlenecks-sets.sh
case "${2:?gateway: cw-aq or fq_codel-ecn}" in
cw-aq) GW=$CWAQ ;;
fq_codel-ecn) GW=$FQ ;;
*) echo "unknown gateway $2" >&2; exit 2 ;;
esac
bottlenecks_run results/lossy-10runs "$K" --fresh --set "sweep.gw=[$GW]" --set 'sweep.per=[0.05]' \
	--set "sweep.mix=[$ALONE]" --set 'sweep.ours=["jersey","bbr"]' --set runs=10
