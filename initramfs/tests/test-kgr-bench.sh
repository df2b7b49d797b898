#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The kGraft/livepatch benchmark, guest side.  Modules from
# samples/kgr-bench/, the helper /bin/kgr-bench (initramfs/src/kgr-bench.c).
# Every figure is printed as a "KGR-BENCH ..." line; scripts/bench-report.py
# on the host turns them into the table and the plot.
#
# Kernel command line (make bench sets these; make check uses the defaults,
# a smoke run of one short repetition):
#   kgr.bench=smoke|percall|full  smoke (default): everything, small, and
#                       assert that the figures are sane (not how fast);
#                       percall: only the per-call figures (the icount
#                       boots); full: per-call, transitions, memory
#   kgr.bench.loops=N   calls per timed loop (smoke 2000)
#   kgr.bench.reps=R    transitions per system and scenario, 1..5 (smoke 1)
#   kgr.bench.busy=N kgr.bench.sleepers=M kgr.bench.sleep_ms=S
#   kgr.bench.daemons=D the load: N tasks in a getppid() loop, M tasks in
#                       nanosleep(S ms) loops, and D "daemons" of each of
#                       7 kinds asleep in the kernel for good: poll,
#                       epoll_wait, read of a pipe, futex wait, select,
#                       pause, wait4 for a child in pause (8 D tasks;
#                       kgr-bench.c) (smoke 2, 2, 2000, 1)
#   kgr.bench.sample_ms=P  how often the old universe is counted (50)
#   kgr.bench.sizes=N,M,...  patches of that many functions of kgr_test_many
#                       applied and reverted by each system (smoke 64)
#   kgr.bench.many=N    the per-call figures again, for a function patched
#                       while N functions of kgr_test_many stay patched by
#                       the same system (smoke 8; not in the full boot)
#   kgr.bench.threads=N,M,...  a transition of each system while that many
#                       threads of one process (smoke 100)...
#   kgr.bench.thread_modes=MODE,...  ...sleep in a futex wait, call
#                       getppid() in a loop, or half and half: sleep, busy,
#                       mix; sleepfn: sleep, the kGraft patch settling for
#                       function-level consistency (smoke mix,sleepfn); the
#                       fork latency of a task meanwhile
#
# Target functions (samples/kgr-bench/kgr_bench.h): 0 is never patched;
# kGraft patches 1 (per call, the handler), 2..1+R (idle), 2+R..1+2R
# (under load), 12 (per call, trampolines), 13 (per call, next to many);
# livepatch 14 (per call), 15.. (transitions), 26 (per call, next to
# many).  A patched function is never patched again.

. ./functions.sh

MODE=$(kgr_param bench smoke)
LOOPS=$(kgr_param bench.loops 2000)
REPS=$(kgr_param bench.reps 1)
BUSY=$(kgr_param bench.busy 2)
SLEEPERS=$(kgr_param bench.sleepers 2)
SLEEP_MS=$(kgr_param bench.sleep_ms 2000)
DAEMONS=$(kgr_param bench.daemons 1)
SAMPLE_MS=$(kgr_param bench.sample_ms 50)
SIZES=$(kgr_param bench.sizes 64 | tr , ' ')
NMANY=$(kgr_param bench.many 8)
THREADS=$(kgr_param bench.threads 100 | tr , ' ')
THREAD_MODES=$(kgr_param bench.thread_modes mix,sleepfn | tr , ' ')
KLP_BASE=14	# first livepatch function: KGR_BENCH_NFN / 2 + 1
TRANS_TIMEOUT=120

[ "$REPS" -ge 1 ] && [ "$REPS" -le 5 ] || die "kgr.bench.reps must be 1..5"

start_test "kGraft/livepatch benchmark ($MODE)"
[ -d /sys/kernel/livepatch ] || skip "no CONFIG_LIVEPATCH"
[ -f "$MODDIR/kgr_bench_target.ko" ] || die "no kgr_bench_target.ko in the initramfs"
load_mod kgr_bench_target
B=/proc/kgr_bench

