#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Tasks that stay in the kernel in an ioctl() for as long as they like,
# as a vCPU thread does in KVM_RUN, do not hold a transition when their
# driver says that their callers expect to be interrupted: they get the
# fake signal, running or asleep, their call ends with EINTR, they cross
# on the way out and call it again. kgr_test_kick stands in for KVM: its
# ioctl()s stay in the kernel until a signal is pending (one running,
# one asleep), and kgr-sleeper calls them again after each EINTR, as QEMU
# does. With the file registered (kgr_register_ioctl_kick()), the patch
# finalizes within FINAL s while both run; each saw at least one EINTR,
# and nothing else. Without the registration, the same two tasks hold the
# revert, named with their reasons in /sys/kernel/kgraft/blocking, see no
# EINTR, and the revert finalizes once their calls end by themselves.
#
# kgr-timeout: 90

. "$(dirname "$0")/functions.sh"

FINAL=10
DIR=/tmp/kick
PARM=/sys/module/kgr_test_kick/parameters
BLOCKING=$KGR_SYS/blocking

# start TAG: a kick_run and a kick_sleep sleeper, both inside their ioctl()
start() {
	start_sleeper $DIR run$1 kick_run 0
	start_sleeper $DIR sleep$1 kick_sleep 0
	wait_for "[ \$(cat $PARM/inside) = 2 ]" 10 ||
		die "the ioctl()s did not start: $(cat $DIR/run$1.out $DIR/sleep$1.out)"
}

# finish TAG MIN MAX: end the ioctl()s; each returned 0 after MIN..MAX EINTRs
finish() {
	local s out kicks

	echo 1 > $PARM/stop
	for s in run$1 sleep$1; do
		out=$DIR/$s.out
		wait_for "grep -q '^mode=' $out" 10 || die "$s did not return: $(cat $out)"
		log "$s: $(tr '\n' ' ' < $out)"
		grep -q '^mode=kick_[a-z]* ret=0 errno=0 ' $out ||
			die "$s: expected ret=0 errno=0, got '$(grep '^mode=' $out)'"
		kicks=$(sed -n 's/^kicks=//p' $out)
		[ "$kicks" -ge "$2" ] && [ "$kicks" -le "$3" ] ||
			die "$s saw $kicks EINTRs, expected $2 to $3"
	done
	echo 0 > $PARM/stop
}

start_test "a task in an ioctl() that expects to be interrupted is kicked across"
load_target kick
rm -rf $DIR
mkdir -p $DIR
load_mod kgr_test_kick
wait_for "[ -c /dev/kgr_test_kick ]" 10 || die "no /dev/kgr_test_kick"
start 1
load_mod kgr_test_patch_kick
kgr_wait_finalized $FINAL
for s in run1 sleep1; do
	assert_eq 0 "$(cat /proc/$(cat $DIR/$s.pid)/kgr_in_progress)" \
		"kgr_in_progress of $s after the transition"
done
# called again after the EINTR, still inside
wait_for "[ \$(cat $PARM/inside) = 2 ]" 10 || die "the ioctl()s were not called again"
assert_eq 2 "$(fn_version kick)" "kgr_test_fn_kick after the transition"
finish 1 1 1000
unload_mod kgr_test_kick

start_test "an ioctl() of a driver that does not say so is not interrupted"
load_mod kgr_test_kick register=0
wait_for "[ -c /dev/kgr_test_kick ]" 10 || die "no /dev/kgr_test_kick"
start 2
kgr_revert kgr_test_patch_kick
run=$(cat $DIR/run2.pid)
sleep=$(cat $DIR/sleep2.pid)
wait_for "grep -q '^$run kgr-sleeper: running' $BLOCKING &&
	  grep -q '^$sleep kgr-sleeper: an ioctl()' $BLOCKING" 10 ||
	die "the two sleepers are not named as holding the revert: $(cat $BLOCKING)"
cat $BLOCKING
sleep 2
assert_eq 0 "$(($(kgr_reverted kgr_test_patch_kick) - KGR_REVERTED))" \
	"reverts finalized while the ioctl()s ran"
finish 2 0 0
kgr_wait_reverted kgr_test_patch_kick 10
assert_eq 1 "$(fn_version kick)" "kgr_test_fn_kick after the revert"
unload_mod kgr_test_kick
log "ok"
exit 0
