#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A task forked while kGraft marks the tasks is in its parent's universe
# (kgr_copy_process()). A child copies its parent's thread flags in
# dup_task_struct(), long before it joins the task list; kgr_mark_all()
# may mark the parent in between and never see the child. Here that
# window is held open: kgr_test_proc's fork_hold holds kgr-probe's
# mmap lock, so that its fork sleeps in dup_mmap(), and lets it go only
# once kGraft has marked kgr-probe. The child then makes one trip (a
# spin read, kgr_test_fn_NAME() in a loop for 2 s) while the patch's stub
# goes live: it must see one version only. A child left unmarked runs
# the old function until the stub is live and the new one after it,
# within that trip.
#
# The child shows something only when its trip begins before the switch is
# allowed: if the patch opened the transition before the child left
# fork(), the child crossed there, as it may, and its whole trip is new.
# Such an attempt proves nothing either way and is repeated with the next
# function (fork, fork_2 ... fork_8); in the full suite about one attempt
# in two missed (2026-12-05), so eight in a row fail the test.
#
# kgr-timeout: 300

. "$(dirname "$0")/functions.sh"

H=$KGR_TEST/fork_hold

# attempt NAME: a held fork across kgr_test_patch_NAME; fails the test on a
# trip with two versions; returns 1 if the trip began in the new universe
attempt() {
	local state

	start_test "a child forked while the tasks are marked is in its parent's universe (kgr_test_fn_$1)"
	select_fn "$1"
	assert_eq 1 "$(cat $KGR_TEST/version)" "kgr_test_fn_$1 before"
	kgr-probe -f spin > /tmp/fork.out 2>&1 &
	probe=$!
	wait_for "[ \"\$(field waiting $H)\" = 1 ]" 20 || {
		echo 0 > $H
		die "the fork of kgr-probe is not held: $(cat $H)"
	}
	log "held: $(cat $H)"
	load_mod "kgr_test_patch_$1"
	wait $probe || die "kgr-probe failed: $(cat /tmp/fork.out)"
	cat /tmp/fork.out
	state=$(field state $H)
	echo 0 > $H
	assert_eq marked "$state" "how the hold of the fork ended"

	[ "$(field calls /tmp/fork.out)" -gt 100 ] 2>/dev/null ||
		die "only $(field calls /tmp/fork.out) calls in the child's trip"
	assert_eq 0 "$(field new2old /tmp/fork.out)" "new-to-old switches within the trip"
	assert_eq 0 "$(field old2new /tmp/fork.out)" "old-to-new switches within the trip"
	assert_eq 2 "$(field next /tmp/fork.out)" "the child's next system call"
	kgr_wait_finalized 45
	[ "$(field first /tmp/fork.out)" = 1 ]
}

load_target fork fork_2 fork_3 fork_4 fork_5 fork_6 fork_7 fork_8
echo 2000 > $KGR_TEST/spin_ms
for n in fork fork_2 fork_3 fork_4 fork_5 fork_6 fork_7 fork_8; do
	if attempt $n; then
		log "ok: the child's trip began in the old universe and stayed there"
		exit 0
	fi
	log "the child's trip began in the new universe (it crossed on its way out of fork()): nothing shown"
done
die "in 8 attempts no child's trip began before the switch was allowed"
