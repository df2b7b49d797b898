#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# While a function is patched, the modules the live stub uses stay: the
# patch module, even when it has a module_exit (kgr_test_patch_pin has
# one, as every kgr_test_patch_N has, so that it can go once reverted),
# holds its ftrace_ops, its replacement and the stub itself: rmmod must
# fail, and the function must keep working. (The target module is not
# held: it can go, its functions let go: test-kgr-module.sh.)
#
# kgr-timeout: 90

. "$(dirname "$0")/functions.sh"

start_test "the patch module stays while patched"
load_target pin
load_mod kgr_test_patch_pin
assert_eq 2 "$(fn_version pin)" "kgr_test_fn_pin() after the patch"
kgr_wait_finalized 45

log "% rmmod kgr_test_patch_pin (must fail)"
rmmod kgr_test_patch_pin &&
	die "the patch module was removed under its live stub"
grep -q '^kgr_test_patch_pin ' /proc/modules ||
	die "kgr_test_patch_pin is not in /proc/modules"
assert_eq 2 "$(fn_version pin)" "kgr_test_fn_pin() after the refused rmmod"

if kmsg_since_mark | grep -E 'WARNING:|BUG:|Call Trace:'; then
	die "the kernel complained"
fi
log "ok"
exit 0
