#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test-check-log.sh: host test of scripts/check-log.sh, the judge of a
# guest's console log.
#
# The fixtures in fixtures/check-log/ are cut from real console logs (CR LF
# line ends as the serial console wrote them):
#   pass.log    busybox guest, two tests passed, "KGR-TESTS-END rc=0"
#   not-ok.log  busybox guest, one test failed, "KGR-TESTS-END rc=1"
#   panic.log   busybox guest, general protection fault and panic in the
#               middle of a test: no result, no end marker
#   debian.log  Debian guest (systemd), "KGR-FAILED-UNITS n=0"
# Other cases are made from these in a scratch directory: one line
# planted, changed or removed.  Each case checks check-log.sh's exit
# status and one line of its output.  One line per case, "ok: ..." or
# "FAIL: ..."; exit status 0 when every case passed, 1 otherwise.  Run
# from the repository's top (any directory works).

set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
check_log=$here/../check-log.sh
fix=$here/fixtures/check-log
scratch=$(mktemp -d "${TMPDIR:-/tmp}/test-check-log.XXXXXX") || exit 1
trap 'rm -rf "$scratch"' EXIT

# The cases use an empty allowlist, so that they do not depend on the
# entries of scripts/console-allowlist; the allowlist cases bring their own.
: > "$scratch/no-allowlist"
export CONSOLE_ALLOWLIST=$scratch/no-allowlist

cases=0
failures=0
out=
rc=0

# run_check [ARGS...]: run check-log.sh; its output (stdout and stderr)
# in $out, its exit status in $rc.
run_check() {
	out=$(bash "$check_log" "$@" 2>&1)
	rc=$?
}

# ok WHAT: report a passed case.
ok() {
	echo "ok: $1"
	cases=$((cases + 1))
}

# fail WHAT EXPECTED GOT: report a failed case, with the output of the
# run.
fail() {
	echo "FAIL: $1 (expected $2, got $3)"
	sed 's/^/    | /' <<<"$out"
	cases=$((cases + 1))
	failures=$((failures + 1))
}

# expect WHAT STATUS LINE: the last run_check exited with STATUS and
# printed a line that contains LINE (a fixed string).
expect() {
	if [ "$rc" -ne "$2" ]; then
		fail "$1" "exit status $2" "$rc"
	elif ! grep -qF -- "$3" <<<"$out"; then
		fail "$1" "a line with '$3'" "none"
	else
		ok "$1"
	fi
}

# plant LINE OUT [IN]: IN (default pass.log) with LINE inserted before
# its "KGR-TESTS-END" line (in pass.log: at line 47), CR LF ended as on
# the console, into OUT.
plant() {
	awk -v l="$1" '/^KGR-TESTS-END/ { printf "%s\r\n", l } { print }' \
		"${3:-$fix/pass.log}" > "$2"
}

# edit SED-SCRIPT OUT: pass.log edited by SED-SCRIPT, into OUT.
edit() {
	sed "$1" "$fix/pass.log" > "$2"
}

# --- the fixtures as they are ---------------------------------------------

# A good busybox run passes and prints the TAP totals.
run_check "$fix/pass.log"
expect "busybox log of a passing run" 0 "PASS: 2 passed, 0 failed, 0 skipped"

# The same with the repository's own allowlist (scripts/console-allowlist,
# the default when CONSOLE_ALLOWLIST is unset): still a pass.
out=$(env -u CONSOLE_ALLOWLIST bash "$check_log" "$fix/pass.log" 2>&1)
rc=$?
expect "busybox log of a passing run, default allowlist" 0 "PASS: 2 passed"

# A failed test: its "not ok" line and the guest's rc=1 are both named.
run_check "$fix/not-ok.log"
expect "a 'not ok' line fails the run" 1 "failed test at line 25:not ok 1 test-kgr-nudge.sh"
expect "a 'not ok' run: the guest's rc=1 is named" 1 "guest reported failure: KGR-TESTS-END rc=1"
expect "a 'not ok' run: the summary gives the totals" 1 "check-log: FAIL: 2 problem(s) in $fix/not-ok.log (pass:0 fail:1 skip:0)"

