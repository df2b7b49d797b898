#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Tasks that wait for a CPU on their way back to user mode do not hold a
# transition. LOOPS shell loops that make no system call run at nice 19
# beside one loop at nice 0 per CPU, so that nearly all of them sit in
# the reschedule of exit_to_user_mode_loop() at any time, preempted by
# the tick. The check switches them where they wait: the log counts them,
# none is marked at finalization, and they loop on unharmed.
#
# kgr-timeout: 90

. "$(dirname "$0")/functions.sh"

LOOPS=24
FINAL=30

# loop NICE: a shell loop without system calls, at NICE; prints its pid
# (busybox has renice but no nice)
loop() {
	sh -c "renice -n $1 -p \$\$ || exit 1; while :; do :; done" > /dev/null 2>&1 &
	echo $!
}

start_test "tasks preempted on their way back to user mode are switched where they wait"
load_target at_exit
loops=
for i in $(seq $LOOPS); do
	loops="$loops $(loop 19)"
done
hogs="$(loop 0) $(loop 0)"
sleep 1
for pid in $loops $hogs; do
	[ "$(awk '{ print $3 }' /proc/$pid/stat 2>/dev/null)" = R ] || die "loop $pid does not run"
done
first=$(echo $loops | cut -d' ' -f1)
assert_eq 19 "$(awk '{ print $19 }' /proc/$first/stat)" "the nice value of loop $first"

load_mod kgr_test_patch_at_exit
kgr_wait_finalized $FINAL
line=$(kmsg_since_mark | grep '^kgr: [0-9]* nudges; tasks switched where they waited') ||
	die "no count of the tasks switched where they waited"
log "$line"
n=$(echo "$line" | sed -n 's/.* waited: \([0-9]*\) on their way back.*/\1/p')
[ "${n:-0}" -ge 1 ] || die "no task was switched on its way back to user mode"
for pid in $loops $hogs; do
	[ -d /proc/$pid ] || die "loop $pid is gone"
	assert_eq 0 "$(cat /proc/$pid/kgr_in_progress)" "kgr_in_progress of loop $pid"
done

kill $loops $hogs
wait
log "ok: $n tasks switched on their way back to user mode ($LOOPS loops at nice 19, 2 at nice 0)"
exit 0
