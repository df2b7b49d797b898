#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# First boot: the administrator installs kgraft-tools and the patch
# package of the running kernel; the patch is applied at once.
#
# kgr-timeout: 120

. "$(dirname "$0")/common.sh"

start_test "install the tool and a patch package"
assert_eq "0 0" "$(patched)" "/proc before any patch"
pkg_do dpkg -i $DEBS/kgraft-tools_1.0_all.deb || die "dpkg -i kgraft-tools failed"
pkg_do dpkg -i $DEBS/${PKG}_1_amd64.deb || die "dpkg -i $PKG 1 failed"
assert_eq "1 0" "$(patched)" "/proc with patch 1"
assert_eq "$REL kgr_fix_demo_1 1 applied" "$(kgr list)" "kgr list"
log "ok"
exit 0
