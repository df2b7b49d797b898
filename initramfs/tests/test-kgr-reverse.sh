#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A patch reverted before its transition finished: the transition turns
# round. A task that had not crossed (the one that held it) has nothing to
# do and never runs the new code; a task that had crossed keeps the new
# code to the end of its trip and runs the old one from its next system
# call on. A cumulative patch turned round leaves the patches it was
# replacing applied. A second revert while the first one runs is refused,
# and the next valid request succeeds.
#
# kgr-timeout: 240

. "$(dirname "$0")/functions.sh"

P=kgr_test_patch_reverse

start_test "a held transition is reverted without waiting for the task that holds it"
load_target reverse
# asleep in the middle of a trip of kgr_test_fn_reverse(), before the patch
block_trip reverse /tmp/held.out
held=$BLOCKED_PID
# short trips, many of them on each side of each change
echo 5 > $KGR_TEST/spin_ms
hammers_start 2 -a
sleep 1
load_mod $P
sleep 2
# (the hammers call the function fn_version selects, kgr_test_fn_reverse())
assert_eq 2 "$(fn_version reverse)" "a new process's call during the transition"
assert_eq 1 "$(cat /proc/$held/kgr_in_progress)" "the held task's mark"
assert_eq "kgr_test_fn_reverse kgr_test_target_reverse 0 patching" \
	"$(cat $KGR_SYS/$P/state)" "$P/state during its transition"
sleep 1
kgr_revert $P
expect_log "kgr: reverting $P before its transition finished"
# the held task is still asleep: it never crossed, so nothing waits for it
kgr_wait_reverted $P 30
assert_eq 0 "$(cat /proc/$held/kgr_in_progress)" "the held task's mark after the revert"
assert_eq 0 "$(cat $KGR_SYS/in_progress)" "in_progress after the revert"
[ -e "$KGR_SYS/$P" ] && die "$KGR_SYS/$P is still there"
sleep 1
unload_mod $P
select_fn reverse
echo 1 > $KGR_TEST/release
wait_for 'grep -q "^next=" /tmp/held.out' 10 || die "the held task was not released"
cat /tmp/held.out
assert_eq "1 1" "$(sed -n 's/^trip=//p' /tmp/held.out)" "both calls of the held trip"
assert_eq 1 "$(field next /tmp/held.out)" "the held task's next system call"
kill $held; wait $held 2>/dev/null
# each hammer crossed to the new code and back: 1 -> 2 -> 1, never a
# mixed trip
hammers_stop_flips 2 2
for f in /tmp/hammer.*.out; do
	assert_eq 2 "$(field flips "$f")" "$f: the changes of version seen"
done
assert_eq 1 "$(fn_version reverse)" "kgr_test_fn_reverse() after the revert"

start_test "a trip under way when the transition turns round keeps the new code to its end"
hold_transition /tmp/hold.out
load_mod $P
spin_across spin reverse /tmp/spin.out kgr_revert $P
# The trip keeps one version, the new one, to its end. Before turning
# round kGraft waits until no task can be inside a transition trampoline
# (RCU Tasks, on a preemptible kernel such as Debian's); a task running
# in the kernel holds that wait until it leaves, so there the turn comes
# after this trip, and the trip's next call may still get the new code.
assert_trip /tmp/spin.out 2
case $(field next /tmp/spin.out) in
1|2) ;;
*) die "the next system call got '$(field next /tmp/spin.out)'" ;;
esac
kgr_wait_reverted $P 30
unload_mod $P
release_hold /tmp/hold.out

start_test "a second revert is refused while the first one runs"
hold_transition /tmp/hold.out
load_mod $P
# a task that crossed, asleep in the middle of a trip: it holds the revert
# (block_trip would wait for a single sleeper; the holding task is one too)
select_fn reverse
kgr-probe -w trip > /tmp/crossed.out 2>&1 &
crossed=$!
wait_for '[ "$(cat $KGR_TEST/waiting)" = 2 ]' 10 || die "kgr-probe did not block"
assert_eq 0 "$(cat /proc/$crossed/kgr_in_progress)" "the mark of a task that crossed"
kgr_revert $P
assert_eq 1 "$(cat /proc/$crossed/kgr_in_progress)" "its mark once the transition turned round"
assert_eq "kgr_test_fn_reverse kgr_test_target_reverse 0 reverting" \
	"$(cat $KGR_SYS/$P/state)" "$P/state while it is reverted"
log "% echo 1 > $KGR_SYS/$P/revert (must fail: its revert is in progress)"
if echo 1 > "$KGR_SYS/$P/revert"; then
	die "a second revert was accepted"
fi
expect_log "kgr: can't revert $P: its revert is in progress"
# both blocked tasks go on; the one that crossed ends its trip with the new code
select_fn reverse
echo 1 > $KGR_TEST/release
wait_for 'grep -q "^next=" /tmp/crossed.out' 10 || die "the crossed task was not released"
cat /tmp/crossed.out
assert_eq "2 2" "$(sed -n 's/^trip=//p' /tmp/crossed.out)" "both calls of the crossed task's trip"
assert_eq 1 "$(field next /tmp/crossed.out)" "its next system call"
kgr_wait_reverted $P 30
wait_for "grep -q '^next=' /tmp/hold.out" 10 || die "the holding task was not released"
kill $crossed $HOLD_PID; wait $crossed $HOLD_PID 2>/dev/null
unload_mod $P
# the next valid request succeeds
load_mod $P
kgr_wait_finalized 30
assert_eq 2 "$(fn_version reverse)" "kgr_test_fn_reverse() patched after all"
kgr_revert $P
kgr_wait_reverted $P 30
unload_mod $P

start_test "a cumulative patch turned round leaves the patches it was replacing"
B=kgr_test_patch_reverse_all
C=kgr_test_reverse_cum
load_target reverse_all reverse_cum
load_mod $B
kgr_wait_finalized 30
hold_transition /tmp/hold.out
load_mod $C
assert_eq 3 "$(fn_version reverse_cum)" "kgr_test_fn_reverse_cum() in the cumulative patch's transition"
assert_eq 1 "$(fn_version reverse_all)" "kgr_test_fn_reverse_all() taken back in that transition"
kgr_revert $C
kgr_wait_reverted $C 60
unload_mod $C
assert_eq 1 "$(fn_version reverse_cum)" "kgr_test_fn_reverse_cum() after the revert"
assert_eq 2 "$(fn_version reverse_all)" "kgr_test_fn_reverse_all() after the revert"
assert_eq "kgr_test_fn_reverse_all kgr_test_target_reverse_all 0 applied" \
	"$(cat $KGR_SYS/$B/state)" "$B/state after the revert"
release_hold /tmp/hold.out
# nothing of the cumulative patch stays on top of it: it can be reverted
kgr_revert $B
kgr_wait_reverted $B 30
unload_mod $B
assert_eq 1 "$(fn_version reverse_all)" "kgr_test_fn_reverse_all() at the end"
log "ok"
exit 0
