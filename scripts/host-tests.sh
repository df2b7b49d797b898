#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# host-tests.sh [-v] [NAME|GLOB ...]
#
# Run the host tests: the tests of this repository's own scripts that need
# no kernel build and no QEMU, only the stored fixtures under
# scripts/tests/fixtures/ (seconds in all).  Each scripts/tests/test-*.sh
# runs in name order, with bash, from the repository's top directory,
# under a 60 s timeout, stdin from /dev/null.  The report is TAP 13: the
# plan, each test's output as "# " comment lines followed by its
# "ok N NAME" or "not ok N NAME" line, then the totals line
# "# host-tests: pass:P fail:F".  Of a test that passed only the last
# line of its output is shown (its summary), unless -v is given.
#
# Arguments choose the tests to run: a name or a glob, matched against
# the test's name with or without "test-", ".sh" and a directory
# ("check-log", "test-check-log.sh", "scripts/tests/test-check-log.sh",
# "*log*" all name test-check-log.sh).  An argument that names no test is
# an error.
#
# Exit status: 0 when every test ran and passed; 1 when a test failed or
# timed out, an argument named no test, or no test ran.

set -u

TIMEOUT=60
verbose=0
if [ "${1:-}" = -v ]; then
	verbose=1
	shift
fi

top=$(cd "$(dirname "$0")/.." && pwd) || exit 1
cd "$top" || exit 1

# The tests, in name order (C collation, whatever the locale).
mapfile -t all < <(LC_ALL=C; for f in scripts/tests/test-*.sh; do
	[ -f "$f" ] && echo "$f"
done | LC_ALL=C sort)

# name_of FILE: the test's name, "check-log" for scripts/tests/test-check-log.sh
name_of() {
	local n=${1##*/}

	n=${n#test-}
	echo "${n%.sh}"
}

# Select the tests the arguments name (all without arguments).
bad_arg=0
tests=()
if [ $# -eq 0 ]; then
	tests=("${all[@]}")
else
	declare -A chosen=()
	for arg in "$@"; do
		pat=$(name_of "$arg")
		found=0
		for f in "${all[@]}"; do
			# shellcheck disable=SC2053
			if [[ $(name_of "$f") == $pat ]]; then	# unquoted: a glob
				chosen[$f]=1
				found=1
			fi
		done
		if [ "$found" = 0 ]; then
			echo "host-tests: no test matches '$arg'" >&2
			bad_arg=1
		fi
	done
	for f in "${all[@]}"; do
		[ -n "${chosen[$f]:-}" ] && tests+=("$f")
	done
fi

scratch=$(mktemp -d "${TMPDIR:-/tmp}/host-tests.XXXXXX") || exit 1
trap 'rm -rf "$scratch"' EXIT

echo "TAP version 13"
echo "1..${#tests[@]}"
pass=0
fail=0
start=$SECONDS
n=0
for f in "${tests[@]}"; do
	n=$((n + 1))
	t0=$SECONDS
	timeout --kill-after=5 "$TIMEOUT" bash "$f" < /dev/null > "$scratch/out" 2>&1
	rc=$?
	if [ "$rc" -eq 0 ] && [ "$verbose" = 0 ]; then
		tail -n 1 "$scratch/out" | sed 's/^/# /'
	else
		sed 's/^/# /' "$scratch/out"
	fi
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		echo "# host-tests: ${f##*/} timed out after $TIMEOUT s"
	elif [ "$rc" -ne 0 ]; then
		echo "# host-tests: ${f##*/} exited with status $rc"
	fi
	echo "# host-tests: ${f##*/} took $((SECONDS - t0)) s"
	if [ "$rc" -eq 0 ]; then
		echo "ok $n ${f##*/}"
		pass=$((pass + 1))
	else
		echo "not ok $n ${f##*/}"
		fail=$((fail + 1))
	fi
done
echo "# host-tests: $n test(s) in $((SECONDS - start)) s"
echo "# host-tests: pass:$pass fail:$fail"

[ "$n" -gt 0 ] || { echo "host-tests: no test ran" >&2; exit 1; }
[ "$fail" -eq 0 ] && [ "$bad_arg" -eq 0 ] || exit 1
exit 0
