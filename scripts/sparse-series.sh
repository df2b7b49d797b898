#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sparse-series.sh KSRC PATCHES SERIES JOBS
#
# Run sparse (make C=2) over the kGraft code in the built kernel tree KSRC
# ("make kernel" first; the tree must hold the whole series): every C file
# the series adds or changes that this configuration built (its .o
# exists) is checked again by sparse; nothing is rebuilt that was up to
# date.  Fails on any warning or error, sparse's or gcc's, located in a
# file the series adds:
#
#	kernel/kgr.c  samples/kgr/kgr_patcher.c
#	include/linux/kgr.h  arch/x86/include/asm/kgr.h
#
# (computed from the series: every file outside tools/ that a patch
# creates), and when sparse did not run on one of the added C files.
# Host programs (scripts/, such as modpost) are built by the host's
# compiler and not checked: sparse only runs on the kernel's objects.
# Warnings located in 6.1's own files are counted and shown; they do not
# fail.  The full output is kept in KSRC/sparse.log.

set -euo pipefail

[ $# -eq 4 ] || { echo "usage: $0 KSRC PATCHES SERIES JOBS" >&2; exit 2; }

ksrc=$(cd "$1" && pwd)
patches=$(cd "$2" && pwd)
series=$3
jobs=$4

unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL || true
start=$(date +%s)

command -v sparse >/dev/null ||
	{ echo "sparse: the sparse package is not installed (make deps)" >&2; exit 1; }

mapfile -t names < <(sed -e 's/#.*//' -e 's/^[[:space:]]*//' \
			 -e 's/[[:space:]]*$//' "$series" | grep -v '^$' || true)
[ ${#names[@]} -gt 0 ] || { echo "sparse: $series lists no patch"; exit 0; }

applied=$(cat "$ksrc/.pc/applied-patches" 2>/dev/null || true)
if [ "$applied" != "$(printf '%s\n' "${names[@]}")" ]; then
	echo "sparse: $ksrc does not hold the whole series as applied (make kernel)" >&2
	exit 1
fi

# files the series adds ("--- /dev/null"), and the C files it touches
mapfile -t added < <(for p in "${names[@]}"; do
	awk '/^--- \/dev\/null/ { getline; if ($1 == "+++") print substr($2, 3) }' \
		"$patches/$p"
done | grep -v '^tools/' | sort -u)
mapfile -t touched_c < <(for p in "${names[@]}"; do
	sed -n 's|^+++ b/\(.*\.c\)$|\1|p' "$patches/$p"
done | grep -v -e '^tools/' -e '^scripts/' | sort -u)

is_added() { printf '%s\n' "${added[@]}" | grep -qxF "$1"; }

bad=0
objs=()
for c in "${touched_c[@]}"; do
	if [ -f "$ksrc/${c%.c}.o" ]; then
		objs+=("${c%.c}.o")
	elif is_added "$c"; then
		echo "sparse: FAILED: $c was not built (no ${c%.c}.o; make kernel)" >&2
		bad=1
	else
		echo "sparse: $c is not built in this configuration; not checked"
	fi
done
[ ${#objs[@]} -gt 0 ] || exit 1

log=$ksrc/sparse.log
echo "sparse: make C=2 on ${#objs[@]} objects: ${objs[*]}"
rc=0
make -C "$ksrc" ARCH=x86_64 -j"$jobs" C=2 "${objs[@]}" > "$log" 2>&1 || rc=$?
if [ "$rc" -ne 0 ]; then
	grep -E 'error|Error' "$log" | tail -n 20
	echo "sparse: FAILED: make C=2 exited $rc (see $log)" >&2
	exit 1
fi

for o in "${objs[@]}"; do
	c=${o%.o}.c
	if ! grep -q "^  CHECK   $c\$" "$log"; then
		echo "sparse: FAILED: sparse did not run on $c (see $log)" >&2
		bad=1
	fi
done

pattern=$(printf '%s\n' "${added[@]}" | sed 's/[.]/[.]/g' | paste -sd'|')
ours=$(grep -E "^(\./)?($pattern):[0-9]+(:[0-9]+)?: (warning|error):" "$log" | sort -u || true)
theirs=$(grep -E '^[^ ]+:[0-9]+(:[0-9]+)?: (warning|error):' "$log" |
	 grep -vE "^(\./)?($pattern):" | sort -u || true)

if [ -n "$theirs" ]; then
	echo "sparse: $(printf '%s\n' "$theirs" | wc -l) warnings in 6.1's own files (not the series' files; not failing):"
	printf '%s\n' "$theirs" | head -n 20 | sed 's/^/    /'
fi
if [ -n "$ours" ]; then
	echo "sparse: FAILED: warnings in the files the series adds:" >&2
	printf '%s\n' "$ours" | sed 's/^/    /' >&2
	bad=1
fi
[ "$bad" = 0 ] || exit 1
echo "sparse: checked ${objs[*]%.o}: no warnings in ${added[*]} ($(($(date +%s) - start)) s)"
