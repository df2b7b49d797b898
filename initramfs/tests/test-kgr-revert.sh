#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Revert. A finalized patch is taken back through the same universe
# model in reverse: a task keeps the new code until it crosses and runs
# the old code after; then the stubs go, and the patch module can be
# removed and loaded again. Bad requests are refused with a clear error
# and change nothing. Under stress, reverting and re-applying gives no
# mixed trip.
#
# kgr-timeout: 240

. "$(dirname "$0")/functions.sh"

P=kgr_test_patch_revert

start_test "a finalized patch is reverted: old code again, its module can go"
load_target revert revert_busy
assert_eq 1 "$(fn_version revert)" "kgr_test_fn_revert() before the patch"
load_mod $P
kgr_wait_finalized 30
assert_eq 2 "$(fn_version revert)" "kgr_test_fn_revert() patched"
[ -d "$KGR_SYS/$P" ] || die "no $KGR_SYS/$P"
if rmmod $P 2>/dev/null; then
	die "$P was removed while applied"
fi
kgr_revert $P
kgr_wait_reverted $P 30
assert_eq 1 "$(fn_version revert)" "kgr_test_fn_revert() after the revert"
[ -e "$KGR_SYS/$P" ] && die "$KGR_SYS/$P is still there"
unload_mod $P
load_mod $P
kgr_wait_finalized 30
assert_eq 2 "$(fn_version revert)" "kgr_test_fn_revert() patched again"

start_test "a trip under way when the revert starts keeps the new code to its end"
spin_across spin revert /tmp/spin.out kgr_revert $P
assert_one_trip /tmp/spin.out 2 1
kgr_wait_reverted $P 30
unload_mod $P

start_test "bad revert requests are refused and change nothing"
load_mod $P
kgr_wait_finalized 30
for v in 0 2 x ''; do
	log "% echo '$v' > $KGR_SYS/$P/revert (must fail)"
	if echo "$v" > "$KGR_SYS/$P/revert"; then
		die "'$v' was accepted"
	fi
done
assert_eq 2 "$(fn_version revert)" "kgr_test_fn_revert() after the bad requests"
assert_eq 0 "$(cat $KGR_SYS/in_progress)" "in_progress after the bad requests"

start_test "no revert while another transition is in progress"
hold_transition /tmp/hold.out
load_mod kgr_test_patch_revert_busy
log "% echo 1 > $KGR_SYS/$P/revert (must fail: kgr_test_patch_revert_busy is in transition)"
if echo 1 > "$KGR_SYS/$P/revert"; then
	die "a revert started during another transition"
fi
expect_log "kgr: can't revert $P: another transition is in progress"
release_hold /tmp/hold.out
kgr_wait_finalized 30
assert_eq 2 "$(fn_version revert)" "kgr_test_fn_revert() after the refused revert"
assert_eq 2 "$(fn_version revert_busy)" "kgr_test_fn_revert_busy() patched"
# the next valid requests succeed
kgr_revert kgr_test_patch_revert_busy
kgr_wait_reverted kgr_test_patch_revert_busy 30
unload_mod kgr_test_patch_revert_busy
assert_eq 1 "$(fn_version revert_busy)" "kgr_test_fn_revert_busy() reverted"

start_test "revert and re-apply under stress: no mixed trip"
select_fn revert
echo 5 > $KGR_TEST/spin_ms
hammers_start 4 -a
sleep 1
kgr_revert $P
kgr_wait_reverted $P 60
unload_mod $P
load_mod $P
kgr_wait_finalized 60
# each went 2 -> 1 (revert) -> 2 (patch): at most two changes
hammers_stop_flips 4 2
kgr_revert $P
kgr_wait_reverted $P 60
unload_mod $P
assert_eq 1 "$(fn_version revert)" "kgr_test_fn_revert() at the end"
log "ok"
exit 0
