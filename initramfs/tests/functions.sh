#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Helpers for the guest tests, in the manner of the kernel's
# tools/testing/selftests/livepatch/functions.sh.  A test sources this
# file, calls start_test, and exits 0 (pass), 4 (skip) or anything else
# (fail).  Everything a test prints ends up as a "# " TAP comment.

MODDIR=/lib/modules-test
MARK='kgr-test: ===== TEST: '
KSFT_SKIP=4

# log MSG: print MSG and add it to the kernel log, so the console and
# dmesg show where the test was.  Logged at debug level: the console
# already has it from stdout.
log() {
	echo "kgr-test: $*"
	echo "<7>kgr-test: $*" > /dev/kmsg
}

# die MSG: fail the test.
die() {
	echo "kgr-test: FAIL: $*"
	echo "<7>kgr-test: FAIL: $*" > /dev/kmsg
	exit 1
}

# skip MSG: the test cannot run here (missing config, module, ...).
skip() {
	log "SKIP: $*"
	exit $KSFT_SKIP
}

# start_test DESC: mark the start of a test in dmesg; dmesg_since_mark
# and check_result look only at what comes after the last mark.
start_test() {
	log "===== TEST: $* ====="
	dmesg | grep -q -F "$MARK$*" ||
		die "start_test: mark not in dmesg (printk.devkmsg=on missing?)"
}

# dmesg_since_mark: kernel log lines after the last start_test mark,
# without timestamps.
dmesg_since_mark() {
	dmesg | sed 's/^\[[ 0-9.]*\] //' |
		awk -v mark="$MARK" 'index($0, mark) == 1 { n = 0; next }
				     { line[n++] = $0 }
				     END { for (i = 0; i < n; i++) print line[i] }'
}

# check_result EXPECTED: dmesg since the mark, less our own log lines,
# must be exactly EXPECTED (one line per line).
check_result() {
	dmesg_since_mark | grep -v '^kgr-test: ' > /tmp/kgr-result.got
	printf '%s\n' "$1" | sed '/^$/d' > /tmp/kgr-result.want
	if ! cmp -s /tmp/kgr-result.want /tmp/kgr-result.got; then
		echo "kgr-test: dmesg differs from the expected transcript:"
		diff -u /tmp/kgr-result.want /tmp/kgr-result.got
		die "unexpected kernel log"
	fi
}

# assert_eq EXPECTED ACTUAL [WHAT]
assert_eq() {
	[ "$1" = "$2" ] || die "${3:-value}: expected '$1', got '$2'"
}

# wait_for CMD SECS: evaluate CMD every 0.1 s until it succeeds; return 1
# if it still fails after SECS seconds.
wait_for() {
	local cmd="$1"
	local tries=$(($2 * 10))

	while ! eval "$cmd" > /dev/null 2>&1; do
		tries=$((tries - 1))
		if [ "$tries" -le 0 ]; then
			log "wait_for: '$cmd' still false after $2 s"
			return 1
		fi
		sleep 0.1
	done
	return 0
}

# kgr_param NAME DEFAULT: the value of kernel command line parameter
# kgr.NAME, or DEFAULT
kgr_param() {
	local w

	for w in $(cat /proc/cmdline); do
		case $w in
		"kgr.$1="*) echo "${w#*=}"; return ;;
		esac
	done
	echo "$2"
}

# mod_file NAME: the file that load_mod loads for module NAME. With
# kgr.many=1 on the kernel command line, a scenario's patch that has a
# variant with the 1024 functions of kgr_test_many before its own
# (kgr_test_patch_NAME.many.ko, same module name) is that variant, so
# that the consistency tests run with a patch of 1025 functions.
mod_file() {
	if [ "$(kgr_param many 0)" = 1 ] && [ -f "$MODDIR/$1.many.ko" ]; then
		echo "$MODDIR/$1.many.ko"
	else
		echo "$MODDIR/$1.ko"
	fi
}

# load_many_for FILE: if FILE is a .many variant, make sure that
# kgr_test_many, whose functions it patches, is loaded.
load_many_for() {
	case $1 in
	*.many.ko) [ -d /sys/module/kgr_test_many ] || load_mod kgr_test_many ;;
	esac
}

# load_mod NAME [PARAM=VALUE...]: insmod /lib/modules-test/NAME.ko (see
# mod_file), after load_many_for.
load_mod() {
	local mod="$1" file

	shift
	file=$(mod_file "$mod")
	[ -f "$file" ] || die "load_mod: no $file in the initramfs"
	load_many_for "$file"
	log "% insmod ${file##*/} $*"
	insmod "$file" "$@" || die "load_mod: insmod ${file##*/} failed"
}

