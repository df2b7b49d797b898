#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ftrace gives each function one direct call, and kGraft takes it for
# the functions of a finalized patch. Another user of direct calls (a BPF
# trampoline: fentry and fexit programs, bpftrace's kfunc probes) must
# still be able to attach to a patched function, as it can with
# livepatch: kGraft steps aside (its handler takes the calls, and shares
# the function with the other direct call), and calls the function
# directly again once the other one left.
#
# kgr_test_direct_user stands in for BPF: a direct call on
# kgr_test_fn_direct_share whose trampoline counts the calls and returns
# to the address that the handler chose, with an ops_func that accepts a
# handler next to it, as BPF's does.
#
# kgr-timeout: 120

. "$(dirname "$0")/functions.sh"

T=/sys/kernel/tracing
P=kgr_test_patch_direct_share
U=kgr_test_direct_user
CALLS=/sys/module/$U/parameters/calls

line_share() {
	enabled_line kgr_test_fn_direct_share
}

# shared: the other direct call, and kGraft's handler next to it
shared() {
	line_share | grep -q "direct-->kgr_test_du_tramp" ||
		die "kgr_test_fn_direct_share has not the other direct call: $(line_share)"
	line_share | grep -q " I " || die "kGraft's handler is not on kgr_test_fn_direct_share: $(line_share)"
	log "enabled_functions: $(line_share)"
}

# attach: load the other direct call, which must not be refused
attach() {
	log "% insmod $U.ko"
	insmod "$MODDIR/$U.ko" ||
		die "the other direct call was refused: $(kmsg_since_mark | grep kgr_test_direct_user | tail -n 1)"
}

# counted V: kgr_test_fn_direct_share() returns V, and the other direct
# call saw it
counted() {
	local before

	before=$(cat $CALLS)
	assert_eq "$1" "$(fn_version direct_share)" "kgr_test_fn_direct_share() $2"
	[ "$(cat $CALLS)" -gt "$before" ] ||
		die "the other direct call did not see the call of kgr_test_fn_direct_share $2"
}

start_test "another direct call on a finalized function: kGraft steps aside, then comes back"
load_target direct_share
[ -d $T/events ] || mount -t tracefs nodev $T || die "cannot mount tracefs"
load_mod $P
kgr_wait_finalized 30
kgr_direct_alone kgr_test_fn_direct_share kgr_test_du_tramp
attach
expect_log "kgr: kgr_test_fn_direct_share [kgr_test_target_direct_share] steps aside for another direct call"
shared
counted 2 "with the other direct call and kGraft's handler"
unload_mod $U
kgr_direct_alone kgr_test_fn_direct_share kgr_test_du_tramp
assert_eq 2 "$(fn_version direct_share)" "kgr_test_fn_direct_share() called directly by kGraft again"

start_test "a patch applied and reverted under another direct call"
kgr_revert $P
kgr_wait_reverted $P 30
unload_mod $P
assert_eq "" "$(line_share)" "enabled_functions after the revert"
attach
line_share | grep -q " I " && die "a handler on an unpatched function: $(line_share)"
counted 1 "unpatched, with the other direct call"
load_mod $P
kgr_wait_finalized 30
shared
counted 2 "patched under the other direct call"
# kGraft's direct call does not push the other one out
sleep 1
shared
kgr_revert $P
kgr_wait_reverted $P 30
line_share | grep -q " I " && die "the handler stayed after the revert: $(line_share)"
counted 1 "reverted under the other direct call"
unload_mod $P

start_test "the other direct call leaves a patched function"
load_mod $P
kgr_wait_finalized 30
shared
unload_mod $U
kgr_direct_alone kgr_test_fn_direct_share kgr_test_du_tramp
assert_eq 2 "$(fn_version direct_share)" "kgr_test_fn_direct_share() once the other direct call left"
kgr_revert $P
kgr_wait_reverted $P 30
unload_mod $P
assert_eq "" "$(line_share)" "enabled_functions at the end"
log "ok"
exit 0
