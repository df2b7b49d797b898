#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The finalized path and the transition trampoline. While a patch's
# transition is held open its function is called through ftrace's direct
# call already (its fentry site jumps to a trampoline that decides per
# caller, no handler): a new process gets the new code, a held trip the
# old. Once finalized it is still called directly (ftrace's
# enabled_functions shows it Direct, without the handler's IPMODIFY ops),
# its fentry site jumps to the new function itself, which runs;
# ftrace_enabled=0 is refused; the function tracer, a kprobe and a
# kretprobe work on it; a revert held open keeps the direct call,
# through a transition trampoline that decides per caller (no handler),
# and a new patch is called directly again once finalized; kgr.direct=0
# keeps the handler.
#
# kgr-timeout: 120

. "$(dirname "$0")/functions.sh"

T=/sys/kernel/tracing
P=kgr_test_patch_direct
DIRECT=/sys/module/kgr/parameters/direct

line_direct() {
	enabled_line kgr_test_fn_direct
}

# wait_direct: kgr_test_fn_direct has a direct call and no handler
wait_direct() {
	wait_for 'line_direct | grep -q "direct-->" && ! line_direct | grep -q " I "' 30 ||
		die "kgr_test_fn_direct has no direct call alone after 30 s: $(line_direct)"
	log "enabled_functions: $(line_direct)"
	kgr_jumps kgr_test_fn_direct kgr_test_fn_new_direct new
}

# held_trip WHEN NEW TRIP NEXT CMD...: with a trip of kgr_test_fn_direct()
# blocked between its two calls, CMD starts a transition (WHEN: "transition"
# or "revert"), which the trip holds open. kgr_test_fn_direct must be called
# through its transition trampoline alone (a direct call, no handler) and
# give NEW to a new process; then the trip goes on, and its two calls must
# have seen TRIP, its next system call NEXT.
held_trip() {
	local when="$1" new="$2" trip="$3" next="$4"

	shift 4
	block_trip direct /tmp/direct-trip.out
	"$@"
	assert_eq 1 "$(cat /sys/kernel/kgraft/in_progress)" "in_progress with the trip blocked"
	line_direct | grep -q 'direct-->' ||
		die "no direct call during the $when: $(line_direct)"
	line_direct | grep -q ' I ' && die "the handler is there during the $when: $(line_direct)"
	log "enabled_functions during the $when: $(line_direct)"
	kgr_jumps kgr_test_fn_direct kgr_test_fn_new_direct trampoline
	assert_eq "$new" "$(fn_version direct)" "kgr_test_fn_direct() from a new process during the $when"
	echo 1 > $KGR_TEST/release
	wait_for "grep -q '^next=' /tmp/direct-trip.out" 10 || die "the blocked trip did not finish"
	assert_eq "$trip" "$(sed -n 's/^trip=//p' /tmp/direct-trip.out)" \
		"both calls of the held trip, the second during the $when"
	assert_eq "$next" "$(field next /tmp/direct-trip.out)" "the held task's next system call"
	kill "$BLOCKED_PID"
	wait "$BLOCKED_PID" 2>/dev/null
}

start_test "a finalized function is called directly, and runs the new code"
load_target direct
[ -d $T/events ] || mount -t tracefs nodev $T || die "cannot mount tracefs"
[ -f $DIRECT ] || die "no $DIRECT"
assert_eq Y "$(cat $DIRECT)" "kgr.direct by default"
# a trip of kgr_test_fn_direct() blocked between its two calls holds the
# transition open; the transition trampoline is in place as it starts
held_trip transition 2 "1 1" 2 load_mod $P
kgr_wait_finalized 30
wait_direct
assert_eq 2 "$(fn_version direct)" "kgr_test_fn_direct() called directly"
log "% echo 0 > /proc/sys/kernel/ftrace_enabled (must fail)"
if echo 0 > /proc/sys/kernel/ftrace_enabled; then
	echo 1 > /proc/sys/kernel/ftrace_enabled
	die "ftrace_enabled=0 was accepted with a direct call"
fi
assert_eq 2 "$(fn_version direct)" "kgr_test_fn_direct() after the refused ftrace_enabled=0"

start_test "the function tracer, a kprobe and a kretprobe on a directly called function"
ftrace_users direct 2
line_direct | grep -q 'direct-->' || die "the direct call went: $(line_direct)"

start_test "a revert held open: the function stays called directly, without the handler"
# a trip blocked between its two calls, started in the patched universe,
# holds the revert open: the transition trampoline decides per caller
held_trip revert 1 "2 2" 1 kgr_revert $P
kgr_wait_reverted $P 30
assert_eq "" "$(line_direct)" "enabled_functions after the held revert"
unload_mod $P
load_mod $P
kgr_wait_finalized 30
wait_direct

start_test "a revert under a running trip; a new patch is called directly again"
spin_across spin direct /tmp/spin.out kgr_revert $P
assert_one_trip /tmp/spin.out 2 1
kgr_wait_reverted $P 30
assert_eq 1 "$(fn_version direct)" "kgr_test_fn_direct() reverted"
assert_eq "" "$(line_direct)" "enabled_functions after the revert"
unload_mod $P
start_test "the direct call again, and kgr.direct=0 keeps the handler"
load_mod $P
kgr_wait_finalized 30
wait_direct
kgr_revert $P
kgr_wait_reverted $P 30
unload_mod $P
echo 0 > $DIRECT
load_mod $P
kgr_wait_finalized 30
sleep 2
line_direct | grep -q 'direct-->' && die "kgr.direct=0, yet a direct call: $(line_direct)"
line_direct | grep -q ' I ' || die "kgr.direct=0: no handler: $(line_direct)"
assert_eq 2 "$(fn_version direct)" "kgr_test_fn_direct() with the handler"
echo 1 > $DIRECT
kgr_revert $P
kgr_wait_reverted $P 30
unload_mod $P
if kmsg_since_mark | grep -E 'WARNING:|BUG:|Call Trace:'; then
	die "the kernel complained"
fi
log "ok"
exit 0
