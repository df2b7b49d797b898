#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test-tap-runner.sh: host test of the guests' TAP runner,
# initramfs/kgr-run-tests.  Run from the repository top; prints one line
# per case, "ok: ..." or "FAIL: ...", and exits 0 when every case passed,
# 1 otherwise.  A few seconds: the tests it runs are tiny (the fixtures in
# scripts/tests/fixtures/tap-runner/, see its README, and some made here).
#
# The runner runs with sh, and with "busybox sh" and dash when they are
# installed, on the host: KGR_TESTS_DIR points it at a fixture directory,
# KGR_CMDLINE stands for /proc/cmdline, KGR_TMP for /tmp.  Each shell
# gets the same cases: the TAP plan, ok / ok # SKIP / not ok lines, the
# order of tests.list (not the name order), the kgr.tests filter, the
# timeout that kills the test's session, a test missing from the list and
# a list entry without its file, the totals, KGR-TESTS-END rc=0 / rc=1 and
# the exit status.  Then, once: kgr.timeout, /proc/cmdline as the default,
# the real initramfs/tests/tests.list (every test listed once, the order
# kept), and guest-files.sh putting tests.list into a guest.
#
# Environment: KGR_RUNNER (default initramfs/kgr-run-tests) runs another
# copy of the runner, to see this test fail on a broken one.

# shellcheck disable=SC2001	# sed 's/^/    | /' indents many lines
set -u

top=$PWD
if [ ! -f "$top/initramfs/kgr-run-tests" ] || [ ! -d "$top/scripts/tests" ]; then
	echo "test-tap-runner: run me from the repository top" >&2
	exit 2