rm -f /tmp/bench-all.out
out() {
	echo "KGR-BENCH $*" | tee -a /tmp/bench-all.out
}

# call SYSTEM CASE FN GATE: one timed loop, printed as a KGR-BENCH line
call() {
	local r

	r=$(kgr-bench call "$3" "$LOOPS" "$4") || die "kgr-bench call $3 failed"
	out "call $1 $2 $r"
}

# done_count KIND MODULE: how many transitions of KIND (of MODULE, for
# livepatch) the log says are complete since the mark
done_count() {
	case $1 in
	kgr) kmsg_since_mark | grep -c '^kgr: transition finalized' ;;
	klp) kmsg_since_mark | grep -c "'$2': patching complete" ;;
	esac
}

# wait_done KIND MODULE COUNT: until the transition of MODULE is complete,
# COUNT being done_count's before it started (kGraft's line has no name:
# the earlier transitions' lines must not count)
wait_done() {
	wait_for "[ \$(done_count $1 $2) -gt $3 ]" "$TRANS_TIMEOUT" ||
		die "$2: transition not complete after $TRANS_TIMEOUT s"
}

# percall KIND FN MODULE [NAME]: the per-call figures of one system (its
# lines say NAME, KIND by default)
#   unpatched     before the patch
#   old / new     during the transition, caller in the old / new universe;
#                 a task asleep in the target's gate holds it open (for
#                 livepatch the patch replaces the gate as well)
#   after         once the transition is complete
percall() {
	local kind=$1 fn=$2 mod=$3 name=${4:-$1} before

	call "$name" unpatched "$fn" 0
	before=$(done_count "$kind" "$mod")
	kgr-bench call "$fn" "$LOOPS" 1 > /tmp/bench-old.out 2>&1 &
	local holder=$!
	wait_for "[ \$(cat $B/waiting) = 1 ]" 30 || die "the gate holds no task"
	load_mod "$mod"
	# the transition cannot complete while the holder is in the gate
	call "$name" new "$fn" 0
	echo 1 > $B/open
	wait "$holder" || die "the gate's holder failed: $(cat /tmp/bench-old.out)"
	out "call $name old $(cat /tmp/bench-old.out)"
	echo 0 > $B/open
	wait_done "$kind" "$mod" "$before"
	call "$name" after "$fn" 0
	out "module $kind $mod $(awk -v m="$mod" '$1 == m { print $2 }' /proc/modules)"
}

# trans KIND TAG FN LOAD
trans() {
	local kind=$1 tag=$2 fn=$3 busy=0 sleepers=0 daemons=0

	if [ "$4" = load ]; then
		busy=$BUSY
		sleepers=$SLEEPERS
		daemons=$DAEMONS
	fi
	log "transition $tag $kind: kgr_bench_${kind}_$fn, $busy busy, $sleepers sleeping, $daemons daemons of each kind"
	# This shell sleeps in wait4() for the whole transition, as the
	# runner and /init above it do: on the idle guest as well, tasks
	# asleep in the kernel for good (kGraft nudges them).
	kgr-bench trans "$kind" "$tag" "$MODDIR/kgr_bench_${kind}_$fn.ko" \
		"$busy" "$sleepers" "$SLEEP_MS" "$daemons" "$SAMPLE_MS" \
		"$TRANS_TIMEOUT" > /tmp/bench-trans.out 2>&1
	[ $? = 0 ] || {
		cat /tmp/bench-trans.out
		die "kgr-bench trans $kind $tag failed"
	}
	tee -a /tmp/bench-all.out < /tmp/bench-trans.out
}

# scale N: the first N functions of kgr_test_many patched, then reverted,
# by kGraft, then by livepatch: wall times from the kernel log's time
# stamps, from the insmod (the revert's start) to the end of the
# transition; kGraft's finalization (from "kgr succeeded" to "transition
# finalized", kGraft's lock held) apart. Each function's sum is checked
# after each step: the code each call ran.
MANY=/proc/kgr_test_many
KLPSYS=/sys/kernel/livepatch/kgr_test_many_klp

