#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# build.sh KSRC OUTDIR: build the benchmark modules against the kernel
# tree KSRC, out of tree, in OUTDIR (a copy of this directory).
#
# Target functions 1 .. NFN/2 get a kGraft patch kgr_bench_kgr_N, the
# others a livepatch kgr_bench_klp_N; the first and the last livepatch
# (the per-call benchmark's, alone and next to many patched functions)
# also replace kgr_bench_gate().
set -eu

[ $# -eq 2 ] || { echo "usage: $0 KSRC OUTDIR" >&2; exit 2; }
ksrc=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)

mkdir -p "$out"
out=$(cd "$out" && pwd)	# M= must be absolute
cp "$here/Kbuild" "$here"/*.c "$here"/*.h "$out/"

# gen FILE TEXT: write FILE only when TEXT changed (keeps make's timestamps)
gen() {
	printf '%s\n' "$2" > "$1.tmp"
	if cmp -s "$1.tmp" "$1" 2>/dev/null; then
		rm -f "$1.tmp"
	else
		mv "$1.tmp" "$1"
	fi
}

nfn=$(sed -n 's/^#define KGR_BENCH_NFN[[:space:]]*\([0-9]*\).*/\1/p' "$here/kgr_bench.h")
half=$((nfn / 2))
n=1
while [ "$n" -le "$nfn" ]; do
	if [ "$n" -le "$half" ]; then
		gen "$out/kgr_bench_kgr_$n.c" \
			"$(printf '#define KGR_BENCH_FN %d\n#include "kgr_bench_kgr.c"' "$n")"
	else
		gate=
		if [ "$n" -eq $((half + 1)) ] || [ "$n" -eq "$nfn" ]; then
			gate='#define KGR_BENCH_GATE
'
		fi
		gen "$out/kgr_bench_klp_$n.c" \
			"$(printf '#define KGR_BENCH_FN %d\n%s#include "kgr_bench_klp.c"' "$n" "$gate")"
	fi
	n=$((n + 1))
done
make -C "$ksrc" ARCH=x86_64 M="$out" modules
