#!/usr/bin/env bash
# Build a tc (iproute2) that can configure jersey's qdiscs "cw" and "vcrr".
#
#   iproute2-patch/build-tc.sh            -> build/tc   (relative to the repo)
#   iproute2-patch/build-tc.sh --force    rebuild even when up to date
#
# Source: the iproute2 source package of Debian bookworm, exactly version
# IPROUTE2_DEB below (upstream iproute2 6.1.0).  It is fetched by
# `apt-get source` through a private apt configuration under build/iproute2/
# (a deb-src line for bookworm on the Debian archive the system's apt uses,
# scripts/debian-mirror, or DEBIAN_MIRROR; the system's apt sources are not touched),
# so apt checks it against the signed Release file.  dpkg-source unpacks it
# with Debian's own patches; then the jersey patch is applied (dry run first,
# no fuzz accepted) and only lib/ and tc/ are built.  The patch carries a copy
# of qdisc/jersey_pkt_sched.h, which must be identical to the one the modules
# use; iproute2-patch/mkpatch.sh regenerates the patch after edits.
#
# When build/tc is newer than nothing that went into it (patch, header, this
# script, same package version) the script only says so and exits.
#
# Debian packages needed to run it (build dependencies):
DEPS_PKGS="gcc libc6-dev make pkg-config bison flex libmnl-dev dpkg-dev patch xz-utils apt debian-archive-keyring"
set -euo pipefail

IPROUTE2_DEB=6.1.0-3
IPROUTE2_UPSTREAM=6.1.0
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/.." && pwd)
PATCH=$HERE/0001-tc-add-jersey-qdiscs-cw-and-vcrr.patch
HEADER=$TOP/qdisc/jersey_pkt_sched.h
WORK=$TOP/build/iproute2
DL=$WORK/dl
SRC=$WORK/iproute2-$IPROUTE2_UPSTREAM
PRISTINE=$WORK/pristine
OUT=$TOP/build/tc
STAMP=$WORK/stamp

die() {
	echo "build-tc.sh: error: $*" >&2
	exit 1
}
say() { echo "build-tc.sh: $*"; }

force=0
case "${1:-}" in
--force) force=1 ;;
"") ;;
-h | --help)
	sed -n '2,22p' "$0"
	exit 0
	;;
*) die "unknown argument '$1' (try --help)" ;;
esac

[ -f "$PATCH" ] || die "patch $PATCH is missing"
[ -f "$HEADER" ] || die "header $HEADER is missing"

stamp_value() {
	cat "$PATCH" "$HEADER" "$0" | sha256sum | cut -d' ' -f1
	echo "$IPROUTE2_DEB"
}

if [ $force = 0 ] && [ -x "$OUT" ] && [ -f "$STAMP" ] &&
	[ "$(cat "$STAMP")" = "$(stamp_value)" ]; then
	say "build/tc is up to date (iproute2 $IPROUTE2_DEB + jersey patch)"
	exit 0
fi