# unload_mod NAME: rmmod NAME.
unload_mod() {
	log "% rmmod $1"
	rmmod "$1" || die "unload_mod: rmmod $1 failed"
}

# pkg_do CMD...: run CMD (dpkg or apt-get) with its output, less the
# carriage returns of apt's progress lines, in /tmp/dpkg.out and the log;
# its exit status
pkg_do() {
	local rc

	log "% $*"
	"$@" > /tmp/dpkg.raw 2>&1
	rc=$?
	tr -d '\r' < /tmp/dpkg.raw > /tmp/dpkg.out
	sed 's/^/    /' /tmp/dpkg.out
	return $rc
}

# ---- kGraft helpers -------------------------------------------------

# enabled_line FUNC: what ftrace's enabled_functions says of FUNC, on one
# line (empty: no ftrace user); a direct call adds "direct-->TARGET".
# Needs tracefs at /sys/kernel/tracing.
enabled_line() {
	awk -v fn="$1" '$1 == fn { l = $0; getline n
				  if (n ~ /^[ \t]+direct-->/) l = l " " n
				  print l }' /sys/kernel/tracing/enabled_functions
}

# kgr_direct_alone FUNC OTHER: within 30 s, FUNC has a direct call, no
# handler that modifies the instruction pointer (kGraft's) and no direct
# call to OTHER (another user's trampoline): kGraft calls it directly
kgr_direct_alone() {
	wait_for "enabled_line $1 | grep -q 'direct-->' &&
		  ! enabled_line $1 | grep -q -e ' I ' -e $2" 30 ||
		die "$1 is not called directly by kGraft alone after 30 s: $(enabled_line "$1")"
	log "enabled_functions: $(enabled_line "$1")"
}

# kgr_jumps FUNC NEW WHAT: FUNC's fentry site jumps (ftrace's direct call
# in jump mode: "(jmp)" in enabled_functions) to NEW, its patch's new
# function, itself (WHAT "new"), or to a trampoline (WHAT "trampoline": a
# transition's, which decides). NEW at an odd address cannot carry jump
# mode's mark: then a trampoline that jumps on is expected for "new" too.
kgr_jumps() {
	local line addr

	line=$(enabled_line "$1")
	case $line in
	*"direct-->"*"(jmp)"*) ;;
	*) die "$1 has no direct call in jump mode: $line" ;;
	esac
	if [ "$3" = new ]; then
		addr=$(awk -v s="$2" '$3 == s { print $1; exit }' /proc/kallsyms)
		[ -n "$addr" ] || die "no $2 in /proc/kallsyms"
		case $addr in
		*[13579bdf]) ;;
		*)
			case $line in
			*"direct-->$2+0x0/"*) return 0 ;;
			*) die "$1 does not jump to $2 itself: $line" ;;
			esac
			;;
		esac
	fi
	case $line in
	*"direct-->$2+"*) die "$1 jumps to $2, not to a trampoline: $line" ;;
	esac
}

KGR_TEST=/proc/kgr_test

# kmsg_since_mark: the kernel's own lines since the last start_test mark
# (without the tests' log lines, which log() copies into dmesg).
kmsg_since_mark() {
	dmesg_since_mark | grep -v '^kgr-test: '
}

# kmsg_ts TEXT: the time stamp (s) of the last kernel log line that has
# TEXT (log() copies the tests' own lines there too)
kmsg_ts() {
	dmesg | grep -F "$1" | tail -n 1 | sed 's/^\[ *\([0-9.]*\)\].*/\1/'
}

# ms_between FROM TO: TO - FROM, two time stamps of kmsg_ts, in ms
ms_between() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%d", (b - a) * 1000 }'
}

# refuse MODULE: insmod MODULE must fail.
refuse() {
	log "% insmod $1.ko (must fail)"
	if insmod "$MODDIR/$1.ko"; then
		die "$1 loaded"
	fi
	grep -q "^$1 " /proc/modules && die "$1 is listed in /proc/modules"
	if kmsg_since_mark | grep -E 'WARNING:|BUG:|Call Trace:'; then
		die "the kernel complained while refusing $1"
	fi
	return 0
}

# expect_log TEXT: the kernel said TEXT since the mark.
expect_log() {
	kmsg_since_mark | grep -q -F "$1" || die "no '$1' in the kernel log"
}

