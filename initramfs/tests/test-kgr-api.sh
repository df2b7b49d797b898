#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# SUSE's API. kgr_test_suse names itself (kgr_test_suse_api) and its
# owner, and is made of SUSE's entries: KGR_PATCH(name, new) on
# kgr_test_fn_api(), KGR_PATCH_OBJ() on kgr_test_mod_fn() of
# kgr_test_mod, KGR_PATCH_OBJPOS() on the first of kgr_test_dup's two
# kgr_test_dup_fn(). Its sysfs directory has the name it gave, its owner
# file the module; its refs file names the patches stacked on it. (The
# RFC's API: test-kgr-sample.sh and all the others.)
#
# kgr-timeout: 120

. "$(dirname "$0")/functions.sh"

S=kgr_test_suse_api
DUP=/proc/kgr_test_dup

start_test "a patch written to SUSE's API: its name, owner and three kinds of entry"
load_target api
dup_loaded=
if [ ! -d $DUP ]; then
	load_mod kgr_test_dup
	dup_loaded=1
fi
load_mod kgr_test_mod
assert_eq 1 "$(fn_version api)" "kgr_test_fn_api() before"
assert_eq 1 "$(cat /proc/kgr_test_mod/version)" "kgr_test_mod_fn() before"
dup_a=$(cat $DUP/a)
load_mod kgr_test_suse
kgr_wait_finalized 30
[ -d "$KGR_SYS/$S" ] || die "no $KGR_SYS/$S"
[ -e "$KGR_SYS/kgr_test_suse" ] && die "the directory is named after the module"
assert_eq kgr_test_suse "$(cat $KGR_SYS/$S/owner)" "the owner of $S"
assert_eq "kgr_test_fn_api kgr_test_target_api 0 applied
kgr_test_mod_fn kgr_test_mod 0 applied
kgr_test_dup_fn kgr_test_dup 1 applied" "$(cat $KGR_SYS/$S/state)" "the state of $S"
assert_eq 2 "$(fn_version api)" "kgr_test_fn_api() (KGR_PATCH)"
assert_eq 2 "$(cat /proc/kgr_test_mod/version)" "kgr_test_mod_fn() (KGR_PATCH_OBJ)"
assert_eq 2 "$(cat $DUP/a)" "kgr_test_dup_fn() of a (KGR_PATCH_OBJPOS, 1)"
assert_eq "" "$(cat $KGR_SYS/$S/refs)" "the refs of $S alone"

start_test "refs names the patches stacked on it, which go first"
load_mod kgr_test_modpatch2
kgr_wait_finalized 30
assert_eq 3 "$(cat /proc/kgr_test_mod/version)" "kgr_test_mod_fn() with a patch on top"
assert_eq kgr_test_modpatch2 "$(cat $KGR_SYS/$S/refs)" "the refs of $S"
assert_eq "" "$(cat $KGR_SYS/kgr_test_modpatch2/refs)" "the refs of the top patch"
kgr patches | grep -A4 "^$S\$" > /tmp/kgr-patches.out
assert_eq "$S
    kgr_test_fn_api kgr_test_target_api 0 applied
    kgr_test_mod_fn kgr_test_mod 0 applied
    kgr_test_dup_fn kgr_test_dup 1 applied
    refs: kgr_test_modpatch2" "$(cat /tmp/kgr-patches.out)" "kgr patches"
log "% echo 1 > $KGR_SYS/$S/revert (must fail: kgr_test_modpatch2 is on top)"
if echo 1 > "$KGR_SYS/$S/revert"; then
	die "$S was reverted under kgr_test_modpatch2"
fi
kgr_revert kgr_test_modpatch2
kgr_wait_reverted kgr_test_modpatch2 30
unload_mod kgr_test_modpatch2
assert_eq "" "$(cat $KGR_SYS/$S/refs)" "the refs of $S after the revert on top"

start_test "the patch is reverted by its name, and its module removed"
kgr_revert $S
kgr_wait_reverted $S 30
assert_eq 1 "$(fn_version api)" "kgr_test_fn_api() reverted"
assert_eq 1 "$(cat /proc/kgr_test_mod/version)" "kgr_test_mod_fn() reverted"
assert_eq "$dup_a" "$(cat $DUP/a)" "kgr_test_dup_fn() of a reverted"
unload_mod kgr_test_suse
unload_mod kgr_test_mod
[ -n "$dup_loaded" ] && unload_mod kgr_test_dup
if kmsg_since_mark | grep -E 'WARNING:|BUG:|Call Trace:'; then
	die "the kernel complained"
fi
log "ok"
exit 0
