#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kGraft's Debian packages as an administrator uses them, with dpkg and
# apt-get: kgraft-tools (kgr, its manual, kgr.service enabled), then the
# two demonstration patch packages of tools/kgr/demo (made by "make
# kgr-deb-demo", cumulative, signed): installing version 1 applies it;
# version 2 upgrades it and its patch replaces version 1's, whose module
# goes; a downgrade to 1 installs the file but leaves the newer patch
# loaded; removal reverts the patch and purge leaves nothing behind.
# Only the Debian guest has dpkg; elsewhere the test skips.
#
# kgr-timeout: 300

. "$(dirname "$0")/functions.sh"

DEBS=/var/cache/kgr-debs
REL=$(uname -r)
PKG=kgraft-patch-$REL
DIR=/lib/modules/$REL/kgraft

[ -f /var/lib/dpkg/status ] && command -v apt-get > /dev/null ||
	skip "no dpkg and apt in this guest"
[ -f $DEBS/kgraft-tools_1.0_all.deb ] || skip "no packages in $DEBS"

# meminfo_used: 1 when /proc/meminfo shows MemUsed (both demo patches)
meminfo_used() {
	grep -c '^MemUsed:' /proc/meminfo
}

# uptime_ms: 1 when /proc/uptime shows thousandths (demo patch 2)
uptime_ms() {
	grep -cE '^[0-9]+\.[0-9]{3} ' /proc/uptime
}

start_test "kgraft-tools: kgr, its manual and kgr.service"
pkg_do dpkg -i $DEBS/kgraft-tools_1.0_all.deb || die "dpkg -i kgraft-tools failed"
[ -x /usr/sbin/kgr ] || die "no /usr/sbin/kgr"
assert_eq enabled "$(systemctl is-enabled kgr.service 2>&1)" "systemctl is-enabled kgr.service"
MANPAGER=cat MANWIDTH=80 man kgr > /tmp/man.out 2>&1 || die "man kgr failed: $(cat /tmp/man.out)"
grep -q "kgr - load, revert and inspect kGraft live patches" /tmp/man.out ||
	die "man kgr shows no manual: $(head -n 5 /tmp/man.out)"

start_test "a patch package applies its patch when installed"
assert_eq "0 0" "$(meminfo_used) $(uptime_ms)" "/proc before the patch"
pkg_do dpkg -i $DEBS/${PKG}_1_amd64.deb || die "dpkg -i $PKG 1 failed"
grep -q "^kgr: kgr_fix_demo_1 is applied$" /tmp/dpkg.out || die "the postinst did not apply the patch"
assert_eq "1 0" "$(meminfo_used) $(uptime_ms)" "/proc with patch 1"
assert_eq "$REL kgr_fix_demo_1 1 applied" "$(/usr/sbin/kgr list)" "kgr list"
/usr/sbin/kgr patches -v > /tmp/patches.out
log "kgr patches -v: $(cat /tmp/patches.out)"
for l in "version: 1" "package: $PKG" "cves: CVE-2026-90001" "bugs: KGR-1" "fix: demo-1" \
	 "description: proc: meminfo: show MemUsed"; do
	grep -qxF "    $l" /tmp/patches.out || die "kgr patches -v does not say '$l'"
done
/usr/sbin/kgr patches --json > /tmp/patches.json
kgr-json < /tmp/patches.json || die "kgr patches --json is not JSON: $(cat /tmp/patches.json)"
grep -q '"version": "1", "cves": \["CVE-2026-90001"\], "bugs": \["KGR-1"\], "fix": "demo-1"' \
	/tmp/patches.json || die "kgr patches --json: $(cat /tmp/patches.json)"
# what the service does at boot, with the patch loaded: nothing more
systemctl restart kgr.service || die "systemctl restart kgr.service failed"
assert_eq "$REL kgr_fix_demo_1 1 applied" "$(/usr/sbin/kgr list)" "kgr list after kgr.service"

start_test "a newer cumulative package replaces the older patch"
pkg_do dpkg -i $DEBS/${PKG}_2_amd64.deb || die "dpkg -i $PKG 2 failed"
grep -q "^kgr: module kgr_fix_demo_1 of kgr_fix_demo_1 removed$" /tmp/dpkg.out ||
	die "the older patch's module was not removed"
assert_eq "1 1" "$(meminfo_used) $(uptime_ms)" "/proc with patch 2"
[ ! -d /sys/module/kgr_fix_demo_1 ] || die "kgr_fix_demo_1 is still loaded"
[ ! -e $DIR/kgr_fix_demo_1.ko ] || die "the upgrade left $DIR/kgr_fix_demo_1.ko"
assert_eq "$REL kgr_fix_demo_2 2 applied" "$(/usr/sbin/kgr list)" "kgr list after the upgrade"

start_test "a downgrade leaves the newer patch loaded"
pkg_do dpkg -i $DEBS/${PKG}_1_amd64.deb || die "dpkg -i of $PKG 1 over 2 failed"
grep -q "a newer patch (2) is loaded; kgr_fix_demo_1 is not" /tmp/dpkg.out ||
	die "the postinst of the older package did not keep the newer patch"
[ ! -d /sys/module/kgr_fix_demo_1 ] || die "the downgrade loaded kgr_fix_demo_1"
assert_eq "1 1" "$(meminfo_used) $(uptime_ms)" "/proc after the downgrade"
/usr/sbin/kgr list > /tmp/list.out
grep -qx "$REL kgr_fix_demo_1 1 not loaded" /tmp/list.out &&
	grep -qx "$REL kgr_fix_demo_2 - loaded, not installed" /tmp/list.out ||
	die "kgr list after the downgrade: $(cat /tmp/list.out)"
pkg_do dpkg -i $DEBS/${PKG}_2_amd64.deb || die "dpkg -i $PKG 2 after the downgrade failed"
grep -q "^kgr: kgr_fix_demo_2 is already applied$" /tmp/dpkg.out ||
	die "the postinst of 2 did not find its patch applied"

start_test "removing the package reverts its patch; purge leaves nothing"
pkg_do apt-get remove -y $PKG || die "apt-get remove $PKG failed"
grep -q "^kgr: kgr_fix_demo_2 is reverted$" /tmp/dpkg.out || die "the prerm did not revert the patch"
[ ! -d /sys/module/kgr_fix_demo_2 ] || die "kgr_fix_demo_2 is still loaded after the removal"
assert_eq "0 0" "$(meminfo_used) $(uptime_ms)" "/proc after the removal"
pkg_do dpkg --purge $PKG || die "dpkg --purge $PKG failed"
[ ! -e "$DIR" ] || die "the purge left $DIR: $(ls "$DIR")"
dpkg-query -W $PKG > /dev/null 2>&1 && die "dpkg still knows $PKG after the purge"
assert_eq "" "$(/usr/sbin/kgr list)" "kgr list after the purge"
pkg_do dpkg --purge kgraft-tools || die "dpkg --purge kgraft-tools failed"
[ ! -e /usr/sbin/kgr ] || die "the purge of kgraft-tools left /usr/sbin/kgr"
[ ! -e /etc/systemd/system/sysinit.target.wants/kgr.service ] ||
	die "the purge of kgraft-tools left kgr.service enabled"
log "ok"
exit 0