fi
runner=${KGR_RUNNER:-$top/initramfs/kgr-run-tests}
[ -f "$runner" ] || { echo "test-tap-runner: no $runner" >&2; exit 2; }
case $runner in /*) ;; *) runner=$top/$runner ;; esac
fix=$top/scripts/tests/fixtures/tap-runner

scratch=$(mktemp -d "${TMPDIR:-/tmp}/test-tap-runner.XXXXXX") || exit 2
trap 'rm -rf "$scratch"' EXIT

failures=0 cases=0
pass() { cases=$((cases + 1)); echo "ok: $*"; }
fail() { cases=$((cases + 1)); failures=$((failures + 1)); echo "FAIL: $*"; }

# run SHELL DIR [CMDLINE]: run the runner on the tests in DIR with SHELL
# ("busybox sh" is two words), the kernel command line CMDLINE (none:
# KGR_CMDLINE unset, the runner reads /proc/cmdline), in a scratch
# directory as its cwd.  Sets out (stdout and stderr), status (its exit
# status), tap (the TAP lines of out, no comments but the totals), tmpd
# (its KGR_TMP) and secs (how long it took).
run() {
	local sh=$1 dir=$2 start
	tmpd=$(mktemp -d "$scratch/tmp.XXXXXX")
	start=$(date +%s%N)
	if [ $# -ge 3 ]; then
		# shellcheck disable=SC2086	# $sh: "busybox sh" is two words
		out=$(cd "$tmpd" && KGR_TESTS_DIR=$dir KGR_CMDLINE=$3 KGR_TMP=$tmpd \
			$sh "$runner" 2>&1)
	else
		# shellcheck disable=SC2086
		out=$(cd "$tmpd" && env -u KGR_CMDLINE KGR_TESTS_DIR="$dir" KGR_TMP="$tmpd" \
			$sh "$runner" 2>&1)
	fi
	status=$?
	secs=$(( ($(date +%s%N) - start) / 1000000 ))
	secs=$((secs / 1000)).$(printf '%03d' $((secs % 1000)))
	tap=$(grep -E '^(TAP version |1\.\.[0-9]+$|(not )?ok [0-9]+ |# Totals: |KGR-TESTS-END )' <<< "$out")
}

# show: the runner's output, indented, after a FAIL line
show() { sed 's/^/    | /' <<< "$out"; }

# check DESC EXPECTED_TAP EXPECTED_STATUS [LINE...]: the TAP lines are
# EXPECTED_TAP exactly, the exit status EXPECTED_STATUS, and each LINE is
# a whole line of the output.
check() {
	local desc=$1 want=$2 want_status=$3 line missing=
	shift 3
	for line in "$@"; do
		grep -qxF -- "$line" <<< "$out" || missing="$missing
    missing line: $line"
	done
	if [ "$tap" = "$want" ] && [ "$status" = "$want_status" ] && [ -z "$missing" ]; then
		pass "$desc"
	else
		[ "$status" = "$want_status" ] ||
			missing="$missing
    exit status $status, want $want_status"
		fail "$desc$missing"
		[ "$tap" = "$want" ] ||
			diff <(echo "$want") <(echo "$tap") | sed 's/^/    TAP want(<) got(>): /'
		show
	fi
}

# dead PID: PID is gone or a zombie (killed, not yet reaped), within 1 s
dead() {
	local i state
	for i in 1 2 3 4 5 6 7 8 9 10; do
		state=$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null) || return 0
		[ "$state" = Z ] && return 0
		sleep 0.1
	done
	return 1
}

shells=(sh)
[ -x /bin/busybox ] && shells+=("/bin/busybox sh")
command -v dash > /dev/null && shells+=(dash)

for sh in "${shells[@]}"; do
	s="[$sh]"

	run "$sh" "$fix/order" ""
	check "$s tests run in the order of tests.list, not the name order; ok, ok # SKIP, plan, totals, rc=0" \
"TAP version 13
1..3
ok 1 test-zz-first.sh
ok 2 test-aa-skip.sh # SKIP
ok 3 test-mm-last.sh
# Totals: pass:2 fail:0 skip:1
KGR-TESTS-END rc=0" 0

	check "$s a test's output (stdout and stderr) becomes TAP comments, a comment stays one" \
		"$tap" 0 \
		"# hello from test-zz-first.sh" "# already a comment" "# to stderr" "# skipping"
	check "$s each test leads a session of its own, with stdin empty" "$tap" 0 \
		"# own session: yes" "# stdin: empty"
	if grep -q 'helper.sh' <<< "$out"; then
		fail "$s a file that is not test-*.sh (helper.sh) is neither run nor reported"; show
	else
		pass "$s a file that is not test-*.sh (helper.sh) is neither run nor reported"
	fi
	if [ -f "$tmpd/.out" ] && [ -f "$tmpd/.pgid" ]; then
		pass "$s the scratch files .out and .pgid go to KGR_TMP"
	else
		fail "$s the scratch files .out and .pgid go to KGR_TMP (in $tmpd: $(ls -A "$tmpd"))"
	fi

	run "$sh" "$fix/mixed" ""
	check "$s a failing test: not ok with its exit status, rc=1, exit status 1" \
"TAP version 13
1..3
ok 1 test-pass.sh
not ok 2 test-fail.sh
ok 3 test-skip.sh # SKIP
# Totals: pass:1 fail:1 skip:1
KGR-TESTS-END rc=1" 1 \
		"# test-fail.sh: exit status 1"

	run "$sh" "$fix/order" "console=ttyS0 kgr.tests=test-mm-*,test-zz-first.sh quiet"
	check "$s kgr.tests=GLOB,NAME picks tests and keeps the list's order" \
"TAP version 13
1..2
ok 1 test-zz-first.sh
ok 2 test-mm-last.sh
# Totals: pass:2 fail:0 skip:0
KGR-TESTS-END rc=0" 0

	run "$sh" "$fix/order" "kgr.tests=test-none-*.sh"
	check "$s kgr.tests matching nothing: plan 1..0, rc=1" \
"TAP version 13
1..0
# Totals: pass:0 fail:0 skip:0
KGR-TESTS-END rc=1" 1

	run "$sh" "$fix/timeout" "kgr.tests=test-sleep.sh,test-after.sh"
	timeout_tap="TAP version 13
1..2
not ok 1 test-sleep.sh
ok 2 test-after.sh
# Totals: pass:1 fail:1 skip:0
KGR-TESTS-END rc=1"
	killed=$(grep -xE '# test-sleep.sh: killed after 1 s \(status (124|137|143)\)' <<< "$out")
	check "$s '# kgr-timeout: 1' kills the test after 1 s ('$killed'), the next test runs" \
		"$timeout_tap" 1 "# ran after the timeout"
	if [ -z "$killed" ]; then
		fail "$s the timeout's status line '# test-sleep.sh: killed after 1 s (status N)'"; show
	fi
	sleeper=$(cat "$tmpd/sleeper.pid" 2>/dev/null)
	if [ -z "$sleeper" ]; then
		fail "$s the timed-out test's background sleeper: no pid in $tmpd/sleeper.pid"
	elif dead "$sleeper"; then
		pass "$s what the timed-out test left running is killed with its session (run took $secs s)"
	else
		fail "$s what the timed-out test left running is killed with its session: pid $sleeper lives"
		kill "$sleeper" 2>/dev/null
	fi

	run "$sh" "$fix/unlisted" ""
	check "$s a test-*.sh not in tests.list and a listed name without its file: not ok each, rc=1" \
"TAP version 13
1..3
ok 1 test-a.sh
not ok 2 test-gone.sh
not ok 3 test-new.sh
# Totals: pass:1 fail:2 skip:0
KGR-TESTS-END rc=1" 1 \
		"# test-new.sh is not in tests.list: add it where it should run" \
		"# test-gone.sh is listed in tests.list, but there is no $fix/unlisted/test-gone.sh"
	if grep -q 'test-new.sh ran' <<< "$out"; then
		fail "$s the unlisted test is reported, not run"; show
	else
		pass "$s the unlisted test is reported, not run"
	fi

	run "$sh" "$fix/unlisted" "kgr.tests=test-new.sh"
	check "$s kgr.tests naming only the unlisted test: its not ok, rc=1" \
"TAP version 13
1..1
not ok 1 test-new.sh
# Totals: pass:0 fail:1 skip:0
KGR-TESTS-END rc=1" 1 \
		"# test-new.sh is not in tests.list: add it where it should run"

	run "$sh" "$fix/unlisted" "kgr.tests=test-a.sh"
	check "$s kgr.tests leaving out the unlisted and the missing test: rc=0" \
"TAP version 13
1..1
ok 1 test-a.sh
# Totals: pass:1 fail:0 skip:0
KGR-TESTS-END rc=0" 0

	run "$sh" "$fix/nolist" ""
	check "$s no tests.list: not ok for the list and for every test, rc=1" \
"TAP version 13
1..2
not ok 1 tests.list
not ok 2 test-a.sh
# Totals: pass:0 fail:2 skip:0
KGR-TESTS-END rc=1" 1 \
		"# there is no $fix/nolist/tests.list: it names the tests in the order they run"

	# A list with a name twice, names that are no test file names, a
	# line of two words, and a last line without its newline.
	bad=$scratch/badlist
	if [ ! -d "$bad" ]; then
		mkdir "$bad"
		printf '#!/bin/sh\nexit 0\n' > "$bad/test-a.sh"
		printf '#!/bin/sh\nexit 0\n' > "$bad/test-b.sh"
		printf '%s\n' 'test-a.sh' 'test-a.sh' 'functions.sh' 'sub/test-x.sh' \
			'test-b.sh extra words' > "$bad/tests.list"
		printf 'test-b.sh\t# the last line, no newline' >> "$bad/tests.list"
	fi
	run "$sh" "$bad" ""
	check "$s tests.list: a name twice, a bad name, two words: not ok each; a last line without newline counts" \
"TAP version 13
1..6
ok 1 test-a.sh
not ok 2 test-a.sh
not ok 3 tests.list:3
not ok 4 tests.list:4
not ok 5 tests.list:5
ok 6 test-b.sh
# Totals: pass:2 fail:4 skip:0
KGR-TESTS-END rc=1" 1 \
		"# test-a.sh is listed twice in tests.list (again at line 2)" \
		"# tests.list line 3: 'functions.sh' is not a test file name (test-*.sh)" \
		"# tests.list line 4: 'sub/test-x.sh' is not a test file name (test-*.sh)" \
		"# tests.list line 5: 'test-b.sh extra words': one test file name a line"
done

# Once, with sh: the default timeout from the command line.
run sh "$fix/timeout" "kgr.timeout=1 kgr.tests=test-sleep-default.sh"
check "[sh] kgr.timeout=1 is the timeout of a test without a kgr-timeout line" \
"TAP version 13
1..1
not ok 1 test-sleep-default.sh
# Totals: pass:0 fail:1 skip:0
KGR-TESTS-END rc=1" 1
grep -qxE '# test-sleep-default.sh: killed after 1 s \(status (124|137|143)\)' <<< "$out" ||
	{ fail "[sh] kgr.timeout=1: the status line 'killed after 1 s'"; show; }

# Without KGR_CMDLINE the runner reads /proc/cmdline: the same TAP as
# with KGR_CMDLINE set to it.
run sh "$fix/order" "$(cat /proc/cmdline)"
want=$tap want_status=$status
run sh "$fix/order"
check "[sh] without KGR_CMDLINE the runner reads /proc/cmdline" "$want" "$want_status"

# The real list: a stub for every test of initramfs/tests/, the real
# tests.list; every test listed once, none missing, the list's order,
# test-kgr-replace-all.sh and test-kmemleak.sh last.
real=$scratch/real
mkdir "$real"
cp "$top/initramfs/tests/tests.list" "$real/"
names=()
for t in "$top"/initramfs/tests/test-*.sh; do
	printf '#!/bin/sh\nexit 0\n' > "$real/${t##*/}"