# spin_across MODE NAME OUT CMD...: a trip of kgr-probe MODE (spin or
# spin_bh: kgr_test_fn_NAME() called in a loop for SPIN_MS ms, 4000 unless
# set, in one system call) that is under way when CMD runs; wait for it
# and its next system call, and print what it wrote to OUT.
spin_across() {
	local mode="$1" n="$2" out="$3"

	shift 3
	select_fn "$n"
	echo "${SPIN_MS:-4000}" > $KGR_TEST/spin_ms
	kgr-probe "$mode" > "$out" 2>&1 &
	wait_for "grep -q '^tid=' $out" 10 || die "kgr-probe did not start"
	sleep 1
	"$@"
	wait_for "grep -q '^next=' $out" 60 || die "kgr-probe did not finish"
	cat "$out"
}

# assert_trip OUT V: the trip that kgr-probe wrote to OUT made more than
# 100 calls, all of which returned V (no switch between two calls).
assert_trip() {
	local calls

	calls=$(field calls "$1")
	[ "${calls:-0}" -gt 100 ] || die "only ${calls:-0} calls in the trip"
	assert_eq 0 "$(field new2old "$1")" "new-to-old switches within the trip"
	assert_eq 0 "$(field old2new "$1")" "old-to-new switches within the trip"
	assert_eq "$2" "$(field first "$1")" "first call of the trip"
	assert_eq "$2" "$(field last "$1")" "last call of the trip"
}

# assert_one_trip OUT V NEXT: assert_trip OUT V, and the next system call
# got NEXT.
assert_one_trip() {
	assert_trip "$1" "$2"
	assert_eq "$3" "$(field next "$1")" "the next system call"
}

# spin_across_patch MODE NAME OUT: spin_across while kgr_test_patch_NAME
# loads.
spin_across_patch() {
	spin_across "$1" "$2" "$3" load_mod "kgr_test_patch_$2"
}

# The interrupt timers of kgr_test_proc (its irq file):
# irq_get CPU CTX NAME: NAME= of the line for CPU and CTX in /tmp/irq.now
irq_get() {
	awk -v cpu="cpu=$1" -v ctx="ctx=$2" -v k="$3" \
		'$1 == cpu && $2 == ctx { for (i = 3; i <= NF; i++) {
			split($i, a, "="); if (a[1] == k) print a[2] } }' /tmp/irq.now
}

irq_snapshot() {
	cat $KGR_TEST/irq > /tmp/irq.now || die "cannot read $KGR_TEST/irq"
	sed 's/^/kgr-test: irq: /' /tmp/irq.now
}

# irq_expect CPU LAST: both contexts of CPU ran, never backwards, and
# their latest call got version LAST
irq_expect() {
	local ctx

	for ctx in hardirq softirq; do
		[ "$(irq_get "$1" $ctx calls)" -gt 0 ] 2>/dev/null ||
			die "no $ctx timer calls on CPU $1"
		assert_eq 0 "$(irq_get "$1" $ctx wrongctx)" "calls outside $ctx context or CPU $1"
		assert_eq 0 "$(irq_get "$1" $ctx new2old)" "new-to-old switches of the $ctx timer on CPU $1"
		assert_eq "$2" "$(irq_get "$1" $ctx last)" "version in $ctx context on CPU $1"
	done
}

# stub_count 1|0: the slow stubs count their calls from now on, or not
# (kgr.stub_count; off by default).
stub_count() {
	echo "$1" > /sys/module/kgr/parameters/stub_count ||
		die "cannot set kgr.stub_count to $1"
}

# stub_calls NAME old|new: how many calls the slow stub of NAME sent to
# the old or the new code, from the line finalization logs
# with stub_count 1.
stub_calls() {
	kmsg_since_mark | sed -n "s/^kgr: $1: the slow stub sent \([0-9]*\) calls to the old code and \([0-9]*\) to the new$/\1 \2/p" |
		awk -v w="$2" '{ print (w == "old") ? $1 : $2 }'
}

# kgr_wait_finalized SECS: wait until the patching started since the mark
# is finalized ("kgr succeeded") and over: "kgr succeeded" comes at the
# start of the finalization, and in_progress reads 1 until its end (more
# than 100 ms later, seen once under TCG). kgr finalizes as soon as the
# last task crossed, and checks again after 10 ms, 20 ms, ... 1 s.
kgr_wait_finalized() {
	wait_for 'kmsg_since_mark | grep -q "^kgr succeeded$" &&
		  [ "$(cat $KGR_SYS/in_progress)" = 0 ]' "$1" || {
		kgr_show_in_progress
		die "patching did not finalize within $1 s"
	}
	log "patching finalized"
}