uptime_ms() {
	awk '{ printf "%d", $1 * 1000 }' /proc/uptime
}

# insmod_loop OUT: until /tmp/insmod.stop appears, load and remove
# kgr_test_mod, a module no patch here touches, 50 ms apart; then "MAX N"
# in OUT: the longest load in ms (/proc/uptime's 10 ms steps), and how
# many loads there were
insmod_loop() {
	local max=0 n=0 t0 d

	while [ ! -e /tmp/insmod.stop ]; do
		t0=$(uptime_ms)
		insmod "$MODDIR/kgr_test_mod.ko" || break
		d=$(($(uptime_ms) - t0))
		rmmod kgr_test_mod
		[ "$d" -gt "$max" ] && max=$d
		n=$((n + 1))
		sleep 0.05
	done
	echo "$max $n" > "$1"
}

# meanwhile_start, then meanwhile_end WHAT: with MEANWHILE=1, insmod_loop
# runs in the background between the two; INSMOD_MAX is the longest load
meanwhile_start() {
	[ "$MEANWHILE" = 1 ] || return 0
	rm -f /tmp/insmod.stop /tmp/insmod.out
	insmod_loop /tmp/insmod.out &
	INSMOD_PID=$!
}

meanwhile_end() {
	local n

	[ "$MEANWHILE" = 1 ] || return 0
	touch /tmp/insmod.stop
	wait "$INSMOD_PID"
	read -r INSMOD_MAX n < /tmp/insmod.out
	[ "${n:-0}" -ge 1 ] || die "no unrelated module loaded during $1"
}

# mem_kb: "SLAB VMALLOC", /proc/meminfo's Slab and VmallocUsed in kB,
# the per-CPU counters folded first where the kernel has stat_refresh
mem_kb() {
	echo 1 > /proc/sys/vm/stat_refresh 2>/dev/null
	awk '/^Slab:/ { s = $2 } /^VmallocUsed:/ { v = $2 }
		END { printf "%d %d", s, v }' /proc/meminfo
}

# module_bytes NAME: the size /proc/modules gives for module NAME
module_bytes() {
	awk -v m="$1" '$1 == m { print $2 }' /proc/modules
}

# mem_grown MOD "SLAB0 VMALLOC0": "slab_kb=S vmalloc_kb=V module_b=M",
# the growth since the figures given, and the size of MOD, which the
# vmalloc growth includes
mem_grown() {
	local now

	now=$(mem_kb)
	echo "$1 $2 $now $(module_bytes "$1")" | awk '{
		printf "slab_kb=%d vmalloc_kb=%d module_b=%d", $4 - $2, $5 - $3, $6 }'
}

