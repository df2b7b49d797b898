#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# prepare-src.sh OUTDIR KDIR TARBALL PATCHES SERIES
#
# The source tree in which kgr-fix.sh compiles the objects a fix touches,
# without and with the fix: OUTDIR/linux-source-6.1, the tarball with
# the series applied (again only when a patch or the series changed) and
# KDIR's .config, prepared ("make prepare modules_prepare") with the
# flags kgr-fix.sh compiles with, -ffunction-sections -fdata-sections.
# Nothing else is built here: each fix compiles its own objects, once.
#
# Environment: JOBS (default nproc), KARCH (default x86_64).

set -euo pipefail

[ $# -eq 5 ] || { echo "usage: $0 OUTDIR KDIR TARBALL PATCHES SERIES" >&2; exit 2; }
mkdir -p "$1"
out=$(realpath "$1") kdir=$(realpath "$2") tarball=$(realpath "$3")
patches=$(realpath "$4") series=$(realpath "$5")
top=$(cd "$(dirname "$0")/../.." && pwd)
src=$out/linux-source-6.1
jobs=${JOBS:-$(nproc)}
karch=${KARCH:-x86_64}

say() { echo "kgr-src: $*"; }
die() { echo "kgr-src: error: $*" >&2; exit 1; }

[ -f "$kdir/.config" ] || die "no $kdir/.config: build the kernel first"
mkdir -p "$out"
"$top/scripts/unpack-tree.sh" "$tarball" "$out" linux-source-6.1
rm -f "$src/.kgr-src-ready"
# Nobody edits this tree by hand: what its top patch differs by is an
# older version of that patch, never work to keep, so nothing guards it.
TREE_FORCE=1 "$top/scripts/apply-series.sh" "$src" "$patches" "$series" \
	"$out/.stamp-series"
cmp -s "$kdir/.config" "$src/.config" || cp "$kdir/.config" "$src/.config"
start=$(date +%s)
make -C "$src" ARCH="$karch" -j"$jobs" KCFLAGS="-ffunction-sections -fdata-sections" \
	olddefconfig prepare modules_prepare > "$out/prepare.log" 2>&1 ||
	{ tail -n 30 "$out/prepare.log" >&2; die "make prepare failed (log $out/prepare.log)"; }
cmp -s "$kdir/.config" "$src/.config" || die "olddefconfig changed $kdir/.config in $src"
touch "$src/.kgr-src-ready"
say "$src prepared in $(($(date +%s) - start)) s"
