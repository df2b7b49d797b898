#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Module targets. A patch of a function in a module
# (kgr_test_mod:kgr_test_mod_fn) works when the module is loaded first,
# and when it is loaded later: then the function is patched before the
# module's init runs. When the module is removed its functions are let
# go cleanly (the patch stays applied and waits), and loaded again they
# are patched again, stacked patches in their order. A module whose
# function cannot be patched does not load, unless force_load_module is
# set. A module loaded during a transition joins it.
#
# kgr-timeout: 240

. "$(dirname "$0")/functions.sh"

M=kgr_test_mod
P=kgr_test_modpatch
P2=kgr_test_modpatch2
MP=/proc/$M

# mod_state PATCH: the state word of the patch's line in sysfs
mod_state() {
	awk '$1 == "kgr_test_mod_fn" { print $2, $4 }' "$KGR_SYS/$1/state"
}

# kgr_settle: the transition of the patch just loaded is over (several
# in one section: kgr_wait_finalized would see the first one's message)
kgr_settle() {
	wait_for '[ "$(cat $KGR_SYS/in_progress)" = 0 ]' 30 ||
		die "the transition did not finish within 30 s"
}

# no_complaint WHAT: the kernel did not warn since the mark
no_complaint() {
	if kmsg_since_mark | grep -E 'WARNING:|BUG:|Call Trace:'; then
		die "the kernel complained $1"
	fi
}

start_test "a module loaded first: its function is patched, and the module can go"
load_mod $M
assert_eq 1 "$(cat $MP/version)" "kgr_test_mod_fn() before the patch"
load_mod $P
kgr_wait_finalized 30
assert_eq 2 "$(cat $MP/version)" "kgr_test_mod_fn() patched"
assert_eq "kgr_test_mod applied" "$(mod_state $P)" "the state of the function"
unload_mod $M
[ -d $MP ] && die "$MP is still there"
assert_eq "kgr_test_mod unloaded" "$(mod_state $P)" "the state after rmmod $M"
expect_log "kgr: kgr_test_mod:kgr_test_mod_fn: module kgr_test_mod is going; $P waits for its next load"
no_complaint "when the target module went"

start_test "the module loaded again: patched before its init runs"
load_mod $M
assert_eq 2 "$(cat $MP/init)" "the call in the module's init"
assert_eq 2 "$(cat $MP/version)" "kgr_test_mod_fn() after the reload"
assert_eq "kgr_test_mod applied" "$(mod_state $P)" "the state after the reload"
expect_log "kgr: kgr_test_mod:kgr_test_mod_fn: patched by $P as module kgr_test_mod loads"
no_complaint "when the target module came back"

start_test "patches of a module that is not loaded wait for it, and stack in order"
unload_mod $M
load_mod $P2
kgr_wait_finalized 30
expect_log "kgr: kgr_test_mod:kgr_test_mod_fn: module kgr_test_mod is not loaded; the function is patched when it loads"
assert_eq "kgr_test_mod unloaded" "$(mod_state $P2)" "the state of the waiting patch"
load_mod $M
assert_eq 3 "$(cat $MP/init)" "the call in the module's init, two patches"
assert_eq 3 "$(cat $MP/version)" "kgr_test_mod_fn() with two patches"
log "% echo 1 > $KGR_SYS/$P/revert (must fail: $P2 is on top)"
if echo 1 > "$KGR_SYS/$P/revert"; then
	die "$P was reverted under $P2"
fi
kgr_revert $P2
kgr_wait_reverted $P2 30
assert_eq 2 "$(cat $MP/version)" "kgr_test_mod_fn() after the revert of $P2"
unload_mod $P2
kgr_revert $P
kgr_wait_reverted $P 30
assert_eq 1 "$(cat $MP/version)" "kgr_test_mod_fn() after both reverts"
unload_mod $P
unload_mod $M
no_complaint "in the stacked module patches"

start_test "a module whose function cannot be patched does not load, unless forced"
load_mod kgr_test_modbad
kgr_wait_finalized 30
assert_eq 0 "$(cat $KGR_SYS/force_load_module)" "force_load_module by default"
refuse $M
expect_log "kgr: can't patch kgr_test_mod:kgr_test_mod_nosuch for kgr_test_modbad (-2): module kgr_test_mod does not load"
load_mod $P
kgr_settle
refuse $M
assert_eq "kgr_test_mod unloaded" "$(mod_state $P)" "the good patch after the refused load"
for v in 2 x ''; do
	log "% echo '$v' > $KGR_SYS/force_load_module (must fail)"
	if echo "$v" > "$KGR_SYS/force_load_module"; then
		die "'$v' was accepted"
	fi
done
log "% echo 1 > $KGR_SYS/force_load_module"
echo 1 > $KGR_SYS/force_load_module
load_mod $M
echo 0 > $KGR_SYS/force_load_module
expect_log "force_load_module is set: module kgr_test_mod is loaded without this function patched"
assert_eq 2 "$(cat $MP/version)" "kgr_test_mod_fn() of the forced load"
unload_mod $M
kgr_revert kgr_test_modbad
kgr_wait_reverted kgr_test_modbad 30
unload_mod kgr_test_modbad
load_mod $M
assert_eq 2 "$(cat $MP/init)" "the call in the module's init without the bad patch"
no_complaint "with the bad module patch"

start_test "a module loaded during a transition joins it"
kgr_revert $P
kgr_wait_reverted $P 30
unload_mod $P
unload_mod $M
hold_transition /tmp/hold.out
load_mod $P
assert_eq "kgr_test_mod unloaded" "$(mod_state $P)" "the state while patching, before the load"
assert_eq 1 "$(cat $KGR_SYS/in_progress)" "in_progress while held"
load_mod $M
assert_eq "kgr_test_mod patching" "$(mod_state $P)" "the state while patching, after the load"
# the caller is a new process of a shell that crossed: the new code
assert_eq 2 "$(cat $MP/version)" "kgr_test_mod_fn() in the transition"
release_hold /tmp/hold.out
kgr_settle
assert_eq "kgr_test_mod applied" "$(mod_state $P)" "the state after finalization"
assert_eq 2 "$(cat $MP/version)" "kgr_test_mod_fn() after finalization"
kgr_revert $P
kgr_wait_reverted $P 30
unload_mod $P
unload_mod $M
no_complaint "in the transition"
log "ok"
exit 0
