#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# CPU hotplug. With CPU 1 offline, its per-CPU kthreads (cpuhp/1,
# ksoftirqd/1, migration/1, ...) are parked and never woken: they must
# not hold a transition. A CPU that comes online while a transition is
# in progress must take the new universe for its interrupts (it ran none
# while offline), not keep the old one until finalization: the hardirq
# and softirq timers of kgr_test_proc on CPU 1 get the new
# kgr_test_fn_hotplug_irq() while the transition is held.
#
# kgr-timeout: 120

. "$(dirname "$0")/functions.sh"

CPU1=/sys/devices/system/cpu/cpu1/online

[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs, have $(nproc)"
[ -w $CPU1 ] || skip "no CPU hotplug ($CPU1)"

# whatever happens, the tests after this one get CPU 1 back
trap 'echo 1 > $CPU1 2>/dev/null' EXIT

cpu1() {
	echo "$1" > $CPU1 || die "cannot set CPU 1 online=$1"
	assert_eq "$1" "$(cat $CPU1)" "CPU 1 online"
}

start_test "parked kthreads of an offline CPU do not hold the transition"
load_target hotplug hotplug_irq
cpu1 0
load_mod kgr_test_patch_hotplug
kgr_wait_finalized 5
cpu1 1
assert_eq 2 "$(fn_version hotplug)" "kgr_test_fn_hotplug() after the patch"

start_test "a CPU that comes online during a transition runs new interrupt code"
cpu1 0
hold_transition /tmp/hotplug-hold.out
echo hotplug_irq > $KGR_TEST/irq_select
load_mod kgr_test_patch_hotplug_irq
cpu1 1
echo 1 > $KGR_TEST/irq
sleep 1
irq_snapshot
assert_eq 1 "$(cat /sys/kernel/kgraft/in_progress)" "in_progress while held"
irq_expect 0 2
irq_expect 1 2
echo 0 > $KGR_TEST/irq
release_hold /tmp/hotplug-hold.out
kgr_wait_finalized 45
log "ok"
exit 0
