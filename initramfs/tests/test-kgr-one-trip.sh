#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Scenario 2: one trip, one version. A task calls the patched function in
# a loop inside one system call while patching starts: every call of that
# trip returns the same (old) version, never new and then old; the same
# task's next system call gets the new version.
#
# kgr-timeout: 120

. "$(dirname "$0")/functions.sh"

start_test "one trip into the kernel sees one version"
load_target
spin_across_patch spin 2 /tmp/spin.out

calls=$(field calls /tmp/spin.out)
[ "${calls:-0}" -gt 100 ] || die "only ${calls:-0} calls in the trip"
assert_eq 0 "$(field new2old /tmp/spin.out)" "new-to-old switches within the trip"
assert_eq 0 "$(field old2new /tmp/spin.out)" "old-to-new switches within the trip"
assert_eq 1 "$(field first /tmp/spin.out)" "first call of the trip"
assert_eq 1 "$(field last /tmp/spin.out)" "last call of the trip"
assert_eq 2 "$(field next /tmp/spin.out)" "the next system call"

kgr_wait_finalized 45
log "ok"
exit 0
