# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the tests of /tests/admin: the guest's functions and what the
# four boots share.

. "$(dirname "$0")/../functions.sh"

DEBS=/var/cache/kgr-debs
REL=$(uname -r)
PKG=kgraft-patch-$REL
DIR=/lib/modules/$REL/kgraft

[ -f /var/lib/dpkg/status ] && command -v apt-get > /dev/null ||
	skip "no dpkg and apt in this guest"
[ -f $DEBS/kgraft-tools_1.0_all.deb ] || skip "no packages in $DEBS"

# patched: "MEMUSED UPTIME_MS", 1 or 0 each: what the demonstration
# patches change in /proc (MemUsed: both; thousandths in uptime: 2)
patched() {
	echo "$(grep -c '^MemUsed:' /proc/meminfo) $(grep -cE '^[0-9]+\.[0-9]{3} ' /proc/uptime)"
}

# unit_log: what kgr.service said in this boot
unit_log() {
	journalctl -b -u kgr.service --no-pager -o cat 2>&1
}
