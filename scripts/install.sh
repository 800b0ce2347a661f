#!/usr/bin/env bash
# Install jersey on a real machine (called by make; README "Installing on a
# host or a gateway").
#
#   make install     build the modules for the kernel(s), modules_install them
#                    into <root>/lib/modules/<abi>/extra/jersey/, depmod, and
#                    install the patched tc beside the system's one
#   make uninstall   remove extra/jersey/ (of every kernel that has it, or of
#                    KVER's), depmod, unload our modules when nothing uses
#                    them, remove our tc (and give the system's tc back)
#   make install-tc, make uninstall-tc
#                    the same for the patched tc only
#   make dkms-src    copy dkms.conf and the module sources to
#                    <DESTDIR>/usr/src/jersey-<VERSION> for `dkms install`
#
# Variables (make VAR=value, or the environment):
#   KVER              kernels, space separated: host (the running kernel),
#                     names of testbed/kernels.txt (the pinned Debian kernels:
#                     6.1, 6.12, trixie-6.12, 7.3) or ABI names.
#                     Default: the kernel of KDIR if given, else the running
#                     kernel.
#   KDIR              a kernel build tree; install for its kernel
#   DESTDIR           staging root for packages: every file goes below it and
#                     depmod is left to the target (the package's postinst)
#   INSTALL_MOD_PATH  root of the module tree (kbuild's variable), e.g. a
#                     mounted system image; depmod -b runs on it
#   PREFIX            /usr/local; SBINDIR ($PREFIX/sbin) receives tc
#   TC_INSTALL        beside (default): $SBINDIR/tc, the system's tc is not
#                       touched (root's PATH has /usr/local/sbin first);
#                     replace: over the system's tc (SYSTEM_TC, /usr/sbin/tc),
#                       which is kept by dpkg-divert (Debian/Ubuntu) or as
#                       SYSTEM_TC.jersey-orig, and restored by make uninstall;
#                     none: no tc
#
# Which modules exist is never written here: modules_install installs what
# the Kbuild files build, and uninstall removes the extra/jersey/ directory.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
MAKE=${MAKE:-make}
KVER=${KVER:-}
KDIR=${KDIR:-}
DESTDIR=${DESTDIR:-}
INSTALL_MOD_PATH=${INSTALL_MOD_PATH:-}
PREFIX=${PREFIX:-/usr/local}
SBINDIR=${SBINDIR:-$PREFIX/sbin}
TC_INSTALL=${TC_INSTALL:-beside}
SYSTEM_TC=${SYSTEM_TC:-/usr/sbin/tc}
BUILDDIR=${BUILDDIR:-$top/build}
MOD_DIR=extra/jersey
TC_BUILT=$top/build/tc
# a string only the patched tc contains: how we recognise our tc
TC_MARK='Usage: ... vcrr'
PATH=$PATH:/usr/sbin:/sbin

say() { echo "jersey: $*"; }
die() {
	echo "jersey: error: $*" >&2
	exit 1
}

modroot=$DESTDIR$INSTALL_MOD_PATH
live=1 # installing into the running system (not a staging tree)
[ -z "$DESTDIR" ] && [ -z "$INSTALL_MOD_PATH" ] || live=0

case "$TC_INSTALL" in
beside | replace | none) ;;
*) die "TC_INSTALL=$TC_INSTALL: use beside, replace or none" ;;
esac

# the kernels to install for, as arguments of scripts/kdir
targets() {
	if [ -n "$KVER" ]; then
		echo "$KVER"
	elif [ -n "$KDIR" ]; then
		echo kdir
	elif [ -e /proc/modules ]; then
		echo host
	else
		die "the running kernel ($(uname -r)) cannot load modules (no /proc/modules);" \
			"say which kernel to install for: make install KVER=<abi> [DESTDIR=...]"
	fi
}

is_our_tc() { [ -f "$1" ] && grep -qaF "$TC_MARK" "$1"; }

depmod_for() { # ABI
	if [ -n "$DESTDIR" ]; then
		say "staged in $DESTDIR: run 'depmod -a $1' on the target after installing"
	elif [ -n "$INSTALL_MOD_PATH" ]; then
		say "DEPMOD  $INSTALL_MOD_PATH/lib/modules/$1"
		depmod -b "$INSTALL_MOD_PATH" -a "$1"
	else
		say "DEPMOD  /lib/modules/$1"
		depmod -a "$1"
	fi
}