# A crash: every badness line is named, and the missing end marker.
run_check "$fix/panic.log"
expect "crash: general protection fault named" 1 "badness at line 17:[    1.990215] general protection fault"
expect "crash: Call Trace named" 1 "badness at line 20:[    1.992172] Call Trace:"
expect "crash: Kernel panic named" 1 "badness at line 29:[    1.995286] Kernel panic - not syncing: Fatal exception"
expect "crash: no end marker" 1 "no end marker 'KGR-TESTS-END rc=N': the guest hung, crashed or was killed"
expect "crash: six problems in all" 1 "check-log: FAIL: 6 problem(s) in $fix/panic.log"

# --- the end marker and the TAP -------------------------------------------

# A guest that hung in its second test: the log stops, no totals, no
# end marker.
head -n 30 "$fix/pass.log" > "$scratch/hang.log"
run_check "$scratch/hang.log"
expect "hang: no end marker" 1 "no end marker 'KGR-TESTS-END rc=N': the guest hung, crashed or was killed"
expect "hang: results short of the plan" 1 "TAP plan 1..2 but 1 results"

# A "not ok" fails the run even when the guest's marker says rc=0.
edit 's/^ok 2 /not ok 2 /' "$scratch/notok-rc0.log"
run_check "$scratch/notok-rc0.log"
expect "'not ok' despite KGR-TESTS-END rc=0" 1 "failed test at line 45:not ok 2 test-kgr-nudge.sh"

# Every test ok, but the guest reports rc=1 (e.g. its runner failed).
edit 's/^KGR-TESTS-END rc=0/KGR-TESTS-END rc=1/' "$scratch/rc1.log"
run_check "$scratch/rc1.log"
expect "KGR-TESTS-END rc=1 with every test ok" 1 "guest reported failure: KGR-TESTS-END rc=1"

# No plan line.
edit '/^1\.\.2/d' "$scratch/noplan.log"
run_check "$scratch/noplan.log"
expect "no TAP plan" 1 "no TAP plan (1..N) in the log"

# A plan of no tests is not a pass.
edit 's/^1\.\.2/1..0/; /^ok [0-9]/d' "$scratch/plan0.log"
run_check "$scratch/plan0.log"
expect "TAP plan 1..0" 1 "TAP plan 1..0: no tests ran"

# One result missing (a test that vanished).
edit '/^ok 1 /d' "$scratch/short.log"
run_check "$scratch/short.log"
expect "fewer results than the plan" 1 "TAP plan 1..2 but 1 results"

# No "# Totals:" line.
edit '/^# Totals:/d' "$scratch/nototals.log"
run_check "$scratch/nototals.log"
expect "no '# Totals:' line" 1 "no '# Totals:' line"

# The totals count a failure that no "not ok" line shows.
edit 's/^# Totals: pass:\([0-9]*\) fail:0/# Totals: pass:\1 fail:1/' "$scratch/totals.log"
run_check "$scratch/totals.log"
expect "totals with a failure" 1 "the totals count failed tests"

# The host killed QEMU after the guest's end marker (it never powered
# off): qemu-run.sh's TIMEOUT line fails the run.
{ cat "$fix/pass.log"; echo "qemu-run: TIMEOUT after 600 s, killed"; } > "$scratch/timeout.log"
run_check "$scratch/timeout.log"
expect "host-side timeout after the end marker" 1 "host-side timeout at line 51:qemu-run: TIMEOUT after 600 s, killed"

# --- kernel badness -------------------------------------------------------

# Each kind of console line check-log.sh refuses, planted at line 47 of
# the good log: the run fails and names the line.  The hung-task line
# carries both "INFO: task" and "blocked for more than", as the kernel
# prints them together.
while IFS= read -r bad; do
	plant "$bad" "$scratch/bad.log"
	run_check "$scratch/bad.log"
	expect "badness refused: ${bad#*] }" 1 "badness at line 47:$bad"
