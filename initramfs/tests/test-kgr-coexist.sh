#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Coexistence, as SUSE's qa_test_klp checked it: a function patched by
# kGraft can be traced by the function tracer and probed with a kprobe
# and a kretprobe, and the patch keeps working; a function cannot be
# redirected by kGraft and by livepatch at once, and whichever comes
# second is refused cleanly (nothing half-done, and the next valid
# request succeeds). A kGraft patch refused that way tried a direct call
# first: it leaves nothing in ftrace's table of direct calls, so that
# after 65 refusals the next patch of the function still gets its direct
# call once finalized.
#
# kgr-timeout: 180

. "$(dirname "$0")/functions.sh"

T=/sys/kernel/tracing

start_test "the function tracer, a kprobe and a kretprobe on a patched function"
load_target coexist_klp coexist
[ -d $T/events ] || mount -t tracefs nodev $T || die "cannot mount tracefs"
[ -f $T/kprobe_events ] || skip "no kprobe events in this kernel"
load_mod kgr_test_patch_coexist
kgr_wait_finalized 30
assert_eq 2 "$(fn_version coexist)" "kgr_test_fn_coexist() patched"

ftrace_users coexist 2

kgr_revert kgr_test_patch_coexist
kgr_wait_reverted kgr_test_patch_coexist 30
unload_mod kgr_test_patch_coexist
assert_eq 1 "$(fn_version coexist)" "kgr_test_fn_coexist() reverted"

# direct_klp WHEN: kgr_test_fn_coexist_klp gets its direct call within 10 s
direct_klp() {
	wait_for "grep -A1 '^kgr_test_fn_coexist_klp ' $T/enabled_functions | grep -q 'direct-->'" 10 ||
		die "no direct call for kgr_test_fn_coexist_klp $1: $(grep -A1 '^kgr_test_fn_coexist_klp ' $T/enabled_functions)"
}

start_test "kGraft and livepatch on one function: the second is refused cleanly"
[ -d /sys/kernel/livepatch ] || skip "no CONFIG_LIVEPATCH"
load_mod kgr_test_patch_coexist_klp
kgr_wait_finalized 30
direct_klp "once finalized"
log "% insmod kgr_test_klp.ko (must fail: kGraft patches kgr_test_fn_coexist_klp)"
if insmod "$MODDIR/kgr_test_klp.ko"; then
	die "livepatch patched a function that kGraft patches"
fi
[ -e /sys/kernel/livepatch/kgr_test_klp ] && die "a livepatch directory was left behind"
assert_eq 2 "$(fn_version coexist_klp)" "kgr_test_fn_coexist_klp() after the refused livepatch"
kgr_revert kgr_test_patch_coexist_klp
kgr_wait_reverted kgr_test_patch_coexist_klp 30
unload_mod kgr_test_patch_coexist_klp

load_mod kgr_test_klp
wait_for '[ "$(cat /sys/kernel/livepatch/kgr_test_klp/transition)" = 0 ]' 30 ||
	die "the livepatch transition did not finish"
assert_eq 4 "$(fn_version coexist_klp)" "kgr_test_fn_coexist_klp() livepatched"
log "% insmod kgr_test_patch_coexist_klp.ko (must fail: livepatch patches kgr_test_fn_coexist_klp)"
if insmod "$MODDIR/kgr_test_patch_coexist_klp.ko"; then
	die "kGraft patched a function that livepatch patches"
fi
expect_log "kgr: registering ftrace function for kgr_test_fn_coexist_klp failed (-16)"
[ -e "$KGR_SYS/kgr_test_patch_coexist_klp" ] && die "$KGR_SYS/kgr_test_patch_coexist_klp was left behind"
assert_eq 0 "$(cat $KGR_SYS/in_progress)" "in_progress after the refused patch"
assert_eq 4 "$(fn_version coexist_klp)" "kgr_test_fn_coexist_klp() after the refused kGraft patch"
log "% insmod kgr_test_patch_coexist_klp.ko, 64 more times (each must fail)"
i=0
while [ $i -lt 64 ]; do
	insmod "$MODDIR/kgr_test_patch_coexist_klp.ko" 2>/dev/null &&
		die "kGraft patched a function that livepatch patches, at try $i"
	i=$((i + 1))
done

# the next valid requests succeed
echo 0 > /sys/kernel/livepatch/kgr_test_klp/enabled
wait_for '[ ! -e /sys/kernel/livepatch/kgr_test_klp ]' 30 ||
	die "the livepatch was not disabled"
unload_mod kgr_test_klp
assert_eq 1 "$(fn_version coexist_klp)" "kgr_test_fn_coexist_klp() after the livepatch"
load_mod kgr_test_patch_coexist_klp
kgr_wait_finalized 30
assert_eq 2 "$(fn_version coexist_klp)" "kgr_test_fn_coexist_klp() patched by kGraft again"
direct_klp "after the refused patches"
kgr_revert kgr_test_patch_coexist_klp
kgr_wait_reverted kgr_test_patch_coexist_klp 30
unload_mod kgr_test_patch_coexist_klp
log "ok"
exit 0
