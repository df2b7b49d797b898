#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Scenario 7, allocation failures: load kgr_test_patch_failslab with the 1st,
# 2nd, 3rd, ... fault-injection point (failslab: every slab allocation)
# inside its kgr_start_patching() call made to fail (the module's
# fail_nth=K arms the kernel's fail-nth for that call only), until the
# call no longer reaches the K-th point. Every failed load must leave
# nothing behind: no module, kgr_test_fn_failslab() still the old code, a log
# line from kgr saying what failed, and the next kgr_start_patching() not
# refused. The sweep ends with the first load that succeeds: either the
# K-th point is not reached, or its allocation was optional (ftrace falls
# back to its list function when it cannot allocate a trampoline for the
# ops); that load must patch and finalize.
#
# Allocation failures make the kernel print reports with stack traces
# (vmalloc's warn_alloc). They are expected here, so the console is quiet
# during the sweep, and the test itself fails on any BUG, WARNING or Oops
# in the kernel log instead.
#
# kgr-timeout: 300

. "$(dirname "$0")/functions.sh"

FAILSLAB=/sys/kernel/debug/failslab
MOD=kgr_test_patch_failslab
MAX=200

# result K: the module's report for fail_nth=K since the mark
result() {
	kmsg_since_mark | sed -n "s/^$MOD: fail_nth=$1 \(.*\)$/\1/p" | tail -n 1
}

start_test "allocation failures inside kgr_start_patching"
[ -d $FAILSLAB ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
[ -d $FAILSLAB ] || skip "no $FAILSLAB (CONFIG_FAILSLAB, CONFIG_FAULT_INJECTION_DEBUG_FS)"
load_target failslab
assert_eq 1 "$(fn_version failslab)" "kgr_test_fn_failslab before"

# last_fault_trace: the call trace of the latest injected failure
# (failslab's verbose=2 dumps the stack into the kernel log)
last_fault_trace() {
	kmsg_since_mark |
		awk '/FAULT_INJECTION: forcing a failure/ { n = 0; next }
		     /\+0x[0-9a-f]*\/0x/ && n < 30 { line[n++] = $0 }
		     END { for (i = 0; i < n; i++) print line[i] }' |
		sed 's/^/kgr-test:   /'
}

# With kmemleak, every allocation is followed by one of kmemleak's own,
# optional and silent (__GFP_NOWARN): the sweep would end on the first of
# them. The debug kernel boots with slub_debug=A for every cache but
# kmemleak's (configs/debug.config); failslab's cache-filter then leaves
# kmemleak's caches alone.
filter=N
if [ -e /sys/kernel/debug/kmemleak ]; then
	[ "$(cat /sys/kernel/slab/kmalloc-64/failslab 2>/dev/null)" = 1 ] &&
	[ "$(cat /sys/kernel/slab/kmemleak_object/failslab 2>/dev/null)" = 0 ] ||
		skip "kmemleak is on and the slab caches are not marked for failslab (boot with slub_debug=A;-,kmemleak_object,kmemleak_scan_area)"
	filter=Y
	log "kmemleak is on: failslab fails the slab caches marked by slub_debug=A only"
fi

# GFP_KERNEL allocations fail too; each injected failure dumps its stack
# into the kernel log (the console is quiet)
echo $filter > $FAILSLAB/cache-filter
echo N > $FAILSLAB/ignore-gfp-wait
echo 2 > $FAILSLAB/verbose
dmesg -n 1
trap 'dmesg -n 7; echo N > $FAILSLAB/cache-filter; echo Y > $FAILSLAB/ignore-gfp-wait; echo 2 > $FAILSLAB/verbose' EXIT

k=1
while :; do
	log "% insmod $MOD.ko fail_nth=$k"
	insmod $MODDIR/$MOD.ko fail_nth=$k 2> /tmp/insmod.err
	rc=$?
	res=$(result $k)
	log "fail_nth=$k: $res (insmod status $rc)"
	case $res in
	"injected, kgr_start_patching() returned 0")
		[ $rc = 0 ] || die "fail_nth=$k: kgr_start_patching() succeeded, yet insmod failed"
		log "fail_nth=$k: an optional allocation failed; the patch went in"
		log "the allocation that failed:"
		last_fault_trace
		break;;
	injected*)
		[ $rc != 0 ] || die "fail_nth=$k: kgr_start_patching() failed, yet the module loaded"
		grep -q "^$MOD " /proc/modules && die "fail_nth=$k: $MOD stayed loaded"
		assert_eq 1 "$(fn_version failslab)" "kgr_test_fn_failslab after the failure at point $k"
		;;
	"not reached, kgr_start_patching() returned 0")
		break;;
	*)
		cat /tmp/insmod.err
		die "fail_nth=$k: unexpected result '$res'";;
	esac
	k=$((k + 1))
	[ $k -le $MAX ] || die "still injecting after $MAX points"
done
echo N > $FAILSLAB/cache-filter
echo Y > $FAILSLAB/ignore-gfp-wait
echo 2 > $FAILSLAB/verbose
dmesg -n 7
trap - EXIT
reports=$(kmsg_since_mark | grep -c 'warn_alloc')
log "allocation failure reports in the kernel log (not on the console): $reports"
kmsg_since_mark | grep -E 'BUG:|WARNING:|Oops|general protection fault|Kernel panic' &&
	die "the kernel reported a bug during the sweep"
failed=$((k - 1))
log "kgr_start_patching() has $failed fault-injection points; each failure was undone"
[ $failed -gt 0 ] || die "no allocation inside kgr_start_patching() was made to fail"
grep -q "^$MOD " /proc/modules || die "the clean load left no module"

# what kgr said about the failures (pr_err); every one must say something
kmsg_since_mark | grep '^kgr: ' | sort | uniq -c | sed 's/^/kgr-test: log: /'
# (busybox insmod retries a failed finit_module() with init_module(), so
# there can be two failed kgr_start_patching() calls per point)
calls=$(kmsg_since_mark | grep -c "^$MOD: fail_nth=[0-9]* injected, kgr_start_patching() returned -")
said=$(kmsg_since_mark | grep -c "^kgr: can't patch")
assert_eq "$calls" "$said" "failed kgr_start_patching() calls that kgr reported"
kmsg_since_mark | grep -q "another patching not yet finalized" &&
	die "a failed load left patching in progress"

kgr_wait_finalized 45
assert_eq 2 "$(fn_version failslab)" "kgr_test_fn_failslab after the clean load"
log "ok"
exit 0