# scale_pass N: the steps of scale N, their times (MEANWHILE=0) or the
# longest insmod of an unrelated module during each (MEANWHILE=1: the
# loop of loads disturbs the times, so they come from a pass of their own)
scale_pass() {
	local n=$1 all ka kf kr krf kla klr ika ikr ila ilr m0 kmem lmem

	all=$(cat $MANY)
	m0=$(mem_kb)
	meanwhile_start
	load_mod kgr_test_many_patch nr="$n"
	kgr_wait_finalized "$TRANS_TIMEOUT"
	meanwhile_end "kGraft's apply"
	kmem=$(mem_grown kgr_test_many_patch "$m0")
	ika=$INSMOD_MAX
	assert_eq $((all + n)) "$(cat $MANY)" "kGraft: the sum with $n functions patched"
	ka=$(ms_between "$(kmsg_ts "% insmod kgr_test_many_patch.ko nr=$n")" \
		"$(kmsg_ts "kgr: transition finalized")")
	kf=$(ms_between "$(kmsg_ts "kgr succeeded")" "$(kmsg_ts "kgr: transition finalized")")
	meanwhile_start
	kgr_revert kgr_test_many_patch
	kgr_wait_reverted kgr_test_many_patch "$TRANS_TIMEOUT"
	meanwhile_end "kGraft's revert"
	ikr=$INSMOD_MAX
	assert_eq "$all" "$(cat $MANY)" "kGraft: the sum with $n functions reverted"
	kr=$(ms_between "$(kmsg_ts "kgr: reverting kgr_test_many_patch")" \
		"$(kmsg_ts "kgr: kgr_test_many_patch is reverted")")
	krf=$(ms_between "$(kmsg_ts "kgr succeeded")" \
		"$(kmsg_ts "kgr: kgr_test_many_patch is reverted")")
	unload_mod kgr_test_many_patch

	m0=$(mem_kb)
	meanwhile_start
	load_mod kgr_test_many_klp nr="$n"
	wait_for "kmsg_since_mark | grep -q \"'kgr_test_many_klp': patching complete\"" \
		"$TRANS_TIMEOUT" || die "livepatch: $n functions not patched after $TRANS_TIMEOUT s"
	meanwhile_end "livepatch's apply"
	lmem=$(mem_grown kgr_test_many_klp "$m0")
	ila=$INSMOD_MAX
	assert_eq $((all + n)) "$(cat $MANY)" "livepatch: the sum with $n functions patched"
	kla=$(ms_between "$(kmsg_ts "% insmod kgr_test_many_klp.ko nr=$n")" \
		"$(kmsg_ts "'kgr_test_many_klp': patching complete")")
	log "% echo 0 > $KLPSYS/enabled"
	meanwhile_start
	echo 0 > $KLPSYS/enabled || die "livepatch: the revert was refused"
	wait_for "[ ! -e $KLPSYS ]" "$TRANS_TIMEOUT" ||
		die "livepatch: $n functions not reverted after $TRANS_TIMEOUT s"
	meanwhile_end "livepatch's revert"
	ilr=$INSMOD_MAX
	assert_eq "$all" "$(cat $MANY)" "livepatch: the sum with $n functions reverted"
	klr=$(ms_between "$(kmsg_ts "% echo 0 > $KLPSYS/enabled")" \
		"$(kmsg_ts "'kgr_test_many_klp': unpatching complete")")
	unload_mod kgr_test_many_klp
	if [ "$MEANWHILE" = 1 ]; then
		out "scale $n kgr insmod_apply_ms=$ika insmod_revert_ms=$ikr"
		out "scale $n klp insmod_apply_ms=$ila insmod_revert_ms=$ilr"
	else
		out "scale $n kgr apply_ms=$ka fin_ms=$kf revert_ms=$kr rfin_ms=$krf"
		out "scale $n klp apply_ms=$kla revert_ms=$klr"
		out "scale $n kgr $kmem"
		out "scale $n klp $lmem"
	fi
}

# threads KIND N MODE: a patch of kgr_test_many's first function, applied
# and reverted by kgr-bench (the transitions' times, the fork latency
# meanwhile) while N threads are in MODE
threads() {
	local kind=$1 n=$2 mode=$3 mod=kgr_test_many_patch reverts params=nr=1

	[ "$kind" = klp ] && mod=kgr_test_many_klp
	# the same sleepers, the kGraft patch at function-level consistency
	[ "$kind$mode" = kgrsleepfn ] && params="nr=1 per_function=1"
	reverts=$(kgr_reverted $mod)
	log "% kgr-bench threads $kind $mode-$n $mod.ko $n $mode"
	# the walks of the task list under tasklist_lock, timed meanwhile
	echo 1 > $B/holds
	kgr-bench threads "$kind" "$mode-$n" "$MODDIR/$mod.ko" "$n" "$mode" \
		"$THREADS_TIMEOUT" "$params" > /tmp/bench-threads.out 2>&1 || {
		cat /tmp/bench-threads.out
		die "kgr-bench threads $kind $mode-$n failed"
	}
	tee -a /tmp/bench-all.out < /tmp/bench-threads.out
	out "holds $mode-$n $kind $(cat $B/holds)"
	echo 0 > $B/holds
	if [ "$kind" = kgr ]; then
		wait_for "[ \$(kgr_reverted $mod) -gt $reverts ]" "$THREADS_TIMEOUT" ||
			die "kGraft: $mod not reverted after $THREADS_TIMEOUT s"
	else
		wait_for "[ ! -e $KLPSYS ]" "$THREADS_TIMEOUT" ||
			die "livepatch: $mod not reverted after $THREADS_TIMEOUT s"
	fi
	unload_mod $mod
}
THREADS_TIMEOUT=600

