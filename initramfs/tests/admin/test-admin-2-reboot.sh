#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Second boot, of the packaged kernel and its initrd from /boot: the
# patch installed in the first boot was applied by kgr.service, which
# finished before network-pre.target was reached; then the administrator
# upgrades to the cumulative patch 2, which replaces 1; a downgrade to 1
# installs its file but leaves the newer patch loaded.
#
# kgr-timeout: 300

. "$(dirname "$0")/common.sh"

start_test "the packaged kernel, booted with its initrd"
V=$(dpkg-query -W -f '${Status} ${Version}' linux-image-$REL)
case $V in
"install ok installed "*kgraft*) ;;
*) die "linux-image-$REL: $V" ;;
esac
dmesg | grep -q "Freeing initrd memory" || die "booted without an initrd"

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
grep -q "^kgr: module kgr_fix_demo_1 of kgr_fix_demo_1 removed$" /tmp/dpkg.out ||
	die "the older patch's module was not removed"
assert_eq "1 1" "$(patched)" "/proc with patch 2"
[ ! -d /sys/module/kgr_fix_demo_1 ] || die "patch 1's module is still loaded"
[ ! -e $DIR/kgr_fix_demo_1.ko ] || die "the upgrade left $DIR/kgr_fix_demo_1.ko"
assert_eq "$REL kgr_fix_demo_2 2 applied" "$(kgr list)" "kgr list after the upgrade"

start_test "a downgrade leaves the newer patch loaded"
pkg_do dpkg -i $DEBS/${PKG}_1_amd64.deb || die "dpkg -i of $PKG 1 over 2 failed"
grep -q "a newer patch (2) is loaded; kgr_fix_demo_1 is not" /tmp/dpkg.out ||
	die "the postinst of the older package did not keep the newer patch"
[ ! -d /sys/module/kgr_fix_demo_1 ] || die "the downgrade loaded kgr_fix_demo_1"
assert_eq "1 1" "$(patched)" "/proc after the downgrade"
kgr list > /tmp/list.out
grep -qx "$REL kgr_fix_demo_1 1 not loaded" /tmp/list.out &&
	grep -qx "$REL kgr_fix_demo_2 - loaded, not installed" /tmp/list.out ||
	die "kgr list after the downgrade: $(cat /tmp/list.out)"
pkg_do dpkg -i $DEBS/${PKG}_2_amd64.deb || die "dpkg -i $PKG 2 after the downgrade failed"
grep -q "^kgr: kgr_fix_demo_2 is already applied$" /tmp/dpkg.out ||
	die "the postinst of 2 did not find its patch applied"
log "ok"
exit 0
