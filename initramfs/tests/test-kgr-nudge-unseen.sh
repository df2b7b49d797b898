#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A task asleep in a call that a nudge would show is not nudged: it holds
# the transition, the log and /sys/kernel/kgraft/blocking say why, and its
# call returns what it would have without a patch. One kgr-sleeper each:
# recv(8, MSG_WAITALL) and recv(8) with SO_RCVLOWAT 8 on an AF_UNIX
# stream socket holding 4 bytes, read(8) of a raw pty (VMIN 8) holding 4,
# and epoll_pwait() whose temporary mask blocks a SIGUSR1 sent while it
# sleeps. A nudge would have the reads return 4 and epoll_pwait() EINTR.
# A kgr-probe asleep in the read of a /proc file of kgr_test_proc (an
# interruptible trip) is not nudged either: kGraft cannot know how a
# driver's read answers a signal.
# A FIFO reader asleep next to them is still nudged across. Once the rest
# of the data comes, each call returns all of it, and the transition
# finalizes at once.
#
# kgr-timeout: 120

. "$(dirname "$0")/functions.sh"

DIR=/tmp/unseen
BLOCKING=/sys/kernel/kgraft/blocking

start_test "calls that a nudge would change are not nudged, and say why"
load_target nudge_unseen
[ -r $BLOCKING ] || die "no $BLOCKING"
rm -rf $DIR
mkdir -p $DIR
grep -q ' /dev/pts ' /proc/mounts || {
	mkdir -p /dev/pts
	mount -t devpts -o ptmxmode=0666 devpts /dev/pts
}

held="waitall rcvlowat pty_vmin epoll_masked"
for n in $held; do
	start_sleeper $DIR $n $n -1
done
start_sleeper $DIR fifo read 0
for n in $held fifo; do
	wait_for "grep -q '^pid=' $DIR/$n.out" 10 || die "$n sleeper did not start"
done
sleep 1
for n in $held fifo; do
	pid=$(cat $DIR/$n.pid)
	[ -d /proc/$pid ] || die "$n sleeper exited: $(cat $DIR/$n.out)"
	assert_eq S "$(awk '{ print $3 }' /proc/$pid/stat)" "state of the $n sleeper"
done
kill -USR1 "$(cat $DIR/epoll_masked.pid)"
select_fn nudge_unseen
echo 0 > $KGR_TEST/release
kgr-probe trip_intr > $DIR/trip.out 2>&1 &
trip_pid=$!
wait_for '[ "$(cat $KGR_TEST/waiting)" = 1 ]' 10 || die "the trip did not block"
sleep 0.5

load_mod kgr_test_patch_nudge_unseen
# a nudge would have ended them by now, with what they had
sleep 2
for n in $held; do
	line=$(grep '^mode=' $DIR/$n.out) &&
		die "$n returned while the patch loaded: $line"
done

# what each is held for, in the log and in sysfs
reason() {
	case $1 in
	waitall) echo "MSG_WAITALL" ;;
	rcvlowat) echo "SO_RCVLOWAT" ;;
	pty_vmin) echo "raw tty with VMIN" ;;
	epoll_masked) echo "temporary mask blocks is pending" ;;
	esac
}
for n in $held; do
	pid=$(cat $DIR/$n.pid)
	wait_for "grep -q '^$pid kgr-sleeper: .*$(reason $n)' $BLOCKING" 10 || {
		cat $BLOCKING
		die "$BLOCKING does not name the $n sleeper ($pid) with '$(reason $n)'"
	}
	grep "^$pid " $BLOCKING
done
wait_for "[ \$(kmsg_since_mark | grep -c '^kgr: kgr-sleeper\[[0-9]*\] holds the transition: a ') -ge 4 ]" 30 ||
	die "the log does not name the four sleepers"
for n in $held; do
	pid=$(cat $DIR/$n.pid)
	kmsg_since_mark | grep -q "^kgr: kgr-sleeper\[$pid\] holds the transition: .*$(reason $n)" ||
		die "the log does not say why the $n sleeper ($pid) holds the transition"
done
kmsg_since_mark | grep -q "^kgr: kgr-probe\[$trip_pid\] holds the transition: a read of a file not known to restart unseen" ||
	die "the log does not say why the trip ($trip_pid) holds the transition"
kgr blocking | awk -v p="$(cat $DIR/waitall.pid)" '$1 == p { getline; print }' |
	grep -q '^    why: .*MSG_WAITALL' ||
	die "kgr blocking does not say why: $(kgr blocking)"

# still asleep, not nudged; the FIFO reader was, and crossed
assert_eq 1 "$(cat /sys/kernel/kgraft/in_progress)" "in_progress while they sleep"
for n in $held; do
	pid=$(cat $DIR/$n.pid)
	grep -q '^mode=' $DIR/$n.out && die "$n returned early: $(cat $DIR/$n.out)"
	assert_eq 1 "$(cat /proc/$pid/kgr_in_progress)" "kgr_in_progress of the $n sleeper"
done
assert_eq 0 "$(cat /proc/$(cat $DIR/fifo.pid)/kgr_in_progress)" "kgr_in_progress of the FIFO reader"
assert_eq 1 "$(cat /proc/$trip_pid/kgr_in_progress)" "kgr_in_progress of the trip"

# the rest of the data: each call returns all of it
for n in $held fifo; do
	echo x > $DIR/$n.fifo
done
echo 1 > $KGR_TEST/release
for n in $held fifo; do
	wait_for "grep -q '^mode=' $DIR/$n.out" 10 || die "$n did not return"
	line=$(grep '^mode=' $DIR/$n.out)
	log "$n: $line"
	case $n in
	epoll_masked|fifo) want="ret=1 errno=0" ;;
	*) want="ret=8 errno=0" ;;
	esac
	case " $line " in
	*" $want "*) ;;
	*) die "$n: expected '$want', got '$line'" ;;
	esac
done
wait_for "grep -q '^next=' $DIR/trip.out" 10 || die "the trip did not return"
assert_eq "1 1" "$(sed -n 's/^trip_intr=//p' $DIR/trip.out)" "the trip's calls (old to its end)"
kgr_wait_finalized 10
kmsg_since_mark | grep '^kgr: transition finalized'
assert_eq 2 "$(field next $DIR/trip.out)" "the trip's next system call"
assert_eq "" "$(cat $BLOCKING)" "$BLOCKING after finalization"
wait
log "ok"
exit 0