scale() {
	start_test "patches of $1 functions"
	MEANWHILE=0
	scale_pass "$1"
	MEANWHILE=1
	scale_pass "$1"
}

out "params mode=$MODE loops=$LOOPS reps=$REPS busy=$BUSY sleepers=$SLEEPERS sleep_ms=$SLEEP_MS daemons=$DAEMONS sample_ms=$SAMPLE_MS sizes=$(echo $SIZES | tr ' ' ,)"
while read -r line; do
	out "size $line"
done < $B/sizes

# baseline: a function that is never patched
call base unpatched 0 0
# kGraft's handler (kgr.direct=0: the RFC's stubs), then its trampolines
# (the default: the transition trampoline, and the direct call once
# finalized) on a function of its own (kgr_bench_kgr_12: the
# transitions below use 2 to 11)
DIRECT=/sys/module/kgr/parameters/direct
[ -f $DIRECT ] || die "no $DIRECT"
echo 0 > $DIRECT
percall kgr 1 kgr_bench_kgr_1
out "trampoline $(kmsg_since_mark | sed -n 's/^kgr-bench: kgr_bench_kgr_1: ftrace trampoline \([0-9]*\) bytes$/\1/p')"
echo 1 > $DIRECT
percall kgr 12 kgr_bench_kgr_12 kgrt
percall klp $KLP_BASE kgr_bench_klp_$KLP_BASE

# many_patched KIND: the first NMANY functions of kgr_test_many patched
# by KIND's module, kgr_test_many_patch or kgr_test_many_klp
many_patched() {
	local mod=kgr_test_many_patch before

	[ "$1" = klp ] && mod=kgr_test_many_klp
	before=$(done_count "$1" "$mod")
	load_mod "$mod" nr="$NMANY"
	wait_done "$1" "$mod" "$before"
	assert_eq $((KGR_TEST_MANY_NR + NMANY)) "$(cat /proc/kgr_test_many)" \
		"$1: the sum with $NMANY functions of kgr_test_many patched"
}

# The per-call figures of a function patched while NMANY others stay
# patched by the same system: the cost of the last function of a large
# patch (for kGraft, a function of its own patch after them; livepatch
# the same)
KGR_TEST_MANY_NR=1024
if [ "$MODE" != full ]; then
	out "many $NMANY"
	load_mod kgr_test_many
	many_patched kgr
	percall kgr 13 kgr_bench_kgr_13 kgrm
	kgr_revert kgr_test_many_patch
	kgr_wait_reverted kgr_test_many_patch "$TRANS_TIMEOUT"
	unload_mod kgr_test_many_patch
	many_patched klp
	percall klp 26 kgr_bench_klp_26 klpm
	if [ "$MODE" = smoke ]; then
		# the scale section below loads kgr_test_many again
		log "% echo 0 > /sys/kernel/livepatch/kgr_test_many_klp/enabled"
		echo 0 > /sys/kernel/livepatch/kgr_test_many_klp/enabled ||
			die "livepatch: the revert of kgr_test_many_klp was refused"
		wait_for "[ ! -e /sys/kernel/livepatch/kgr_test_many_klp ]" "$TRANS_TIMEOUT" ||
			die "livepatch: kgr_test_many_klp not reverted after $TRANS_TIMEOUT s"
		unload_mod kgr_test_many_klp
		unload_mod kgr_test_many
	fi
fi

