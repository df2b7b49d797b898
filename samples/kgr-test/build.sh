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

# gen FILE TEMPLATE NAME [MACRO]: FILE defines KGR_TEST_SCN as NAME (and
# MACRO) and includes TEMPLATE; rewritten only when it changes, so that
# make keeps the module
gen() {
	{
		printf '#define KGR_TEST_SCN %s\n' "$3"
		[ -z "${4:-}" ] || printf '#define %s\n' "$4"
		printf '#include "%s"\n' "$2"
	} > "$1.tmp"
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

# The consistency scenarios' patches once more, each with the 1024
# functions of kgr_test_many before the scenario's own (kgr_test_patch.c,
# KGR_TEST_WITH_MANY). Same module names, so built in a directory of
# their own, and installed beside the others as
# kgr_test_patch_NAME.many.ko, which load_mod takes under kgr.many=1.
many="hold one_trip threads kthread irq stress bh exit fork fork_2 fork_3
      fork_4 fork_5 fork_6 fork_7 fork_8"
mkdir -p "$out/many"
: > "$out/many/Kbuild.tmp"
for n in $many; do
	printf '%s\n' "$names" | grep -qx "$n" ||
		{ echo "$0: no scenario $n for a .many variant" >&2; exit 1; }
	gen "$out/many/kgr_test_patch_$n.c" ../kgr_test_patch.c "$n" \
		KGR_TEST_WITH_MANY
	echo "obj-m += kgr_test_patch_$n.o" >> "$out/many/Kbuild.tmp"
done
if cmp -s "$out/many/Kbuild.tmp" "$out/many/Kbuild"; then
	rm -f "$out/many/Kbuild.tmp"
else
	mv "$out/many/Kbuild.tmp" "$out/many/Kbuild"
fi
make -C "$ksrc" ARCH=x86_64 M="$out/many" modules
for n in $many; do
	cmp -s "$out/many/kgr_test_patch_$n.ko" "$out/kgr_test_patch_$n.many.ko" ||
		cp "$out/many/kgr_test_patch_$n.ko" "$out/kgr_test_patch_$n.many.ko"
done
