#!/usr/bin/env bash
# The calibration the report quotes: does a scenario's `parallel` change its
# medians?  Each scenario's part below runs at its `parallel` and one point at
# a time (python -m testbed calibrate), into results/calibrate/<kernel series>/;
# every run adds its scenario to calibration.md and to results/report.md.
# A part is a loss rate and the schemes that load the guest most or matter
# most (the kernel's Reno and bbr, ours), 5 runs a point.
#
#   bash results/calibrate.sh [KERNEL] [SCENARIO ...]   (default 6.12, all)
#
# Parts at 1 point at a time take 6-35 min of TCG each, about 4 h in all.
# shellcheck shell=bash
set -euo pipefail
cd "$(dirname "$0")/.."
K=${1:-6.12}
shift || true

# pick SCENARIO AXIS LABEL...: those values of a sweep axis of
# scenarios/SCENARIO.toml (by label, or the value itself), as a TOML array
pick() {
	.venv/bin/python - "$@" <<'PY'
import sys, tomllib
from testbed.cli import toml_inline
name, axis, *labels = sys.argv[1:]
with open(f"scenarios/{name}.toml", "rb") as f:
    values = tomllib.load(f)["sweep"][axis]
key = lambda v: str(v.get("label")) if isinstance(v, dict) else str(v)
got = [v for v in values if key(v) in labels]
if len(got) != len(labels):
    sys.exit(f"pick: {name} {axis}: not all of {labels} in {[key(v) for v in values]}")
print(toml_inline(got))
PY
}

part() {
	local name=$1
	shift
	.venv/bin/python -m testbed calibrate "$name" --kernel "$K" --out results "$@"
}

calibrate_one() {
	case $1 in
	fig5_11) part fig5_11 --set sweep.per=0.05 --set sweep.cc=reno,cubic,bbr,jersey,diffc ;;
	newrenolp) part newrenolp --set sweep.per=0.01 \
		--set sweep.cc=reno,bbr,jersey,newrenolp,oracle ;;
	balde) part balde --set sweep.per=0.01 --set sweep.cc=reno,bbr,jersey,balde ;;
	satellite) part satellite --set "sweep.ber=$(pick satellite ber 1e-05)" \
		--set sweep.cc=reno,bbr,jersey,diffc ;;
	soho) part soho --set sweep.ge_mean=0.05 \
		--set "sweep.variant=$(pick soho variant reno bbr jersey jersey-ack)" ;;
	groundtruth) part groundtruth ;;
	reverse_path) part reverse_path \
		--set "sweep.variant=$(pick reverse_path variant jersey-ack jersey-ts reno bbr)" ;;
	reverse_aiad) part reverse_aiad --set sweep.nflows=5 \
		--set "sweep.variant=$(pick reverse_aiad variant jersey-ack jersey-ts reno bbr)" ;;
	coexistence) part coexistence --set sweep.per=0.01 ;;
	fig5_13) part fig5_13 --set sweep.per=0.05 --set sweep.cc=reno,bbr,jersey,diffc ;;
	newrenolp_ge) part newrenolp_ge --set sweep.bad_per=0.5 \
		--set sweep.cc=reno,bbr,jersey,newrenolp ;;
	staggered) part staggered --set sweep.per=0.01 --set sweep.cc=reno,bbr,jersey,diffc ;;
	fairness) part fairness --set sweep.per=0.01 --set sweep.cc=reno,bbr,jersey ;;
	friendliness) part friendliness --set sweep.per=0 \
		--set "sweep.mix=$(pick friendliness mix 10/10)" \
		--set sweep.ours=jersey,bbr,cubic ;;
	marking) part marking --set sweep.per=0.01 \
		--set "sweep.marking=$(pick marking marking CWAQ VCRR)" \
		--set sweep.cc=reno,bbr,jersey ;;
	# the 20 Mb/s path's 2 + 2 points run two at a time, the fig 5.11
	# path's four (its lone flows on 20 Mb/s run one at a time: left out)
	bottlenecks) part bottlenecks --set "sweep.path=$(pick bottlenecks path 20M-40ms fig5.11)" \
		--set "sweep.gw=$(pick bottlenecks gw pfifo vcrr)" --set sweep.per=0.01 \
		--set "sweep.mix=$(pick bottlenecks mix 2+2cubic 2+2reno)" \
		--set sweep.ours=jersey ;;
	*) echo "calibrate.sh: no part for $1" >&2 && return 2 ;;
	esac
}

ALL=(groundtruth fig5_11 newrenolp balde fig5_13 coexistence newrenolp_ge reverse_path
	fairness friendliness marking soho reverse_aiad staggered satellite bottlenecks)
for name in "${@:-${ALL[@]}}"; do
	calibrate_one "$name"
done
