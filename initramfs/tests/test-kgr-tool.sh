#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The kgr tool (tools/kgr/kgr): status, check (exit code), patches,
# blocking (the tasks that hold a transition, with their command line;
# -v adds their kernel stacks) and poke (stop and continue them, so that
# they cross where they stop), on a transition held by a task asleep in
# the middle of a trip; load and revert, which wait for their transition
# (and fail, naming the blockers, when it does not end in time: load then
# reverts its patch, unless --no-revert, and revert takes back a patch
# whose own transition is in progress); install,
# list, info, uninstall and boot on a directory of installed patches; the
# JSON of status, patches and blocking (checked by kgr-json).
#
# kgr-timeout: 180

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

unload_mod $P

F=$MODDIR/$P.ko
start_test "kgr load and kgr revert wait for their transitions"
kgr load -t 30 "$F" > /tmp/load.out 2>&1 || die "kgr load failed: $(cat /tmp/load.out)"
log "kgr load: $(cat /tmp/load.out)"
grep -q "^kgr: $P is applied$" /tmp/load.out || die "kgr load did not say $P is applied"
assert_eq 0 "$(cat $KGR_SYS/in_progress)" "in_progress after kgr load returned"
assert_eq 2 "$(fn_version tool)" "the patched function after kgr load"
kgr load "$F" > /tmp/load.out 2>&1 || die "kgr load of a patch applied already failed"
grep -q "^kgr: $P is already applied$" /tmp/load.out ||
	die "kgr load of an applied patch: $(cat /tmp/load.out)"
kgr patches -v > /tmp/patches.out
grep -q "^    module: $P$" /tmp/patches.out || die "kgr patches -v names no module: $(cat /tmp/patches.out)"

kgr status --json > /tmp/status.json
kgr-json < /tmp/status.json || die "kgr status --json is not JSON: $(cat /tmp/status.json)"
grep -q '"in_progress": false' /tmp/status.json || die "kgr status --json: $(cat /tmp/status.json)"
kgr patches --json > /tmp/patches.json
kgr-json < /tmp/patches.json || die "kgr patches --json is not JSON: $(cat /tmp/patches.json)"
grep -q "\"name\": \"$P\", \"module\": \"$P\"" /tmp/patches.json ||
	die "kgr patches --json does not list $P: $(cat /tmp/patches.json)"
grep -q '"function": "kgr_test_fn_tool", "object": "kgr_test_target_tool", "position": 0, "state": "applied"' \
	/tmp/patches.json || die "kgr patches --json: no state of kgr_test_fn_tool: $(cat /tmp/patches.json)"
kgr blocking --json > /tmp/blocking.json
assert_eq "[]" "$(cat /tmp/blocking.json)" "kgr blocking --json with no transition"

kgr revert -t 30 $P > /tmp/revert.out 2>&1 || die "kgr revert failed: $(cat /tmp/revert.out)"
log "kgr revert: $(cat /tmp/revert.out)"
grep -q "^kgr: module $P of $P removed$" /tmp/revert.out || die "kgr revert did not remove $P"
[ ! -d /sys/module/$P ] || die "module $P is still loaded after kgr revert"
assert_eq 1 "$(fn_version tool)" "the function after kgr revert"

start_test "kgr load --no-revert fails, naming the blockers, and leaves the transition"
hold_transition /tmp/hold.out
if kgr load -t 2 --no-poke --no-revert "$F" > /tmp/load.out 2> /tmp/load.err; then
	die "kgr load succeeded with the transition held"
fi
log "kgr load: $(cat /tmp/load.out /tmp/load.err)"
grep -q "did not finish within 2 s" /tmp/load.err || die "kgr load did not say it timed out"
grep -q "^kgr:   $HOLD_PID kgr-probe kgr-probe -w trip$" /tmp/load.err ||
	die "kgr load did not name the holding task $HOLD_PID"
kgr status --json > /tmp/status.json
kgr-json < /tmp/status.json || die "kgr status --json is not JSON: $(cat /tmp/status.json)"
grep -q '"in_progress": true' /tmp/status.json || die "kgr status --json: $(cat /tmp/status.json)"
kgr blocking --json > /tmp/blocking.json
kgr-json < /tmp/blocking.json || die "kgr blocking --json is not JSON: $(cat /tmp/blocking.json)"
grep -q "\"pid\": $HOLD_PID, \"comm\": \"kgr-probe\", \"cmdline\": \"kgr-probe -w trip\", \"kthread\": false, \"why\": \"" \
	/tmp/blocking.json || die "kgr blocking --json does not name $HOLD_PID with a reason: $(cat /tmp/blocking.json)"
grep -q "goes on in the background" /tmp/load.err || die "kgr load --no-revert did not say the transition goes on"
assert_eq 1 "$(cat $KGR_SYS/in_progress)" "in_progress after kgr load --no-revert"
# the held task never crossed: the revert is done without it
kgr revert -t 30 $P > /tmp/revert.out 2>&1 ||
	die "kgr revert during the patch's own transition failed: $(cat /tmp/revert.out)"
log "kgr revert: $(cat /tmp/revert.out)"
[ ! -d /sys/module/$P ] || die "module $P is still loaded after kgr revert"
assert_eq 1 "$(fn_version tool)" "the function after kgr revert of the transition"
assert_eq 0 "$(cat /proc/$HOLD_PID/kgr_in_progress)" "the held task's mark: it never crossed, and is where the revert ends"

