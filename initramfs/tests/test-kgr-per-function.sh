#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Function-level consistency, when a patch or the administrator settles
# for it. A kgr-sleeper in recv(8, MSG_WAITALL) with 4 bytes (not nudged)
# holds the transition of kgr_test_patch_per_function, and
# /sys/kernel/kgraft/consistency reads "task"; bad writes are refused.
# Writing "function" finalizes the transition with the sleeper still
# asleep, switched where it sleeps; its call still returns all 8 bytes.
# Then a patch that sets .per_function (kgr_test_perfn, kgr_test_fn_perfn)
# finalizes past another such sleeper by itself, and past a kgr-sleeper
# in read() of a FIFO, which one version per trip would nudge: it is
# switched where it sleeps, never woken (its voluntary context switches
# do not change), and its read still returns the byte written later.
# With no transition, "function" is refused.
#
# kgr-timeout: 90

. "$(dirname "$0")/functions.sh"

DIR=/tmp/perfn
CONS=/sys/kernel/kgraft/consistency

start_test "function-level consistency switches sleepers where they sleep"
load_target per_function perfn
[ -w $CONS ] || die "no $CONS"
rm -rf $DIR
mkdir -p $DIR

# waitall NAME: a kgr-sleeper in recv(MSG_WAITALL), stdin a FIFO
waitall() {
	start_sleeper $DIR $1 waitall -1
	wait_for "grep -q '^pid=' $DIR/$1.out" 10 || die "$1 did not start"
	sleep 1
	grep -q '^mode=' $DIR/$1.out && die "$1 returned: $(cat $DIR/$1.out)"
}

# the sleeper NAME got its 8 bytes
finish() {
	echo x > $DIR/$1.fifo
	wait_for "grep -q '^mode=' $DIR/$1.out" 10 || die "$1 did not return"
	log "$1: $(grep '^mode=' $DIR/$1.out)"
	grep -q '^mode=waitall ret=8 errno=0 ' $DIR/$1.out ||
		die "$1: expected ret=8, got '$(grep '^mode=' $DIR/$1.out)'"
}

waitall held
pid=$(cat $DIR/held.pid)
load_mod kgr_test_patch_per_function
wait_for "grep -q '^$pid kgr-sleeper: .*MSG_WAITALL' /sys/kernel/kgraft/blocking" 10 ||
	die "the sleeper does not hold the transition"
assert_eq task "$(cat $CONS)" "$CONS by default"
for bad in task x 1 ''; do
	echo "$bad" > $CONS 2>/dev/null && die "writing '$bad' to $CONS was accepted"
done
sleep 1
kmsg_since_mark | grep -q '^kgr succeeded$' && die "finalized before the administrator's choice"

log "% echo function > $CONS"
echo function > $CONS || die "writing function to $CONS failed"
kgr_wait_finalized 10
expect_log "settles for function-level consistency, as the administrator asked"
assert_eq 0 "$(cat /proc/$pid/kgr_in_progress)" "kgr_in_progress of the switched sleeper"
grep -q '^mode=' $DIR/held.out && die "the sleeper returned: $(cat $DIR/held.out)"
assert_eq 2 "$(fn_version per_function)" "kgr_test_fn_per_function after the transition"
finish held

echo function > $CONS 2>/dev/null && die "writing function with no transition was accepted"

# the voluntary context switches of process PID
nvcsw() {
	sed -n 's/^voluntary_ctxt_switches:[[:space:]]*//p' /proc/$1/status
}

waitall decl
start_sleeper $DIR read read 0
wait_for "grep -q '^pid=' $DIR/read.out" 10 || die "the reader did not start"
sleep 1
rpid=$(cat $DIR/read.pid)
before=$(nvcsw $rpid)
start_test "a patch that asks for function-level consistency"
load_mod kgr_test_perfn
kgr_wait_finalized 10
expect_log "kgr_test_perfn asks for function-level consistency"
assert_eq 0 "$(cat /proc/$(cat $DIR/decl.pid)/kgr_in_progress)" "kgr_in_progress of the second sleeper"
assert_eq 0 "$(cat /proc/$rpid/kgr_in_progress)" "kgr_in_progress of the reader"
assert_eq "$before" "$(nvcsw $rpid)" "voluntary context switches of the reader (woken by the transition?)"
grep -q '^mode=' $DIR/read.out && die "the reader returned: $(cat $DIR/read.out)"
finish decl
echo x > $DIR/read.fifo
wait_for "grep -q '^mode=' $DIR/read.out" 10 || die "the reader did not return"
grep -q '^mode=read ret=1 errno=0 ' $DIR/read.out ||
	die "the reader: expected ret=1, got '$(grep '^mode=' $DIR/read.out)'"
assert_eq 2 "$(fn_version perfn)" "kgr_test_fn_perfn after the transition"
log "ok"
exit 0
