#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test-bench-report.sh: host test of scripts/bench-report.py, which turns
# the "KGR-BENCH ..." lines of the benchmark's console logs into the
# table (stdout and DIR/bench.md), the samples (DIR/transition-load.dat)
# and, with gnuplot, the plot.
#
# The fixtures in fixtures/bench-report/ are cut from the console log of a
# real guest run of initramfs/tests/test-kgr-bench.sh (its smoke mode, as
# "make check" runs it: every kind of KGR-BENCH line, one repetition;
# CR LF line ends as the serial console wrote them):
#   icount.log  the per-call part (params, sizes, call, module,
#               trampoline lines and "done"), what an icount boot prints
#   wall.log    the whole benchmark with the kernel lines around it, what
#               the wall-time boot prints
# Other cases are made from these in a scratch directory.  gnuplot is
# kept out of the PATH (the no-gnuplot path) or replaced by a stub that
# records its script, so that the result does not depend on the host.
# One line per case, "ok: ..." or "FAIL: ..."; exit status 0 when every
# case passed, 1 otherwise.  Run from the repository's top (any directory
# works).

set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
report=$here/../bench-report.py
fix=$here/fixtures/bench-report
scratch=$(mktemp -d "${TMPDIR:-/tmp}/test-bench-report.XXXXXX") || exit 1
trap 'rm -rf "$scratch"' EXIT

# The interpreter itself (not a wrapper that needs the PATH), so that
# the runs below can have a PATH of their own.
python=$(python3 -c 'import sys; print(sys.executable)') ||
	{ echo "FAIL: no python3"; exit 1; }
mkdir "$scratch/nobin" "$scratch/stubbin"

cases=0
failures=0
out=
err=
rc=0
n=0
dir=

# run [--gnuplot-stub RC] ARGS...: run bench-report.py with ARGS and
# "--out $dir" (a new directory each run), with no gnuplot in the PATH or
# with a stub gnuplot that saves its script to $dir.gp and exits RC.
# Its stdout in $out, its stderr in $err, its exit status in $rc.
run() {
	local path=$scratch/nobin

	n=$((n + 1))
	dir=$scratch/out-$n
	if [ "$1" = --gnuplot-stub ]; then
		printf '#!/bin/sh\n/bin/cat > "%s.gp"\nexit %s\n' "$dir" "$2" \
			> "$scratch/stubbin/gnuplot"
		chmod +x "$scratch/stubbin/gnuplot"
		path=$scratch/stubbin
		shift 2
	fi
	env PATH="$path" "$python" "$report" "$@" --out "$dir" \
		> "$scratch/stdout" 2> "$scratch/stderr"
	rc=$?
	out=$(cat "$scratch/stdout")
	err=$(cat "$scratch/stderr")
}

# ok WHAT: report a passed case.
ok() {
	echo "ok: $1"
	cases=$((cases + 1))
}

# fail WHAT EXPECTED GOT: report a failed case, with the start of the
# run's stdout and its stderr.
fail() {
	echo "FAIL: $1 (expected $2, got $3)"
	{ head -n 5 <<<"$out"; echo "$err"; } | sed 's/^/    | /'
	cases=$((cases + 1))
	failures=$((failures + 1))
}

# expect_status WHAT STATUS: the last run exited with STATUS.
expect_status() {
	if [ "$rc" -ne "$2" ]; then
		fail "$1" "exit status $2" "$rc"
	else
		ok "$1"
	fi
}

