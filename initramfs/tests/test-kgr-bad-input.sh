#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Scenario 7: bad input gets a clear error and leaves nothing half-done:
# the module fails to load, the kernel log says what was wrong, later
# calls reach the original function, and a following valid patch applies
# and finalizes. Covers: a function that does not exist, a replacement
# that cannot be resolved, a second patch while one is in progress
# (-EAGAIN), a patch while ftrace is disabled, rmmod of an applied patch.
#
# kgr-timeout: 300

. "$(dirname "$0")/functions.sh"

load_target inprogress second noftrace badname badnew

start_test "bad input: a patch while ftrace is disabled"
# first, while no kGraft patch is applied: afterwards ftrace refuses to
# be disabled (see the end)
echo 0 > /proc/sys/kernel/ftrace_enabled ||
	die "cannot disable ftrace before any patch"
refuse kgr_test_patch_noftrace
echo 1 > /proc/sys/kernel/ftrace_enabled
assert_eq 1 "$(fn_version noftrace)" "kgr_test_fn_noftrace() after the refused patch"
load_mod kgr_test_patch_noftrace
assert_eq 2 "$(fn_version noftrace)" "kgr_test_fn_noftrace() after a valid patch"
kgr_wait_finalized 45

start_test "bad input: a function that does not exist"
refuse kgr_test_bad_name
expect_log "kgr: function kgr_test_no_such_function not resolved"
assert_eq 1 "$(fn_version badname)" "kgr_test_fn_badname() after the refused patch"
load_mod kgr_test_patch_badname
assert_eq 2 "$(fn_version badname)" "kgr_test_fn_badname() after a valid patch"
kgr_wait_finalized 45

start_test "bad input: a replacement that cannot be resolved"
refuse kgr_test_bad_new
expect_log "kgr: fentry_loc not properly resolved"
assert_eq 1 "$(fn_version badnew)" "kgr_test_fn_badnew() after the refused patch"
load_mod kgr_test_patch_badnew
assert_eq 2 "$(fn_version badnew)" "kgr_test_fn_badnew() after a valid patch"
kgr_wait_finalized 45

start_test "bad input: a second patch while one is in progress"
block_trip inprogress /tmp/eagain.out
pid=$BLOCKED_PID
load_mod kgr_test_patch_inprogress
refuse kgr_test_patch_second
expect_log "kgr: can't patch, another patching not yet finalized"
# the RFC's sample too: it must not load without patching
refuse kgr_patcher
assert_eq 1 "$(fn_version second)" "kgr_test_fn_second() after the refused patch"
echo 1 > $KGR_TEST/release
kgr_wait_finalized 60
kill $pid; wait $pid 2>/dev/null
start_test "bad input: the refused patch applies once the first finalized"
load_mod kgr_test_patch_second
assert_eq 2 "$(fn_version second)" "kgr_test_fn_second() after the patch"
kgr_wait_finalized 45

start_test "bad input: rmmod of an applied patch"
log "% rmmod kgr_test_patch_badname (must fail)"
rmmod kgr_test_patch_badname && die "an applied patch module was removed"
assert_eq 2 "$(fn_version badname)" "kgr_test_fn_badname() after the refused rmmod"

start_test "bad input: disabling ftrace while patches are applied"
if echo 0 > /proc/sys/kernel/ftrace_enabled; then
	echo 1 > /proc/sys/kernel/ftrace_enabled
	die "ftrace was disabled under applied kGraft patches"
fi
assert_eq 1 "$(cat /proc/sys/kernel/ftrace_enabled)" "kernel.ftrace_enabled"
assert_eq 2 "$(fn_version badname)" "kgr_test_fn_badname() after the refused sysctl"

log "ok"
exit 0
