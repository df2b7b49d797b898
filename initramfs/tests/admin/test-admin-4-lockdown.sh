#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Fourth boot, with lockdown=integrity: the package removed in the third
# boot stays removed (nothing loaded at boot); an unsigned patch module is
# refused, by kgr with the reason and by the kernel itself; a module
# signed with the build's key (as every module of the image and of the
# packages is) loads and patches.
#
# kgr-timeout: 300

. "$(dirname "$0")/common.sh"

start_test "after the removal, nothing is loaded at boot"
assert_eq "0 0" "$(patched)" "/proc after the reboot"
unit_log > /tmp/unit.out
grep -q "^kgr: no patch installed for $REL$" /tmp/unit.out ||
	die "kgr.service: $(cat /tmp/unit.out)"

start_test "lockdown=integrity: unsigned patch modules are refused, signed ones load"
grep -q '\[integrity\]' /sys/kernel/security/lockdown ||
	die "not locked down: $(cat /sys/kernel/security/lockdown)"
U=/lib/modules-unsigned/kgr_fix_demo_1.ko
[ -f $U ] || die "no $U in the image"
if kgr load $U > /tmp/load.out 2>&1; then
	die "kgr load of an unsigned module succeeded"
fi
log "kgr load: $(cat /tmp/load.out)"
grep -q "is not signed, and this kernel loads only signed modules (lockdown=integrity)" /tmp/load.out ||
	die "kgr load did not say why: $(cat /tmp/load.out)"
if insmod $U 2> /tmp/insmod.out; then
	die "the kernel loaded an unsigned module under lockdown"
fi
log "insmod: $(cat /tmp/insmod.out)"
dmesg | grep -q "Lockdown: insmod: unsigned module loading is restricted" ||
	die "no lockdown message in the kernel log"
assert_eq "0 0" "$(patched)" "/proc after the refusals"
S=$(ls $MODDIR/kgr_fix_01_*.ko)
kgr load "$S" > /tmp/load.out 2>&1 || die "kgr load of the signed $S failed: $(cat /tmp/load.out)"
assert_eq "1 0" "$(patched)" "/proc with the signed module"
kgr revert kgr_fix_01_proc_meminfo_memused > /dev/null || die "kgr revert failed"
assert_eq "0 0" "$(patched)" "/proc after the revert"
log "ok"
exit 0
