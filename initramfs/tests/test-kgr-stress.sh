#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Scenario 6: stress. While patching starts and finalizes, 32 processes
# call the patched function in tight system call loops (kgr-hammer), with
# fork/exit churn: afterwards no trip saw two versions and no process saw
# the new version and then the old one. The console check of "make check"
# adds: no warnings.
#
# kgr-timeout: 240

. "$(dirname "$0")/functions.sh"

NPROC=32

start_test "stress: $NPROC processes hammer the patched function"
load_target stress
select_fn stress
echo 5 > $KGR_TEST/spin_ms
hammers_start $NPROC
sleep 2

load_mod kgr_test_patch_stress
kgr_wait_finalized 90
sleep 2
hammers_stop $NPROC
wait		# reap them: they have all exited
log "$NPROC hammers, $HAMMER_TRIPS trips in all"
[ "$(fn_version stress)" = 2 ] || die "kgr_test_fn_stress() is not patched"
log "ok"
exit 0
