#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Symbols. kgr_test_dup has two static functions called kgr_test_dup_fn,
# one per file (/proc/kgr_test_dup/a and b call them): a patch naming
# that function with no position is refused with a clear error and
# patches neither; named with its module and position 2
# (kgr_test_dup_pos) it patches the one of file b alone; position 3 does
# not exist and is refused. kgr_test_newdup patches kgr_test_fn_symbols()
# with a replacement that has a namesake returning 3, linked before it:
# the callers must reach the replacement the patch gives (2), which
# kGraft knows by its address.
#
# kgr-timeout: 90

. "$(dirname "$0")/functions.sh"

load_target symbols
load_mod kgr_test_dup
DUP=/proc/kgr_test_dup

start_test "symbols: an ambiguous name without a position is refused"
refuse kgr_test_dup_noname
expect_log "kgr: kgr_test_dup_fn is ambiguous"
assert_eq 1 "$(cat $DUP/a)" "kgr_test_dup_fn() of kgr_test_dup_a.c"
assert_eq 1 "$(cat $DUP/b)" "kgr_test_dup_fn() of kgr_test_dup_b.c"

start_test "symbols: module:function and a position choose one"
refuse kgr_test_dup_pos3
expect_log "kgr: kgr_test_dup:kgr_test_dup_fn has no position 3"
assert_eq 1 "$(cat $DUP/b)" "kgr_test_dup_fn() of b after the refused patch"
load_mod kgr_test_dup_pos
assert_eq 1 "$(cat $DUP/a)" "kgr_test_dup_fn() of kgr_test_dup_a.c"
assert_eq 2 "$(cat $DUP/b)" "kgr_test_dup_fn() of kgr_test_dup_b.c"
kgr_wait_finalized 45
assert_eq 1 "$(cat $DUP/a)" "kgr_test_dup_fn() of a after finalization"
assert_eq 2 "$(cat $DUP/b)" "kgr_test_dup_fn() of b after finalization"

start_test "symbols: the replacement is the function the patch gives"
load_mod kgr_test_newdup
expect_log "kgr_test_newdup: the namesake returns 3"
assert_eq 2 "$(fn_version symbols)" "kgr_test_fn_symbols() after the patch"
kgr_wait_finalized 45
assert_eq 2 "$(fn_version symbols)" "kgr_test_fn_symbols() after finalization"

log "ok"
exit 0
