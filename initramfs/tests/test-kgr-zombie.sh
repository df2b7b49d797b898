#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A zombie (a task that has exited but is not reaped yet) never runs
# again, so it cannot hold a transition back: patching must finalize
# while it exists, and its kgr_in_progress must not stay 1. The RFC
# marks it in kgr_start_patching() like every task and then waits for
# it forever; kGraft here does not wait for a task that has exited
# for good.
#
# kgr-timeout: 240

. "$(dirname "$0")/functions.sh"

start_test "a zombie does not hold the transition"
load_target zombie
kgr-zombie > /tmp/zombie.out &
parent=$!
wait_for '[ -s /tmp/zombie.out ]' 10 || die "kgr-zombie did not start"
child=$(field child /tmp/zombie.out)
assert_eq Z "$(awk '{ print $3 }' /proc/$child/stat)" "state of pid $child"

load_mod kgr_test_patch_zombie
# checks at 10 s and 40 s after the start; wait_for counts tries, and
# each try is slow next to the spinning parent
wait_for 'kmsg_since_mark | grep -q "^kgr succeeded$"' 45
ok=$?
state=$(awk '{ print $3 }' /proc/$child/stat)
progress=$(cat /proc/$child/kgr_in_progress)
kill $parent
[ $ok = 0 ] || { kgr_show_in_progress; die "patching did not finalize while pid $child was a zombie"; }
assert_eq Z "$state" "state of pid $child at finalization"
assert_eq 0 "$progress" "kgr_in_progress of the zombie after finalization"
assert_eq 2 "$(fn_version zombie)" "kgr_test_fn_zombie after finalization"
log "ok"
exit 0
