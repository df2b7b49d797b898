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
cp "$here/Kbuild" "$here"/*.c "$here"/*.h "$out/"
# kgr_test_patch_N replaces kgr_test_fn_N(); the number of target
# functions is KGR_TEST_NFN in kgr_test.h.
nfn=$(sed -n 's/^#define KGR_TEST_NFN[[:space:]]*\([0-9]*\).*/\1/p' "$here/kgr_test.h")
n=1
while [ "$n" -le "$nfn" ]; do
	printf '#define KGR_TEST_FN %d\n#include "kgr_test_patch.c"\n' "$n" \
		> "$out/kgr_test_patch_$n.c.tmp"
	cmp -s "$out/kgr_test_patch_$n.c.tmp" "$out/kgr_test_patch_$n.c" 2>/dev/null ||
		mv "$out/kgr_test_patch_$n.c.tmp" "$out/kgr_test_patch_$n.c"
	rm -f "$out/kgr_test_patch_$n.c.tmp"
	n=$((n + 1))
done
make -C "$ksrc" ARCH=x86_64 M="$out" modules
