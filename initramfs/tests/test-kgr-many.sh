#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A patch of 64 functions (kgr_test_many_patch) is applied and reverted:
# every function runs the new code, then its own again, and once it is
# finalized the trampolines of their direct calls share a page. The log
# gets the times that the kernel log's timestamps give for each step: the
# transition, and its finalization, which holds kGraft's lock (a module
# that loads meanwhile waits for it). Then a kthread's safe points are
# timed while it compares its stack with the nops that a replace_all patch
# puts on the 64 functions.
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

start_test "the finalized functions' trampolines share pages"
# many_direct: the direct call targets of the 64 functions, as ftrace
# prints them (%pS: an address, or SYMBOL+0xOFF/0xSIZE when kallsyms
# knows a symbol before it), in /tmp/many.direct; their number
many_direct() {
	awk '$1 ~ /^kgr_test_many_fn_/ { getline n
	     if (n ~ /direct-->/) { sub(/.*direct-->/, "", n)
				    split(n, w, " "); print w[1] } }' \
		/sys/kernel/tracing/enabled_functions > /tmp/many.direct
	wc -l < /tmp/many.direct
}

# to_addr TARGET: a target of /tmp/many.direct as "HIGH:LOW" in hex, the
# address's top 48 bits and its low 16 (a shell's arithmetic is signed
# 64-bit, too narrow for a kernel address in one piece)
to_addr() {
	local base off hi lo

	case $1 in
	0x*)
		base=${1#0x}
		off=0
		;;
	*+0x*/*)
		off=${1#*+}
		off=${off%%/*}
		base=$(awk -v s="${1%%+*}" '$3 == s { print $1; exit }' /proc/kallsyms)
		[ -n "$base" ] || { echo "no ${1%%+*} in /proc/kallsyms"; return; }
		;;
	*)
		echo "not an address: $1"
		return
		;;
	esac
	hi=${base%????}
	lo=$((0x${base#"$hi"} + off))
	printf '%x:%04x\n' $((0x$hi + (lo >> 16))) $((lo & 0xffff))
}

# a whole run leaves other tests' patches, which may hold some of the
# direct calls' ftrace_ops; most of the 64 are called directly, through
# their finalized trampolines once the transition's are retargeted
wait_for '[ "$(many_direct)" -ge 8 ]' 30 ||
	die "only $(many_direct) of the 64 functions are called directly"
n=$(many_direct)
while read -r t; do
	to_addr "$t"
done < /tmp/many.direct > /tmp/many.addr
grep -q '^not\|^no ' /tmp/many.addr && die "direct targets not understood: $(grep '^not\|^no ' /tmp/many.addr | head -n 3)"
assert_eq "$n" "$(sort -u /tmp/many.addr | wc -l)" "distinct trampolines of the $n functions called directly"
# 16 bytes each: 64 of them fit in one page, two if they straddle
pages=$(sed 's/...$//' /tmp/many.addr | sort -u | wc -l)
log "$n functions called directly, their trampolines in $pages page(s): $(head -n 3 /tmp/many.direct | tr '\n' ' ')..."
[ "$pages" -le 2 ] || die "the trampolines of $n functions take $pages pages"

kgr_revert kgr_test_many_patch
kgr_wait_reverted kgr_test_many_patch 60
assert_eq 64 "$(cat /proc/kgr_test_many)" "the sum of the 64 functions, reverted"
start=$(ts "kgr: reverting kgr_test_many_patch")
ok=$(ts "kgr succeeded")
log "64 functions reverted: transition $(ms "$start" "$ok") ms, finalization $(ms "$ok" "$(ts "kgr_test_many_patch is reverted")") ms"
unload_mod kgr_test_many_patch

start_test "a kthread's safe point, against the nops of 64 functions"
# kgr_test_nopwalk_patch, a replace_all patch, puts a nop on each of the
# 64 functions, and the kthread of kgr_test_nopwalk, which stays in the
# function that patch replaces, compares its stack with all of them at
# each of its safe points, with preemption off: how long each takes
P=/sys/module/kgr_test_nopwalk/parameters
load_mod kgr_test_many_patch
kgr_wait_finalized 30
load_mod kgr_test_nopwalk
if echo 1 > $P/timing; then
	load_mod kgr_test_nopwalk_patch
	wait_for 'grep -q kgr_test_walker $KGR_SYS/blocking' 10 ||
		die "the walker does not hold the transition: $(cat $KGR_SYS/blocking)"
	sleep 2
	echo 0 > $P/timing
	n=$(cat $P/cross_calls)
	[ "$n" -ge 1 ] || die "no safe point of the walker was timed"
	log "the walker's safe points against 64 nops: $n timed, $(($(cat $P/cross_ns_sum) / n / 1000)) us on average, $(($(cat $P/cross_ns_max) / 1000)) us at most"
	echo 1 > $P/stop
	kgr_wait_finalized 20
	assert_eq 64 "$(cat /proc/kgr_test_many)" "the sum of the 64 functions, taken back by the nops"
	wait_for "kmsg_since_mark | grep -q '^kgr: kgr_test_many_patch is replaced; its module can be removed'" 10 ||
		die "no 'kgr: kgr_test_many_patch is replaced' in the log"
	unload_mod kgr_test_many_patch
	kgr_revert kgr_test_nopwalk_patch
	kgr_wait_reverted kgr_test_nopwalk_patch 10
	unload_mod kgr_test_nopwalk_patch
else
	log "no kretprobes: the walker's safe points are not timed"
	kgr_revert kgr_test_many_patch
	kgr_wait_reverted kgr_test_many_patch 60
	unload_mod kgr_test_many_patch
fi
unload_mod kgr_test_nopwalk
unload_mod kgr_test_many
log "ok"
exit 0
