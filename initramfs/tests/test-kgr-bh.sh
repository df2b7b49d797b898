#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Process context with bottom halves or preemption disabled is still the
# task's context. A task calls the patched function in a loop inside one
# system call, each round three times: plainly, under local_bh_disable()
# and under preempt_disable(). While patching starts and the CPUs'
# interrupt flags switch to the new universe, every call of the trip
# must get the task's (old) version: no round may mix versions. 6.1's
# in_interrupt() counts BH-disabled sections, so the RFC's stub sent
# such calls to the per-CPU IRQ flag.
#
# kgr-timeout: 120

. "$(dirname "$0")/functions.sh"

start_test "calls with BH or preemption disabled stay in the task's universe"
load_target bh
spin_across_patch spin_bh bh /tmp/spin_bh.out

calls=$(field calls /tmp/spin_bh.out)
[ "${calls:-0}" -gt 300 ] || die "only ${calls:-0} calls in the trip"
assert_eq 0 "$(field mixed /tmp/spin_bh.out)" "rounds that mixed versions"
assert_eq 0 "$(field new2old /tmp/spin_bh.out)" "new-to-old switches within the trip"
assert_eq 0 "$(field old2new /tmp/spin_bh.out)" "old-to-new switches within the trip"
assert_eq 1 "$(field first /tmp/spin_bh.out)" "first call of the trip"
assert_eq 1 "$(field last /tmp/spin_bh.out)" "last call of the trip"
assert_eq 2 "$(field next /tmp/spin_bh.out)" "the next system call"

kgr_wait_finalized 45
log "ok"
exit 0
