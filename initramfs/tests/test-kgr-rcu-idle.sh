#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A patched function that runs where RCU does not watch: arch_cpu_idle(),
# called by the idle loop between ct_idle_enter() and ct_idle_exit().
# kGraft's handler and trampolines run there too, so what they read is
# freed only after each CPU switched context once (RCU Tasks Rude), not
# after a grace period of RCU alone, which takes such a CPU for quiescent.
# The test patches arch_cpu_idle() (kgr_test_patch_eqs), stacks the same
# patch on it (kgr_test_patch_eqs2), reverts the top (its entry taken off
# the function's stack), then the first (its trampoline freed), then once
# more with the handler (kgr.direct=0); the new code must run each time,
# and the debug kernel's KASAN must report nothing.
#
# kgr-timeout: 120

. "$(dirname "$0")/functions.sh"

A=kgr_test_patch_eqs
B=kgr_test_patch_eqs2
DIRECT=/sys/module/kgr/parameters/direct

calls() {
	cat /sys/module/$1/parameters/calls
}

# runs MOD: the new arch_cpu_idle() of MOD is called (the CPUs idle)
runs() {
	local before

	before=$(calls $1)
	wait_for '[ "$(calls '"$1"')" -gt "'"$before"'" ]' 5 ||
		die "the new arch_cpu_idle() of $1 was not called in 5 s"
}

start_test "arch_cpu_idle(), run where RCU does not watch, patched, stacked and reverted"
load_mod $A
kgr_wait_finalized 30
sleep 1
if [ "$(calls $A)" = 0 ]; then
	kgr_revert $A
	kgr_wait_reverted $A 30
	unload_mod $A
	skip "the idle loop does not call arch_cpu_idle() (cpuidle driver: $(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null))"
fi
log "the new arch_cpu_idle() of $A: $(calls $A) calls"
load_mod $B
kgr_wait_finalized 30
runs $B
a=$(calls $A)
sleep 1
assert_eq "$a" "$(calls $A)" "calls of $A's arch_cpu_idle() under $B"
kgr_revert $B
kgr_wait_reverted $B 30
unload_mod $B
runs $A
kgr_revert $A
kgr_wait_reverted $A 30
unload_mod $A

start_test "arch_cpu_idle() patched with the handler (kgr.direct=0)"
echo 0 > $DIRECT
load_mod $A
kgr_wait_finalized 30
runs $A
kgr_revert $A
kgr_wait_reverted $A 30
unload_mod $A
echo 1 > $DIRECT
log "ok"
exit 0
