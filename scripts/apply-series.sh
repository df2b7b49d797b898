#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# apply-series.sh KSRC PATCHES SERIES STAMP
#
# Take off what quilt had applied in KSRC, point KSRC/patches and
# KSRC/series at PATCHES and SERIES (the repository's patches/ and series)
# and push the series again with zero fuzz.  The applied patches that are
# still the first entries of the series, each with the diff it had when
# it was applied (.pc/kgr-applied.sha; a changed description does not
# count), stay applied, so that their files keep their times and make
# rebuilds only what the rest touches.  On a failing patch, name it and
# stop; quilt's state stays consistent (every patch before it applied,
# the failing one not).
#
# Before popping, refuse when the top patch has changes that were never
# refreshed into it (quilt diff -z), unless its patch file changed since
# the last apply (STAMP) or TREE_FORCE=1 is set.

set -euo pipefail

ksrc=$1
patches=$2
series=$3
stamp=$4

export QUILT_PATCHES=patches
export QUILT_SERIES=series
quilt=(quilt --quiltrc -)

cd "$ksrc"

link() {
	local name=$1 target=$2

	if [ -e "$name" ] && [ ! -L "$name" ]; then
		echo "tree: $ksrc/$name exists and is not a symlink; move it away" >&2
		exit 1
	fi
	ln -sfn "$target" "$name"
}

# diff_hash PATCH: a hash of the diff part of PATCH, not its header, so
# that a patch whose description alone changed is not applied again.
diff_hash() {
	sed -n '/^--- a\//,$p' "$1" | sha256sum | cut -d' ' -f1
}

# How many of the applied patches, from the bottom, are still the first
# entries of the series with the same diff as when they were applied
# (.pc/kgr-applied.sha): those stay applied, the rest is popped.
kept_prefix() {
	local n=0 name want hash

	[ -f .pc/kgr-applied.sha ] || { echo 0; return; }
	exec 3< <(grep -v '^[[:space:]]*\(#\|$\)' "$series" | awk '{ print $1 }')
	while read -r name; do
		read -r want <&3 || break
		[ "$name" = "$want" ] && [ -f "$patches/$name" ] || break
		hash=$(awk -v n="$name" '$1 == n { print $2 }' .pc/kgr-applied.sha)
		[ -n "$hash" ] && [ "$hash" = "$(diff_hash "$patches/$name")" ] || break
		n=$((n + 1))
	done < .pc/applied-patches
	exec 3<&-
	echo $n
}

if [ -s .pc/applied-patches ]; then
	# Pop with a series made of the applied patches, in their order: the
	# repository's series may have changed since (a patch inserted
	# before the top one), and quilt refuses to pop then.  quilt takes
	# the series file's name from .pc/.quilt_series before QUILT_SERIES.
	keep=$(kept_prefix)
	cp .pc/applied-patches .pc/kgr-pop-series
	echo "$PWD/.pc/kgr-pop-series" > .pc/.quilt_series
	top=$("${quilt[@]}" top)
	if [ "${TREE_FORCE:-0}" != 1 ] &&
	   ! { [ -e "$stamp" ] && [ "patches/$top" -nt "$stamp" ]; } &&
	   [ -e "patches/$top" ]; then
		if ! pending=$("${quilt[@]}" diff -z 2>&1) || [ -n "$pending" ]; then
			echo "tree: $top has changes that are not refreshed:" >&2
			printf '%s\n' "$pending" | head -n 40 >&2
			echo "tree: 'quilt refresh' them, or rerun with TREE_FORCE=1 to drop them" >&2
			echo series > .pc/.quilt_series
			exit 1
		fi
	fi
	if [ "$keep" -gt 0 ]; then
		base=$(sed -n "${keep}p" .pc/applied-patches)
		echo "tree: keeping the first $keep applied patches, up to $base"
		[ "$base" = "$top" ] || "${quilt[@]}" pop -f -q "$base"
	else
		echo "tree: popping all applied patches"
		"${quilt[@]}" pop -a -f -q
	fi
	mkdir -p .pc
	echo series > .pc/.quilt_series
	rm -f .pc/kgr-pop-series
fi

# Only now switch the links: the pop above used the series as applied.
link patches "$patches"
if [ -f "$series" ]; then
	link series "$series"
elif [ -L series ]; then
	rm -f series
fi

if [ ! -f series ] || ! grep -qv '^[[:space:]]*\(#\|$\)' series; then
	echo "tree: series is empty or missing, nothing to apply"
	exit 0
fi

echo "tree: quilt push -a --fuzz=0"
if [ -n "$("${quilt[@]}" unapplied 2>/dev/null)" ] &&
   ! "${quilt[@]}" push -a --fuzz=0; then
	failed=$("${quilt[@]}" next 2>/dev/null || echo '?')
	applied=$("${quilt[@]}" top 2>/dev/null || echo 'none')
	echo "tree: FAILED: $failed does not apply with zero fuzz" >&2
	echo "tree: applied up to: $applied; see 'quilt push -f --fuzz=0 $failed' in $ksrc" >&2
	exit 1
fi
echo "tree: now at $("${quilt[@]}" top)"
while read -r name; do
	echo "$name $(diff_hash "patches/$name")"
done < .pc/applied-patches > .pc/kgr-applied.sha

# quilt's diffs carry no file modes: give the scripts the series adds
# their executable bit back (patch 0012's tools/kgraft/*.sh).
for f in tools/kgraft/*.sh; do
	[ -f "$f" ] && chmod +x "$f"
done
exit 0
