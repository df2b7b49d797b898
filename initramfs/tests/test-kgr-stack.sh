#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Stacking. kgr_test_fn_stack() returns 1; kgr_test_patch_stack makes it 2,
# kgr_test_stack, loaded on top, 3. While the second patch is in
# transition, a caller still in the old universe gets the first patch's
# version (2), not the function's own (1). Patches revert last in, first
# out: the first one is refused while the second is applied. Each trip
# sees one version.
#
# kgr-timeout: 180

. "$(dirname "$0")/functions.sh"

A=kgr_test_patch_stack
B=kgr_test_stack

start_test "a patched function is patched again; old callers get the previous patch"
load_target stack
load_mod $A
kgr_wait_finalized 30
assert_eq 2 "$(fn_version stack)" "kgr_test_fn_stack() with $A"

start_test "a trip under way when the second patch loads keeps the first patch's version"
spin_across spin stack /tmp/spin.out load_mod $B
# the first patch's version to the end of the trip, the second's after
assert_one_trip /tmp/spin.out 2 3
kgr_wait_finalized 30
assert_eq 3 "$(fn_version stack)" "kgr_test_fn_stack() with $A and $B"
assert_eq "kgr_test_fn_stack kgr_test_target_stack 0 applied" "$(cat $KGR_SYS/$B/state)" "state of $B"

start_test "patches revert last in, first out"
log "% echo 1 > $KGR_SYS/$A/revert (must fail: $B is on top of it)"
if echo 1 > "$KGR_SYS/$A/revert"; then
	die "$A was reverted under $B"
fi
expect_log "kgr: can't revert $A: a later patch of kgr_test_fn_stack is applied; revert that one first"
assert_eq 3 "$(fn_version stack)" "kgr_test_fn_stack() after the refused revert"

start_test "a trip under way when the top patch is reverted keeps its version"
spin_across spin stack /tmp/spin.out kgr_revert $B
# the second patch's version to the end of the trip, the first's after
assert_one_trip /tmp/spin.out 3 2
kgr_wait_reverted $B 30
unload_mod $B
assert_eq 2 "$(fn_version stack)" "kgr_test_fn_stack() with $A alone"
kgr_revert $A
kgr_wait_reverted $A 30
unload_mod $A
assert_eq 1 "$(fn_version stack)" "kgr_test_fn_stack() with no patch"

start_test "stacking under stress: no mixed trip"
select_fn stack
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
# 1 -> 2 (first patch) -> 3 (second) -> 2 (its revert): three changes
hammers_stop_flips 4 3
unload_mod $B
kgr_revert $A
kgr_wait_reverted $A 60
unload_mod $A
log "ok"
exit 0
