#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Tasks asleep in system calls do not hold a transition, and do not see
# that they were nudged. One kgr-sleeper each sleeps in read (FIFO),
# poll, select, epoll_wait (with and without a timeout), epoll_pwait, a
# futex wait, pause, nanosleep, wait4 and accept (its address length at
# an address that, read as receive flags, would be MSG_WAITALL), and a
# cat reads /proc/kmsg as rsyslog's imklog does; they fall asleep SETTLE
# s before the patch is loaded. Patching must finalize within FINAL s;
# each sleeper must still be asleep then, in the new universe. Then each
# call must return what it would have without the nudge: the timed ones
# after their full timeout (T ms, not less, and not T more from a
# restart with the whole timeout), with no EINTR, and nanosleep's rem
# untouched; the others when woken (data in the FIFO, SIGUSR1 for pause,
# a connection for accept).
#
# kgr-timeout: 150

. "$(dirname "$0")/functions.sh"

# ms, timeout of the timed sleepers: long enough that none times out
# before it is checked after the transition (12 s was not, once, on the
# Debian guest with a kernel build running next to it)
T=30000
SETTLE=3	# s asleep before the patch
FINAL=5		# s, bound on the transition with all of them asleep
DIR=/tmp/nudge

start_test "tasks asleep in system calls are nudged across, transparently"
load_target nudge
rm -rf $DIR
mkdir -p $DIR

timed="poll select epoll epoll_pwait futex nanosleep wait4"
for m in $timed; do
	start_sleeper $DIR $m $m $T
done
start_sleeper $DIR read read 0
start_sleeper $DIR epoll_inf epoll -1
start_sleeper $DIR pause pause 0
start_sleeper $DIR accept accept 0

cat /proc/kmsg > /dev/null &
kmsg=$!

all="$timed read epoll_inf pause accept"
for n in $all; do
	wait_for "grep -q '^pid=' $DIR/$n.out" 10 || die "$n sleeper did not start"
done
sleep $SETTLE
for n in $all; do
	state=$(awk '{ print $3 }' /proc/$(cat $DIR/$n.pid)/stat)
	assert_eq S "$state" "state of the $n sleeper before the patch"
done
assert_eq S "$(awk '{ print $3 }' /proc/$kmsg/stat)" "state of the /proc/kmsg reader"

load_mod kgr_test_patch_nudge
kgr_wait_finalized $FINAL
log "finalized with $(echo $all | wc -w) sleepers asleep"
kmsg_since_mark | grep '^kgr: transition finalized'

# still asleep, and crossed
for n in $all; do
	pid=$(cat $DIR/$n.pid)
	grep -q '^mode=' $DIR/$n.out && die "$n returned early: $(cat $DIR/$n.out)"
	assert_eq 0 "$(cat /proc/$pid/kgr_in_progress)" "kgr_in_progress of the $n sleeper"
done
assert_eq 0 "$(cat /proc/$kmsg/kgr_in_progress)" "kgr_in_progress of the /proc/kmsg reader"
kill $kmsg

# wake the untimed ones as their callers would
echo x > $DIR/read.fifo
echo x > $DIR/epoll_inf.fifo
echo x > $DIR/accept.fifo
kill -USR1 "$(cat $DIR/pause.pid)"

# the timed ones return T ms after they fell asleep: bound the wait by
# T, not by a constant (20 s was shorter than T once T became 30 s)
for n in $all; do
	wait_for "grep -q '^mode=' $DIR/$n.out" $((T / 1000 + 15)) ||
		die "$n did not return"
	log "$n: $(grep '^mode=' $DIR/$n.out)"
done

# expected return values: the timed ones time out, the others got data
# or (pause) the real signal
for n in $all; do
	line=$(grep '^mode=' $DIR/$n.out)
	case $n in
	futex) want="ret=-1 errno=ETIMEDOUT" ;;
	wait4) want="errno=0" ;;	# ret is the child's pid
	accept) want="errno=0" ;;	# ret is the new socket
	read|epoll_inf) want="ret=1 errno=0" ;;
	pause) want="ret=-1 errno=EINTR" ;;
	*) want="ret=0 errno=0" ;;
	esac
	case " $line " in
	*" $want "*) ;;
	*) die "$n: expected '$want', got '$line'" ;;
	esac
done
for n in wait4 accept; do
	grep -q 'ret=-' $DIR/$n.out && die "$n: $(cat $DIR/$n.out)"
done
# nanosleep() writes the time left to rem only when a signal ends it
assert_eq kept "$(sed -n 's/^rem=//p' $DIR/nanosleep.out)" "nanosleep's rem after a nudge"

# timed ones: not shortened, not lengthened (a restart with the whole
# timeout would have taken T plus the time asleep before the nudge)
for n in $timed; do
	ms=$(sed -n 's/.* ms=//p' $DIR/$n.out)
	[ "$ms" -ge $((T - 20)) ] || die "$n: slept $ms ms, less than $T"
	[ "$ms" -le $((T + 1500)) ] || die "$n: slept $ms ms, more than $T + 1500"
done

wait
log "ok"
exit 0
