#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A patch of 1024 functions (kgr_test_many_patch) is applied and
# reverted: every function runs the new code, then its own again, and
# every one is called directly: once finalized, its fentry site jumps to
# its new function (or, for new code at an odd address, to a trampoline
# that jumps there); during a transition, to a trampoline that decides,
# and those share pages. The log
# gets the times that the kernel log's timestamps give for each step: the
# transition, and its finalization, which holds kGraft's lock (a module
# that loads meanwhile waits for it). Then a kthread's safe points are
# timed while it compares its stack with the nops that a replace_all patch
# puts on the 1024 functions.
#
# kgr-timeout: 420

. "$(dirname "$0")/functions.sh"

N=1024
start_test "a patch of $N functions"
load_mod kgr_test_many
assert_eq $N "$(cat /proc/kgr_test_many)" "the sum of the $N functions, unpatched"
load_mod kgr_test_many_patch
kgr_wait_finalized 180
assert_eq $((2 * N)) "$(cat /proc/kgr_test_many)" "the sum of the $N functions, patched"
start=$(kmsg_ts "% insmod kgr_test_many_patch.ko")
ok=$(kmsg_ts "kgr succeeded")
log "$N functions applied: transition $(ms_between "$start" "$ok") ms, finalization $(ms_between "$ok" "$(kmsg_ts "transition finalized")") ms"

start_test "each finalized function jumps to its new code"
# many_targets: where the fentry site of each function of kgr_test_many
# called directly jumps, one line each in /tmp/many.targets: "new" (its
# own new function, at an even address), "tramp TARGET MOD odd|even" (a
# trampoline, as ftrace prints it: %pS, an address or SYMBOL+0xOFF/0xSIZE
# with the symbol's [module] or "-"; the parity of the new function's
# address), or "bad ..."; their number
many_targets() {
	awk 'FNR == NR { if ($3 ~ /^kgr_test_many_new_/)
				odd[$3] = $1 ~ /[13579bdfBDF]$/ ? "odd" : "even"
			 next }
	     $1 ~ /^kgr_test_many_fn_/ {
		fn = $1; getline n
		if (n !~ /direct-->/) next
		new = fn; sub(/_fn_/, "_new_", new)
		sub(/.*direct-->/, "", n)
		split(n, w, " ")
		if (n !~ / \(jmp\)$/) print "bad " fn ": not a jump: " n
		else if (index(w[1], new "+0x0/") == 1)
			print odd[new] == "even" ? "new" : "bad " fn ": jumps to odd " new
		else if (index(w[1], new "+") == 1) print "bad " fn ": to " w[1]
		else print "tramp " w[1] " " (w[2] ~ /^\[/ ? w[2] : "-") " " odd[new] }' \
		/proc/kallsyms /sys/kernel/tracing/enabled_functions > /tmp/many.targets
	wc -l < /tmp/many.targets
}

# many_direct: how many functions of kgr_test_many are called directly
# (cheaper than many_targets, for waiting)
many_direct() {
	awk '$1 ~ /^kgr_test_many_fn_/ { getline n; if (n ~ /direct-->/) c++ }
	     END { print c + 0 }' /sys/kernel/tracing/enabled_functions
}

# to_addr TARGET MOD: a trampoline of /tmp/many.targets as "HIGH:LOW" in hex,
# the address's top 48 bits and its low 16 (a shell's arithmetic is
# signed 64-bit, too narrow for a kernel address in one piece)
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
		# the targets come sorted: most share the symbol before
		# them. A page that a module's init code had may still be
		# named after it, and the modules' init functions share
		# names: the module tells them apart.
		if [ "${1%%+*} $2" != "$to_addr_sym" ]; then
			to_addr_sym="${1%%+*} $2"
			to_addr_base=$(awk -v s="${1%%+*}" -v m="$2" \
				'$3 == s && (m == "-" || $4 == m) { print $1; exit }' /proc/kallsyms)
		fi
		base=$to_addr_base
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

# tramp_pages UNITS: the trampolines of /tmp/many.targets are distinct
# and take at most the pages that runs of UNITS 16-byte units packed
# together would (one more for a run that straddles two, one for the
# page of the other kind); their number of pages in TRAMP_PAGES
tramp_pages() {
	local n pages

	to_addr_sym=
	awk '$1 == "tramp" { print $2, $3 }' /tmp/many.targets | sort |
		while read -r t m; do to_addr "$t" "$m"; done > /tmp/many.addr
	grep -q '^not\|^no ' /tmp/many.addr &&
		die "direct targets not understood: $(grep '^not\|^no ' /tmp/many.addr | head -n 3)"
	n=$(wc -l < /tmp/many.addr)
	[ "$n" = "$(sort -u /tmp/many.addr | wc -l)" ] ||
		log "trampolines given to two functions or more: $(sort /tmp/many.addr | uniq -d | head -n 5 | tr '\n' ' ')"
	assert_eq "$n" "$(sort -u /tmp/many.addr | wc -l)" "distinct trampolines of $n functions"
	pages=$(sed 's/...$//' /tmp/many.addr | sort -u | wc -l)
	[ "$pages" -le $((n * $1 / 256 + 2)) ] ||
		die "the trampolines of $n functions take $pages pages"
	TRAMP_PAGES=$pages
}