done <<'EOF'
[   30.100000] Kernel panic - not syncing: Fatal exception
[   30.100000] BUG: unable to handle page fault for address: ffffffffa0012031
[   30.100000] WARNING: CPU: 1 PID: 79 at kernel/kgraft.c:100 kgr_finalize+0x1c/0x120
[   30.100000] Oops: 0010 [#1] SMP
[   30.100000] kernel BUG at kernel/kgr.c:123!
[   30.100000] rcu: INFO: rcu_sched detected stalls on CPUs/tasks:
[   30.100000] Call Trace:
[   30.100000] general protection fault, probably for non-canonical address 0xdead0000000000f0: 0000 [#1] SMP
[  245.100000] INFO: task kgr-sleeper:82 blocked for more than 122 seconds.
EOF

# --- the allowlist --------------------------------------------------------

# An allowlist (comments and blank lines ignored) that allows one
# WARNING line: that line passes ...
cat > "$scratch/allowlist" <<'EOF'
# a comment, then a blank line: neither is a pattern

WARNING: CPU: [0-9]+ PID: [0-9]+ at kernel/kgraft\.c:100 
EOF
warn='[   30.100000] WARNING: CPU: 1 PID: 79 at kernel/kgraft.c:100 kgr_finalize+0x1c/0x120'
plant "$warn" "$scratch/allowed.log"
out=$(CONSOLE_ALLOWLIST=$scratch/allowlist bash "$check_log" "$scratch/allowed.log" 2>&1)
rc=$?
expect "an allowlisted WARNING line passes" 0 "PASS: 2 passed, 0 failed, 0 skipped"

# ... but only that line: a BUG: line next to it still fails, alone
# (were the blank line taken as a pattern, it would allow everything).
plant '[   30.200000] BUG: kernel NULL pointer dereference, address: 0000000000000008' \
	"$scratch/allowed-and-bug.log" "$scratch/allowed.log"
out=$(CONSOLE_ALLOWLIST=$scratch/allowlist bash "$check_log" "$scratch/allowed-and-bug.log" 2>&1)
rc=$?
expect "the allowlist allows only its lines" 1 "check-log: FAIL: 1 problem(s)"
expect "the allowlist allows only its lines: the BUG: line named" 1 "badness at line 48:[   30.200000] BUG: kernel NULL pointer dereference"

# --- the Debian guest (--systemd) -----------------------------------------

# A good Debian run, no failed systemd unit: pass.
run_check --systemd "$fix/debian.log"
expect "Debian log, KGR-FAILED-UNITS n=0" 0 "PASS: 2 passed, 0 failed, 0 skipped"

# A failed systemd unit fails the run, though every test passed.
sed 's/^KGR-FAILED-UNITS n=0/KGR-FAILED-UNITS n=1/' "$fix/debian.log" > "$scratch/units1.log"
run_check --systemd "$scratch/units1.log"
expect "Debian log, KGR-FAILED-UNITS n=1" 1 "failed systemd units: KGR-FAILED-UNITS n=1"

# No report of the units at all (the unit died before it) fails too.
sed '/^KGR-FAILED-UNITS/d' "$fix/debian.log" > "$scratch/nounits.log"
run_check --systemd "$scratch/nounits.log"
expect "Debian log without KGR-FAILED-UNITS" 1 "no 'KGR-FAILED-UNITS n=N' line"

# Without --systemd (the busybox guest's check) the units are not judged.
run_check "$scratch/units1.log"
expect "KGR-FAILED-UNITS n=1 is not judged without --systemd" 0 "PASS: 2 passed"

# --- usage ----------------------------------------------------------------

run_check
expect "no argument: usage, exit status 2" 2 "usage:"
run_check "$fix/pass.log" "$fix/pass.log"
expect "two logs: usage, exit status 2" 2 "usage:"
run_check "$scratch/no-such.log"
expect "a log that does not exist" 1 "check-log: FAIL: cannot read $scratch/no-such.log"

if [ "$failures" -eq 0 ]; then
	echo "test-check-log: all $cases cases passed"
	exit 0
fi
echo "test-check-log: $failures of $cases cases failed"
exit 1