if [ "$MODE" != percall ]; then
	r=1
	while [ "$r" -le "$REPS" ]; do
		trans kgr "idle-$r" $((1 + r)) idle
		trans klp "idle-$r" $((KLP_BASE + r)) idle
		r=$((r + 1))
	done
	r=1
	while [ "$r" -le "$REPS" ]; do
		trans kgr "load-$r" $((1 + REPS + r)) load
		trans klp "load-$r" $((KLP_BASE + REPS + r)) load
		r=$((r + 1))
	done
	load_mod kgr_test_many
	for n in $SIZES; do
		scale "$n"
	done
	start_test "transitions with many threads"
	# room for them: a kernel built small allows 4096 pids by default
	for n in $THREADS; do
		for f in pid_max threads-max; do
			[ "$(cat /proc/sys/kernel/$f)" -gt $((n + 1000)) ] ||
				echo $((n + 2000)) > /proc/sys/kernel/$f ||
				die "cannot raise kernel.$f to $((n + 2000))"
		done
	done
	for n in $THREADS; do
		for m in $THREAD_MODES; do
			threads kgr "$n" "$m"
			threads klp "$n" "$m"
		done
	done
	unload_mod kgr_test_many
fi
out "done"

[ "$MODE" = smoke ] || exit 0

# The smoke run asserts that the benchmark ran and its figures make
# sense: every loop ran, called the code it should, in the universe it
# should; every transition completed.  Never how fast anything was.
check_call() {	# SYSTEM CASE SUM KGR KLP
	local line

	line=$(grep "^KGR-BENCH call $1 $2 " /tmp/bench-all.out) ||
		die "no figure for $1 $2"
	assert_eq "$3" "$(echo "$line" | sed 's/.* sum=\([0-9]*\).*/\1/')" "$1 $2: sum"
	assert_eq "$4" "$(echo "$line" | sed 's/.* kgr=\([-0-9]*\).*/\1/')" "$1 $2: kgr"
	assert_eq "$5" "$(echo "$line" | sed 's/.* klp=\([-0-9]*\).*/\1/')" "$1 $2: klp"
	[ "$(echo "$line" | sed 's/.* ns=\([0-9]*\).*/\1/')" -gt 0 ] || die "$1 $2: no time"
}

old=$LOOPS new=$((2 * LOOPS))
check_call base unpatched $old 0 -1
# kGraft: the handler, the trampolines, the trampolines next to many
for s in kgr kgrt kgrm; do
	check_call $s unpatched $old 0 -1
	check_call $s new $new 0 -1
	check_call $s old $old 1 -1
	check_call $s after $new 0 -1
done
# livepatch: alone, next to many
for s in klp klpm; do
	check_call $s unpatched $old 0 -1
	check_call $s new $new 0 1
	check_call $s old $old 0 0
	check_call $s after $new 0 -1
done

n=$(grep -c '^KGR-BENCH trans ' /tmp/bench-all.out)
assert_eq $((4 * REPS)) "$n" "transitions measured"
grep '^KGR-BENCH trans ' /tmp/bench-all.out | while read -r _ _ tag kind init done fin last trig work; do
	init=${init#init_us=} done=${done#done_us=}
	# a livepatch transition may complete within the module's init
	[ "$init" -ge 0 ] && [ "$done" -gt 0 ] ||
		die "$tag $kind: init_us=$init done_us=$done"
	[ "$kind" = kgr ] || continue
	# kGraft's "transition finalized" line: present, its figures sane
	fin=${fin#fin_ms=} last=${last#last_us=} trig=${trig#trigger=}
	work=${work#work_us=}
	[ "$fin" -ge 0 ] && [ "$last" -ge 0 ] && [ "$work" -ge 0 ] ||
		die "$tag kgr: no \"transition finalized\" figures (fin_ms=$fin last_us=$last work_us=$work)"
	case $trig in
	at-once|periodic) ;;
	*) die "$tag kgr: finalized by \"$trig\"" ;;
	esac
done || exit 1
# the daemons ran, and none of their calls returned: a nudge is invisible
n=$(grep -c '^KGR-BENCH daemons load-' /tmp/bench-all.out)
assert_eq $((2 * REPS)) "$n" "daemon figures under load"
grep '^KGR-BENCH daemons ' /tmp/bench-all.out | while read -r _ _ tag kind tasks ret; do
	case $tag in
	load-*) assert_eq $((8 * DAEMONS)) "${tasks#tasks=}" "$tag $kind: daemons" ;;
	esac
	assert_eq 0 "${ret#returned=}" "$tag $kind: daemon calls that returned"
