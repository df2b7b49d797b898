#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bisect-series.sh TARBALL WORKDIR PATCHES SERIES JOBS FRAGMENT...
#
# Bisectability: apply the series one patch at a time on a fresh tree
# (WORKDIR/linux-source-6.1, unpacked anew) and build after each step,
# as "make kernel" does: tinyconfig + the FRAGMENTs (merge_config.sh),
# olddefconfig, check-config.sh, then bzImage and modules.  With the
# repository's configs/kgr.config that is the kernel with CONFIG_KGR=y and,
# once patch 04 added it, the kgr_patcher sample (checked to be built).
#
# An option that the series itself defines (a "+config X" line of a patch)
# is left out of a prefix's fragments until the patch that defines it is
# applied, so CONFIG_KGR does not fail the config check before patch 03 nor
# CONFIG_SAMPLE_KGR_PATCHER before patch 04.  Every other option must hold
# at every prefix.
#
# The first patch that does not apply, does not configure or does not
# build is named, with the end of its log (WORKDIR/logs/NNNN-*.log), and
# the run stops there (exit 1).  Times per step go to WORKDIR/times.
#
# Environment:
#   BISECT_FROM=REV   build only the prefixes that end at a patch changed
#                     since the git revision REV (its diff differs from
#                     REV's: a change of the description alone does not
#                     count; or it is new, or the patches before it in
#                     series differ from REV's series); all patches are
#                     still applied in order.
#   BISECT_FRESH=0    reuse the scratch tree and its objects.  When the
#                     patches it holds are the first ones of series and
#                     none changed since it was pushed, the run resumes:
#                     it builds the prefix at the top again and goes on
#                     from there.  Otherwise quilt pops everything (and
#                     touches what it restores) and the run starts over
#                     on the old objects.  Default 1: unpack anew.
#   BISECT_DRY=1      only print which prefixes would be built, and which
#                     options each leaves out.

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

# We call the kernel's make ourselves, with its own -j.
unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL || true
karch=x86_64

start=$(date +%s)
elapsed() { echo $(($(date +%s) - $1)); }
say() { echo "bisect: $*"; }

mapfile -t names < <(sed -e 's/#.*//' -e 's/^[[:space:]]*//' \
			 -e 's/[[:space:]]*$//' "$series" | grep -v '^$' || true)
