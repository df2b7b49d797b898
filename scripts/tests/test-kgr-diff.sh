#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test-kgr-diff.sh: host test of tools/kgraft-e2e/kgr-diff.py and its
# package kgrdiff/, the comparison behind "make kgr-fix".
#
# Each directory of fixtures/kgr-diff/ is one object of a real run of
# kgr-fix.sh (see fixtures/kgr-diff/README): the object without and with
# the fix (orig.elf, patched.elf), the fix, the arguments kgr-fix.sh gave
# (args), the running kernel's symbols cut down to the names the object
# has (exports, kallsyms, locals), and in expected/ what kgr-diff.py
# wrote then: stdout, stderr, its exit status, and for a module the
# manifest and the object (new.elf).  Each case runs kgr-diff.py as
# kgr-fix.sh does and compares every output byte for byte; a refused
# object must leave no object or manifest behind.  Then an object
# against itself (no change), a file that is not an object (bad input),
# and the unit checks of kgr_diff_test.py: the ELF writer's round trip
# and the pure functions of the comparison.
#
# One line per case, "ok: ..." or "FAIL: ..."; exit status 0 when every
# case passed, 1 otherwise.  Run from the repository's top (any
# directory works).  PYTHON chooses the interpreter (default python3).

set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
kgr_diff=$here/../../tools/kgraft-e2e/kgr-diff.py
fixtures=$here/fixtures/kgr-diff
python=${PYTHON:-python3}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/test-kgr-diff.XXXXXX") || exit 1
trap 'rm -rf "$scratch"' EXIT
export PYTHONDONTWRITEBYTECODE=1

cases=0
failures=0
start=$(date +%s%N)

# ok WHAT / fail WHAT WHY: report a case.
ok() {
	echo "ok: $1"
	cases=$((cases + 1))
}

fail() {
	echo "FAIL: $1 ($2)"
	cases=$((cases + 1))
	failures=$((failures + 1))
}

# same EXPECTED GOT: whether file GOT has EXPECTED's bytes; if not, why
# says so and detail has the difference of a text file.
same() {
	detail=
	if cmp -s "$1" "$2"; then
		return 0
	fi
	if [ ! -e "$2" ]; then
		why="wrote no ${2##*/}"
		return 1
	fi
	why="${2##*/} differs from expected/${1##*/}"
	if [ "${1%.elf}" = "$1" ]; then
		detail=$(diff "$1" "$2" | head -n 20 | sed 's/^/    | /')
	fi
	return 1
}

# run_fixture DIR: kgr-diff.py on the fixture DIR as kgr-fix.sh runs it;
# output in $out/.
run_fixture() {
	local d=$1 args

	out=$scratch/${d##*/}
	mkdir -p "$out"
	read -r -a args < "$d/args"
	args+=(--exports "$d/exports" --kallsyms "$d/kallsyms" --fix "$d/fix.patch"
	       --out "$out/new.elf" --manifest "$out/manifest")
	[ -f "$d/locals" ] && args+=(--locals "$d/locals")
	[ -f "$d/provided" ] && args+=(--provided "$d/provided")
	rc=0
	"$python" "$kgr_diff" "${args[@]}" "$d/orig.elf" "$d/patched.elf" \
		> "$out/stdout" 2> "$out/stderr" || rc=$?
	echo "$rc" > "$out/status"
}

for d in "$fixtures"/*/; do
	d=${d%/}
	name=${d##*/}
	run_fixture "$d"
	what="$name: $(sed -n 's/^--object-path \([^ ]*\).*/\1/p' "$d/args"), exit status $(cat "$d/expected/status")"
	why= detail=
	for f in status stdout stderr manifest new.elf; do
		if [ -f "$d/expected/$f" ]; then
			same "$d/expected/$f" "$out/$f" || break
		elif [ -e "$out/$f" ]; then
			why="wrote $f, expected none"
			break
		fi
	done
	if [ -z "$why" ]; then
		ok "$what$([ -f "$d/expected/new.elf" ] && echo ', manifest and object') as stored"
	else
		fail "$what" "$why"
		[ -z "$detail" ] || echo "$detail"
	fi
done

# An object against itself: nothing changed, nothing written.
d=$fixtures/changed-function
out=$scratch/itself
mkdir -p "$out"
rc=0
"$python" "$kgr_diff" --object-path fs/drop_caches.o --out "$out/new.elf" --manifest "$out/manifest" \
	"$d/orig.elf" "$d/orig.elf" > "$out/stdout" 2> "$out/stderr" || rc=$?
if [ "$rc" = 0 ] && [ ! -s "$out/stdout" ] && [ ! -s "$out/stderr" ] &&
   [ ! -e "$out/new.elf" ] && [ ! -e "$out/manifest" ]; then
	ok "an object against itself: no change, nothing written"
else
	fail "an object against itself" "exit status $rc, $(cat "$out/stdout" "$out/stderr" | head -n 1)"
fi

# A manifest without the object whose symbols it names: a usage error.
rc=0
msg=$("$python" "$kgr_diff" --manifest "$scratch/m" "$d/orig.elf" "$d/patched.elf" 2>&1) || rc=$?
if [ "$rc" = 2 ] && [ ! -e "$scratch/m" ] &&
   printf '%s\n' "$msg" | grep -q -- '--manifest needs --out'; then
	ok "--manifest without --out: exit status 2, a usage error"
else
	fail "--manifest without --out" "exit status $rc, $(printf '%s\n' "$msg" | tail -n 1)"
fi

# Bad input: exit status 2 and the error message.
printf 'not an object\n' > "$scratch/bad.o"
rc=0
msg=$("$python" "$kgr_diff" "$scratch/bad.o" "$d/orig.elf" 2>&1) || rc=$?
if [ "$rc" = 2 ] && [ "$msg" = "kgr-diff: error: $scratch/bad.o: not a 64-bit little-endian ELF file" ]; then
	ok "a file that is not an object: exit status 2, kgr-diff: error"
else
	fail "a file that is not an object" "exit status $rc: $msg"
fi

# A file that is cut short after the ELF magic makes the reader fail in
# a way it did not foresee: exit status 2 and "internal error", never the
# 1 of a refusal, so that kgr-fix.sh does not report a crash as one.
printf '\177ELF' > "$scratch/short.o"
rc=0
msg=$("$python" "$kgr_diff" "$scratch/short.o" "$d/orig.elf" 2>&1) || rc=$?
if [ "$rc" = 2 ] && printf '%s\n' "$msg" | grep -q "^kgr-diff: internal error on $d/orig.elf$"; then
	ok "an object cut short: exit status 2, kgr-diff: internal error"
else
	fail "an object cut short" "exit status $rc: $(printf '%s\n' "$msg" | tail -n 1)"
fi

# The unit checks: their own "ok:" and "FAIL:" lines.
rc=0
"$python" "$here/kgr_diff_test.py" > "$scratch/unit" 2>&1 || rc=$?
cat "$scratch/unit"
cases=$((cases + $(grep -c -E '^(ok|FAIL):' "$scratch/unit")))
failures=$((failures + $(grep -c '^FAIL:' "$scratch/unit")))
if [ "$rc" != 0 ] && ! grep -q '^FAIL:' "$scratch/unit"; then
	fail "kgr_diff_test.py" "exit status $rc"
fi

if [ "$failures" -eq 0 ]; then
	echo "test-kgr-diff: all $cases cases passed in $((($(date +%s%N) - start) / 1000000)) ms"
	exit 0
fi
echo "test-kgr-diff: $failures of $cases cases failed"
exit 1
