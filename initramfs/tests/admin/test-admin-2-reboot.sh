#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Second boot, after the first installed patch 1: kgr.service applied it
# at boot, and finished before network-pre.target was reached; then the
# administrator upgrades to the cumulative patch 2.
#
# kgr-timeout: 120

. "$(dirname "$0")/common.sh"

start_test "the installed patch is applied at boot, before the network"
assert_eq "1 0" "$(patched)" "/proc after the reboot"
assert_eq active "$(systemctl is-active kgr.service)" "kgr.service"
unit_log > /tmp/unit.out
log "kgr.service: $(cat /tmp/unit.out)"
grep -q "^kgr: kgr_fix_demo_1 is applied$" /tmp/unit.out || die "kgr.service did not apply the patch"
done_at=$(systemctl show -P ExecMainExitTimestampMonotonic kgr.service)
net_at=$(systemctl show -P ActiveEnterTimestampMonotonic network-pre.target)
log "kgr.service done at $done_at us, network-pre.target reached at $net_at us"
[ "$done_at" -gt 0 ] && [ "$net_at" -ge "$done_at" ] ||
	die "network-pre.target ($net_at us) was reached before kgr.service finished ($done_at us)"

start_test "upgrade to the cumulative patch 2"
pkg_do dpkg -i $DEBS/${PKG}_2_amd64.deb || die "dpkg -i $PKG 2 failed"
assert_eq "1 1" "$(patched)" "/proc with patch 2"
[ ! -d /sys/module/kgr_fix_demo_1 ] || die "patch 1's module is still loaded"
assert_eq "$REL kgr_fix_demo_2 2 applied" "$(kgr list)" "kgr list after the upgrade"
log "ok"
exit 0
