#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A replace_all patch puts a nop on every function patched before it. A
# kthread at a safe point compares its stack with those nops without
# kGraft's lock; when a module goes during the transition, its nops are
# taken off and freed, and they must not be freed under that kthread.
#
# kgr_test_mod's function is patched by kgr_test_modpatch. The kthread of
# kgr_test_nopwalk stays in kgr_test_nopwalk_fn(), which the replace_all
# kgr_test_nopwalk_patch patches: it holds the transition and compares
# its stack with every nop at each of its safe points. With the module's
# hold armed, "rmmod kgr_test_mod" stops as kGraft frees the function's
# state (the nop was the last patch on it) until the kthread has begun to
# compare with the nop, and the kthread waits inside that comparison until
# the nop is freed, or for 500 ms. The nop must not be freed meanwhile,
# only after a grace period: a free under the kthread is counted, and
# KASAN (the debug kernel) reports the kthread's reads after it.
#
# kgr-timeout: 90

. "$(dirname "$0")/functions.sh"

P=/sys/module/kgr_test_nopwalk/parameters

start_test "a nop taken off while a kthread compares its stack with it"
load_mod kgr_test_mod
load_mod kgr_test_modpatch
kgr_wait_finalized 10
assert_eq 2 "$(cat /proc/kgr_test_mod/version)" "kgr_test_mod_fn() patched"

load_mod kgr_test_nopwalk
echo 1 > $P/hold || {
	unload_mod kgr_test_nopwalk
	kgr_revert kgr_test_modpatch
	kgr_wait_reverted kgr_test_modpatch 10
	unload_mod kgr_test_modpatch
	unload_mod kgr_test_mod
	skip "no kretprobes in this kernel"
}
load_mod kgr_test_nopwalk_patch
wait_for 'grep -q kgr_test_walker $KGR_SYS/blocking' 10 ||
	die "the walker does not hold the transition: $(cat $KGR_SYS/blocking)"
assert_eq 1 "$(cat /proc/kgr_test_mod/version)" "kgr_test_mod_fn() for a task that crossed (its own code, the nop)"

unload_mod kgr_test_mod
caught=$(cat $P/caught)
under=$(cat $P/freed_under)
log "the walker compared with the nop as its function was freed: $caught; nops freed under the walker: $under"
[ "$caught" -ge 1 ] ||
	die "the window was not reached: the walker never compared with the nop as its function was freed"
assert_eq 0 "$under" "nops freed while the walker compared with them"
echo 0 > $P/hold
if kmsg_since_mark | grep -E 'KASAN|BUG:|WARNING:|general protection'; then
	die "the kernel complained as the nop was freed"
fi

echo 1 > $P/stop
kgr_wait_finalized 20
wait_for "kmsg_since_mark | grep -q '^kgr: kgr_test_modpatch is replaced; its module can be removed'" 10 ||
	die "no 'kgr: kgr_test_modpatch is replaced' in the log"
unload_mod kgr_test_modpatch
kgr_revert kgr_test_nopwalk_patch
kgr_wait_reverted kgr_test_nopwalk_patch 10
unload_mod kgr_test_nopwalk_patch
unload_mod kgr_test_nopwalk
log "ok"
exit 0
