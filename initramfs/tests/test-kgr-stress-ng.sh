#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Scenario 6, second run: Debian's stress-ng (copied into the initramfs
# with its libraries) loads the guest independently of kGraft --
# fork/exit, pipe ping-pong, CPU and system call stressors -- while 8
# kgr-hammer processes call the patched function and patching starts and
# finalizes. Afterwards: stress-ng completed successfully, no mixed or
# new-to-old trip, kgr_test_fn_stress_ng() patched; "make check" adds: no
# console warnings.
#
# kgr-timeout: 300

. "$(dirname "$0")/functions.sh"

NHAMMER=8
# the patch starts 5 s in and finalizes within seconds; the rest of the
# run shows the guest sound after it, and costs CI's time in both guests
STRESS_SECS=30

start_test "patching while stress-ng loads the guest"
command -v stress-ng > /dev/null || skip "no stress-ng in the initramfs (apt-get install stress-ng)"
load_target stress_ng
select_fn stress_ng
echo 5 > $KGR_TEST/spin_ms
rm -f /tmp/stress-ng.out
mkdir -p /tmp/stress-ng && cd /tmp/stress-ng || die "no /tmp/stress-ng"

log "% stress-ng --fork 2 --pipe 2 --cpu 2 --get 2 --timeout ${STRESS_SECS}s"
(stress-ng --fork 2 --pipe 2 --cpu 2 --get 2 --timeout ${STRESS_SECS}s \
	--metrics-brief > /tmp/stress-ng.out 2>&1; echo "exit=$?" >> /tmp/stress-ng.out) &
hammers_start $NHAMMER
sleep 5
grep -q '^exit=' /tmp/stress-ng.out 2>/dev/null &&
	{ cat /tmp/stress-ng.out; die "stress-ng ended early"; }

load_mod kgr_test_patch_stress_ng
kgr_wait_finalized 120
grep -q '^exit=' /tmp/stress-ng.out 2>/dev/null &&
	log "note: stress-ng ended before patching finalized"
hammers_stop $NHAMMER
wait_for 'grep -q "^exit=" /tmp/stress-ng.out' $((STRESS_SECS + 60)) ||
	die "stress-ng did not finish"
wait		# reap: everything has exited
sed 's/^/kgr-test: stress-ng: /' /tmp/stress-ng.out
assert_eq "exit=0" "$(grep '^exit=' /tmp/stress-ng.out)" "stress-ng's exit status"

log "$NHAMMER hammers, $HAMMER_TRIPS trips in all, next to stress-ng"
assert_eq 2 "$(fn_version stress_ng)" "kgr_test_fn_stress_ng after finalization"
log "ok"
exit 0