# kgr_show_in_progress: log every task whose kgr_in_progress reads 1.
kgr_show_in_progress() {
	local f v pid

	for f in /proc/[0-9]*/task/[0-9]*/kgr_in_progress /proc/[0-9]*/kgr_in_progress; do
		v=$(cat "$f" 2>/dev/null) || continue
		[ "$v" = 1 ] || continue
		pid=${f#/proc/}; pid=${pid%%/*}
		log "in progress: $f ($(cat /proc/$pid/comm 2>/dev/null))"
	done
}

KGR_SYS=/sys/kernel/kgraft

# ftrace_users NAME V: the function tracer, then a kprobe and a kretprobe
# (when the kernel has kprobe events) on kgr_test_fn_NAME(), which must keep
# returning V; each must see the call, the kretprobe the value V. Needs
# tracefs at /sys/kernel/tracing.
ftrace_users() {
	local t=/sys/kernel/tracing n

	echo > $t/trace
	echo "kgr_test_fn_$1" > $t/set_ftrace_filter
	echo function > $t/current_tracer
	assert_eq "$2" "$(fn_version "$1")" "kgr_test_fn_$1() traced"
	n=$(grep -c "kgr_test_fn_$1" $t/trace)
	log "function tracer: $n lines name kgr_test_fn_$1"
	[ "$n" -ge 1 ] || die "the function tracer saw no call of kgr_test_fn_$1"
	echo nop > $t/current_tracer
	echo > $t/set_ftrace_filter
	[ -f $t/kprobe_events ] || return 0
	echo > $t/trace
	echo "p:kgrtest_entry kgr_test_fn_$1" > $t/kprobe_events
	echo "r:kgrtest_ret kgr_test_fn_$1 ret=\$retval" >> $t/kprobe_events
	echo 1 > $t/events/kprobes/enable
	assert_eq "$2" "$(fn_version "$1")" "kgr_test_fn_$1() with a kprobe and a kretprobe"
	echo 0 > $t/events/kprobes/enable
	log "kprobes: $(grep -c kgrtest_entry $t/trace) entry, $(grep -c kgrtest_ret $t/trace) return lines"
	grep -q 'kgrtest_entry' $t/trace || die "the kprobe did not fire"
	# the kretprobe sees what the caller gets
	grep -q "kgrtest_ret.*ret=0x$2" $t/trace ||
		die "the kretprobe did not see the value $2: $(grep kgrtest_ret $t/trace | head -n 2)"
	echo > $t/kprobe_events
}

# kgr_reverted NAME: how many reverts of patch NAME the kernel log shows
kgr_reverted() {
	dmesg | grep -c "kgr: $1 is reverted"
}

# kgr_revert NAME: write 1 to the revert file of patch NAME.
kgr_revert() {
	KGR_REVERTED=$(kgr_reverted "$1")
	log "% echo 1 > $KGR_SYS/$1/revert"
	echo 1 > "$KGR_SYS/$1/revert" || die "kgr_revert: the revert of $1 was refused"
}

# kgr_wait_reverted NAME SECS: wait until the revert of NAME that
# kgr_revert started is finalized.
kgr_wait_reverted() {
	wait_for '[ "$(kgr_reverted '"$1"')" -gt "$KGR_REVERTED" ]' "$2" || {
		kgr_show_in_progress
		die "the revert of $1 did not finalize within $2 s"
	}
	log "revert finalized"
}

# start_sleeper DIR NAME MODE MS: kgr-sleeper MODE MS in the background,
# stdin a FIFO of its own, DIR/NAME.fifo, opened read-write (so that the
# open does not block); output in DIR/NAME.out, pid in DIR/NAME.pid
start_sleeper() {
	mkfifo "$1/$2.fifo"
	kgr-sleeper "$3" "$4" <> "$1/$2.fifo" > "$1/$2.out" 2>&1 &
	echo $! > "$1/$2.pid"
}

# load_target [NAME...]: make sure kgr_test_proc (/proc/kgr_test) and
# the target module of each scenario NAME (kgr_test_target_NAME, with
# kgr_test_fn_NAME(); see samples/kgr-test/scenarios.list) are loaded.
# A test loads its targets before it loads their patches.
load_target() {
	local n

	[ -d $KGR_TEST ] || load_mod kgr_test_proc
	for n in "$@"; do
		[ -d "/sys/module/kgr_test_target_$n" ] || load_mod "kgr_test_target_$n"
	done
}

# select_fn NAME: the files of /proc/kgr_test call kgr_test_fn_NAME()
# from now on (its target must be loaded).
select_fn() {
	echo "$1" > $KGR_TEST/select || die "cannot select kgr_test_fn_$1 (is kgr_test_target_$1 loaded?)"
}

# fn_version NAME: one call of kgr_test_fn_NAME() from a new process.
fn_version() {
	select_fn "$1"
	cat $KGR_TEST/version
}

# field NAME FILE: the value of NAME= in the last line of FILE that has it
# (kgr-probe output: "spin=calls=3 first=1 ..." or "next=2").
field() {
	awk -v k="$1" '{ n = split($0, a, /[ =]/)
			 for (i = 1; i < n; i++) if (a[i] == k) v = a[i + 1] }
		       END { print v }' "$2"
}

