#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Scenario 5: interrupt context. Timers call kgr_test_fn_irq() on every CPU
# in hard interrupt context (hrtimer) and in softirq context (timer_list).
# While patching starts, CPU 1 is kept busy in the kernel without
# scheduling, so the per-CPU work of kgr_handle_irqs() cannot run there:
# CPU 0's handlers must switch to the new code while CPU 1's keep getting
# the old one; once CPU 1 schedules again, its work runs and its handlers
# switch too. No handler may ever go from new back to old.
#
# The test ends the hog as soon as CPU 0 was checked; it lasts at most
# HOG_MS, and the RCU stall timeout (21 s) is raised above that meanwhile
# (CPU 1 reports no quiescent state while hogged). The tinyconfig kernels
# have no soft lockup detector; Debian's has (it reports a CPU that did
# not schedule for 2 * watchdog_thresh, 20 s), so its threshold is raised
# to the maximum, 60 (120 s), for as long as the hog runs.
#
# kgr-timeout: 150

. "$(dirname "$0")/functions.sh"

HOG_MS=60000
STALL=/sys/module/rcupdate/parameters/rcu_cpu_stall_timeout
THRESH=/proc/sys/kernel/watchdog_thresh

# show_stack PID NAME: where PID is in the kernel, for a failure message
show_stack() {
	log "$2 (pid $1) in the kernel:"
	sed "s/^/kgr-test:   /" /proc/$1/stack 2>/dev/null
}

start_test "interrupt handlers switch per CPU, after that CPU's kworker ran"
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs, have $(nproc)"
load_target irq
ko=$(mod_file kgr_test_patch_irq)
load_many_for "$ko"

# the timers call kgr_test_fn_irq() (test-kgr-hotplug.sh chose another)
echo irq > $KGR_TEST/irq_select
echo 1 > $KGR_TEST/irq
sleep 1
irq_snapshot
irq_expect 0 1
irq_expect 1 1

# keep CPU 1 in the kernel; everything of ours runs on CPU 0 from now on
taskset -p -c 0 $$ > /dev/null || die "cannot pin the test to CPU 0"
stall=$(cat $STALL) || die "cannot read $STALL"
echo $((HOG_MS / 1000 + 30)) > $STALL || die "cannot raise $STALL"
thresh=
if [ -w $THRESH ]; then
	thresh=$(cat $THRESH)
	echo 60 > $THRESH || die "cannot raise $THRESH"
fi
# grace periods started before the change keep their old deadline
sleep 1
echo $HOG_MS > $KGR_TEST/spin_ms
taskset -c 1 cat $KGR_TEST/hog > /tmp/hog.out &
trap 'echo 0 > $KGR_TEST/hogging; echo $stall > $STALL
      [ -z "$thresh" ] || echo $thresh > $THRESH' EXIT
wait_for '[ "$(cat $KGR_TEST/hogging)" = 1 ]' 5 || die "CPU 1 is not hogged"

log "% insmod ${ko##*/} (in the background, on CPU 0)"
taskset -c 0 insmod "$ko" &
insmod=$!
wait_for 'cat $KGR_TEST/irq | grep -q "^cpu=0 ctx=softirq .* last=2 " &&
	  cat $KGR_TEST/irq | grep -q "^cpu=0 ctx=hardirq .* last=2 "' 40 ||
	{ irq_snapshot; show_stack $insmod insmod
	  die "CPU 0's handlers did not switch to the new code"; }
irq_snapshot
[ "$(cat $KGR_TEST/hogging)" = 1 ] ||
	die "CPU 1 was released before CPU 0 switched (HOG_MS too short)"
irq_expect 0 2
irq_expect 1 1
calls1=$(irq_get 1 hardirq calls)
soft1=$(irq_get 1 softirq calls)
log "CPU 0 runs the new code in interrupts, CPU 1 (hogged) the old one"

# CPU 1's timers keep firing while it is hogged, and keep getting old
sleep 1
irq_snapshot
[ "$(cat $KGR_TEST/hogging)" = 1 ] || die "CPU 1 was released too early (HOG_MS too short)"
[ "$(irq_get 1 hardirq calls)" -gt "$calls1" ] || die "no hardirq timer calls on hogged CPU 1"
# softirqs that irq_exit() leaves to ksoftirqd wait for the hog to end
# (seen on the slow debug kernel); their latest call must still be old
[ "$(irq_get 1 softirq calls)" -gt "$soft1" ] ||
	log "softirqs on hogged CPU 1 are left to ksoftirqd, which cannot run"
irq_expect 1 1

log "releasing CPU 1"
echo 0 > $KGR_TEST/hogging
wait_for '[ -s /tmp/hog.out ]' 10 || die "the hog did not end"
echo $stall > $STALL
[ -z "$thresh" ] || echo $thresh > $THRESH
assert_eq "cpu=1" "$(cat /tmp/hog.out)" "CPU of the hog"
echo 2000 > $KGR_TEST/spin_ms
wait_for 'grep -q "^kgr_test_patch_irq .*Live" /proc/modules' 10 ||
	die "insmod did not complete after CPU 1 was released"
wait_for 'cat $KGR_TEST/irq | grep -q "^cpu=1 ctx=softirq .* last=2 " &&
	  cat $KGR_TEST/irq | grep -q "^cpu=1 ctx=hardirq .* last=2 "' 5 ||
	{ irq_snapshot; die "CPU 1's handlers did not switch after its work ran"; }

kgr_wait_finalized 45
sleep 0.5
irq_snapshot
echo 0 > $KGR_TEST/irq
irq_expect 0 2
irq_expect 1 2
for cpu in 0 1; do
	for ctx in hardirq softirq; do
		assert_eq 1 "$(irq_get $cpu $ctx first)" "first version in $ctx on CPU $cpu"
		assert_eq 1 "$(irq_get $cpu $ctx old2new)" "old-to-new switches in $ctx on CPU $cpu"
	done
done
log "ok"
exit 0
