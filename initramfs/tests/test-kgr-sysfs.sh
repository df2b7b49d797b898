#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# sysfs as SLE12 had it: each patch has /sys/kernel/kgraft/<name>/ with
# state (function object position state, one line per function), owner
# and revert, from its start until its revert is finalized; the state
# follows the patch through patching, applied and reverting; patching
# taints the kernel (TAINT_LIVEPATCH, 'K').
#
# kgr-timeout: 120

. "$(dirname "$0")/functions.sh"

P=kgr_test_patch_sysfs
D=$KGR_SYS/$P

start_test "each patch shows its functions and state; patching taints the kernel"
load_target sysfs
hold_transition /tmp/hold.out
load_mod $P
assert_eq "kgr_test_fn_sysfs kgr_test_target_sysfs 0 patching" "$(cat $D/state)" "$D/state during the transition"
assert_eq $P "$(cat $D/owner)" "$D/owner"
release_hold /tmp/hold.out
kgr_wait_finalized 30
assert_eq "kgr_test_fn_sysfs kgr_test_target_sysfs 0 applied" "$(cat $D/state)" "$D/state after finalization"
tainted=$(cat /proc/sys/kernel/tainted)
log "tainted=$tainted"
[ $((tainted & 32768)) -ne 0 ] || die "TAINT_LIVEPATCH (32768) is not set: tainted=$tainted"

hold_transition /tmp/hold.out
kgr_revert $P
assert_eq "kgr_test_fn_sysfs kgr_test_target_sysfs 0 reverting" "$(cat $D/state)" "$D/state during the revert"
release_hold /tmp/hold.out
kgr_wait_reverted $P 30
[ -e "$D" ] && die "$D is still there after the revert"
unload_mod $P

start_test "the state names the object and the position a patch asked for"
grep -q '^kgr_test_dup ' /proc/modules || load_mod kgr_test_dup
if [ ! -d "$KGR_SYS/kgr_test_dup_pos" ]; then
	load_mod kgr_test_dup_pos
	kgr_wait_finalized 30
fi
assert_eq "kgr_test_dup_fn kgr_test_dup 2 applied" "$(cat $KGR_SYS/kgr_test_dup_pos/state)" \
	"state of kgr_test_dup_pos"
log "ok"
exit 0
