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
load_target
echo 10 > $KGR_TEST/select
echo 5 > $KGR_TEST/spin_ms
rm -f /tmp/hammer.stop /tmp/hammer.*.out

i=0
while [ $i -lt $NPROC ]; do
	kgr-hammer /tmp/hammer.stop > /tmp/hammer.$i.out 2>&1 &
	i=$((i + 1))
done
sleep 2

load_mod kgr_test_patch_10
kgr_wait_finalized 90
sleep 2
touch /tmp/hammer.stop
wait_for '[ "$(cat /tmp/hammer.*.out | grep -c "^trips=")" = '$NPROC' ]' 60 ||
	die "not all hammers finished"
wait		# reap them: they have all exited

trips=0 bad=0
for f in /tmp/hammer.*.out; do
	line=$(cat "$f")
	t=$(field trips "$f")
	trips=$((trips + ${t:-0}))
	for k in mixed new2old badchildren; do
		v=$(field $k "$f")
		if [ "${v:-x}" != 0 ]; then
			log "$f: $line"
			bad=$((bad + 1))
		fi
	done
done
log "$NPROC hammers, $trips trips in all"
assert_eq 0 "$bad" "hammers that saw mixed or new-to-old trips"
[ "$(fn_version 10)" = 2 ] || die "kgr_test_fn_10() is not patched"
log "ok"
exit 0
