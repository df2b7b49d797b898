#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A function named without its module, by its position among the
# functions of that name in kallsyms' order, stays the same function when
# its module is loaded again. kgr_test_twin_a and kgr_test_twin_b each
# have a kgr_test_twin_fn(); kgr_test_twinpatch patches the second one in
# kallsyms' order. The module that has it is removed and loaded again:
# kallsyms' order is now another, and the function is alone of its name
# in its module; it must be patched again (not refused, not another), and
# the other module's function must stay as it was.
#
# kgr-timeout: 60

. "$(dirname "$0")/functions.sh"

# twin X: what kgr_test_twin_X's function returns
twin() {
	cat /proc/kgr_test_twin_$1
}

start_test "a function found by its position among modules, after its module reloads"
load_mod kgr_test_twin_a
load_mod kgr_test_twin_b
load_mod kgr_test_twinpatch
kgr_wait_finalized 10
if [ "$(twin a)" = 2 ]; then
	mine=a other=b
else
	mine=b other=a
fi
log "the patch took kgr_test_twin_$mine's function (a: $(twin a), b: $(twin b))"
assert_eq 2 "$(twin $mine)" "kgr_test_twin_$mine's function, patched"
assert_eq 1 "$(twin $other)" "kgr_test_twin_$other's function, not patched"

unload_mod kgr_test_twin_$mine
load_mod kgr_test_twin_$mine
expect_log "kgr: kgr_test_twin_fn: patched by kgr_test_twinpatch as module kgr_test_twin_$mine loads"
assert_eq 2 "$(twin $mine)" "kgr_test_twin_$mine's function after it loaded again"
assert_eq 1 "$(twin $other)" "kgr_test_twin_$other's function after kgr_test_twin_$mine loaded again"

kgr_revert kgr_test_twinpatch
kgr_wait_reverted kgr_test_twinpatch 10
assert_eq 1 "$(twin $mine)" "kgr_test_twin_$mine's function after the revert"
unload_mod kgr_test_twinpatch
unload_mod kgr_test_twin_a
unload_mod kgr_test_twin_b
log "ok"
exit 0
