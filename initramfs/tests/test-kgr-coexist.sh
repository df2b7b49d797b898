#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Coexistence, as SUSE's qa_test_klp checked it: a function patched by
# kGraft can be traced by the function tracer and probed with a kprobe
# and a kretprobe, and the patch keeps working; a function cannot be
# redirected by kGraft and by livepatch at once, and whichever comes
# second is refused cleanly (nothing half-done, and the next valid
# request succeeds). A kGraft patch refused that way tried a direct call
# first, with an ftrace_ops from kGraft's pool of 64: it gives it back,
# so that after 65 refusals the next patch of the function still gets
# its direct call once finalized.
#
# kgr-timeout: 180

. "$(dirname "$0")/functions.sh"

T=/sys/kernel/tracing

start_test "the function tracer, a kprobe and a kretprobe on a patched function"
load_target
[ -d $T/events ] || mount -t tracefs nodev $T || die "cannot mount tracefs"
[ -f $T/kprobe_events ] || skip "no kprobe events in this kernel"
load_mod kgr_test_patch_37
kgr_wait_finalized 30
assert_eq 2 "$(fn_version 37)" "kgr_test_fn_37() patched"

ftrace_users 37 2

kgr_revert kgr_test_patch_37
kgr_wait_reverted kgr_test_patch_37 30
unload_mod kgr_test_patch_37
assert_eq 1 "$(fn_version 37)" "kgr_test_fn_37() reverted"

# direct_36 WHEN: kgr_test_fn_36 gets its direct call within 10 s
direct_36() {
	wait_for "grep -A1 '^kgr_test_fn_36 ' $T/enabled_functions | grep -q 'direct-->'" 10 ||
		die "no direct call for kgr_test_fn_36 $1: $(grep -A1 '^kgr_test_fn_36 ' $T/enabled_functions)"
}

start_test "kGraft and livepatch on one function: the second is refused cleanly"
[ -d /sys/kernel/livepatch ] || skip "no CONFIG_LIVEPATCH"
load_mod kgr_test_patch_36
kgr_wait_finalized 30
direct_36 "once finalized"
log "% insmod kgr_test_klp.ko (must fail: kGraft patches kgr_test_fn_36)"
if insmod "$MODDIR/kgr_test_klp.ko"; then
	die "livepatch patched a function that kGraft patches"
fi
[ -e /sys/kernel/livepatch/kgr_test_klp ] && die "a livepatch directory was left behind"
assert_eq 2 "$(fn_version 36)" "kgr_test_fn_36() after the refused livepatch"
kgr_revert kgr_test_patch_36
kgr_wait_reverted kgr_test_patch_36 30
unload_mod kgr_test_patch_36

load_mod kgr_test_klp
wait_for '[ "$(cat /sys/kernel/livepatch/kgr_test_klp/transition)" = 0 ]' 30 ||
	die "the livepatch transition did not finish"
assert_eq 4 "$(fn_version 36)" "kgr_test_fn_36() livepatched"
log "% insmod kgr_test_patch_36.ko (must fail: livepatch patches kgr_test_fn_36)"
if insmod "$MODDIR/kgr_test_patch_36.ko"; then
	die "kGraft patched a function that livepatch patches"
fi
expect_log "kgr: registering ftrace function for kgr_test_fn_36 failed (-16)"
[ -e "$KGR_SYS/kgr_test_patch_36" ] && die "$KGR_SYS/kgr_test_patch_36 was left behind"
assert_eq 0 "$(cat $KGR_SYS/in_progress)" "in_progress after the refused patch"
assert_eq 4 "$(fn_version 36)" "kgr_test_fn_36() after the refused kGraft patch"
log "% insmod kgr_test_patch_36.ko, 64 more times (each must fail)"
i=0
while [ $i -lt 64 ]; do
	insmod "$MODDIR/kgr_test_patch_36.ko" 2>/dev/null &&
		die "kGraft patched a function that livepatch patches, at try $i"
	i=$((i + 1))
done

# the next valid requests succeed
echo 0 > /sys/kernel/livepatch/kgr_test_klp/enabled
wait_for '[ ! -e /sys/kernel/livepatch/kgr_test_klp ]' 30 ||
	die "the livepatch was not disabled"
unload_mod kgr_test_klp
assert_eq 1 "$(fn_version 36)" "kgr_test_fn_36() after the livepatch"
load_mod kgr_test_patch_36
kgr_wait_finalized 30
assert_eq 2 "$(fn_version 36)" "kgr_test_fn_36() patched by kGraft again"
direct_36 "after the refused patches"
kgr_revert kgr_test_patch_36
kgr_wait_reverted kgr_test_patch_36 30
unload_mod kgr_test_patch_36
log "ok"
exit 0
