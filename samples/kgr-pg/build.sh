#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# build.sh KSRC OUTDIR: build kgr_pg.ko against the kernel tree KSRC, out
# of tree, in OUTDIR (a copy of this directory).
set -eu

[ $# -eq 2 ] || { echo "usage: $0 KSRC OUTDIR" >&2; exit 2; }
ksrc=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)

mkdir -p "$out"
out=$(cd "$out" && pwd)	# M= must be absolute
for f in Kbuild kgr_pg.c; do
	cmp -s "$here/$f" "$out/$f" 2>/dev/null || cp "$here/$f" "$out/$f"
done
make -C "$ksrc" ARCH=x86_64 M="$out" modules
