#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A task delayed at a safe point does not take a mark that the next
# patch set. kgr_trans.switch_allowed stays set after a patch is finalized;
# the next kgr_start_patching() clears it and marks every task. The
# RFC's kgr_task_safe() read the flag first and then tested and cleared
# the task's mark: a task that read the flag before the next patch
# started, and was delayed (a long interrupt, a vCPU the host does not
# run, preemption) until after the marking, cleared the new mark before
# the new patch's stub was live, and its trip ran the old function and
# then the new one.
#
# Here the test kthread (kgr_test_proc's kthread file) is the task, and
# kgr_test_proc's cross_hold is the delay: a kprobe on
# stack_trace_save_tsk_reliable(), which kGraft calls at a kthread's safe
# point between the read of the flag and the clear of the mark, holds the
# kthread there until it is marked. An unmarked task does not get that far
# (its mark is tested first); a marked one reads the flag with preemption
# off, and no next patch starts before every CPU has scheduled since the
# previous one was finalized. The kthread then calls
# kgr_test_fn_stale_read_kthread() every 100 ms with no safe point while
# kgr_test_patch_stale_read_kthread loads: every call of that trip must be
# the old one.
#
# kgr-timeout: 120

. "$(dirname "$0")/functions.sh"

X=$KGR_TEST/cross_hold
K=$KGR_TEST/kthread

start_test "a task delayed at a safe point keeps the next patch's mark"
load_target stale_read stale_read_kthread
# the kthread, with safe points, calling kgr_test_fn_stale_read_kthread()
select_fn stale_read_kthread
echo 1 > $K
echo 0 > $K
pid=$(field pid $K)
[ "${pid:-0}" -gt 0 ] || die "no test kthread"

# a finalized patch: kgr_trans.switch_allowed is set, nothing is marked
load_mod kgr_test_patch_stale_read
kgr_wait_finalized 45

start_test "the next patch starts while the kthread is at a safe point"
if ! echo "$pid" > $X 2>/dev/null; then
	skip "cannot place the kprobe of $X (CONFIG_KPROBES?)"
fi
# the kthread passes about ten safe points
sleep 1
log "hold after 1 s: $(cat $X)"
# its next trip is long: the calls while held, no safe point
echo 1 > $K
sleep 0.5
load_mod kgr_test_patch_stale_read_kthread
sleep 1.5
kt=$(cat $K)
hold=$(cat $X)
echo 0 > $X
echo 0 > $K
log "kthread: $kt"
log "hold: $hold"

echo "$kt" > /tmp/stale.out
[ "$(field calls /tmp/stale.out)" -ge 5 ] 2>/dev/null ||
	die "only $(field calls /tmp/stale.out) calls in the kthread's held trip"
assert_eq 1 "$(field first /tmp/stale.out)" "the first call of the kthread's held trip"
assert_eq 0 "$(field old2new /tmp/stale.out)" "old-to-new switches within the kthread's trip"
assert_eq 0 "$(field new2old /tmp/stale.out)" "new-to-old switches within the kthread's trip"

kgr_wait_finalized 45
wait_for "[ \"\$(field version $K)\" = 2 ]" 10 ||
	die "the released kthread does not run the new kgr_test_fn_stale_read_kthread(): $(cat $K)"
log "ok"
exit 0
