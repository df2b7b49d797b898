#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# install-deps.sh PACKAGE...
#
# Install the Debian packages the build and the QEMU boot need.  Does
# nothing (and needs no root) when dpkg already reports all of them as
# installed; otherwise runs apt-get update + install as root.

set -euo pipefail

[ $# -gt 0 ] || { echo "usage: $0 PACKAGE..." >&2; exit 2; }

missing=()
for pkg in "$@"; do
	status=$(dpkg -s "$pkg" 2>/dev/null | sed -n 's/^Status: //p' || true)
	[ "$status" = "install ok installed" ] || missing+=("$pkg")
done

if [ ${#missing[@]} -eq 0 ]; then
	echo "deps: all $# packages installed, nothing to do"
	exit 0
fi

echo "deps: missing: ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: must run as root to install them (sudo make deps)" >&2
	exit 1
fi

export DEBIAN_FRONTEND=noninteractive
echo "deps: apt-get update"
apt-get update
echo "deps: apt-get install -y --no-install-recommends $*"
apt-get install -y --no-install-recommends "$@"
