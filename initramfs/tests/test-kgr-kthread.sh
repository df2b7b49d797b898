#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Scenario 4: kernel threads. A test kthread that never reaches a safe
# point holds finalization back, gets the old code and shows 1 in /proc;
# released, it passes kthread_should_stop(), gets the new code, and
# finalization completes. (That every kthread of the booted system reaches
# a safe point is shown by each test that waits for "kgr succeeded".)
#
# kgr-timeout: 180

. "$(dirname "$0")/functions.sh"

start_test "a kthread without a safe point holds the transition"
load_target kthread
select_fn kthread
echo 1 > $KGR_TEST/kthread
cat $KGR_TEST/kthread > /tmp/kthread.out
pid=$(field pid /tmp/kthread.out)
[ "${pid:-0}" -gt 0 ] || die "no test kthread"
assert_eq kgr_test_kthread "$(cat /proc/$pid/comm)" "comm of pid $pid"

load_mod kgr_test_patch_kthread
assert_eq 1 "$(cat /proc/$pid/kgr_in_progress)" "kgr_in_progress of the held kthread"

wait_for 'kmsg_since_mark | grep -q "^kgr failed after timeout"' 30 ||
	die "no failed check while the kthread is held"
kmsg_since_mark | grep -q '^kgr succeeded$' &&
	die "patching finalized while a kthread had not passed a safe point"
# the report names it by its task comm, cut to 15 characters (/proc shows
# a kthread's full name), as a kthread woken to reach a safe point, or as
# running when the check found it on a CPU between two of its sleeps
comm=$(cut -c1-15 /proc/$pid/comm)
kmsg_since_mark |
	grep -q -E "^kgr: $comm\[$pid\] holds the transition: (a kthread|running)" || {
	echo 0 > $KGR_TEST/kthread
	die "the report does not name $comm[$pid]"
}
cat $KGR_TEST/kthread > /tmp/kthread.out
assert_eq 1 "$(field version /tmp/kthread.out)" "the held kthread's call"
assert_eq 1 "$(cat /proc/$pid/kgr_in_progress)" "kgr_in_progress while held"

echo 0 > $KGR_TEST/kthread
wait_for '[ "$(cat /proc/'$pid'/kgr_in_progress)" = 0 ]' 10 ||
	die "the released kthread did not pass a safe point"
wait_for 'cat $KGR_TEST/kthread | grep -q "version=2"' 10 ||
	die "the released kthread does not get the new code"
kgr_wait_finalized 45
log "ok"
exit 0
