#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The RFC's sample live patch (samples/kgr/kgr_patcher.c) on a
# booted 6.1 kernel: kgr initialized at boot; after insmod, iopl() and
# capable() run the new code (their messages appear in dmesg), through the
# slow stubs while a task blocked in the kernel holds the transition open;
# iopl() still behaves like 6.1's original; once that task is released
# patching finalizes ("kgr succeeded") within FINALIZE_BOUND seconds;
# afterwards every /proc/<pid>/kgr_in_progress reads 0 and the new code is
# still used (fast stubs).
#
# kgr-timeout: 240

. "$(dirname "$0")/functions.sh"

# Finalization follows the last crossing at once; the periodic check
# after a failed one is at most 1 s away.
FINALIZE_BOUND=5

NEW_IOPL='kgr-patcher: this is a new sys_iopl()'
NEW_CAPABLE='kgr-patcher: this is a new capable()'

# the kernel's own log lines, without the tests' (log() copies to dmesg)
kmsg() {
	dmesg | grep -v -F 'kgr-test: '
}

count() {
	kmsg | grep -c -F "$1"
}

# expect "CMD..." RESULT: run kgr-iopl with the given arguments and compare
# its one-line report.
expect() {
	local want=$1 got

	shift
	got=$(kgr-iopl "$@" | head -n 1)
	log "kgr-iopl $* -> $got"
	assert_eq "$want" "$got" "kgr-iopl $*"
}

# expect_new_code WHAT BEFORE: the message of the new WHAT appeared since
# the count BEFORE.
expect_new_code() {
	local now

	now=$(count "$1")
	[ "$now" -gt "$2" ] || die "no '$1' in dmesg: the old code ran"
}

start_test "kgr sample patch: iopl() and capable()"

kmsg | grep -q -F 'kgr: successfully initialized' ||
	die "kgr did not initialize at boot"
[ -e /proc/self/kgr_in_progress ] || die "no /proc/self/kgr_in_progress"

# Before the patch: the original code, without the sample's messages.
expect "iopl(3) = 0" -p 3
expect "iopl(4) = -1 EINVAL" 4
expect "iopl(3) = -1 EPERM" -u 65534 3
assert_eq 0 "$(count "$NEW_IOPL")" "new sys_iopl() messages before insmod"
assert_eq 0 "$(count "$NEW_CAPABLE")" "new capable() messages before insmod"

# Without a task held in the kernel the transition ends within
# milliseconds, before the checks below could run.
# count the slow stubs' calls
stub_count 1
hold_transition /tmp/sample-hold.out
load_mod kgr_patcher
assert_eq 1 "$(cat /proc/$HOLD_PID/kgr_in_progress)" "kgr_in_progress of the held task"

# During the transition (slow stubs): this shell has left the kernel since
# the insmod, so its children run the new code.
b_iopl=$(count "$NEW_IOPL")
b_cap=$(count "$NEW_CAPABLE")
expect "iopl(3) = 0" -p 3
expect_new_code "$NEW_IOPL" "$b_iopl"
expect_new_code "$NEW_CAPABLE" "$b_cap"

b_iopl=$(count "$NEW_IOPL")
expect "iopl(4) = -1 EINVAL" 4
expect_new_code "$NEW_IOPL" "$b_iopl"

b_iopl=$(count "$NEW_IOPL")
b_cap=$(count "$NEW_CAPABLE")
expect "iopl(3) = -1 EPERM" -u 65534 3
expect_new_code "$NEW_IOPL" "$b_iopl"
expect_new_code "$NEW_CAPABLE" "$b_cap"

kmsg_since_mark | grep -q '^kgr succeeded$' &&
	die "patching finalized while a task was held in the kernel"

start=$(cut -d' ' -f1 /proc/uptime)
release_hold /tmp/sample-hold.out
kgr_wait_finalized "$FINALIZE_BOUND"
# the slow stubs count their calls
n=$(stub_calls __x64_sys_iopl new)
stub_count 0
[ "${n:-0}" -ge 3 ] || die "the slow stub of sys_iopl sent '$n' calls to the new code, not 3 or more"
end=$(cut -d' ' -f1 /proc/uptime)
log "finalized $(awk "BEGIN { print $end - $start }") s after the held task's release (bound $FINALIZE_BOUND s)"

# After finalization: nobody is left in the old universe ...
n=0
for f in /proc/[0-9]*/kgr_in_progress; do
	v=$(cat "$f" 2>/dev/null) || continue	# the task may be gone
	n=$((n + 1))
	[ "$v" = 0 ] || die "$f reads '$v' after 'kgr succeeded'"
done
[ "$n" -gt 10 ] || die "read only $n kgr_in_progress files"
log "$n /proc/<pid>/kgr_in_progress files read 0"

# ... and the fast stubs keep calling the new code, with the same results.
b_iopl=$(count "$NEW_IOPL")
b_cap=$(count "$NEW_CAPABLE")
expect "iopl(3) = 0" -p 3
expect "iopl(4) = -1 EINVAL" 4
expect "iopl(3) = -1 EPERM" -u 65534 3
expect_new_code "$NEW_IOPL" "$((b_iopl + 2))"
expect_new_code "$NEW_CAPABLE" "$((b_cap + 1))"

log "ok"
exit 0
