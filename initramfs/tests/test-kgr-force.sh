#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# What cannot cross is named, and the administrator can force the end of
# the transition. A task asleep uninterruptibly in the middle
# of a trip (kgr_test's killable "trip") holds the transition; the log
# names it; /sys/kernel/kgraft/in_progress reads 1 and refuses anything
# but 0; writing 0 finalizes at once, names the task again, and the file
# then reads 0 and refuses 0. The forced task runs new code from then on,
# in the middle of its trip ("1 2"). The next patch applies and
# finalizes.
#
# kgr-timeout: 120

. "$(dirname "$0")/functions.sh"

SYSFS=/sys/kernel/kgraft/in_progress

start_test "a transition that cannot finish is reported and can be forced"
load_target force force_next
[ -f $SYSFS ] || die "no $SYSFS"
assert_eq 0 "$(cat $SYSFS)" "$SYSFS before"
block_trip force /tmp/force.out
pid=$BLOCKED_PID

load_mod kgr_test_patch_force
assert_eq 1 "$(cat $SYSFS)" "$SYSFS during the transition"
wait_for "kmsg_since_mark | grep -q '^kgr: kgr-probe\[$pid\] holds the transition: asleep uninterruptibly'" 20 ||
	die "the report does not name kgr-probe[$pid]"
kmsg_since_mark | grep "^kgr: kgr-probe\[$pid\]"
kmsg_since_mark | grep -q '^kgr succeeded$' && die "finalized while pid $pid was blocked"

for bad in 1 2 x -1 ''; do
	if echo "$bad" > $SYSFS 2>/dev/null; then
		die "writing '$bad' to $SYSFS was accepted"
	fi
done
assert_eq 1 "$(cat $SYSFS)" "$SYSFS after bad writes"

log "% echo 0 > $SYSFS"
echo 0 > $SYSFS || die "writing 0 to $SYSFS failed"
assert_eq 0 "$(cat $SYSFS)" "$SYSFS right after forcing"
kmsg_since_mark | grep -q '^kgr succeeded$' || die "not finalized by the write"
kmsg_since_mark | grep -q '^kgr: forcing the transition' || die "no warning about forcing"
assert_eq 0 "$(cat /proc/$pid/kgr_in_progress)" "kgr_in_progress of the forced task"
if echo 0 > $SYSFS 2>/dev/null; then
	die "writing 0 with no transition in progress was accepted"
fi

echo 1 > $KGR_TEST/release
wait_for 'grep -q "^next=" /tmp/force.out' 10 || die "kgr-probe was not released"
assert_eq "1 2" "$(sed -n 's/^trip=//p' /tmp/force.out)" "the forced trip (old, then new)"
kill $pid; wait $pid 2>/dev/null

load_mod kgr_test_patch_force_next
kgr_wait_finalized 10
assert_eq 2 "$(fn_version force_next)" "kgr_test_fn_force_next after the next patch"
log "ok"
exit 0
