#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-log.sh [--systemd] CONSOLE_LOG
#
# Reduce a guest console log to one verdict.  The run passes only if:
#   - the guest printed its end marker "KGR-TESTS-END rc=0";
#   - the TAP output has a plan "1..N" with N > 0, N results, no "not ok";
#   - the log has no kernel badness (panic, BUG:, WARNING:, Oops, ...) and
#     no host-side timeout, except lines matched by an extended regex in
#     the allowlist (scripts/console-allowlist, or $CONSOLE_ALLOWLIST);
#   - with --systemd (the Debian guest): its unit reported no failed
#     systemd unit after the tests, "KGR-FAILED-UNITS n=0".
# Each offending line is printed with its line number.  On success one
# line with the TAP totals is printed.

set -euo pipefail

systemd=0
if [ "${1:-}" = --systemd ]; then
	systemd=1
	shift
fi
[ $# -eq 1 ] || { echo "usage: $0 [--systemd] CONSOLE_LOG" >&2; exit 2; }

log=$1
allowlist=${CONSOLE_ALLOWLIST:-$(dirname "$0")/console-allowlist}
badness='Kernel panic|BUG:|kernel BUG at|WARNING:|Oops|Call Trace:|general protection fault|blocked for more than|INFO: task|detected stalls|qemu-run: TIMEOUT'

[ -r "$log" ] || { echo "check-log: FAIL: cannot read $log" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Serial consoles end lines with CR LF.
tr -d '\r' < "$log" > "$tmp/log"
: > "$tmp/allow"
if [ -r "$allowlist" ]; then
	grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$allowlist" > "$tmp/allow" || true
fi

problems=0
problem() {
	echo "check-log: $*"
	problems=$((problems + 1))
}

# Kernel badness, minus the allowlist (matched against the line's text).
grep -n -E -e "$badness" "$tmp/log" > "$tmp/bad" || true
while IFS= read -r line; do
	text=${line#*:}
	if [ -s "$tmp/allow" ] && printf '%s\n' "$text" | grep -q -E -f "$tmp/allow"; then
		continue
	fi
	case $text in
	*'qemu-run: TIMEOUT'*) problem "host-side timeout at line $line" ;;
	*) problem "badness at line $line" ;;
	esac
done < "$tmp/bad"

# TAP: plan, results, failures, totals.
plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' "$tmp/log" | tail -n 1)
results=$(grep -c -E '^(not )?ok [0-9]+ ' "$tmp/log" || true)
grep -n -E '^not ok [0-9]+ ' "$tmp/log" > "$tmp/notok" || true
while IFS= read -r line; do
	problem "failed test at line $line"
done < "$tmp/notok"

if [ -z "$plan" ]; then
	problem "no TAP plan (1..N) in the log"
elif [ "$plan" -eq 0 ]; then
	problem "TAP plan 1..0: no tests ran"
elif [ "$results" -ne "$plan" ]; then
	problem "TAP plan 1..$plan but $results results"
fi

totals=$(sed -n 's/^# Totals: \(pass:[0-9]* fail:[0-9]* skip:[0-9]*\)$/\1/p' "$tmp/log" | tail -n 1)
[ -n "$totals" ] || problem "no '# Totals:' line"
# a failure the totals count, but no "not ok" line shows
case $totals in
*' fail:0 '*|'') ;;
*) [ -s "$tmp/notok" ] || problem "the totals count failed tests: $totals" ;;
esac

# The guest's end marker and its status.
marker=$(grep -E '^KGR-TESTS-END rc=[0-9]+$' "$tmp/log" | tail -n 1 || true)
if [ -z "$marker" ]; then
	problem "no end marker 'KGR-TESTS-END rc=N': the guest hung, crashed or was killed"
elif [ "$marker" != "KGR-TESTS-END rc=0" ]; then
	problem "guest reported failure: $marker"
fi

# The Debian guest's systemd units, after the tests.
if [ "$systemd" = 1 ]; then
	units=$(grep -E '^KGR-FAILED-UNITS n=[0-9]+$' "$tmp/log" | tail -n 1 || true)
	if [ -z "$units" ]; then
		problem "no 'KGR-FAILED-UNITS n=N' line: the unit did not report the failed systemd units"
	elif [ "$units" != "KGR-FAILED-UNITS n=0" ]; then
		problem "failed systemd units: $units (see 'systemctl --failed' in the log)"
	fi
fi

pass=$(echo "$totals" | sed -n 's/.*pass:\([0-9]*\).*/\1/p')
fail=$(echo "$totals" | sed -n 's/.*fail:\([0-9]*\).*/\1/p')
skip=$(echo "$totals" | sed -n 's/.*skip:\([0-9]*\).*/\1/p')

if [ "$problems" -gt 0 ]; then
	echo "check-log: FAIL: $problems problem(s) in $log${totals:+ ($totals)}"
	exit 1
fi
echo "PASS: $pass passed, $fail failed, $skip skipped"
