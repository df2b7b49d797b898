#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# First boot (the kernel of the build tree): the administrator installs
# the kernel package, whose postinst runs Debian's hooks (initramfs-tools
# makes its initrd); then kgraft-tools (kgr, its manual, kgr.service
# enabled) and the patch package of that kernel, whose patch is applied
# at once and tells its version and ids.
#
# kgr-timeout: 300

. "$(dirname "$0")/common.sh"

start_test "the kernel package, with its initrd made by Debian's hooks"
pkg_do dpkg -i $DEBS/linux-image-${REL}_*.deb || die "dpkg -i linux-image-$REL failed"
grep -q "update-initramfs: Generating /boot/initrd.img-$REL" /tmp/dpkg.out ||
	die "no initramfs hook ran"
[ -f /boot/vmlinuz-$REL ] && [ -f /boot/initrd.img-$REL ] ||
	die "no /boot/vmlinuz-$REL or /boot/initrd.img-$REL: $(ls -l /boot)"

start_test "kgraft-tools: kgr, its manual and kgr.service"
pkg_do dpkg -i $DEBS/kgraft-tools_1.0_all.deb || die "dpkg -i kgraft-tools failed"
[ -x /usr/sbin/kgr ] || die "no /usr/sbin/kgr"
assert_eq enabled "$(systemctl is-enabled kgr.service 2>&1)" "systemctl is-enabled kgr.service"
MANPAGER=cat MANWIDTH=80 man kgr > /tmp/man.out 2>&1 || die "man kgr failed: $(cat /tmp/man.out)"
grep -q "kgr - load, revert and inspect kGraft live patches" /tmp/man.out ||
	die "man kgr shows no manual: $(head -n 5 /tmp/man.out)"

start_test "a patch package applies its patch when installed"
assert_eq "0 0" "$(patched)" "/proc before any patch"
dpkg-deb -f $DEBS/${PKG}_1_amd64.deb Depends > /tmp/depends.out
grep -q "linux-image-$REL (= $(dpkg-query -W -f '${Version}' linux-image-$REL))" /tmp/depends.out ||
	die "$PKG does not depend on the exact kernel package: $(cat /tmp/depends.out)"
pkg_do dpkg -i $DEBS/${PKG}_1_amd64.deb || die "dpkg -i $PKG 1 failed"
grep -q "^kgr: kgr_fix_demo_1 is applied$" /tmp/dpkg.out || die "the postinst did not apply the patch"
assert_eq "1 0" "$(patched)" "/proc with patch 1"
assert_eq "$REL kgr_fix_demo_1 1 applied" "$(kgr list)" "kgr list"
kgr patches -v > /tmp/patches.out
log "kgr patches -v: $(cat /tmp/patches.out)"
for l in "version: 1" "package: $PKG" "cves: CVE-2026-90001" "bugs: KGR-1" "fix: demo-1" \
	 "description: proc: meminfo: show MemUsed"; do
	grep -qxF "    $l" /tmp/patches.out || die "kgr patches -v does not say '$l'"
done
kgr patches --json > /tmp/patches.json
kgr-json < /tmp/patches.json || die "kgr patches --json is not JSON: $(cat /tmp/patches.json)"
grep -q '"version": "1", "cves": \["CVE-2026-90001"\], "bugs": \["KGR-1"\], "fix": "demo-1"' \
	/tmp/patches.json || die "kgr patches --json: $(cat /tmp/patches.json)"
# what the service does at boot, with the patch loaded: nothing more
systemctl restart kgr.service || die "systemctl restart kgr.service failed"
assert_eq "$REL kgr_fix_demo_1 1 applied" "$(kgr list)" "kgr list after kgr.service"
log "ok"
exit 0
