#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Tasks that are stopped do not hold a transition: a job stopped with
# SIGSTOP in nanosleep(), a tracee in a ptrace stop (its tracer asleep
# in read()), and a task of a frozen cgroup (cgroup v2's cgroup.freeze).
# Patching must finalize within FINAL s while they are stopped, each
# switched where it stands (kgr_in_progress 0, still stopped); let go
# afterwards, each finishes its call normally.
#
# kgr-timeout: 120

. "$(dirname "$0")/functions.sh"

FINAL=5
DIR=/tmp/stopped
CG=/sys/fs/cgroup

start_test "stopped, traced and frozen tasks do not hold the transition"
load_target stopped
rm -rf $DIR
mkdir -p $DIR

# state PID: the one-letter state of PID
state() {
	awk '{ print $3 }' /proc/$1/stat
}

kgr-sleeper nanosleep 8000 > $DIR/stopped.out 2>&1 &
stopped=$!
mkfifo $DIR/tracer.fifo
kgr-sleeper ptrace 2000 <> $DIR/tracer.fifo > $DIR/tracer.out 2>&1 &
tracer=$!

# the frozen cgroup: systemd has cgroup2 mounted already, busybox not
grep -q " $CG cgroup2 " /proc/mounts || mount -t cgroup2 none $CG ||
	die "cannot mount cgroup2 on $CG"
rmdir $CG/kgr-frozen 2>/dev/null
mkdir $CG/kgr-frozen || die "cannot make a cgroup"
kgr-sleeper nanosleep 8000 > $DIR/frozen.out 2>&1 &
frozen=$!
echo $frozen > $CG/kgr-frozen/cgroup.procs || die "cannot move $frozen into the cgroup"

wait_for "grep -q '^pid=' $DIR/stopped.out && grep -q '^traced=' $DIR/tracer.out &&
	  grep -q '^pid=' $DIR/frozen.out" 10 || die "the sleepers did not start"
tracee=$(sed -n 's/^traced=//p' $DIR/tracer.out)
kill -STOP $stopped
echo 1 > $CG/kgr-frozen/cgroup.freeze
wait_for "grep -q '^frozen 1' $CG/kgr-frozen/cgroup.events" 10 || die "the cgroup did not freeze"
wait_for "[ \$(state $stopped) = T ]" 10 || die "pid $stopped did not stop"
assert_eq t "$(state $tracee)" "state of the tracee $tracee"
log "stopped $stopped, traced $tracee (tracer $tracer), frozen $frozen"

load_mod kgr_test_patch_stopped
kgr_wait_finalized $FINAL
kmsg_since_mark | grep '^kgr: transition finalized'
assert_eq T "$(state $stopped)" "state of the stopped task at finalization"
assert_eq t "$(state $tracee)" "state of the tracee at finalization"
assert_eq 1 "$(sed -n 's/^frozen //p' $CG/kgr-frozen/cgroup.events)" "the cgroup at finalization"
for pid in $stopped $tracee $frozen $tracer; do
	assert_eq 0 "$(cat /proc/$pid/kgr_in_progress)" "kgr_in_progress of $pid"
done

kill -CONT $stopped
echo 0 > $CG/kgr-frozen/cgroup.freeze
echo x > $DIR/tracer.fifo
for n in stopped tracer frozen; do
	wait_for "grep -q '^mode=' $DIR/$n.out" 20 || die "$n did not return: $(cat $DIR/$n.out)"
	log "$n: $(grep '^mode=' $DIR/$n.out)"
	grep -q 'errno=0 ' $DIR/$n.out || die "$n: $(grep '^mode=' $DIR/$n.out)"
	grep -q 'ret=-' $DIR/$n.out && die "$n: $(grep '^mode=' $DIR/$n.out)"
done
wait
rmdir $CG/kgr-frozen
log "ok"
exit 0
