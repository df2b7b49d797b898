#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A kthread that was created but not started yet is not woken by the
# transition. kthread_create() leaves the new thread asleep
# uninterruptibly in kthread() until its creator starts it; the RFC woke
# every task without an mm in whatever state, which starts such a thread
# behind its creator's back. Here it holds the transition instead (it is
# named in the report), and its function has not run; once its creator
# starts it, it crosses at its first kthread_should_stop() and the
# transition finalizes.
#
# kgr-timeout: 120

. "$(dirname "$0")/functions.sh"

F=$KGR_TEST/kthread_new

start_test "a created kthread that was not started is left asleep"
load_target kthread_created
echo 1 > $F
pid=$(field pid $F)
[ "${pid:-0}" -gt 0 ] || die "no created kthread"
assert_eq kgr_test_unstarted "$(cat /proc/$pid/comm)" "comm of pid $pid"
assert_eq 0 "$(field started $F)" "started, before the patch"

# unstarted: stop it before failing, or it would hold the next test
not_started() {
	[ "$(field started $F)" = 0 ] || {
		echo 0 > $F
		die "the transition started the created kthread (its function ran) $1"
	}
}

load_mod kgr_test_patch_kthread_created
not_started "at once"
assert_eq 1 "$(cat /proc/$pid/kgr_in_progress)" "kgr_in_progress of the created kthread"

# The first report comes 10 s after the start; every check since the
# start has looked at the thread (and nudged what it may).
comm=$(cut -c1-15 /proc/$pid/comm)
wait_for "kmsg_since_mark | grep -q '^kgr: $comm\[$pid\] holds the transition: asleep uninterruptibly'" 20 || {
	echo 0 > $F
	die "the report does not name $comm[$pid] as asleep"
}
not_started "by the report"
kmsg_since_mark | grep -q '^kgr succeeded$' &&
	die "patching finalized while the created kthread was in the old universe"

log "% echo 2 > $F (its creator starts it)"
echo 2 > $F
wait_for "[ \"\$(field started $F)\" = 1 ]" 5 || die "the started kthread did not run"
kgr_wait_finalized 5
assert_eq 0 "$(cat /proc/$pid/kgr_in_progress)" "kgr_in_progress after its start"
echo 0 > $F
log "ok"
exit 0
