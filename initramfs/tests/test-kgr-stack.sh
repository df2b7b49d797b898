#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Stacking (issue 12, item 2; patch 0202). kgr_test_fn_33() returns 1;
# kgr_test_patch_33 makes it 2, kgr_test_stack, loaded on top, 3. While
# the second patch is in transition, a caller still in the old universe
# gets the first patch's version (2), not the function's own (1).
# Patches revert last in, first out: the first one is refused while the
# second is applied. Each trip sees one version.
#
# kgr-timeout: 180

. "$(dirname "$0")/functions.sh"

A=kgr_test_patch_33
B=kgr_test_stack

start_test "a patched function is patched again; old callers get the previous patch"
load_target
load_mod $A
kgr_wait_finalized 30
assert_eq 2 "$(fn_version 33)" "kgr_test_fn_33() with $A"

start_test "a trip under way when the second patch loads keeps the first patch's version"
spin_across spin 33 /tmp/spin.out load_mod $B
calls=$(field calls /tmp/spin.out)
[ "${calls:-0}" -gt 100 ] || die "only ${calls:-0} calls in the trip"
assert_eq 2 "$(field first /tmp/spin.out)" "first call of the trip"
assert_eq 2 "$(field last /tmp/spin.out)" "last call of the trip"
assert_eq 0 "$(field old2new /tmp/spin.out)" "switches within the trip"
assert_eq 0 "$(field new2old /tmp/spin.out)" "switches back within the trip"
assert_eq 3 "$(field next /tmp/spin.out)" "the next system call"
kgr_wait_finalized 30
assert_eq 3 "$(fn_version 33)" "kgr_test_fn_33() with $A and $B"
assert_eq "kgr_test_fn_33 kgr_test_target 0 applied" "$(cat $KGR_SYS/$B/state)" "state of $B"

start_test "patches revert last in, first out"
log "% echo 1 > $KGR_SYS/$A/revert (must fail: $B is on top of it)"
if echo 1 > "$KGR_SYS/$A/revert"; then
	die "$A was reverted under $B"
fi
expect_log "kgr: can't revert $A: a later patch of kgr_test_fn_33 is applied; revert that one first"
assert_eq 3 "$(fn_version 33)" "kgr_test_fn_33() after the refused revert"

start_test "a trip under way when the top patch is reverted keeps its version"
spin_across spin 33 /tmp/spin.out kgr_revert $B
assert_eq 3 "$(field first /tmp/spin.out)" "first call of the trip"
assert_eq 3 "$(field last /tmp/spin.out)" "last call of the trip"
assert_eq 0 "$(field old2new /tmp/spin.out)" "switches within the trip"
assert_eq 0 "$(field new2old /tmp/spin.out)" "switches back within the trip"
assert_eq 2 "$(field next /tmp/spin.out)" "the next system call: the first patch again"
kgr_wait_reverted $B 30
unload_mod $B
assert_eq 2 "$(fn_version 33)" "kgr_test_fn_33() with $A alone"
kgr_revert $A
kgr_wait_reverted $A 30
unload_mod $A
assert_eq 1 "$(fn_version 33)" "kgr_test_fn_33() with no patch"

start_test "stacking under stress: no mixed trip"
echo 33 > $KGR_TEST/select
echo 5 > $KGR_TEST/spin_ms
hammers_start 4 -a
sleep 1
load_mod $A
kgr_wait_finalized 60
start_test "stacking under stress: the second patch"
load_mod $B
kgr_wait_finalized 60
kgr_revert $B
kgr_wait_reverted $B 60
hammers_stop 4
wait
log "hammers: $HAMMER_TRIPS trips: $(cat /tmp/hammer.*.out | tr "\n" " ")"
[ "$HAMMER_TRIPS" -gt 0 ] || die "the hammers made no trip"
for f in /tmp/hammer.*.out; do
	[ "$(field flips "$f")" -le 3 ] || die "$f: the version flapped: $(cat "$f")"
done
unload_mod $B
kgr_revert $A
kgr_wait_reverted $A 60
unload_mod $A
log "ok"
exit 0
