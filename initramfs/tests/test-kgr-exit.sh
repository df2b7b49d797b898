#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A task that dies while it is the last one in the old universe ends the
# transition at once: the scheduler's last switch away from a dead task
# (finish_task_switch(), TASK_DEAD) is where it stops running kernel
# code, and there its mark is dropped and counted. A check that finds
# the task gone (with task_curr(), which is false already before that
# last switch completes) would drop it only at the periodic check, and
# finalization would wait for it.
#
# kgr-timeout: 90

. "$(dirname "$0")/functions.sh"

# marked: the tasks (tid) whose kgr_in_progress reads 1
marked() {
	grep -l '^1' /proc/[0-9]*/task/[0-9]*/kgr_in_progress 2>/dev/null |
		sed 's|^/proc/[0-9]*/task/\([0-9]*\)/.*|\1|'
}

load_target exit
start_test "the last task of the old universe dies: finalized at once"
hold_transition /tmp/exit-hold.out
load_mod kgr_test_patch_exit
# everything else crosses (nudged or at its next safe point)
wait_for '[ "$(marked)" = "$HOLD_PID" ]' 10 ||
	die "tasks other than $HOLD_PID still marked: $(marked | tr '\n' ' ')"
kill -9 "$HOLD_PID"
wait "$HOLD_PID" 2>/dev/null
kgr_wait_finalized 10
line=$(kmsg_since_mark | grep '^kgr: transition finalized')
log "$line"
case $line in
*"(checked at once)") ;;
*) die "finalized by the periodic check, not when the last task died" ;;
esac
assert_eq 2 "$(fn_version exit)" "kgr_test_fn_exit() after finalization"
log "ok"
exit 0
