#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A patch of 64 functions (kgr_test_many_patch) is applied and reverted:
# every function runs the new code, then its own again. The log gets the
# times that the kernel log's timestamps give for each step: the
# transition, and its finalization, which holds kGraft's lock (a module
# that loads meanwhile waits for it).
#
# kgr-timeout: 120

. "$(dirname "$0")/functions.sh"

# ts TEXT: the timestamp (s) of the last kernel log line that has TEXT
ts() {
	dmesg | grep -F "$1" | tail -n 1 | sed 's/^\[ *\([0-9.]*\)\].*/\1/'
}

# ms FROM TO: TO - FROM, in ms
ms() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%d", (b - a) * 1000 }'
}

start_test "a patch of 64 functions"
load_mod kgr_test_many
assert_eq 64 "$(cat /proc/kgr_test_many)" "the sum of the 64 functions, unpatched"
load_mod kgr_test_many_patch
kgr_wait_finalized 30
assert_eq 128 "$(cat /proc/kgr_test_many)" "the sum of the 64 functions, patched"
start=$(ts "% insmod kgr_test_many_patch.ko")
ok=$(ts "kgr succeeded")
log "64 functions applied: transition $(ms "$start" "$ok") ms, finalization $(ms "$ok" "$(ts "transition finalized")") ms"

kgr_revert kgr_test_many_patch
kgr_wait_reverted kgr_test_many_patch 60
assert_eq 64 "$(cat /proc/kgr_test_many)" "the sum of the 64 functions, reverted"
start=$(ts "kgr: reverting kgr_test_many_patch")
ok=$(ts "kgr succeeded")
log "64 functions reverted: transition $(ms "$start" "$ok") ms, finalization $(ms "$ok" "$(ts "kgr_test_many_patch is reverted")") ms"
unload_mod kgr_test_many_patch
unload_mod kgr_test_many
log "ok"
exit 0
