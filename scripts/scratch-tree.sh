#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scratch-tree.sh [--fresh] TARBALL DIR
#
# Make DIR/linux-source-6.1 a pristine tree of TARBALL, with no quilt patch
# applied, for the review targets (lint, refresh, bisect, sparse), which
# never work in the main tree of "make tree".  An existing scratch tree is
# reused when quilt can take all its patches off; it is unpacked anew when
# it cannot, when an earlier run was interrupted while it held patches
# (marker file .scratch-busy), or with --fresh.  Prints the tree's path.
#
# Build products (.o files, .config) are not removed: a reused tree builds
# incrementally; --fresh gives a tree that never saw a build.

set -euo pipefail

fresh=0
if [ "${1:-}" = --fresh ]; then
	fresh=1
	shift
fi
[ $# -eq 2 ] || { echo "usage: $0 [--fresh] TARBALL DIR" >&2; exit 2; }

tarball=$1
dir=$2
name=linux-source-6.1
tree=$dir/$name
here=$(cd "$(dirname "$0")" && pwd)

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
tree=$dir/$name

pristine() {
	[ -e "$tree/Makefile" ] || return 1
	[ ! -e "$tree/.scratch-busy" ] || return 1
	if [ -s "$tree/.pc/applied-patches" ]; then
		# quilt pop -f restores the backups in .pc; it needs no
		# patch file, so a series that changed since is no problem.
		(cd "$tree" && quilt --quiltrc - pop -a -f -q) >/dev/null 2>&1 ||
			return 1
		[ ! -s "$tree/.pc/applied-patches" ] || return 1
	fi
	rm -rf "$tree/.pc"
	return 0
}

if [ "$fresh" = 1 ] || ! pristine; then
	if [ -e "$tree" ]; then
		echo "scratch: removing $tree" >&2
		rm -rf "$tree"
	fi
	"$here/unpack-tree.sh" "$tarball" "$dir" "$name" >&2
fi
echo "$tree"