check_deps() {
	local missing=() cmd
	for cmd in gcc make pkg-config bison flex dpkg-source patch xz apt-get; do
		command -v "$cmd" >/dev/null 2>&1 || missing+=("$cmd")
	done
	pkg-config --exists libmnl 2>/dev/null || missing+=("libmnl (pkg-config)")
	[ -r "$KEYRING" ] || missing+=("$KEYRING")
	if [ ${#missing[@]} -gt 0 ]; then
		echo "build-tc.sh: missing build dependencies: ${missing[*]}" >&2
		echo "build-tc.sh: install them with:" >&2
		echo "    apt-get install -y $DEPS_PKGS" >&2
		exit 1
	fi
}

# apt-get with a private configuration: only bookworm's deb-src.
papt() {
	apt-get -q \
		-o Dir::Etc::SourceList="$WORK/apt/sources.list" \
		-o Dir::Etc::SourceParts=/nonexistent \
		-o Dir::State::Lists="$WORK/apt/lists" \
		-o Dir::Cache="$WORK/apt/cache" \
		-o APT::Sandbox::User=root \
		"$@"
}

fetch_source() {
	local dsc=$DL/iproute2_$IPROUTE2_DEB.dsc MIRROR
	if [ -f "$dsc" ] && [ -f "$DL/iproute2_$IPROUTE2_UPSTREAM.orig.tar.xz" ] &&
		[ -f "$DL/iproute2_$IPROUTE2_DEB.debian.tar.xz" ]; then
		return 0
	fi
	# the archive the system's apt uses (or DEBIAN_MIRROR)
	MIRROR=$("$TOP/scripts/debian-mirror" bookworm) || die "no Debian archive to fetch from"
	say "fetching Debian source package iproute2=$IPROUTE2_DEB from $MIRROR"
	mkdir -p "$WORK/apt/lists/partial" "$WORK/apt/cache/archives/partial" "$DL"
	echo "deb-src [signed-by=$KEYRING] $MIRROR bookworm main" >"$WORK/apt/sources.list"
	papt update >"$WORK/apt/update.log" 2>&1 ||
		die "apt-get update of bookworm deb-src failed (see $WORK/apt/update.log)"
	(cd "$DL" && papt source --download-only "iproute2=$IPROUTE2_DEB") \
		>"$WORK/apt/source.log" 2>&1 ||
		die "apt-get source iproute2=$IPROUTE2_DEB failed (see $WORK/apt/source.log)"
	[ -f "$dsc" ] || die "apt-get source did not produce $dsc"
}

# unpack the Debian source package into $1 and check its version
unpack() {
	local dir=$1 ver
	rm -rf "$dir"
	dpkg-source -x "$DL/iproute2_$IPROUTE2_DEB.dsc" "$dir" \
		>"$WORK/unpack.log" 2>&1 || die "dpkg-source -x failed (see $WORK/unpack.log)"
	rm -f "$WORK"/iproute2_*.orig.tar.*	# dpkg-source's copy next to $dir
	ver=$(cd "$dir" && dpkg-parsechangelog -S Version)
	[ "$ver" = "$IPROUTE2_DEB" ] ||
		die "unpacked iproute2 is version $ver, expected $IPROUTE2_DEB"
	grep -q "\"$IPROUTE2_UPSTREAM\"" "$dir/include/version.h" ||
		die "$dir/include/version.h does not say $IPROUTE2_UPSTREAM"
}

apply_patch() {
	local dir=$1
	if ! patch -d "$dir" -p1 -F0 -N --dry-run <"$PATCH" >"$WORK/patch.log" 2>&1; then
		cat "$WORK/patch.log" >&2
		die "$(basename "$PATCH") does not apply cleanly to iproute2 $IPROUTE2_DEB"
	fi
	patch -d "$dir" -p1 -F0 -N -s --no-backup-if-mismatch <"$PATCH" ||
		die "applying $(basename "$PATCH") failed"
	if ! cmp -s "$dir/tc/jersey_pkt_sched.h" "$HEADER"; then
		diff -u "$HEADER" "$dir/tc/jersey_pkt_sched.h" >&2 || true
		die "the patch's tc/jersey_pkt_sched.h differs from qdisc/jersey_pkt_sched.h;" \
			"run iproute2-patch/mkpatch.sh to refresh the patch"
	fi
}

build() {
	local dir=$1
	say "building tc in ${dir#"$TOP"/}"
	(
		cd "$dir"
		./configure >"$WORK/configure.log" 2>&1
		make -j"$(nproc)" SUBDIRS="lib tc" >"$WORK/make.log" 2>&1
	) || {
		tail -n 30 "$WORK/make.log" >&2 2>/dev/null || true
		die "building tc failed (see $WORK/configure.log and $WORK/make.log)"
	}
	[ -x "$dir/tc/tc" ] || die "the build did not produce tc/tc"
}

check_deps
mkdir -p "$WORK"
fetch_source
[ -d "$PRISTINE" ] || unpack "$PRISTINE"
unpack "$SRC.new"
apply_patch "$SRC.new"
build "$SRC.new"
rm -rf "$SRC"
mv "$SRC.new" "$SRC"
install -m 0755 "$SRC/tc/tc" "$OUT.new"
mv -f "$OUT.new" "$OUT"
stamp_value >"$STAMP"
say "built ${OUT#"$TOP"/}: $("$OUT" -V)"
