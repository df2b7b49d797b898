#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# build.sh KSRC OUTDIR: build the kGraft test modules against the kernel
# tree KSRC, out of tree, in OUTDIR (a copy of this directory).
set -eu

[ $# -eq 2 ] || { echo "usage: $0 KSRC OUTDIR" >&2; exit 2; }
ksrc=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)

mkdir -p "$out"
out=$(cd "$out" && pwd)	# M= must be absolute
# only what changed: a copy's new time would make make rebuild its module
for f in "$here/Kbuild" "$here/scenarios.list" "$here"/*.c "$here"/*.h; do
	cmp -s "$f" "$out/${f##*/}" || cp "$f" "$out/"
done

# gen FILE TEMPLATE NAME: FILE defines KGR_TEST_SCN as NAME and includes
# TEMPLATE; rewritten only when it changes, so that make keeps the module
gen() {
	printf '#define KGR_TEST_SCN %s\n#include "%s"\n' "$3" "$2" > "$1.tmp"
	if cmp -s "$1.tmp" "$1"; then
		rm -f "$1.tmp"
	else
		mv "$1.tmp" "$1"
	fi
}

names=$(sed -n 's/^\([a-z0-9_][a-z0-9_]*\).*/\1/p' "$here/scenarios.list")
for n in $names; do
	[ ${#n} -le 32 ] || { echo "$0: scenario name longer than 32: $n" >&2; exit 1; }
	gen "$out/kgr_test_target_$n.c" kgr_test_fn.c "$n"
	gen "$out/kgr_test_patch_$n.c" kgr_test_patch.c "$n"
done
dups=$(printf '%s\n' $names | sort | uniq -d)
[ -z "$dups" ] || { echo "$0: scenario listed twice: $dups" >&2; exit 1; }
make -C "$ksrc" ARCH=x86_64 M="$out" modules
