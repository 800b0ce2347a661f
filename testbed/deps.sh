#!/usr/bin/env bash
# Install everything jersey needs on a Debian 12 (bookworm) machine, from
# Debian's archive and PyPI only.  Idempotent: a second run with everything in
# place makes no network access and takes about a second.
#
#   testbed/deps.sh            install / check everything
#   FORCE_APT_UPDATE=1 ...     refresh the package lists even if nothing is missing
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
venv=${VENV:-$top/.venv}

log() { printf 'deps: %s\n' "$*" >&2; }

if [ "$(id -u)" -ne 0 ]; then
	log "must run as root (installs Debian packages)"; exit 1
fi

# Debian kernel series we build for and boot; the newest ABI of each series is
# resolved from the archive at install time.  6.12 lives in bookworm-backports,
# which is added from the same Debian archive the system's apt sources use.
backports_list=/etc/apt/sources.list.d/jersey-bookworm-backports.list
if ! grep -rqs '^[^#]*bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
	mirror=$("$top/scripts/debian-mirror" bookworm) || exit 1
	log "adding bookworm-backports (from $mirror) to apt sources"
	echo "deb $mirror bookworm-backports main" >"$backports_list"
	FORCE_APT_UPDATE=1
fi

# The packages of every program the project runs (testbed/programs.txt, whose
# completeness tests/test_programs.py checks), and the packages that provide
# no program we start but files we need.
mapfile -t program_pkgs < <(awk '!/^#/ && NF >= 2 && $2 !~ /^pypi:/ { print $2 }' "$here/programs.txt" | sort -u)
[ ${#program_pkgs[@]} -gt 10 ] || { log "testbed/programs.txt lists no packages"; exit 1; }
tools=("${program_pkgs[@]}"
	build-essential   # the compiler toolchain of the modules and unit tests
	libmnl-dev        # the patched tc links libmnl
	python3-venv python3-pip  # the testbed's .venv
	initramfs-tools   # the kernel packages' postinst
	debian-archive-keyring)  # make tc checks iproute2's source against it

missing=()
for p in "${tools[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
have_kernel() { # series: is an image+headers pair of that series installed?
	local ver
	for ver in $(dpkg-query -W -f='${Package}\n' "linux-image-$1*-amd64" 2>/dev/null | sed -n "s/^linux-image-\(.*\)$/\1/p"); do
		dpkg-query -W -f='${Status}' "linux-headers-$ver" 2>/dev/null | grep -q 'ok installed' &&
			dpkg-query -W -f='${Status}' "linux-image-$ver" 2>/dev/null | grep -q 'ok installed' && return 0
	done
	return 1
}
need_61=0; need_612=0
have_kernel '6.1.0-[0-9]' || need_61=1
have_kernel '6.12.' || need_612=1

apt_updated=0
apt_update() {
	[ "$apt_updated" = 1 ] && return
	log "apt-get update"
	apt-get update -qq || apt-get update
	apt_updated=1
}
[ "${FORCE_APT_UPDATE:-0}" = 1 ] && apt_update

export DEBIAN_FRONTEND=noninteractive
apt_install() {
	apt-get install -y -qq --no-install-recommends "$@" >/dev/null || apt-get install -y --no-install-recommends "$@"
}

if [ ${#missing[@]} -gt 0 ]; then
	apt_update
	log "installing: ${missing[*]}"
	apt_install "${missing[@]}"
fi

# abi_of SUITE_PIN: the kernel ABI name (e.g. 6.1.0-56-amd64) that the
# linux-image-amd64 metapackage of the given suite depends on.
abi_of() {
	local v
	v=$(apt-cache madison linux-image-amd64 | awk -v s="$1" '$0 ~ s {print $3; exit}')
	[ -n "$v" ] || { log "no linux-image-amd64 in $1"; exit 1; }
	apt-cache depends "linux-image-amd64=$v" | sed -n 's/.*Depends: linux-image-\(.*\)$/\1/p' | head -n1
}
if [ "$need_61" = 1 ]; then
	apt_update
	abi=$(abi_of 'bookworm-security|bookworm/main')
	log "installing Debian kernel $abi (6.1)"
	apt_install "linux-image-$abi" "linux-headers-$abi"
fi
if [ "$need_612" = 1 ]; then
	apt_update
	abi=$(abi_of 'bookworm-backports')
	log "installing Debian kernel $abi (6.12, bookworm-backports)"
	apt_install -t bookworm-backports "linux-image-$abi" "linux-headers-$abi"
fi

# Kernels of another Debian release (testbed/kernels.txt: Debian 13's, built
# with gcc-14): a debootstrap system in build/<release>/ with their headers
# and compiler, their images unpacked into build/kernel-<abi>/.
"$top/scripts/debian-env" setup

# The kernel's style checker (tests/test_kernel_style.py), from Debian's
# kernel source package: build/checkpatch/.
"$top/scripts/checkpatch" --fetch

# Python: a venv on Debian's interpreter (also present inside the VM guest).
if [ ! -x "$venv/bin/python" ]; then
	log "creating $venv"
	/usr/bin/python3 -m venv --system-site-packages "$venv"
fi
stamp=$venv/.requirements.sha
sum=$(sha256sum "$here/requirements.txt" | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$sum" ]; then
	log "pip install -r testbed/requirements.txt"
	"$venv/bin/pip" install -q --disable-pip-version-check -r "$here/requirements.txt"
	echo "$sum" >"$stamp"
fi
log "ok: $(ls -d /usr/src/linux-headers-*-amd64 "$top"/build/*/usr/src/linux-headers-*-amd64 2>/dev/null | sed 's|.*/usr/src/linux-headers-||' | tr '\n' ' ')"
