#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# unpack-tree.sh TARBALL BUILD DIR
#
# Unpack TARBALL (whose top directory is DIR) into BUILD/DIR.  The tarball
# is unpacked next to the target and renamed into place, so an interrupted
# run never leaves a half tree behind.  An existing BUILD/DIR is kept as it
# is: it may hold someone's work.

set -euo pipefail

tarball=$1
build=$2
dir=$3

if [ -e "$build/$dir/Makefile" ]; then
	echo "tree: using the existing $build/$dir (distclean to unpack anew)"
	exit 0
fi

[ -r "$tarball" ] || { echo "tree: $tarball not found (make deps)" >&2; exit 1; }

tmp="$build/.unpack.$$"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp"
echo "tree: unpacking $tarball into $build"
tar -C "$tmp" -xf "$tarball"
[ -d "$tmp/$dir" ] || { echo "tree: $tarball has no $dir/ at its top" >&2; exit 1; }
rm -rf "${build:?}/$dir"
mv "$tmp/$dir" "$build/$dir"
