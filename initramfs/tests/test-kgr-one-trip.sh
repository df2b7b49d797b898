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
load_target one_trip
spin_across_patch spin one_trip /tmp/spin.out

assert_one_trip /tmp/spin.out 1 2

kgr_wait_finalized 45
log "ok"
exit 0