total=${#names[@]}
[ "$total" -gt 0 ] || { say "$series lists no patch"; exit 0; }

# --- which prefixes to build ---------------------------------------------------

# The diff of a patch, without its description and diffstat: from its
# first "--- a/FILE" or "--- /dev/null" line on.  A patch whose
# description alone changed builds as before.
diff_part() {
	sed -n '/^--- \(a\/\|\/dev\/null\)/,$p'
}

declare -A build
if [ -n "${BISECT_FROM:-}" ]; then
	top=$(git -C "$here" rev-parse --show-toplevel)
	git -C "$top" rev-parse --verify -q "$BISECT_FROM^{commit}" >/dev/null || {
		say "BISECT_FROM=$BISECT_FROM is not a git revision"; exit 2; }
	rel_series=$(realpath --relative-to="$top" "$series")
	rel_patches=$(realpath --relative-to="$top" "$patches")
	mapfile -t old < <(git -C "$top" show "$BISECT_FROM:$rel_series" 2>/dev/null |
		sed -e 's/#.*//' -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' |
		grep -v '^$' || true)
	nbuild=0
	for ((i = 0; i < total; i++)); do
		p=${names[i]}
		why=
		if ! git -C "$top" cat-file -e "$BISECT_FROM:$rel_patches/$p" 2>/dev/null; then
			why="new since $BISECT_FROM"
		elif ! git -C "$top" diff --quiet "$BISECT_FROM" -- "$rel_patches/$p" &&
		     ! cmp -s <(git -C "$top" show "$BISECT_FROM:$rel_patches/$p" | diff_part) \
			      <(diff_part < "$patches/$p"); then
			why="changed since $BISECT_FROM"
		elif [ "${names[*]:0:i+1}" != "${old[*]:0:i+1}" ]; then
			why="the patches before it changed in series"
		fi
		if [ -n "$why" ]; then
			build[$p]=$why
			nbuild=$((nbuild + 1))
		fi
	done
	if [ "$nbuild" -eq 0 ]; then
		say "no patch changed since $BISECT_FROM; nothing to build"
		exit 0
	fi
	say "BISECT_FROM=$BISECT_FROM: building $nbuild of $total prefixes:"
	for p in "${names[@]}"; do
		[ -z "${build[$p]:-}" ] || echo "    $p (${build[$p]})"
	done
else
	for p in "${names[@]}"; do
		build[$p]=all
	done
	say "building all $total prefixes"
fi

# --- the options the series defines, and by which patch --------------------------

declare -A defined_by	# CONFIG_X -> index of the patch that adds "config X"
for ((i = 0; i < total; i++)); do
	while read -r sym; do
		[ -n "$sym" ] && [ -z "${defined_by[CONFIG_$sym]:-}" ] &&
			defined_by[CONFIG_$sym]=$i
	done < <(sed -n 's/^+[[:space:]]*\(menu\)\{0,1\}config[[:space:]]\{1,\}\([A-Za-z0-9_]\{1,\}\).*/\2/p' \
			"$patches/${names[i]}")
done

# fragments for prefix $1 (0-based index of its last patch) into $2/
prefix_fragments() {
	local last=$1 dir=$2 f out opt skipped=()

	rm -rf "$dir"
	mkdir -p "$dir"
	for f in "${fragments[@]}"; do
		out=$dir/$(basename "$f")
		: > "$out"
		while IFS= read -r line || [ -n "$line" ]; do
			opt=
			if [[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)= ]] ||
			   [[ $line =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set ]]; then
				opt=${BASH_REMATCH[1]}
			fi
			if [ -n "$opt" ] && [ -n "${defined_by[$opt]:-}" ] &&
			   [ "${defined_by[$opt]}" -gt "$last" ]; then
				skipped+=("$opt")
				echo "# bisect: $line  (defined by ${names[${defined_by[$opt]}]})" >> "$out"
				continue
			fi
			printf '%s\n' "$line" >> "$out"
		done < "$f"
	done
	echo "${skipped[*]}"
}

if [ "${BISECT_DRY:-0}" = 1 ]; then
	for ((i = 0; i < total; i++)); do
		[ -n "${build[${names[i]}]:-}" ] || continue
		skipped=$(prefix_fragments "$i" "$work/fragments")
		say "[$((i + 1))/$total] ${names[i]}: would build${skipped:+; not yet defined: $skipped}"
	done
	exit 0
fi

# --- the tree ------------------------------------------------------------------------

