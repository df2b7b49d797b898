#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Callbacks and states. kgr_test_callbacks patches kgr_test_fn_callbacks()
# with callbacks for the patch and for kgr_test_target_callbacks_late, a
# module that loads later; each callback logs that it ran. They must run
# in order around the transitions and as the module comes and goes; a
# failing pre_patch refuses the patch (or the module's load) and leaves
# nothing behind. The patch's state (a counter) is taken over by the
# cumulative kgr_test_callbacks_b, which replaces it without running the
# replaced patch's callbacks; a cumulative patch without that state is
# refused.
#
# kgr-timeout: 180

. "$(dirname "$0")/functions.sh"

A=kgr_test_callbacks
B=kgr_test_callbacks_b
LATE=kgr_test_target_callbacks_late

# callbacks: what the test patches' callbacks logged since the mark,
# "module: callback object" each, joined with "; ". A refused insmod may
# be tried twice (busybox's insmod tries init_module() after
# finit_module()): a sequence that is one block repeated counts once.
callbacks() {
	kmsg_since_mark | awk '/^kgr_test_callbacks(_b|_c)?: / { l[n++] = $0 }
		END {
			for (p = 1; p < n; p++) {
				if (n % p)
					continue
				for (i = p; i < n && l[i] == l[i % p]; i++)
					;
				if (i == n)
					break
			}
			for (i = 0; i < p && i < n; i++)
				printf "%s%s", (i ? "; " : ""), l[i]
		}'
}

expect_callbacks() {
	assert_eq "$1" "$(callbacks)" "$2"
}

# insmod_fails MOD [PARAM=VALUE...]: insmod of MOD must fail
insmod_fails() {
	local mod="$1"

	shift
	log "% insmod $mod.ko $* (must fail)"
	insmod "$MODDIR/$mod.ko" "$@" && die "$mod loaded"
	[ -e "$KGR_SYS/$mod" ] && die "$KGR_SYS/$mod was left behind"
	return 0
}

load_target callbacks

start_test "a failing pre_patch callback refuses the patch"
insmod_fails $A fail=patch
expect_callbacks "$A: pre_patch patch; $A: pre_patch patch fails" \
	"the callbacks of the refused patch"
expect_log "kgr: can't patch $A: its pre_patch callback failed (-16)"
assert_eq 1 "$(fn_version callbacks)" "kgr_test_fn_callbacks() after the refusal"

start_test "a failing callback of a loaded object: those that ran are undone"
load_target callbacks_late
insmod_fails $A fail=late
expect_callbacks "$A: pre_patch patch; $A: pre_patch late; $A: pre_patch late fails; $A: post_revert patch; $A: freed state generation 0" \
	"the callbacks of the patch refused for its object"
unload_mod $LATE

start_test "pre_patch before the transition, post_patch after it"
load_mod $A
kgr_wait_finalized 30
expect_callbacks "$A: pre_patch patch; $A: post_patch patch; $A: took over state generation 1" \
	"the callbacks of the patch"
assert_eq 2 "$(fn_version callbacks)" "kgr_test_fn_callbacks() patched"

start_test "the callbacks of a module run as it loads and goes"
load_mod $LATE
expect_callbacks "$A: pre_patch late; $A: post_patch late" "as the module loads"
unload_mod $LATE
expect_callbacks "$A: pre_patch late; $A: post_patch late; $A: pre_revert late; $A: post_revert late" \
	"as the module goes"
printf late > /sys/module/$A/parameters/fail	# no newline: a charp keeps it
insmod_fails $LATE
expect_log "kgr: can't patch $A: its pre_patch callback for $LATE failed (-16)"
printf none > /sys/module/$A/parameters/fail
load_mod $LATE

start_test "a cumulative patch without the state is refused"
insmod_fails kgr_test_callbacks_c
expect_log "kgr: can't patch kgr_test_callbacks_c: it does not carry state 7038834 of $A at version 1 or later"
assert_eq "" "$(callbacks)" "callbacks of the refused cumulative patch"
assert_eq 2 "$(fn_version callbacks)" "kgr_test_fn_callbacks() after the refusal"

start_test "a cumulative patch takes the state over; the replaced patch's callbacks do not run"
load_mod $B
kgr_wait_finalized 30
expect_callbacks "$B: pre_patch patch; $B: pre_patch late; $B: post_patch patch; $B: took over state generation 2; $B: post_patch late" \
	"the callbacks of the cumulative patch"
assert_eq 3 "$(fn_version callbacks)" "kgr_test_fn_callbacks() replaced"
unload_mod $A

start_test "pre_revert before the revert's transition, post_revert after it"
kgr_revert $B
kgr_wait_reverted $B 30
expect_callbacks "$B: pre_revert late; $B: pre_revert patch; $B: post_revert late; $B: post_revert patch; $B: freed state generation 2" \
	"the callbacks of the revert"
assert_eq 1 "$(fn_version callbacks)" "kgr_test_fn_callbacks() reverted"
unload_mod $B
unload_mod $LATE
if kmsg_since_mark | grep -E 'WARNING:|BUG:|Call Trace:'; then
	die "the kernel complained"
fi
log "ok"
exit 0