# hammers_start N [-a]: start N kgr-hammer processes, each calling the
# selected function through /proc/kgr_test/spin, one trip per read, until
# /tmp/hammer.stop exists (-a: versions may go back, a revert runs).
hammers_start() {
	local i=0

	rm -f /tmp/hammer.stop /tmp/hammer.*.out
	while [ $i -lt "$1" ]; do
		kgr-hammer $2 /tmp/hammer.stop > /tmp/hammer.$i.out 2>&1 &
		i=$((i + 1))
	done
}

# hammers_stop N: stop the N hammers and wait until each has reported;
# fail when one saw a mixed or a new-to-old trip. Sets HAMMER_TRIPS to
# the number of trips of all of them. The caller reaps them (wait).
hammers_stop() {
	local f t k v bad=0

	touch /tmp/hammer.stop
	wait_for '[ "$(cat /tmp/hammer.*.out | grep -c "^trips=")" = '"$1"' ]' 60 ||
		die "not all hammers finished"
	HAMMER_TRIPS=0
	for f in /tmp/hammer.*.out; do
		t=$(field trips "$f")
		HAMMER_TRIPS=$((HAMMER_TRIPS + ${t:-0}))
		for k in mixed new2old badchildren; do
			v=$(field $k "$f")
			if [ "${v:-x}" != 0 ]; then
				log "$f: $(cat "$f")"
				bad=$((bad + 1))
			fi
		done
	done
	assert_eq 0 "$bad" "hammers that saw mixed or new-to-old trips"
}

# hammers_stop_flips N MAX: hammers_stop N for hammers started with -a,
# reap them, log what each saw, and fail when they made no trip or when
# one saw the version change more than MAX times (flapping).
hammers_stop_flips() {
	local f

	hammers_stop "$1"
	wait
	log "hammers: $HAMMER_TRIPS trips: $(cat /tmp/hammer.*.out | tr "\n" " ")"
	[ "$HAMMER_TRIPS" -gt 0 ] || die "the hammers made no trip"
	for f in /tmp/hammer.*.out; do
		[ "$(field flips "$f")" -le "$2" ] ||
			die "$f: the version flapped: $(cat "$f")"
	done
}

# block_trip NAME OUT: start kgr-probe -w trip on kgr_test_fn_NAME() in the
# background, its output in OUT, and wait until it is asleep in the
# middle of its trip (between the two calls); BLOCKED_PID is its pid.
# "echo 1 > $KGR_TEST/release" lets it finish the trip.
block_trip() {
	select_fn "$1"
	echo 0 > $KGR_TEST/release
	kgr-probe -w trip > "$2" 2>&1 &
	BLOCKED_PID=$!
	wait_for '[ "$(cat $KGR_TEST/waiting)" = 1 ]' 10 || die "kgr-probe did not block"
}

# hold_transition OUT: keep the next transition from finishing, so that
# its slow stubs can be watched: a task blocked in the middle of a trip
# of kgr_test_fn_hold() (block_trip, output in OUT) does not cross until
# release_hold. HOLD_PID is its pid.
hold_transition() {
	load_target hold
	block_trip hold "$1"
	HOLD_PID=$BLOCKED_PID
}

# release_hold OUT: let the task of hold_transition finish its trip (and
# cross), then end it.
release_hold() {
	echo 1 > $KGR_TEST/release
	wait_for "grep -q '^next=' $1" 10 || die "the holding task was not released"
	kill "$HOLD_PID"
	wait "$HOLD_PID" 2>/dev/null
}