start_test "kgr load reverts a transition that does not end in time, and fails"
if kgr load -t 2 --no-poke "$F" > /tmp/load.out 2> /tmp/load.err; then
	die "kgr load succeeded with the transition held"
fi
log "kgr load: $(cat /tmp/load.out /tmp/load.err)"
grep -q "^kgr:   $HOLD_PID kgr-probe kgr-probe -w trip$" /tmp/load.err ||
	die "kgr load did not name the holding task $HOLD_PID"
grep -q "^kgr: $P was not applied: its transition did not finish within 2 s, and it was reverted" /tmp/load.err ||
	die "kgr load did not say it reverted the patch"
[ ! -d /sys/module/$P ] || die "module $P is still loaded after kgr load gave up"
[ ! -d "$KGR_SYS/$P" ] || die "$KGR_SYS/$P is still there after kgr load gave up"
assert_eq 0 "$(cat $KGR_SYS/in_progress)" "in_progress after kgr load gave up"
assert_eq 1 "$(fn_version tool)" "the function after kgr load gave up"
release_hold /tmp/hold.out
# the next valid request succeeds
kgr load -t 30 "$F" > /tmp/load.out 2>&1 || die "kgr load failed: $(cat /tmp/load.out)"
assert_eq 2 "$(fn_version tool)" "the patched function after kgr load"
kgr revert -t 30 $P > /tmp/revert.out 2>&1 || die "kgr revert failed: $(cat /tmp/revert.out)"

start_test "kgr install, list, info, boot and uninstall"
KGR_MODULES=/tmp/kgr-modules
export KGR_MODULES
REL=$(uname -r)
kgr install "$F" > /tmp/install.out 2>&1 || die "kgr install failed: $(cat /tmp/install.out)"
[ -f "$KGR_MODULES/$REL/kgraft/$P.ko" ] || die "kgr install: no $KGR_MODULES/$REL/kgraft/$P.ko"
# mine: the lines of kgr list about $P (patches applied by earlier tests
# may be listed too, as loaded, not installed)
mine() {
	kgr list | grep " $P "
}
assert_eq "$REL $P - not loaded" "$(mine)" "kgr list of an installed patch"
if kgr install -k 0.0.0-other "$F" > /tmp/install.out 2>&1; then
	die "kgr install -k of a module for another kernel succeeded"
fi
grep -q "is for kernel $REL, not 0.0.0-other" /tmp/install.out || die "kgr install -k: $(cat /tmp/install.out)"
[ ! -e "$KGR_MODULES/0.0.0-other" ] || die "a refused kgr install left $KGR_MODULES/0.0.0-other"
if kgr load "$MODDIR/kgr_test_target_tool.ko" > /tmp/load.out 2>&1; then
	die "kgr load of a module that is no patch succeeded"
fi
grep -q "is not a kGraft patch module" /tmp/load.out || die "kgr load of a target: $(cat /tmp/load.out)"
echo "console=ttyS0 kgr.enable=0" > /tmp/cmdline-off
KGR_CMDLINE=/tmp/cmdline-off kgr boot > /tmp/boot.out 2>&1 || die "kgr boot with kgr.enable=0 failed"
[ ! -d /sys/module/$P ] || die "kgr boot loaded $P with kgr.enable=0"
kgr boot > /tmp/boot.out 2>&1 || die "kgr boot failed: $(cat /tmp/boot.out)"
log "kgr boot: $(cat /tmp/boot.out)"
assert_eq 2 "$(fn_version tool)" "the function after kgr boot"
assert_eq "$REL $P - applied" "$(mine)" "kgr list of the loaded patch"
kgr info $P > /tmp/info.out || die "kgr info failed"
grep -q "^file: $KGR_MODULES/$REL/kgraft/$P.ko$" /tmp/info.out && grep -q "^state: applied$" /tmp/info.out &&
	grep -q "^    kgr_test_fn_tool kgr_test_target_tool 0 applied$" /tmp/info.out ||
	die "kgr info: $(cat /tmp/info.out)"
kgr boot > /tmp/boot.out 2>&1 || die "kgr boot with the patch loaded failed: $(cat /tmp/boot.out)"
kgr uninstall $P > /tmp/uninstall.out 2>&1 || die "kgr uninstall failed"
assert_eq "$REL $P - loaded, not installed" "$(mine)" "kgr list of a patch loaded, not installed"
if kgr uninstall $P > /dev/null 2>&1; then
	die "kgr uninstall of a patch not installed succeeded"
fi
kgr revert $P > /dev/null || die "kgr revert failed"
assert_eq "" "$(mine)" "kgr list once $P is neither installed nor loaded"
unset KGR_MODULES

start_test "bad usage is refused"
for args in "" "frobnicate" "status extra" "status --xml" "blocking -x" "load" "load -t" \
	    "load -t x $F" "revert" "install" "list -x" "uninstall a b" "info"; do
	# shellcheck disable=SC2086
	if kgr $args > /dev/null 2>&1; then
		die "kgr $args succeeded"
	fi
	kgr $args > /dev/null 2>&1
	assert_eq 2 "$?" "exit status of kgr $args"
done
log "ok"
exit 0