# every one is called directly, by a jump to its new code once the
# transition's trampolines are retargeted
# (kgr_finalize() retargets the transition trampolines)
wait_for '[ "$(many_direct)" -eq $N ]' 60 ||
	die "only $(many_direct) of the $N functions are called directly"
many_targets > /dev/null
grep -q '^tramp .* even$' /tmp/many.targets &&
	die "only $(grep -c '^new' /tmp/many.targets) of the $N functions jump to their new code: $(grep -v '^new' /tmp/many.targets | head -n 3)"
grep '^bad' /tmp/many.targets && die "functions called wrongly: $(grep -c '^bad' /tmp/many.targets)"
odd=$(grep -c '^tramp' /tmp/many.targets)
assert_eq $((N - odd)) "$(grep -c '^new$' /tmp/many.targets)" "functions that jump to their new code"
tramp_pages 1
log "$((N - odd)) functions jump to their new code, $odd (new code at an odd address) to a trampoline in $TRAMP_PAGES page(s)"

kgr_revert kgr_test_many_patch
kgr_wait_reverted kgr_test_many_patch 180
assert_eq $N "$(cat /proc/kgr_test_many)" "the sum of the $N functions, reverted"
start=$(kmsg_ts "kgr: reverting kgr_test_many_patch")
ok=$(kmsg_ts "kgr succeeded")
log "$N functions reverted: transition $(ms_between "$start" "$ok") ms, finalization $(ms_between "$ok" "$(kmsg_ts "kgr_test_many_patch is reverted")") ms"
unload_mod kgr_test_many_patch

start_test "the transition trampolines of $N functions share pages"
# a task blocked in a trip of kgr_test_fn_hold() holds the transition
# open: every function jumps to a trampoline that decides, 80 bytes each
hold_transition /tmp/many-hold.out
load_mod kgr_test_many_patch
wait_for '[ "$(many_direct)" -eq $N ]' 60 ||
	die "only $(many_direct) of the $N functions are called directly during the transition"
many_targets > /dev/null
grep -v '^tramp' /tmp/many.targets && die "functions not on a transition trampoline: $(grep -vc '^tramp' /tmp/many.targets)"
tramp_pages 5
log "$N functions on transition trampolines in $TRAMP_PAGES pages"
release_hold /tmp/many-hold.out
kgr_wait_finalized 180
kgr_revert kgr_test_many_patch
kgr_wait_reverted kgr_test_many_patch 180
unload_mod kgr_test_many_patch

# a cumulative patch that carries none of them puts a nop on each
start_test "a kthread's safe point, against the nops of $N functions"
# kgr_test_nopwalk_patch, a replace_all patch, puts a nop on each of the
# $N functions of kgr_test_many_patch, and the kthread of kgr_test_nopwalk,
# which stays in the function that patch replaces, compares its stack
# with all of them at each of its safe points, with preemption off: how
# long each takes. Meanwhile every function is called directly, through
# a transition trampoline that sends the tasks that crossed to its own
# code; at the end the nops and the patch below go, with no handler.
P=/sys/module/kgr_test_nopwalk/parameters
load_mod kgr_test_many_patch
kgr_wait_finalized 180
assert_eq $((2 * N)) "$(cat /proc/kgr_test_many)" "the sum of the $N functions, patched again"
load_mod kgr_test_nopwalk
if echo 1 > $P/timing; then
	load_mod kgr_test_nopwalk_patch
	wait_for 'grep -q kgr_test_walker $KGR_SYS/blocking' 10 ||
		die "the walker does not hold the transition: $(cat $KGR_SYS/blocking)"
	wait_for '[ "$(many_direct)" -eq $N ]' 60 ||
		die "only $(many_direct) of the $N functions are called directly while their nops' transition is held"
	many_targets > /dev/null
	grep -v '^tramp' /tmp/many.targets &&
		die "functions not on a transition trampoline of their nop: $(grep -vc '^tramp' /tmp/many.targets)"
	assert_eq $N "$(cat /proc/kgr_test_many)" "the sum of the $N functions, taken back by the nops for a task that crossed"
	sleep 2
	echo 0 > $P/timing
	n=$(cat $P/cross_calls)
	[ "$n" -ge 1 ] || die "no safe point of the walker was timed"
	log "the walker's safe points against $N nops: $n timed, $(($(cat $P/cross_ns_sum) / n / 1000)) us on average, $(($(cat $P/cross_ns_max) / 1000)) us at most"
	echo 1 > $P/stop
	kgr_wait_finalized 60
	assert_eq $N "$(cat /proc/kgr_test_many)" "the sum of the $N functions, taken back by the nops"
	wait_for "kmsg_since_mark | grep -q '^kgr: kgr_test_many_patch is replaced; its module can be removed'" 10 ||
		die "no 'kgr: kgr_test_many_patch is replaced' in the log"
	log "the nops of $N functions finalized in $(ms_between "$(kmsg_ts "kgr succeeded")" "$(kmsg_ts "transition finalized")") ms"
	wait_for '[ "$(many_direct)" -eq 0 ]' 10 ||
		die "$(many_direct) functions taken back are still called directly"
	enabled_line kgr_test_many_fn_0000 | grep . &&
		die "kgr_test_many_fn_0000 taken back keeps an ftrace user"
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
