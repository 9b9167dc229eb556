#!/bin/sh
# deps.sh - make sure the Debian packages a make target needs are present.
#
#   scripts/deps.sh build|check|demo|fuzz|browser|slurm
#
# Fast no-op when everything is installed.  As root, missing packages are
# installed with apt-get (one "apt-get update" first); otherwise the exact
# command to run is printed and the script fails.
set -eu

need="gcc make pkg-config libsodium-dev libyaml-dev libgmp-dev"
case "${1:-build}" in
build) ;;
check) need="$need libcmocka-dev libssl-dev openssl python3 valgrind devscripts" ;;
demo) need="$need python3" ;;
fuzz) need="$need clang" ;;
browser) need="$need python3 chromium" ;;
slurm) need="$need slurm-wlm munge" ;;
*) echo "deps.sh: unknown target '$1'" >&2; exit 2 ;;
esac

missing=""
for pkg in $need; do
	if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed"; then
		missing="$missing $pkg"
	fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "tunectl needs these Debian packages:$missing" >&2
	echo "run: sudo apt-get update && sudo apt-get install -y$missing" >&2
	exit 1
fi
echo "deps.sh: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >&2
