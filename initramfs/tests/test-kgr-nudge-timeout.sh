#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A nudged select(), pselect() or ppoll() restarts, and its timeout ends
# when it would have without the nudge. The call writes the time left
# back to its timeout as it returns for the restart; the restart begins
# later, after the task crossed, so a timeout computed again from what was
# written back would grow by that gap. kgr_test_slowexit makes the gap
# DELAY ms (a kprobe that busy-waits where the task crosses); the call
# must still return T ms after it began, not T + DELAY. A select() whose
# timeout is in a read-only page (the time left cannot be written back)
# must restart too, not end with EINTR.
#
# kgr-timeout: 120

. "$(dirname "$0")/functions.sh"

T=4000		# ms, the sleepers' timeout
DELAY=1200	# ms, the gap between the nudge and the restart
SLACK=600	# ms that a call may take beyond T under TCG
DIR=/tmp/nudge-timeout
P=kgr_test_patch_nudge_timeout
S=/sys/module/kgr_test_slowexit/parameters

# sleep_across MODE WHAT CMD...: a kgr-sleeper MODE with timeout T, asleep
# when CMD starts a transition, delayed DELAY ms as it crosses; it must
# return 0 (the timeout), with no error, T ms after it began
sleep_across() {
	local mode="$1" what="$2" hits out ms

	shift 2
	start_sleeper $DIR $mode $mode $T
	wait_for "grep -q '^pid=' $DIR/$mode.out" 10 || die "the $mode sleeper did not start"
	sleep 1
	assert_eq S "$(awk '{ print $3 }' /proc/$(cat $DIR/$mode.pid)/stat)" "state of the $mode sleeper"
	hits=$(cat $S/hits)
	cat $DIR/$mode.pid > $S/pid
	"$@"
	wait_for "grep -q '^mode=' $DIR/$mode.out" $((T / 1000 + 10)) || die "the $mode sleeper did not return"
	out=$(grep '^mode=' $DIR/$mode.out)
	log "$mode, $what: $out"
	[ "$(cat $S/hits)" -gt "$hits" ] || die "the $mode sleeper was not delayed as it crossed (not nudged?)"
	assert_eq "0 0" "$(field ret $DIR/$mode.out) $(field errno $DIR/$mode.out)" \
		"what the nudged $mode returned (ret errno)"
	ms=$(field ms $DIR/$mode.out)
	[ "$ms" -le $((T + SLACK)) ] ||
		die "the nudged $mode took $ms ms for a timeout of $T ms (restarted $DELAY ms late)"
}

start_test "a nudged select, pselect or ppoll keeps the end of its timeout"
load_target nudge_timeout
load_mod kgr_test_slowexit ms=$DELAY
rm -rf $DIR
mkdir -p $DIR
sleep_across select "patch applied" load_mod $P
kgr_wait_finalized 10
sleep_across pselect "patch reverted" kgr_revert $P
kgr_wait_reverted $P 10
unload_mod $P
sleep_across ppoll "patch applied" load_mod $P
kgr_wait_finalized 10

start_test "a nudged select with a read-only timeout restarts, with no EINTR"
sleep_across select_ro "patch reverted" kgr_revert $P
kgr_wait_reverted $P 10
unload_mod $P
unload_mod kgr_test_slowexit
log "ok"
exit 0
