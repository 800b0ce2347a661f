#!/usr/bin/env bash
# Regenerate iproute2-patch/0001-tc-add-jersey-qdiscs-cw-and-vcrr.patch.
#
#   iproute2-patch/mkpatch.sh [TREE]
#
# TREE (default build/iproute2/iproute2-6.1.0, the tree build-tc.sh last
# built) holds the edited tc/q_cw.c, tc/q_vcrr.c and tc/Makefile; they are
# diffed against the pristine Debian tree that build-tc.sh unpacked
# (build/iproute2/pristine).  tc/jersey_pkt_sched.h is always taken from
# qdisc/jersey_pkt_sched.h, so the patch's copy cannot drift.  Run
# build-tc.sh afterwards to rebuild build/tc.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/.." && pwd)
PATCH=$HERE/0001-tc-add-jersey-qdiscs-cw-and-vcrr.patch
TREE=${1:-$TOP/build/iproute2/iproute2-6.1.0}
PRISTINE=$TOP/build/iproute2/pristine
FILES="tc/Makefile tc/jersey_pkt_sched.h tc/q_cw.c tc/q_vcrr.c"

[ -d "$PRISTINE" ] || { echo "mkpatch.sh: run iproute2-patch/build-tc.sh first" >&2; exit 1; }
[ -d "$TREE" ] || { echo "mkpatch.sh: no tree $TREE" >&2; exit 1; }
cp "$TOP/qdisc/jersey_pkt_sched.h" "$TREE/tc/jersey_pkt_sched.h"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
cat >"$tmp" <<'MSG'
From: jersey project
Subject: [PATCH] tc: add the jersey marking qdiscs cw and vcrr

Adds tc/q_cw.c (Congestion Warning, deterministic ECN marking on an EWMA
or persistent queue threshold) and tc/q_vcrr.c (Virtual Capacity Rate
Regulation, probabilistic ECN marking), with a copy of the netlink
interface header tc/jersey_pkt_sched.h (identical to the kernel modules'
qdisc/jersey_pkt_sched.h).  Against Debian bookworm's iproute2 6.1.0-3.

MSG
for f in $FILES; do
	if [ -e "$PRISTINE/$f" ]; then
		old=$PRISTINE/$f label=a/$f
		echo "diff --git a/$f b/$f" >>"$tmp"
	else
		old=/dev/null label=/dev/null
		printf 'diff --git a/%s b/%s\nnew file mode 100644\n' "$f" "$f" >>"$tmp"
	fi
	# diff exits 1 when the files differ
	diff -u --label "$label" --label "b/$f" "$old" "$TREE/$f" >>"$tmp" || [ $? = 1 ]
done
mv "$tmp" "$PATCH"
trap - EXIT
echo "mkpatch.sh: wrote ${PATCH#"$TOP"/}"
