# Sourced by the results/bottlenecks-*.sh and vcrr-estimator.sh scripts: the
# sweep values of scenarios/bottlenecks.toml they pick with --set, and how they
# run its accept profile.
# shellcheck shell=bash
PFIFO='{ label = "pfifo", q = "pfifo" }'
CWAQ='{ label = "cw-aq", q = { kind = "cw", mode = "aq" } }'
VCRR='{ label = "vcrr", q = "vcrr" }'
FQ='{ label = "fq_codel-ecn", q = { kind = "fq_codel", ecn = true } }'
ALONE='{ label = "alone", ours = 1, cubic = 0, reno = 0, rival = "cubic" }'
MIX='{ label = "2+2cubic", ours = 2, cubic = 2, reno = 0, rival = "cubic" }'
# the short path (20 Mb/s, 4 ms; its drop-tail buffer of 7 packets holds 4 ms)
SHORT='{ label = "20M-4ms", wired_mbit = 100, wired_ms = 1, wireless_mbit = 20, buf = 7 }'
# the thesis fig 5.11 path (2 Mb/s, 92 ms) and its 2 + 2 Reno mix
F511='{ label = "fig5.11", wired_mbit = 10, wired_ms = 45, wireless_mbit = 2, buf = 15 }'
RENO='{ label = "2+2reno", ours = 2, cubic = 0, reno = 2, rival = "reno" }'

# bottlenecks_run OUT KERNEL [--set ...]: bottlenecks' accept profile, every
# exclusion lifted, results under OUT/<kernel series>/
bottlenecks_run() {
	local out=$1 k=$2
	shift 2
	.venv/bin/python -m testbed run bottlenecks --profile accept --kernel "$k" --out "$out" \
		--set 'exclude=[]' "$@"
}
