#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Idle tasks have a universe and cross between two iterations of the
# idle loop. kgr_test_patch_idle replaces arch_cpu_idle_exit() and
# arch_cpu_idle_enter(), which bracket each iteration of do_idle() in
# the idle task's context, in one patch; its new code counts the
# iterations that were entered through one version and left through the
# other: none may be. An idle task that was never marked would take the
# new code of each function the moment its stub went live, the exit's
# before the enter's.
#
# kgr-timeout: 90

. "$(dirname "$0")/functions.sh"

start_test "idle tasks cross between two iterations of the idle loop"
load_mod kgr_test_patch_idle
kgr_wait_finalized 10
# idle iterations in the new code on both CPUs
sleep 2
cat /proc/kgr_test_idle > /tmp/idle.out
log "$(cat /tmp/idle.out)"
[ "$(field iterations /tmp/idle.out)" -gt 0 ] ||
	die "no idle iteration ran the new code"
assert_eq 0 "$(field mixed /tmp/idle.out)" "idle iterations that mixed old and new code"
log "ok"
exit 0