# expect_line WHAT TEXT [FILE]: the last run's stdout (or FILE) has a
# line that is TEXT exactly.
expect_line() {
	local got

	if [ $# -ge 3 ]; then
		got=$(cat "$3" 2>/dev/null)
	else
		got=$out
	fi
	if grep -qxF -- "$2" <<<"$got"; then
		ok "$1"
	else
		fail "$1" "the line '$2'" "none"
	fi
}

# expect_text WHAT TEXT: the last run's stdout has TEXT in it.
expect_text() {
	if grep -qF -- "$2" <<<"$out"; then
		ok "$1"
	else
		fail "$1" "'$2' in the report" "none"
	fi
}

# expect_err WHAT TEXT: the last run's stderr has a line with TEXT in it.
expect_err() {
	if grep -qF -- "$2" <<<"$err"; then
		ok "$1"
	else
		fail "$1" "'$2' on stderr" "none"
	fi
}

# expect_no_file WHAT FILE: FILE was not written.
expect_no_file() {
	if [ -e "$2" ]; then
		fail "$1" "no $2" "the file"
	else
		ok "$1"
	fi
}

# --- the report of a complete benchmark -----------------------------------

# Two identical icount boots and the wall-time boot, as "make bench"
# calls it (BENCH_ICOUNT_RUNS=2), no gnuplot.  The figures below are the
# fixtures' numbers worked out by hand: ns / loops, the ratio to the same
# system's unpatched loop; transitions in s, kernel figures in ms.
run --icount "$fix/icount.log" --icount "$fix/icount.log" --wall "$fix/wall.log"
expect_status "complete benchmark: exit status 0" 0
expect_line "row: call, unpatched (20190/2000 ns, 19720/2000 ns)" \
	'| call, unpatched function | 10.10 ns (1.00×) | 9.86 ns (1.00×) | icount (deterministic) |'
expect_line "row: old universe, trampoline (40510/2000 ns; livepatch 151900/2000 ns, 7.70x)" \
	'| call during the transition, caller in the old universe (kGraft: transition trampoline) | 20.25 ns (1.97×) | 75.95 ns (7.70×) | icount (deterministic) |'
expect_line "row: after the transition, handler (158250/2000 ns, 7.84x)" \
	"| call after the transition (kGraft: the handler, the RFC's fast stub; kgr.direct=0) | 79.12 ns (7.84×) | 84.82 ns (8.60×) | icount (deterministic) |"
expect_line "row: patch module init (91800, 131829 us; 120670, 132937 us)" \
	'| patch module init (min / median / max of 2) | 91.8 / 111.8 / 131.8 ms | 120.7 / 126.8 / 132.9 ms | wall (TCG guest) |'
expect_line "row: transition under load (310066 us; 1650886 us) and the load from params" \
	'| transition, 2 busy + 2 nanosleep + 8 daemon tasks asleep in the kernel, insmod to finalized (min / median / max of 1) | 0.310 / 0.310 / 0.310 s | 1.651 / 1.651 / 1.651 s | wall (TCG guest) |'
expect_line "row: kgr_finalize() (51977, 175853 us)" \
	'| kGraft: kgr_finalize(), "kgr succeeded" to "transition finalized" (min / median / max of 2) | 51.98 / 113.92 / 175.85 ms | n/a | wall (TCG guest) |'
expect_line "row: what finalized (trigger=at-once twice)" \
	'| kGraft: what finalized the transition (of 1 each) | idle: 1 checked at once; load: 1 checked at once | n/a | kernel log |'
expect_line "row: daemons' calls that returned" \
	"| daemons' system calls that returned during the transitions (must be 0) | 0 (8 tasks, 1 transitions) | 0 (8 tasks, 1 transitions) | count |"
expect_line "row: memory per patched function (40+8+8+168+80+2*32 B; 152+512+64+8+32 B; handler 192+104 B)" \
	"| memory per patched function (kGraft: called directly) | 368 B (entry 40, pointers 16, caches 168, kgr_func 80, ftrace's direct call 2 × 32); new code at an odd address: + 16 B of trampoline; while the function needs the handler: + 296 B and an ftrace trampoline | 768 B (klp_func 152, klp_ops 512, ftrace's filter 104) + an ftrace trampoline + a sysfs directory | sizeof, ksize |"
expect_line "row: ftrace trampoline (203 B)" \
	"| ftrace trampoline of a function's ftrace_ops (kGraft: its handler, kgr.direct=0) | 203 B of code in a 4 KiB page of its own | the same, for every patched function | trampoline_size |"
expect_line "scale row: 1024 functions applied and reverted" \
	'| 1024 | 913 ms (136 ms) | 4250 ms | 325 ms (173 ms) | 108240 ms |'
expect_line "threads row: 100 threads, half and half; reverts 180000 and 1420000 us; fork times; the longest walks (kgr 2400 us of 1+3, klp 1800 us of 1+2); the longest looks (kgr 61 us of 120+40, klp 48 us of 150)" \
	'| 100 | half and half | 0.21 s | 1.35 s | 0.18 s | 1.42 s | 4.1 ms (2.5) | 3.9 ms (2.6) | 2.4 ms (4 walks) | 1.8 ms (3 walks) | 61 us (160 looks) | 48 us (150 looks) |'
expect_line "threads row: 100 sleepers, kGraft at function level; its looks include kgr_switch_fn (75 us of 210+200; kgr_at_exit_fn -1 is no call); livepatch's forker saw no fork end (fork_max_us=-1)" \
	'| 100 | asleep (futex), function-level consistency | 0.07 s | 1.10 s | 0.06 s | 0.04 s | 2.1 ms (2.0) | no fork ended (2.7) | 0.3 ms (3 walks) | 0.9 ms (3 walks) | 75 us (410 looks) | 50 us (200 looks) |'
expect_line "memory row: (400 kB + 24 kB - 16 KiB) / 1024; (900 kB + 4112 kB - 16 KiB) / 1024" \
	'| 1024 | 408 B (slab 400, vmalloc 8) | 4996 B (slab 900, vmalloc 4096) |'
expect_line "row: memory per patch (80+8 B; 296+2*168+152 B)" \
	'| memory per patch | 88 B (kgr_patch, end pointer) + 1 B per CPU (2) until finalized + a sysfs directory | 784 B (klp_patch, 2 klp_object, end klp_func) + sysfs directories | sizeof |'
# the first table: up to the first blank line
rows=$(awk '/^$/ { exit } /^\| / { n++ } END { print n + 0 }' <<<"$out")
if [ "$rows" -eq 22 ]; then
	ok "the table has a header and 21 rows"
else
	fail "the table has a header and 21 rows" "22 '| ' lines" "$rows"
fi
expect_text "note: 2000 calls per loop, from params" \
	'- Per call: 2000 calls of a cheap non-inlined function per timed loop,'
expect_line "note: two identical icount boots" \
	'- Deterministic: 2 icount boots gave identical per-call totals.'
if grep -q 'WARNING' <<<"$out"; then
	fail "no WARNING note: every loop ran the code it should" "no WARNING" "$(grep WARNING <<<"$out")"
else
	ok "no WARNING note: every loop ran the code it should"
fi
# bench.md holds the same table; the samples of the first transition
# under load go to transition-load.dat (t in s, threads in the old
# universe), kGraft first, livepatch second.
expect_line "bench.md has the table" \
	'| memory per patch | 88 B (kgr_patch, end pointer) + 1 B per CPU (2) until finalized + a sysfs directory | 784 B (klp_patch, 2 klp_object, end klp_func) + sysfs directories | sizeof |' \
	"$dir/bench.md"
expect_line "transition-load.dat: kGraft's sample (t_ms=19 old=14)" '0.019 14' "$dir/transition-load.dat"
expect_line "transition-load.dat: livepatch's last sample (t_ms=1086 old=0)" '1.086 0' "$dir/transition-load.dat"
# Without gnuplot: no plot, a message that says so, still exit status 0.
expect_err "no gnuplot: says so on stderr" "bench: no gnuplot (make deps installs gnuplot-nox); data in $dir/transition-load.dat"
expect_no_file "no gnuplot: no png" "$dir/transition-load.png"

# --- the plot, with a stub gnuplot ----------------------------------------

# gnuplot succeeds: the report names the plot; the script gnuplot got
# writes the png and marks where each transition completed (kGraft at
# 0.310 s, livepatch at 1.651 s of the first transition under load).
run --gnuplot-stub 0 --icount "$fix/icount.log" --wall "$fix/wall.log"
expect_status "gnuplot stub: exit status 0" 0
expect_line "gnuplot stub: the report names the plot" "Plot: $dir/transition-load.png"
expect_line "gnuplot stub: its script writes the png" "set output '$dir/transition-load.png'" "$dir.gp"
expect_line "gnuplot stub: kGraft's completion marked" \
	"set label 'kGraft (handler) complete: 0.31 s' at 0.310, graph 0.70 left offset 0.5,0 tc lt 1" "$dir.gp"
expect_line "gnuplot stub: livepatch's completion marked" \
	"set label 'livepatch complete: 1.65 s' at 1.651, graph 0.55 right offset -0.5,0 tc lt 2" "$dir.gp"

# gnuplot fails: a message on stderr, the report and exit status 0 all
# the same.
run --gnuplot-stub 1 --icount "$fix/icount.log" --wall "$fix/wall.log"
expect_status "gnuplot fails: still exit status 0" 0
expect_err "gnuplot fails: says so on stderr" "bench: gnuplot failed; data in $dir/transition-load.dat"

# --- figures that are odd are reported, never a failure -------------------

# Two icount boots that disagree: "DIFFERENT", exit status 0.
sed 's/ns=20190 /ns=20192 /' "$fix/icount.log" > "$scratch/icount-other.log"
run --icount "$fix/icount.log" --icount "$scratch/icount-other.log" --wall "$fix/wall.log"
expect_status "icount boots that differ: exit status 0" 0
expect_line "icount boots that differ: DIFFERENT" \
	'- Deterministic: 2 icount boots gave DIFFERENT per-call totals.'

# A livepatch loop that ran the wrong code (sum of the new function in
# the old universe): a WARNING note, exit status 0.
sed 's/\(call klp old .* sum=\)2000/\14000/' "$fix/icount.log" > "$scratch/icount-wrong.log"
run --icount "$scratch/icount-wrong.log" --wall "$fix/wall.log"
expect_status "a loop in the wrong universe: exit status 0" 0
expect_line "a loop in the wrong universe: WARNING note" \
	'- WARNING: livepatch loops old ran other code than expected.'

# A transition that did not complete (done_us=-1): NOT COMPLETE in its
# cell, exit status 0.
sed 's/\(trans load-1 klp init_us=[0-9]*\) done_us=[0-9]*/\1 done_us=-1/' \
	"$fix/wall.log" > "$scratch/wall-unfinished.log"
run --icount "$fix/icount.log" --wall "$scratch/wall-unfinished.log"
expect_status "a transition that did not complete: exit status 0" 0
expect_line "a transition that did not complete: NOT COMPLETE" \
	'| transition, 2 busy + 2 nanosleep + 8 daemon tasks asleep in the kernel, insmod to finalized (min / median / max of 1) | 0.310 / 0.310 / 0.310 s | n/a (1 NOT COMPLETE) | wall (TCG guest) |'

# --- a boot that produced no figures fails --------------------------------

# The wall-time boot printed no KGR-BENCH line at all (the benchmark did
# not run): exit status 1, the log named, no report written ("it reports
# figures and fails only when a boot produced none", says the README).
grep -v 'KGR-BENCH' "$fix/wall.log" > "$scratch/wall-none.log"
run --icount "$fix/icount.log" --wall "$scratch/wall-none.log"
expect_status "wall boot without figures: exit status 1" 1
expect_err "wall boot without figures: names the log" \
	"bench: no complete benchmark in $scratch/wall-none.log (see that log)"
expect_no_file "wall boot without figures: no bench.md" "$dir/bench.md"

# The only icount boot crashed before the benchmark ended: no "done"
# line.
grep -v 'KGR-BENCH done' "$fix/icount.log" > "$scratch/icount-crashed.log"
run --icount "$scratch/icount-crashed.log" --wall "$fix/wall.log"
expect_status "icount boot without 'done': exit status 1" 1
expect_err "icount boot without 'done': names the log" \
	"bench: no complete benchmark in $scratch/icount-crashed.log (see that log)"
expect_no_file "icount boot without 'done': no bench.md" "$dir/bench.md"

# The only icount boot printed no KGR-BENCH line at all.
grep -v 'KGR-BENCH' "$fix/icount.log" > "$scratch/icount-none.log"
run --icount "$scratch/icount-none.log" --wall "$fix/wall.log"
expect_status "icount boot without figures: exit status 1" 1
expect_err "icount boot without figures: names the log" \
	"bench: no complete benchmark in $scratch/icount-none.log (see that log)"

# The wall-time log does not exist (the boot never ran).
run --icount "$fix/icount.log" --wall "$scratch/no-such.log"
expect_status "missing wall log: exit status 1" 1
expect_err "missing wall log: names the log" \
	"bench: no complete benchmark in $scratch/no-such.log (see that log)"

# One of two icount boots produced no figures: the log is named, the
# report still comes from the other boot, and the run fails.
run --icount "$fix/icount.log" --icount "$scratch/icount-none.log" --wall "$fix/wall.log"
expect_status "one of two icount boots without figures: exit status 1" 1
expect_err "one of two icount boots without figures: names the log" \
	"bench: no complete benchmark in $scratch/icount-none.log (see that log)"
expect_line "one of two icount boots without figures: report from the other" \
	'- Deterministic: 1 icount boots gave identical per-call totals.'

# --- usage ----------------------------------------------------------------

# --wall is required: argparse's usage error, exit status 2.
run --icount "$fix/icount.log"
expect_status "no --wall: exit status 2" 2
expect_err "no --wall: usage error" "the following arguments are required: --wall"

if [ "$failures" -eq 0 ]; then
	echo "test-bench-report: all $cases cases passed"
	exit 0
fi
echo "test-bench-report: $failures of $cases cases failed"
exit 1
