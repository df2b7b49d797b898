#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Scenario 3: threads. A thread that is not the thread-group leader, in
# the kernel when patching starts, is held to the same rules: its trip
# sees one version, its next system call the new one, and its state is
# visible in /proc/<pid>/task/<tid>/kgr_in_progress.
#
# kgr-timeout: 120

. "$(dirname "$0")/functions.sh"

start_test "a non-leader thread in the kernel stays in the old universe"
load_target threads
select_fn threads
echo 6000 > $KGR_TEST/spin_ms

kgr-probe -t -w spin > /tmp/thread.out 2>&1 &
pid=$!
wait_for 'grep -q "^tid=" /tmp/thread.out' 10 || die "kgr-probe did not start"
tid=$(field tid /tmp/thread.out)
[ "$tid" != "$pid" ] || die "the probe ran in the leader ($pid)"
f=/proc/$pid/task/$tid/kgr_in_progress
[ -r "$f" ] || die "no $f"
assert_eq 0 "$(cat $f)" "$f before patching"
sleep 1

load_mod kgr_test_patch_threads
assert_eq 1 "$(cat $f)" "$f of the thread in the kernel"

wait_for 'grep -q "^next=" /tmp/thread.out' 30 || die "kgr-probe did not finish"
cat /tmp/thread.out
assert_eq 0 "$(field new2old /tmp/thread.out)" "new-to-old switches within the trip"
assert_eq 0 "$(field old2new /tmp/thread.out)" "old-to-new switches within the trip"
assert_eq 1 "$(field first /tmp/thread.out)" "first call of the trip"
assert_eq 2 "$(field next /tmp/thread.out)" "the thread's next system call"

kgr_wait_finalized 45
kill $pid; wait $pid 2>/dev/null
log "ok"
exit 0
