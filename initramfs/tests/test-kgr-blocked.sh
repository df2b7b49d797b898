#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Scenario 1: a task blocked in the kernel when patching starts keeps
# getting the old function until it returns to user space; its
# /proc/<pid>/kgr_in_progress reads 1 meanwhile and patching does not
# finalize; the report names it; once released it reads 0 and
# finalization follows at once: checked on its crossing, not at the next
# periodic check.
#
# kgr-timeout: 180

. "$(dirname "$0")/functions.sh"

start_test "a blocked task stays in the old universe"
load_target hold
block_trip hold /tmp/blocked.out
pid=$BLOCKED_PID

load_mod kgr_test_patch_hold
assert_eq 1 "$(cat /proc/$pid/kgr_in_progress)" "kgr_in_progress of the blocked task"
assert_eq 2 "$(fn_version hold)" "a new process's call"

# kgr's first check comes 10 s after the start: it must fail.
wait_for 'kmsg_since_mark | grep -q "^kgr failed after timeout"' 30 ||
	die "no failed check while a task is blocked"
kmsg_since_mark | grep -q '^kgr succeeded$' &&
	die "patching finalized while a task was blocked in the kernel"
assert_eq 1 "$(cat /proc/$pid/kgr_in_progress)" "kgr_in_progress while held"
kmsg_since_mark | grep -q "^kgr: kgr-probe\[$pid\] holds the transition" ||
	die "the report does not name kgr-probe[$pid]"

echo 1 > $KGR_TEST/release
wait_for 'grep -q "^next=" /tmp/blocked.out' 10 || die "kgr-probe was not released"
cat /tmp/blocked.out
assert_eq "1 1" "$(sed -n 's/^trip=//p' /tmp/blocked.out)" "both calls of the blocked trip"
assert_eq 2 "$(field next /tmp/blocked.out)" "the released task's next system call"
assert_eq 0 "$(cat /proc/$pid/kgr_in_progress)" "kgr_in_progress after release"

kgr_wait_finalized 5
line=$(kmsg_since_mark | grep '^kgr: transition finalized')
log "$line"
case $line in
*"(checked at once)") ;;
*) die "finalized by a periodic check, not on the last crossing" ;;
esac
kill $pid; wait $pid 2>/dev/null
log "ok"
exit 0
