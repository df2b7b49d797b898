#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Issue 11, item 2: a task forked while kGraft marks the tasks is in its
# parent's universe (patch 0150's kgr_copy_process()). A child copies its
# parent's thread flags in dup_task_struct(), long before it joins the
# task list; kgr_mark_all() may mark the parent in between and never see
# the child. Here that window is held open: kgr_test_target's fork_hold
# holds kgr-probe's mmap lock, so that its fork sleeps in dup_mmap(), and
# lets it go only once kGraft has marked kgr-probe. The child then makes
# one trip (a spin read, kgr_test_fn_40() in a loop for 2 s) that begins
# before or while the patch's stub goes live: it must run the old
# function all through it, as its parent would, and cross at its end.
# A child left unmarked switches to the new function within the trip, or
# runs only the new one while its parent is still in the old universe.
#
# kgr-timeout: 120

. "$(dirname "$0")/functions.sh"

H=$KGR_TEST/fork_hold

start_test "a child forked while the tasks are marked is in its parent's universe"
load_target
echo 40 > $KGR_TEST/select
echo 2000 > $KGR_TEST/spin_ms
assert_eq 1 "$(cat $KGR_TEST/version)" "kgr_test_fn_40 before"

kgr-probe -f spin > /tmp/fork.out 2>&1 &
probe=$!
wait_for "[ \"\$(field waiting $H)\" = 1 ]" 20 || {
	echo 0 > $H
	die "the fork of kgr-probe is not held: $(cat $H)"
}
log "held: $(cat $H)"
load_mod kgr_test_patch_40
wait $probe || die "kgr-probe failed: $(cat /tmp/fork.out)"
cat /tmp/fork.out
state=$(field state $H)
echo 0 > $H
assert_eq marked "$state" "how the hold of the fork ended"
assert_one_trip /tmp/fork.out 1 2

kgr_wait_finalized 45
log "ok"
exit 0