done
mapfile -t names < <(sed -e 's/#.*//' -e 's/^[[:space:]]*//' -e 's/[[:space:]].*//' \
	-e '/^$/d' "$real/tests.list")
want="TAP version 13
1..${#names[@]}"
for i in "${!names[@]}"; do
	want="$want
ok $((i + 1)) ${names[$i]}"
done
want="$want
# Totals: pass:${#names[@]} fail:0 skip:0
KGR-TESTS-END rc=0"
run sh "$real" ""
check "[sh] initramfs/tests/tests.list names every test-*.sh once, in its order (${#names[@]} tests)" \
	"$want" 0
n=${#names[@]}
if [ "$n" -ge 3 ] && [ "${names[0]}" = test-boot.sh ] &&
   [ "${names[$((n - 2))]}" = test-kgr-replace-all.sh ] &&
   [ "${names[$((n - 1))]}" = test-kmemleak.sh ]; then
	pass "[sh] tests.list: test-boot.sh first, test-kgr-replace-all.sh and test-kmemleak.sh last"
else
	fail "[sh] tests.list: test-boot.sh first, test-kgr-replace-all.sh and test-kmemleak.sh last (got ${names[0]:-} ... ${names[*]: -2})"
fi
zz=$(cd "$top/initramfs/tests" && ls -- *zz* 2>/dev/null)
if [ -z "$zz" ]; then
	pass "no test is named to sort last (no *zz* in initramfs/tests/)"
else
	fail "no test is named to sort last: $zz"
fi

# guest-files.sh copies tests.list into a guest as a plain file, the
# tests executable.  CC=true: nothing is compiled.
gstage=$scratch/stage
if gf=$(
	# shellcheck disable=SC2317	# called by guest-files.sh
	say() { echo "say: $*"; }
	# shellcheck source=scripts/guest-files.sh
	. "$top/scripts/guest-files.sh"
	guest_tests_and_helpers "$top/initramfs" "$gstage" bin true 2>&1
); then
	mode=$(stat -c %a "$gstage/tests/tests.list" 2>/dev/null)
	notx=$(find "$gstage/tests" -name 'test-*.sh' ! -perm -0100)
	if [ "$mode" = 644 ] && cmp -s "$top/initramfs/tests/tests.list" "$gstage/tests/tests.list" &&
	   [ -z "$notx" ] && ! grep -q warning <<< "$gf" &&
	   grep -q "^say: tests, in the order of tests.list: test-boot.sh .* test-kmemleak.sh$" <<< "$gf"; then
		pass "guest-files.sh puts tests.list (mode 644) and the tests (executable) into the guest"
	else
		fail "guest-files.sh puts tests.list (mode ${mode:-none}) and the tests (not executable: ${notx:-none}) into the guest"
		sed 's/^/    | /' <<< "$gf"
	fi
else
	fail "guest-files.sh: guest_tests_and_helpers failed"
	sed 's/^/    | /' <<< "$gf"
fi

if [ "$failures" -eq 0 ]; then
	echo "test-tap-runner: all $cases cases passed (shells: ${shells[*]})"
	exit 0
fi
echo "test-tap-runner: $failures of $cases cases FAILED"
exit 1
