#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A safe point inside a function of the patch is not a safe point. The
# kthread kgr_test_deep loops over kgr_test_deep(), which sleeps 100 ms,
# passes kthread_should_stop() in its middle, then calls
# kgr_test_deep_inner(); kgr_test_patch_deep replaces both in one patch. Each
# round must be all old or all new: a kthread that ran the old
# kgr_test_deep() gets the old kgr_test_deep_inner() from it, and crosses at
# the safe point of its loop, outside it.
#
# kgr-timeout: 90

. "$(dirname "$0")/functions.sh"

start_test "a safe point inside a function of the patch does not switch the kthread"
load_target
echo 1 > $KGR_TEST/deep
sleep 1
load_mod kgr_test_patch_deep
kgr_wait_finalized 10
sleep 1
echo 0 > $KGR_TEST/deep
cat $KGR_TEST/deep > /tmp/deep.out
log "$(cat /tmp/deep.out)"
assert_eq 0 "$(field mixed /tmp/deep.out)" "rounds with old and new code"
[ "$(field old /tmp/deep.out)" -gt 0 ] || die "no round with the old code"
[ "$(field new /tmp/deep.out)" -gt 0 ] || die "no round with the new code"
log "ok"
exit 0
