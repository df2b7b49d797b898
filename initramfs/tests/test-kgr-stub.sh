#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The slow stub prints nothing per call and, by default, counts nothing
# either. While a transition is held open, new processes call the
# patched function: the kernel log gets no "slow stub" line, no raw
# kernel address, and no count at finalization (kgr_test_fn_stub_final). With
# kgr.stub_count=1 it counts: a trip that started before the patch calls
# kgr_test_fn_stub_count() in a loop (old code) and new processes call it 20
# times (new code), and finalization says how many calls went each way.
# With kgr.stub_log=1 the per-call lines come back, naming the function,
# never its address (kgr_test_fn_stub_slow).
#
# kgr-timeout: 120

. "$(dirname "$0")/functions.sh"

PARAM=/sys/module/kgr/parameters/stub_log
COUNT=/sys/module/kgr/parameters/stub_count
# a raw kernel address: 16 hex digits starting with ffff
RAW='ffff[0-9a-f]\{12\}'

# new_process_calls NAME: 20 new processes in a row get the new
# kgr_test_fn_NAME() (it returns 2)
new_process_calls() {
	local i=0

	while [ $i -lt 20 ]; do
		assert_eq 2 "$(fn_version "$1")" "call $i of kgr_test_fn_$1() from a new process"
		i=$((i + 1))
	done
}

load_target stub_final stub_count stub_slow
start_test "by default the slow stub prints and counts nothing"
[ -f $PARAM ] || die "no $PARAM"
[ -f $COUNT ] || die "no $COUNT"
assert_eq N "$(cat $PARAM)" "kgr.stub_log by default"
assert_eq N "$(cat $COUNT)" "kgr.stub_count by default"
hold_transition /tmp/stub-hold.out
load_mod kgr_test_patch_stub_final
new_process_calls stub_final
release_hold /tmp/stub-hold.out
kgr_wait_finalized 45
if kmsg_since_mark | grep 'slow stub'; then
	die "the slow stub printed or counted with kgr.stub_log and kgr.stub_count off"
fi

start_test "kgr.stub_count=1: the slow stub counts, and prints nothing per call"
stub_count 1
hold_transition /tmp/stub-hold.out
select_fn stub_count
echo 3000 > $KGR_TEST/spin_ms
kgr-probe spin > /tmp/stub-spin.out 2>&1 &
spin_pid=$!
wait_for 'grep -q "^tid=" /tmp/stub-spin.out' 10 || die "kgr-probe did not start"
sleep 1
load_mod kgr_test_patch_stub_count
new_process_calls stub_count
wait $spin_pid
assert_eq 1 "$(field last /tmp/stub-spin.out)" "the spin trip's last call"
if kmsg_since_mark | grep 'slow stub'; then
	die "the slow stub printed"
fi
release_hold /tmp/stub-hold.out
kgr_wait_finalized 45
stub_count 0
kmsg_since_mark | grep '^kgr: kgr_test_fn_stub_count:'
old=$(stub_calls kgr_test_fn_stub_count old)
new=$(stub_calls kgr_test_fn_stub_count new)
[ "${old:-0}" -ge 100 ] || die "only '$old' calls counted to the old code"
[ "${new:-0}" -ge 20 ] || die "only '$new' calls counted to the new code"
if kmsg_since_mark | grep '^kgr' | grep "$RAW"; then
	die "kGraft logged a raw kernel address"
fi

start_test "kgr.stub_log=1 brings the per-call lines back, without addresses"
echo 1 > $PARAM
hold_transition /tmp/stub-hold.out
load_mod kgr_test_patch_stub_slow
assert_eq 2 "$(fn_version stub_slow)" "kgr_test_fn_stub_slow() during the transition"
echo 0 > $PARAM
release_hold /tmp/stub-hold.out
kgr_wait_finalized 45
kmsg_since_mark | grep -q "^kgr: slow stub: calling new code: kgr_test_fn_new_stub_slow \[kgr_test_patch_stub_slow\]$" ||
	die "no per-call line for kgr_test_fn_new_stub_slow with kgr.stub_log=1"
if kmsg_since_mark | grep '^kgr' | grep "$RAW"; then
	die "kGraft logged a raw kernel address"
fi
log "ok"
exit 0
