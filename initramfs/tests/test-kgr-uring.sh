#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# io_uring's own threads do not hold a transition, and their requests
# are not disturbed. kgr-uring queues two reads with IOSQE_ASYNC, which
# io-wq workers (iou-wrk-*) run and sleep in: one of an empty pipe, one
# of an empty AF_UNIX stream socket; and it has an idle SQPOLL ring
# (iou-sqp-*). A fake signal would end the workers' reads with EINTR in
# their completions; without a way across, they hold the transition until
# the data comes. The patch must finalize within FINAL s with the reads
# still in flight; every io_uring thread is then in the new universe. Then
# the data comes, and each read completes with its 4 bytes; the SQPOLL
# thread takes a NOP.
#
# kgr-timeout: 90

. "$(dirname "$0")/functions.sh"

FINAL=10
DIR=/tmp/uring

start_test "io_uring's workers and SQPOLL thread cross without a nudge"
load_target uring
rm -rf $DIR
mkdir -p $DIR
mkfifo $DIR/go
kgr-uring <> $DIR/go > $DIR/out 2>&1 &
pid=$!
wait_for "grep -q '^ready' $DIR/out || ! [ -d /proc/$pid ]" 10 ||
	die "kgr-uring did not start"
if ! grep -q '^ready' $DIR/out; then
	wait $pid
	[ $? = 3 ] && skip "no io_uring in this kernel: $(cat $DIR/out)"
	die "kgr-uring failed: $(cat $DIR/out)"
fi

# the io_uring threads of kgr-uring, by thread id
iou_threads() {
	for t in /proc/$pid/task/*; do
		case $(cat $t/comm 2>/dev/null) in
		iou-*) echo "${t##*/}" ;;
		esac
	done
}
wait_for "[ \$(iou_threads | wc -l) -ge 2 ]" 10 || die "no io_uring threads"
sleep 1
for t in $(iou_threads); do
	log "$(cat /proc/$pid/task/$t/comm)[$t]: state $(awk '{ print $3 }' /proc/$pid/task/$t/stat)"
done
grep -q '^cqe=' $DIR/out && die "a read completed before its data: $(cat $DIR/out)"

load_mod kgr_test_patch_uring
kgr_wait_finalized $FINAL
kmsg_since_mark | grep '^kgr: transition finalized'
for t in $(iou_threads); do
	assert_eq 0 "$(cat /proc/$pid/task/$t/kgr_in_progress)" \
		"kgr_in_progress of $(cat /proc/$pid/task/$t/comm)[$t]"
done
grep -q '^cqe=' $DIR/out && die "a read completed before its data: $(cat $DIR/out)"

echo x > $DIR/go
wait_for "grep -q '^sqpoll ' $DIR/out || ! [ -d /proc/$pid ]" 10 ||
	die "kgr-uring did not finish: $(cat $DIR/out)"
wait $pid || die "kgr-uring failed: $(cat $DIR/out)"
cat $DIR/out
assert_eq "res=4 data=abcd" "$(sed -n 's/^cqe=1 //p' $DIR/out)" "the pipe read's completion"
assert_eq "res=4 data=efgh" "$(sed -n 's/^cqe=2 //p' $DIR/out)" "the socket read's completion"
assert_eq "res=0" "$(sed -n 's/^sqpoll //p' $DIR/out)" "the SQPOLL ring's NOP"
log "ok"
exit 0
