#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs last (tests.list puts it there): with CONFIG_DEBUG_KMEMLEAK
# (make check-debug), no object the kernel allocated while the other
# tests ran may be unreferenced. Skips on kernels without kmemleak.
#
# kgr-timeout: 300

. "$(dirname "$0")/functions.sh"

K=/sys/kernel/debug/kmemleak
[ -e $K ] || skip "no $K (kernel without CONFIG_DEBUG_KMEMLEAK)"

start_test "kmemleak after the kGraft tests"
# kmemleak turns itself off for good on an internal error (one of its own
# allocations failing, say); a leak check that no longer runs must not pass
dmesg | grep -i 'kmemleak.*disabled' &&
	die "kmemleak was disabled while the tests ran"
# two scans: an object is reported only when unreferenced in both
echo scan > $K || die "kmemleak refuses to scan"
sleep 5
echo scan > $K || die "kmemleak refuses to scan"
cat $K > /tmp/kmemleak.out
if [ -s /tmp/kmemleak.out ]; then
	head -n 60 /tmp/kmemleak.out
	die "kmemleak found $(grep -c '^unreferenced object' /tmp/kmemleak.out) leaks"
fi
log "ok: no leaks"
exit 0
