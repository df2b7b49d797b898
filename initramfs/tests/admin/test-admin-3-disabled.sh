#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Third boot, with kgr.enable=0 on the kernel command line: kgr.service
# does not run and nothing is patched; the administrator loads patch 2 by
# hand, then removes the package, which reverts it, and purges it, which
# leaves nothing behind.
#
# kgr-timeout: 300

. "$(dirname "$0")/common.sh"

start_test "kgr.enable=0: no patch at boot"
grep -qw kgr.enable=0 /proc/cmdline || die "booted without kgr.enable=0"
assert_eq "0 0" "$(patched)" "/proc with kgr.enable=0"
assert_eq no "$(systemctl show -P ConditionResult kgr.service)" "the condition of kgr.service"
assert_eq "$REL kgr_fix_demo_2 2 not loaded" "$(kgr list)" "kgr list"

start_test "load by hand, then remove and purge the package"
kgr load kgr_fix_demo_2 > /tmp/load.out 2>&1 || die "kgr load kgr_fix_demo_2 failed: $(cat /tmp/load.out)"
assert_eq "1 1" "$(patched)" "/proc after kgr load"
pkg_do apt-get remove -y $PKG || die "apt-get remove $PKG failed"
grep -q "^kgr: kgr_fix_demo_2 is reverted$" /tmp/dpkg.out || die "the prerm did not revert the patch"
assert_eq "0 0" "$(patched)" "/proc after the removal"
[ ! -d /sys/module/kgr_fix_demo_2 ] || die "kgr_fix_demo_2 is still loaded after the removal"
pkg_do dpkg --purge $PKG || die "dpkg --purge $PKG failed"
[ ! -e "$DIR" ] || die "the purge left $DIR: $(ls "$DIR")"
dpkg-query -W $PKG > /dev/null 2>&1 && die "dpkg still knows $PKG after the purge"
assert_eq "" "$(kgr list)" "kgr list after the purge"
log "ok"
exit 0
