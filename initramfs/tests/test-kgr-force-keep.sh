#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A forced transition never frees code in use. A task asleep in the new
# code of a patch (kgr_test_sleepy's kgr_test_fn_force_keep()) holds its
# revert; the revert is forced; the patch's module must then stay loaded
# for good: the log says so, /sys/kernel/kgraft/kept lists it, and rmmod
# fails. The task wakes up in that code and returns what the new code
# returns; the next call runs the old code.
#
# kgr-timeout: 90

. "$(dirname "$0")/functions.sh"

MOD=kgr_test_sleepy
PARM=/sys/module/$MOD/parameters
KEPT=/sys/kernel/kgraft/kept

start_test "a forced revert keeps the module of the patch it took out"
load_target force_keep
[ -r $KEPT ] || die "no $KEPT"
grep -q "^$MOD " $KEPT && die "$MOD is kept before the test"
load_mod $MOD
kgr_wait_finalized 10
assert_eq 2 "$(fn_version force_keep)" "kgr_test_fn_force_keep patched"

echo 1 > $PARM/hold
cat $KGR_TEST/version > /tmp/keep.out &
pid=$!
wait_for "[ \"\$(cat $PARM/sleepers)\" = 1 ]" 10 || die "no call asleep in the new code"

kgr_revert $MOD
wait_for "kmsg_since_mark | grep -q '^kgr: cat\[$pid\] holds the transition'" 20 ||
	die "the revert is not held by cat[$pid]"
log "% echo 0 > /sys/kernel/kgraft/in_progress"
echo 0 > /sys/kernel/kgraft/in_progress || die "forcing the revert failed"
log "% rmmod $MOD"
rmmod $MOD 2> /tmp/keep.err && die "rmmod of a module a task may still run was allowed"
log "rmmod refused: $(cat /tmp/keep.err)"
grep -q "^$MOD " /proc/modules || die "$MOD is gone"
kmsg_since_mark | grep "^kgr: $MOD is reverted"
kmsg_since_mark | grep -q "^kgr: $MOD is reverted by a forced transition; .* module $MOD stays loaded for good" ||
	die "the log does not say that $MOD stays loaded"
grep -q "^$MOD $MOD$" $KEPT || die "$KEPT does not list $MOD: '$(cat $KEPT)'"
[ -d /sys/kernel/kgraft/$MOD ] && die "/sys/kernel/kgraft/$MOD is still there"
assert_eq 1 "$(cat $PARM/sleepers)" "calls asleep in the new code after the revert"

# the sleeper wakes up in the kept code and finishes its call there
echo 0 > $PARM/hold
wait $pid
assert_eq 2 "$(cat /tmp/keep.out)" "the call that slept in the new code"
assert_eq 1 "$(fn_version force_keep)" "kgr_test_fn_force_keep after the revert"
rmmod $MOD 2> /dev/null && die "rmmod of a kept module was allowed later"
log "ok"
exit 0
