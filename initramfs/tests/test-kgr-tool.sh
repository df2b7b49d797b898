#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The kgr tool (tools/kgr/kgr): status, check (exit code), patches,
# blocking (the tasks that hold a transition, with their command line;
# -v adds their kernel stacks) and poke (stop and continue them, so that
# they cross where they stop), on a transition held by a task asleep in
# the middle of a trip.
#
# kgr-timeout: 120

. "$(dirname "$0")/functions.sh"

P=kgr_test_patch_tool

start_test "kgr status, check, patches and blocking follow a transition"
command -v kgr > /dev/null || die "no kgr on the PATH"
load_target tool
assert_eq ready "$(kgr status)" "kgr status with no transition"
kgr check > /tmp/kgr.out || die "kgr check failed with no transition: $(cat /tmp/kgr.out)"

hold_transition /tmp/hold.out
load_mod $P
assert_eq in_progress "$(kgr status)" "kgr status during the transition"
if kgr check > /tmp/kgr.out; then
	die "kgr check succeeded during a transition"
fi
log "kgr check: $(cat /tmp/kgr.out)"
kgr blocking > /tmp/blocking.out
log "kgr blocking: $(cat /tmp/blocking.out)"
grep -q "^$HOLD_PID kgr-probe kgr-probe -w trip$" /tmp/blocking.out ||
	die "kgr blocking does not name the holding task $HOLD_PID"
kgr blocking -v > /tmp/blocking.out
grep -q "kgr_test_" /tmp/blocking.out ||
	die "kgr blocking -v shows no kernel stack of the holder: $(cat /tmp/blocking.out)"
kgr patches > /tmp/patches.out
grep -q "^$P$" /tmp/patches.out || die "kgr patches does not list $P"
grep -q "^    kgr_test_fn_tool kgr_test_target_tool 0 patching$" /tmp/patches.out ||
	die "kgr patches: no state line for $P: $(cat /tmp/patches.out)"

release_hold /tmp/hold.out
kgr_wait_finalized 30
assert_eq ready "$(kgr status)" "kgr status after finalization"
kgr check > /dev/null || die "kgr check failed after finalization"
[ -z "$(kgr blocking)" ] || die "kgr blocking names tasks after finalization"

start_test "kgr poke gets a task that kGraft does not nudge across"
# asleep in sigtimedwait(), which a nudge would end with EINTR: it holds
# the transition; stopped by kgr poke, it crosses where it stops
# (nothing of the patch is on its stack), and is continued
kgr-sleeper sigtimedwait 60000 > /tmp/sleeper.out 2>&1 &
SLEEPER=$!
wait_for "grep -q '^pid=' /tmp/sleeper.out" 10 || die "kgr-sleeper did not start"
sleep 1
kgr_revert $P
sleep 2
assert_eq in_progress "$(kgr status)" "kgr status with the sleeper in sigtimedwait()"
kgr blocking > /tmp/blocking.out
grep -q "^$SLEEPER kgr-sleeper kgr-sleeper sigtimedwait 60000$" /tmp/blocking.out ||
	die "kgr blocking does not name the sleeper: $(cat /tmp/blocking.out)"
kgr poke > /tmp/poke.out
log "kgr poke: $(cat /tmp/poke.out)"
grep -q "^kgr: poking $SLEEPER kgr-sleeper" /tmp/poke.out || die "kgr poke did not poke the sleeper"
kgr_wait_reverted $P 30
assert_eq ready "$(kgr status)" "kgr status after the poke"
# the stop and continue are seen, as after any job control stop:
# sigtimedwait() returns EINTR; the task itself goes on
wait_for "grep -q '^mode=' /tmp/sleeper.out" 10 || kill $SLEEPER
wait $SLEEPER
assert_eq 0 "$?" "exit status of the poked sleeper"
log "the poked sleeper: $(tail -n 1 /tmp/sleeper.out)"
kgr poke > /tmp/poke.out
assert_eq "kgr: no transition in progress" "$(cat /tmp/poke.out)" "kgr poke with no transition"

start_test "bad usage is refused"
for args in "" "frobnicate" "status extra" "blocking -x"; do
	# shellcheck disable=SC2086
	if kgr $args > /dev/null 2>&1; then
		die "kgr $args succeeded"
	fi
	kgr $args > /dev/null 2>&1
	assert_eq 2 "$?" "exit status of kgr $args"
done
unload_mod $P
log "ok"
exit 0