done || exit 1
grep -q '^KGR-BENCH sample load-1 kgr ' /tmp/bench-all.out || die "no samples"
grep -q '^KGR-BENCH size kgr_patch_fun=[1-9]' /tmp/bench-all.out || die "no sizes"
# what kGraft keeps for a function called directly is no more than what
# livepatch keeps for one (the sizes of structures, not a measurement)
size() {
	grep '^KGR-BENCH size ' /tmp/bench-all.out | tr ' ' '\n' |
		sed -n "s/^$1=\([0-9]*\)$/\1/p" | head -n 1
}
kgr_fn=$(($(size kgr_patch_fun) + $(size kgr_caches_ptr) + $(size kgr_patch_ptr) +
	$(size kgr_loc_caches) + $(size kgr_func) + 2 * $(size ftrace_entry)))
klp_fn=$(($(size klp_func) + $(size klp_ops_slab)))
log "per function: kGraft $kgr_fn B (with ftrace's direct call), livepatch $klp_fn B (without ftrace's filter)"
[ "$kgr_fn" -gt 0 ] && [ "$kgr_fn" -le "$klp_fn" ] ||
	die "kGraft keeps $kgr_fn B per function called directly, livepatch $klp_fn B"
grep -q '^KGR-BENCH trampoline [1-9]' /tmp/bench-all.out || die "no trampoline size"
grep -q '^KGR-BENCH module kgr kgr_bench_kgr_1 [1-9]' /tmp/bench-all.out || die "no module size"
for n in $SIZES; do
	for kind in kgr klp; do
		grep -q "^KGR-BENCH scale $n $kind apply_ms=[0-9]* .*revert_ms=[0-9]" /tmp/bench-all.out ||
			die "no figures for $kind's patch of $n functions"
		grep -q "^KGR-BENCH scale $n $kind insmod_apply_ms=[0-9]* insmod_revert_ms=[0-9]" /tmp/bench-all.out ||
			die "no insmod figures for $kind's patch of $n functions"
		grep -q "^KGR-BENCH scale $n $kind slab_kb=-*[0-9]* vmalloc_kb=-*[0-9]* module_b=[1-9]" /tmp/bench-all.out ||
			die "no memory figures for $kind's patch of $n functions"
	done
done
# each threads run: its threads started, the transition and the revert's
# ended, the forker forked during the first, and no sleeper's futex wait
# returned
for n in $THREADS; do
	for m in $THREAD_MODES; do
		for kind in kgr klp; do
			line=$(grep "^KGR-BENCH threads $m-$n $kind " /tmp/bench-all.out) ||
				die "no figures for $kind with $n threads ($m)"
			v() { echo "$line" | sed -n "s/.* $1=\([-0-9]*\).*/\1/p"; }
			[ "$(v done_us)" -gt 0 ] || die "$kind, $n threads ($m): the transition did not end"
			[ "$(v forks)" -gt 0 ] || die "$kind, $n threads ($m): no fork during the transition"
			[ "$(v revert_us)" -gt 0 ] || die "$kind, $n threads ($m): the revert did not end"
			assert_eq 0 "$(v returned)" "$kind, $n threads ($m): futex waits that returned"
			# the functions that walk the task list, and one that looks at
			# a pinned task, were timed
			line=$(grep "^KGR-BENCH holds $m-$n $kind " /tmp/bench-all.out) ||
				die "no tasklist_lock figures for $kind with $n threads ($m)"
			case $kind in
			kgr) w="kgr_any_marked kgr_snap_fn" ;;
			klp) w="klp_try_complete_transition klp_check_and_switch_task" ;;
			esac
			# at function-level consistency, kGraft switched the
			# sleepers where they slept
			[ "$kind$m" = kgrsleepfn ] && w="$w kgr_switch_fn"
			for f in $w; do
				echo "$line" | grep -q " $f=[1-9][0-9]*/[0-9]" ||
					die "$kind, $n threads ($m): $f was not timed: $line"
			done
		done
	done
done
log "ok"