# can a reused tree resume?  (its patches are a prefix of series, each
# unchanged since quilt pushed it)
resume_at=0
if [ "${BISECT_FRESH:-1}" != 1 ] && [ -s "$work/linux-source-6.1/.pc/applied-patches" ] &&
   [ ! -e "$work/linux-source-6.1/.scratch-busy" ]; then
	pc=$work/linux-source-6.1/.pc
	mapfile -t held < "$pc/applied-patches"
	# quilt takes the patches and series it pushed from (.pc/.quilt_*)
	# over the environment; they may be another copy of the series
	was=$(cat "$pc/.quilt_patches" 2>/dev/null || echo "$patches")
	resume_at=${#held[@]}
	for ((i = 0; i < ${#held[@]}; i++)); do
		stamp=$pc/${held[i]}/.timestamp
		if [ "${held[i]}" != "${names[i]:-}" ] || [ ! -e "$stamp" ] ||
		   [ "$was/${held[i]}" -nt "$stamp" ] ||
		   ! cmp -s "$was/${held[i]}" "$patches/${held[i]}"; then
			resume_at=0
			break
		fi
	done
fi
if [ "$resume_at" -gt 0 ]; then
	tree=$work/linux-source-6.1
	echo "$patches" > "$tree/.pc/.quilt_patches"
	echo "$series" > "$tree/.pc/.quilt_series"
	say "resuming on $tree: it holds the first $resume_at patches, unchanged;" \
	    "rebuilding from ${names[resume_at - 1]}"
elif [ "${BISECT_FRESH:-1}" = 1 ]; then
	tree=$("$here/scratch-tree.sh" --fresh "$tarball" "$work")
else
	tree=$("$here/scratch-tree.sh" "$tarball" "$work")
fi
say "tree $tree ready after $(elapsed "$start") s"

export QUILT_PATCHES=$patches QUILT_SERIES=$series
unset QUILT_DIFF_OPTS QUILT_PC || true
quilt=(quilt --quiltrc -)
kmake=(make -C "$tree" ARCH=$karch)

logs=$work/logs
times=$work/times
if [ "$resume_at" -eq 0 ]; then
	rm -rf "$logs"
	printf '# prefix\tpatch\tconfig_s\tbuild_s\tskipped options\n' > "$times"
fi
mkdir -p "$logs"

cd "$tree"
touch .scratch-busy

fail() {
	local what=$1 log=$2

	say "FAILED: $what"
	if [ -f "$log" ]; then
		echo "bisect: --- from $log:"
		{ grep -E '(error|Error|ERROR|FAILED|\*\*\*|check-config:)' "$log" | head -n 25; } ||
			tail -n 25 "$log"
	fi
	rm -f "$tree/.scratch-busy"
	say "tree left at that patch: $tree (quilt top: $("${quilt[@]}" top 2>/dev/null || echo none))"
	say "stopped after $(elapsed "$start") s"
	exit 1
}

built=0
for ((i = 0; i < total; i++)); do
	p=${names[i]}
	n=$((i + 1))
	log=$logs/${p%.patch}.log
	if [ "$n" -lt "$resume_at" ]; then
		continue
	elif [ "$n" -eq "$resume_at" ]; then
		: > "$log"
	elif ! "${quilt[@]}" push --fuzz=0 "$p" > "$log" 2>&1; then
		fail "$p (patch $n of $total) does not apply with zero fuzz" "$log"
	fi
	[ -n "${build[$p]:-}" ] || { say "[$n/$total] $p: applied"; continue; }

	t0=$(date +%s)
	skipped=$(prefix_fragments "$i" "$work/fragments")
	frags=("$work/fragments"/*)
	{
		"${kmake[@]}" tinyconfig &&
		ARCH=$karch scripts/kconfig/merge_config.sh -m .config "${frags[@]}" &&
		"${kmake[@]}" olddefconfig &&
		"$here/check-config.sh" .config "${frags[@]}"
	} >> "$log" 2>&1 || fail "$p (patch $n of $total): the config check fails" "$log"
	t1=$(date +%s)
	"${kmake[@]}" -j"$jobs" bzImage modules >> "$log" 2>&1 ||
		fail "the build breaks at $p (patch $n of $total)" "$log"
	t2=$(date +%s)

	products=(arch/x86/boot/bzImage)
	grep -q '^CONFIG_KGR=y' .config && products+=(kernel/kgr.o)
	grep -q '^CONFIG_SAMPLE_KGR_PATCHER=m' .config &&
		products+=(samples/kgr/kgr_patcher.ko)
	for f in "${products[@]}"; do
		[ -f "$f" ] || fail "$p (patch $n of $total): the build made no $f" "$log"
	done
	built=$((built + 1))
	printf '%d\t%s\t%d\t%d\t%s\n' "$n" "$p" $((t1 - t0)) $((t2 - t1)) "$skipped" >> "$times"
	say "[$n/$total] $p: builds (config $((t1 - t0)) s, build $((t2 - t1)) s;" \
	    "products: ${products[*]}${skipped:+; not yet defined: $skipped})"
done

rm -f .scratch-busy
say "all $total patches apply; $built prefixes built, each builds;" \
    "$(elapsed "$start") s in all (times: $times)"
