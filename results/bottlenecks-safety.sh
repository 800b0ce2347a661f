#!/bin/bash
# The 22 points of bottlenecks' accept profile that the README's "Safe and fair
# by default" table comes from, 5 runs each, on one kernel (6.12 or 6.1):
#   bash results/bottlenecks-safety.sh 6.12
# (about 70 minutes on TCG: 110 points of 30 s, two at a time)
# then: .venv/bin/python -m testbed report bottlenecks --out results
set -euo pipefail
cd "$(dirname "$0")/.."
K=${1:?kernel series, e.g. 6.12}
run() {
	.venv/bin/python -m testbed run bottlenecks --profile accept --kernel "$K" --out results \
		--set 'exclude=[]' "$@"
}
PFIFO='{ label = "pfifo", q = "pfifo" }'
CWAQ='{ label = "cw-aq", q = { kind = "cw", mode = "aq" } }'
VCRR='{ label = "vcrr", q = "vcrr" }'
FQ='{ label = "fq_codel-ecn", q = { kind = "fq_codel", ecn = true } }'
ALONE='{ label = "alone", ours = 1, cubic = 0, reno = 0, rival = "cubic" }'
MIX='{ label = "2+2cubic", ours = 2, cubic = 2, reno = 0, rival = "cubic" }'
# drop-tail alone, PER 0 and 1 % (--fresh: earlier points of this kernel go,
# so that every point of the report comes from this commit)
run --fresh --set "sweep.gw=[$PFIFO]" --set 'sweep.per=[0, 0.01]' --set "sweep.mix=[$ALONE]" \
	--set 'sweep.ours=["jersey","diffc","cubic","bbr"]'
# 2 + 2 cubic behind every gateway kind, PER 0
run --set "sweep.gw=[$PFIFO,$CWAQ,$VCRR,$FQ]" --set 'sweep.per=[0]' --set "sweep.mix=[$MIX]" \
	--set 'sweep.ours=["jersey","diffc"]'
# one lossy flow behind the marking gateways, PER 1 %
run --set "sweep.gw=[$CWAQ,$VCRR,$FQ]" --set 'sweep.per=[0.01]' --set "sweep.mix=[$ALONE]" \
	--set 'sweep.ours=["jersey","bbr"]'