# kbuild signs at modules_install when CONFIG_MODULE_SIG_ALL=y; distribution
# header packages do not ship the private key, so only sign when it is there
# (for Secure Boot use DKMS, which signs with its own enrolled key).
sign_args() { # KDIR
	local key
	key=$(sed -n 's/^CONFIG_MODULE_SIG_KEY="\(.*\)"$/\1/p' "$1/.config" 2>/dev/null || true)
	case "$key" in
	"" | pkcs11:*) return 0 ;;
	/*) ;;
	*) key=$1/$key ;;
	esac
	[ -f "$key" ] || echo "CONFIG_MODULE_SIG_ALL="
}

install_modules() { # K
	local abi kdir root log dest
	read -r abi kdir root < <("$top/scripts/kdir" "$1")
	log=$(mktemp)
	rm -rf "$modroot/lib/modules/$abi/$MOD_DIR" # no stale modules of older versions
	# A kernel of another Debian release (Debian 13's, testbed/kernels.txt) is
	# installed by its own kbuild and tools in that release's system
	# (build/<release>, scripts/debian-env) into a staging tree below
	# BUILDDIR, which is then copied into place.
	dest=$modroot
	[ "$root" = / ] || dest=$BUILDDIR/.install-$abi
	[ "$root" = / ] || rm -rf "$dest"
	# kbuild's own depmod is skipped (DEPMOD=true): depmod_for decides
	# shellcheck disable=SC2046
	if ! "$top/scripts/debian-env" run --bind "$BUILDDIR" "$root" \
		"$MAKE" --no-print-directory -C "$kdir" M="$BUILDDIR/$abi" modules_install \
		INSTALL_MOD_PATH="$dest" INSTALL_MOD_DIR="$MOD_DIR" INSTALL_MOD_STRIP=1 \
		DEPMOD=true $(sign_args "${root%/}$kdir") >"$log" 2>&1; then
		cat "$log" >&2
		rm -f "$log"
		die "modules_install for $abi failed"
	fi
	grep -v -e "missing 'System.map'" -e '^make.*directory' -e '^  DEPMOD ' "$log" || true
	rm -f "$log"
	if [ "$root" != / ]; then
		[ -d "$dest/lib/modules/$abi/$MOD_DIR" ] || die "modules_install for $abi installed nothing"
		mkdir -p "$(dirname "$modroot/lib/modules/$abi/$MOD_DIR")"
		cp -R "$dest/lib/modules/$abi/$MOD_DIR" "$modroot/lib/modules/$abi/$MOD_DIR"
		rm -rf "$dest"
		say "INSTALL $modroot/lib/modules/$abi/$MOD_DIR (built and installed in ${root#"$top"/})"
	fi
	depmod_for "$abi"
}

install_tc() {
	local dst pkgpath
	case "$TC_INSTALL" in
	none) return 0 ;;
	beside)
		dst=$DESTDIR$SBINDIR/tc
		if [ -e "$dst" ] && ! is_our_tc "$dst"; then
			die "$dst exists and is not jersey's tc; to replace the system's tc use" \
				"TC_INSTALL=replace, or choose another PREFIX"
		fi
		install -D -m 0755 "$TC_BUILT" "$dst"
		say "INSTALL $dst (the system's tc is untouched)"
		if [ "$live" = 1 ] && [ "$(command -v tc)" != "$SBINDIR/tc" ]; then
			say "note: 'tc' in this PATH is $(command -v tc || echo nothing);" \
				"put $SBINDIR before /usr/sbin or call $SBINDIR/tc for cw and vcrr"
		fi
		;;
	replace)
		dst=$DESTDIR$SYSTEM_TC
		if [ -n "$DESTDIR" ] || is_our_tc "$dst" || [ ! -e "$dst" ]; then
			: # staging, an update of our tc, or nothing to keep
		elif pkgpath=$(dpkg_path "$SYSTEM_TC"); then
			dpkg-divert --local --rename --divert "$pkgpath.distrib" --add "$pkgpath"
		else
			cp -p "$dst" "$dst.jersey-orig"
			say "kept the system's tc as $dst.jersey-orig"
		fi
		install -D -m 0755 "$TC_BUILT" "$dst"
		say "INSTALL $dst (replaces the system's tc; make uninstall restores it)"
		;;
	esac
}

# The path under which dpkg knows FILE (/usr/sbin/tc is /sbin/tc in
# bookworm's package lists, merged /usr or not); fails if no package owns it.
dpkg_path() {
	local alt owned
	command -v dpkg-divert >/dev/null && command -v dpkg >/dev/null || return 1
	case "$1" in
	/usr/sbin/* | /usr/bin/*) alt=${1#/usr} ;;
	/sbin/* | /bin/*) alt=/usr$1 ;;
	*) alt=$1 ;;
	esac
	# one dpkg -S for both names (it reads every package's file list); it
	# fails when either is unknown, so look at what it found
	owned=$(dpkg -S "$1" "$alt" 2>/dev/null || true)
	owned=$(printf '%s\n' "$owned" | sed -n '/: /{s/^[^:]*: //p;q}')
	[ -n "$owned" ] && echo "$owned"
}

uninstall_tc() {
	local dst pkgpath
	dst=$DESTDIR$SBINDIR/tc
	if is_our_tc "$dst"; then
		rm -f "$dst"
		say "REMOVE  $dst"
	fi
	dst=$DESTDIR$SYSTEM_TC
	if is_our_tc "$dst"; then # TC_INSTALL=replace: give the system's tc back
		pkgpath=$(dpkg_path "$SYSTEM_TC" || true)
		if [ -z "$DESTDIR" ] && [ -n "$pkgpath" ] &&
			dpkg-divert --list "$pkgpath" | grep -q "^local diversion"; then
			rm -f "$dst"
			dpkg-divert --local --rename --remove "$pkgpath"
			say "RESTORE $dst (dpkg-divert --remove)"
		elif [ -e "$dst.jersey-orig" ]; then
			mv -f "$dst.jersey-orig" "$dst"
			say "RESTORE $dst"
		else
			rm -f "$dst"
			say "REMOVE  $dst; no copy of the system's tc was kept: reinstall iproute2"
		fi
	elif [ -e "$dst.jersey-orig" ]; then
		rm -f "$dst.jersey-orig" # the package replaced our tc meanwhile
	fi
}

do_install() {
	local k ks
	ks=$(targets)
	for k in $ks; do # build everything first: fail before installing anything
		"$MAKE" --no-print-directory -C "$top" build-one K="$k" WERROR=0 TESTBED_MODULES=0
	done
	build_tc
	for k in $ks; do
		install_modules "$k"
	done
	install_tc
}

build_tc() {
	[ "$TC_INSTALL" = none ] && return 0
	"$MAKE" --no-print-directory -C "$top" tc
	[ -x "$TC_BUILT" ] || die "$TC_BUILT missing (make tc)"
}

do_uninstall() {
	local k abi dirs=() d m loaded=()
	if [ -n "$KVER" ] || [ -n "$KDIR" ]; then
		for k in $(targets); do
			if [ "$k" = host ]; then abi=$(uname -r); else
				read -r abi _ < <("$top/scripts/kdir" "$k")
			fi
			dirs+=("$modroot/lib/modules/$abi/$MOD_DIR")
		done
	else
		for d in "$modroot"/lib/modules/*/"$MOD_DIR"; do
			[ -d "$d" ] && dirs+=("$d")
		done
	fi
	for d in "${dirs[@]}"; do
		[ -d "$d" ] || continue
		abi=${d%/"$MOD_DIR"}
		abi=${abi##*/}
		if [ "$live" = 1 ] && [ "$abi" = "$(uname -r)" ]; then
			while read -r m; do
				m=${m##*/}
				loaded+=("${m%%.ko*}")
			done < <(find "$d" -name '*.ko*')
		fi
		rm -rf "$d"
		rmdir "${d%/jersey}" 2>/dev/null || true # extra/, if now empty
		say "REMOVE  $d"
		depmod_for "$abi"
	done
	[ ${#dirs[@]} -gt 0 ] || say "no jersey modules installed under $modroot/lib/modules"
	for m in "${loaded[@]}"; do
		grep -q "^$m " /proc/modules || continue
		if rmmod "$m" 2>/dev/null; then
			say "UNLOAD  $m"
		else
			say "note: $m is still loaded (in use: a socket, the default congestion" \
				"control or a qdisc); it goes away with rmmod $m once unused, or at reboot"
		fi
	done
	uninstall_tc
}

# dkms.conf and the sources DKMS builds (the directories named by Kbuild)
do_dkms_src() {
	local ver dst d
	ver=$(cat "$top/VERSION")
	dst=$DESTDIR/usr/src/jersey-$ver
	rm -rf "$dst"
	mkdir -p "$dst"
	cp "$top/dkms.conf" "$top/VERSION" "$top/Kbuild" "$dst/"
	for d in $(sed -n 's/^[[:space:]]*obj-m[[:space:]]*[+:]*=//p' "$top/Kbuild"); do
		d=${d%/}
		mkdir -p "$dst/$d"
		cp "$top/$d/Kbuild" "$top/$d"/*.[ch] "$dst/$d/"
	done
	say "INSTALL $dst (now: dkms install jersey/$ver)"
}

case "${1:-}" in
install) do_install ;;
uninstall) do_uninstall ;;
install-tc)
	build_tc
	install_tc
	;;
uninstall-tc) uninstall_tc ;;
dkms-src) do_dkms_src ;;
*)
	sed -n '2,32p' "$0"
	exit 2
	;;
esac
