#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Replace-all. kgr_test_patch_replace and kgr_test_patch_replace_back make
# kgr_test_fn_replace() and kgr_test_fn_replace_back() return 2;
# kgr_test_stack patches kgr_test_fn_stack() on top of
# kgr_test_patch_stack. kgr_test_replace, a cumulative patch of
# kgr_test_fn_replace() alone (it returns 3), replaces all of them in one
# transition: kgr_test_fn_replace_back() and kgr_test_fn_stack() run their
# own code again, and the earlier patch modules can be removed. A trip
# under way during the replacement keeps the version it started with.
#
# It runs after the other kgr tests (tests.list puts it there): in a
# whole run it replaces every patch they left applied.
#
# kgr-timeout: 180

. "$(dirname "$0")/functions.sh"

R=kgr_test_replace

start_test "a cumulative patch replaces every earlier patch in one transition"
load_target stack replace replace_back
for m in kgr_test_patch_replace kgr_test_patch_replace_back kgr_test_patch_stack kgr_test_stack; do
	start_test "replace: $m applied first"
	load_mod $m
	kgr_wait_finalized 30
done
assert_eq 2 "$(fn_version replace)" "kgr_test_fn_replace() before"
assert_eq 2 "$(fn_version replace_back)" "kgr_test_fn_replace_back() before"
assert_eq 3 "$(fn_version stack)" "kgr_test_fn_stack() before"

start_test "replace: a trip under way keeps the version it started with"
# The replacement brings kGraft's handler back on every directly called
# function before its transition opens: in a whole run some forty
# functions, several seconds under TCG. The trip must outlast that for
# its next system call to come after the opening.
SPIN_MS=20000
spin_across spin replace_back /tmp/spin.out load_mod $R
SPIN_MS=
# kgr_test_patch_replace_back's version to the end of the trip, the
# own code after
assert_one_trip /tmp/spin.out 2 1
kgr_wait_finalized 30
for m in kgr_test_patch_replace kgr_test_patch_replace_back kgr_test_patch_stack kgr_test_stack; do
	wait_for "kmsg_since_mark | grep -q '^kgr: $m is replaced; its module can be removed'" 10 ||
		die "no 'kgr: $m is replaced' in the log"
	[ -e "$KGR_SYS/$m" ] && die "$KGR_SYS/$m is still there"
	unload_mod $m
done
assert_eq 3 "$(fn_version replace)" "kgr_test_fn_replace() replaced"
assert_eq 1 "$(fn_version replace_back)" "kgr_test_fn_replace_back() taken back"
assert_eq 1 "$(fn_version stack)" "kgr_test_fn_stack() taken back"
assert_eq 1 "$(cat $KGR_SYS/$R/replace_all)" "$R/replace_all"
assert_eq "kgr_test_fn_replace kgr_test_target_replace 0 applied" "$(cat $KGR_SYS/$R/state)" "$R/state"
# every patch applied before (in a whole run, those of the other tests)
# is gone: the cumulative patch is the only one left (directories only:
# the files in_progress and force_load_module are kGraft's own)
assert_eq "$R" "$(cd $KGR_SYS && for d in */; do echo "${d%/}"; done)" "the patches in $KGR_SYS after the replacement"

start_test "the cumulative patch is reverted like any other"
kgr_revert $R
kgr_wait_reverted $R 30
unload_mod $R
assert_eq 1 "$(fn_version replace)" "kgr_test_fn_replace() after the revert"

start_test "replace under stress: no mixed trip in a function taken back"
# every trip of kgr_test_fn_replace_back() sees 2
# (kgr_test_patch_replace_back) or 1 (taken back), never both: a task that
# crossed runs the function's own code from then on, not the earlier patch
# until the end of the transition
load_mod kgr_test_patch_replace_back
kgr_wait_finalized 30
select_fn replace_back
echo 5 > $KGR_TEST/spin_ms
hammers_start 4 -a
sleep 1
start_test "replace under stress: the cumulative patch"
load_mod $R
kgr_wait_finalized 60
sleep 1
# 2 -> 1 (taken back): one change
hammers_stop_flips 4 1
unload_mod kgr_test_patch_replace_back
kgr_revert $R
kgr_wait_reverted $R 30
unload_mod $R
assert_eq 1 "$(fn_version replace_back)" "kgr_test_fn_replace_back() at the end"
log "ok"
exit 0
