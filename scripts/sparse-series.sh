#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sparse-series.sh TARBALL WORKDIR PATCHES SERIES JOBS FRAGMENT...
#
# Run sparse (make C=2) over the kGraft code: apply the whole series on a
# scratch tree (WORKDIR/linux-source-6.1), configure it as "make config"
# does (tinyconfig + FRAGMENTs, checked), and check every C file the
# series adds or changes that this configuration builds.  Fails on any
# sparse warning or error located in a file the series adds:
#
#	kernel/kgr.c  samples/kgr/kgr_patcher.c
#	include/linux/kgr.h  arch/x86/include/asm/kgr.h
#
# (the list is computed from the series: every non-tools file a patch
# creates).  Warnings sparse gives in 6.1's own files are counted, shown
# and do not fail.  The full output is kept in WORKDIR/sparse.log.

set -euo pipefail

[ $# -ge 6 ] || {
	echo "usage: $0 TARBALL WORKDIR PATCHES SERIES JOBS FRAGMENT..." >&2
	exit 2
}

tarball=$1
mkdir -p "$2"
work=$(cd "$2" && pwd)
patches=$(cd "$3" && pwd)
series=$(cd "$(dirname "$4")" && pwd)/$(basename "$4")
jobs=$5
shift 5
fragments=()
for f in "$@"; do
	fragments+=("$(cd "$(dirname "$f")" && pwd)/$(basename "$f")")
done
here=$(cd "$(dirname "$0")" && pwd)

unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL || true
karch=x86_64
start=$(date +%s)

command -v sparse >/dev/null ||
	{ echo "sparse: the sparse package is not installed (make deps)" >&2; exit 1; }

mapfile -t names < <(sed -e 's/#.*//' -e 's/^[[:space:]]*//' \
			 -e 's/[[:space:]]*$//' "$series" | grep -v '^$' || true)
[ ${#names[@]} -gt 0 ] || { echo "sparse: $series lists no patch"; exit 0; }

# files the series adds ("--- /dev/null"), and the C files it touches
mapfile -t added < <(for p in "${names[@]}"; do
	awk '/^--- \/dev\/null/ { getline; if ($1 == "+++") print substr($2, 3) }' \
		"$patches/$p"
done | grep -v '^tools/' | sort -u)
mapfile -t touched_c < <(for p in "${names[@]}"; do
	sed -n 's|^+++ b/\(.*\.c\)$|\1|p' "$patches/$p"
done | grep -v '^tools/' | sort -u)

tree=$("$here/scratch-tree.sh" "$tarball" "$work")
export QUILT_PATCHES=$patches QUILT_SERIES=$series
unset QUILT_DIFF_OPTS QUILT_PC || true
quilt=(quilt --quiltrc -)
kmake=(make -C "$tree" ARCH=$karch)
log=$work/sparse.log

cd "$tree"
touch .scratch-busy
if ! "${quilt[@]}" push -a --fuzz=0 > "$log" 2>&1; then
	echo "sparse: FAILED: $("${quilt[@]}" next 2>/dev/null || echo '?') does not apply with zero fuzz" >&2
	exit 1
fi
rm -f .scratch-busy
{
	"${kmake[@]}" tinyconfig &&
	ARCH=$karch scripts/kconfig/merge_config.sh -m .config "${fragments[@]}" &&
	"${kmake[@]}" olddefconfig &&
	"$here/check-config.sh" .config "${fragments[@]}"
} >> "$log" 2>&1 || { tail -n 20 "$log"; echo "sparse: FAILED: config" >&2; exit 1; }

# Every C file the series touches, as a single target.  kbuild descends
# only into directories this configuration builds, so a file that is not
# built is not checked either ("CHECK" missing from the log): that is
# reported, and fails only for the files the series adds.
objs=()
for c in "${touched_c[@]}"; do
	objs+=("${c%.c}.o")
done
echo "sparse: make C=2 on ${#objs[@]} objects: ${objs[*]}"
rc=0
"${kmake[@]}" -j"$jobs" C=2 "${objs[@]}" >> "$log" 2>&1 || rc=$?
if [ "$rc" -ne 0 ]; then
	grep -E 'error|Error' "$log" | tail -n 20
	echo "sparse: FAILED: make C=2 exited $rc (see $log)" >&2
	exit 1
fi

bad=0
checked=()
for c in "${touched_c[@]}"; do
	if grep -q "^  CHECK   $c\$" "$log"; then
		checked+=("$c")
	elif printf '%s\n' "${added[@]}" | grep -qxF "$c"; then
		echo "sparse: FAILED: sparse did not run on $c" >&2
		bad=1
	else
		echo "sparse: $c is not built in this configuration; not checked"
	fi
done
echo "sparse: checked ${#checked[@]} files: ${checked[*]}"

pattern=$(printf '%s\n' "${added[@]}" | sed 's/[.]/[.]/g' | paste -sd'|')
ours=$(grep -E "^(\./)?($pattern):[0-9]+:[0-9]+: (warning|error):" "$log" | sort -u || true)
theirs=$(grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error):' "$log" |
	 grep -vE "^(\./)?($pattern):" | sort -u || true)

if [ -n "$theirs" ]; then
	echo "sparse: $(printf '%s\n' "$theirs" | wc -l) warnings in 6.1's own files (not ours; not failing):"
	printf '%s\n' "$theirs" | head -n 20 | sed 's/^/    /'
fi
if [ -n "$ours" ]; then
	echo "sparse: FAILED: warnings in the files the series adds:" >&2
	printf '%s\n' "$ours" | sed 's/^/    /' >&2
	bad=1
fi
[ "$bad" = 0 ] || exit 1
echo "sparse: no warnings in ${added[*]}; $(($(date +%s) - start)) s"
