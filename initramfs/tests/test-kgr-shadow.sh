#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Shadow variables. kgr_test_shadow patches kgr_test_shadow_fn() of
# kgr_test_shadow_target (which returns 0) with a version that counts
# its calls in a shadow variable of init_task, made at the first call
# with the count at 100. kgr_test_shadow_stack, stacked on it, finds that
# variable and returns the count plus 2000; once it is reverted the first
# patch goes on counting in it. kgr_test_shadow_b, a cumulative patch of
# the same function, finds it too and returns the count plus 1000: the
# variables belong to no patch. Its exit frees them (the destructor
# counts them); a patch applied after that starts from a new variable.
# A second kgr_shadow_alloc() of one object and id is refused.
#
# kgr-timeout: 120

. "$(dirname "$0")/functions.sh"

T=/sys/module/kgr_test_shadow_target/parameters/call
A=/sys/module/kgr_test_shadow/parameters

call() {
	cat $T
}

start_test "a patch keeps its state in a shadow variable"
load_mod kgr_test_shadow_target
assert_eq 0 "$(call)" "kgr_test_shadow_fn() before"
load_mod kgr_test_shadow
kgr_wait_finalized 30
assert_eq Y "$(cat $A/dup_refused)" "a second allocation of one object and id refused"
kmsg_since_mark | grep -q "kgr: shadow variable .* exists already" ||
	die "the refused allocation was not reported"
assert_eq 101 "$(call)" "the first call, a new variable"
assert_eq 102 "$(call)" "the second call"

start_test "a stacked patch finds the variable; reverted, the one below goes on with it"
load_mod kgr_test_shadow_stack
kgr_wait_finalized 30
assert_eq 2103 "$(call)" "the third call, through the stacked patch"
kgr_revert kgr_test_shadow_stack
kgr_wait_reverted kgr_test_shadow_stack 30
unload_mod kgr_test_shadow_stack
assert_eq 104 "$(call)" "the fourth call, through the first patch again"

start_test "a cumulative patch finds the variables of the patch it replaces"
load_mod kgr_test_shadow_b
kgr_wait_finalized 30
assert_eq 1105 "$(call)" "the fifth call, through the cumulative patch"
unload_mod kgr_test_shadow
assert_eq 1106 "$(call)" "with the replaced patch's module gone"

start_test "the last patch frees them; a new patch starts afresh"
kgr_revert kgr_test_shadow_b
kgr_wait_reverted kgr_test_shadow_b 30
assert_eq 0 "$(call)" "kgr_test_shadow_fn() reverted"
unload_mod kgr_test_shadow_b
kmsg_since_mark | grep -q "kgr_test_shadow_b: freed 1$" ||
	die "kgr_test_shadow_b did not free the one variable: $(kmsg_since_mark | grep 'freed' | tail -n 1)"
load_mod kgr_test_shadow
kgr_wait_finalized 30
assert_eq 101 "$(call)" "the first call after the free, a new variable"
kgr_revert kgr_test_shadow
kgr_wait_reverted kgr_test_shadow 30
echo Y > $A/free_all
unload_mod kgr_test_shadow
kmsg_since_mark | grep -q "kgr_test_shadow: freed 1$" ||
	die "kgr_test_shadow did not free its variable"
unload_mod kgr_test_shadow_target
if kmsg_since_mark | grep -E 'WARNING:|BUG:|Call Trace:'; then
	die "the kernel complained"
fi
log "ok"
exit 0
