#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# refresh-series.sh --check|--write TARBALL WORKDIR PATCHES SERIES
#
# Bring every patch of SERIES into the one canonical diff format:
#
#	quilt refresh -p ab --no-timestamps --no-index --diffstat --sort
#
# Each patch is pushed in turn, with zero fuzz, on a pristine scratch tree
# (WORKDIR/linux-source-6.1, see scratch-tree.sh) and refreshed into a
# copy of PATCHES in WORKDIR/patches; the repository is not touched until
# the whole series went through.  Only files whose bytes differ are then
# written back (--write), so refreshing a canonical series changes nothing,
# not even a modification time; --check writes nothing and fails, naming
# each patch, when one is not in canonical form.
#
# quilt runs with --quiltrc - (no ~/.quiltrc, no /etc/quilt.quiltrc) and
# without QUILT_DIFF_OPTS, so hunk headers carry no function names.
#
# With --check, the documentation the series creates is checked too
# (check-docs.sh), in the scratch tree while the whole series is applied.

set -euo pipefail

usage() {
	echo "usage: $0 --check|--write TARBALL WORKDIR PATCHES SERIES" >&2
	exit 2
}

[ $# -eq 5 ] || usage
mode=$1
case $mode in --check|--write) ;; *) usage ;; esac
tarball=$2
mkdir -p "$3"
work=$(cd "$3" && pwd)
patches=$(cd "$4" && pwd)
series=$(cd "$(dirname "$5")" && pwd)/$(basename "$5")
here=$(cd "$(dirname "$0")" && pwd)
tag=${mode#--}
[ "$tag" = write ] && tag=refresh

# One user of a scratch tree at a time (lint and refresh share WORKDIR).
if [ "${SCRATCH_LOCK_HELD:-}" != "$work" ]; then
	exec 9> "$work/.lock"
	flock -n 9 || { echo "$tag: waiting for $work/.lock (another run)" >&2; flock 9; }
	export SCRATCH_LOCK_HELD=$work
fi

REFRESH_ARGS=(-p ab --no-timestamps --no-index --diffstat --sort)

mapfile -t names < <(sed -e 's/#.*//' -e 's/^[[:space:]]*//' \
			 -e 's/[[:space:]]*$//' "$series" | grep -v '^$' || true)
if [ ${#names[@]} -eq 0 ]; then
	echo "$tag: $series lists no patch"
	exit 0
fi
for p in "${names[@]}"; do
	case $p in
	*[[:space:]]*) echo "$tag: series entry '$p' has options; not supported" >&2
		       exit 1 ;;
	esac
	[ -f "$patches/$p" ] || { echo "$tag: $p is in series but not in $patches" >&2; exit 1; }
done

tree=$("$here/scratch-tree.sh" "$tarball" "$work")
out=$work/patches
rm -rf "$out"
mkdir -p "$out"
for p in "${names[@]}"; do
	cp -p "$patches/$p" "$out/$p"
done
printf '%s\n' "${names[@]}" > "$work/series"

export QUILT_PATCHES=$out QUILT_SERIES=$work/series
unset QUILT_DIFF_OPTS QUILT_DIFF_ARGS QUILT_REFRESH_ARGS QUILT_PC || true
quilt=(quilt --quiltrc -)

cd "$tree"
touch .scratch-busy
failed=
for p in "${names[@]}"; do
	if ! log=$("${quilt[@]}" push --fuzz=0 "$p" 2>&1); then
		failed=$p
		echo "$tag: FAILED: $p does not apply with zero fuzz:" >&2
		printf '%s\n' "$log" | grep -v '^Applying patch' | head -n 20 >&2
		break
	fi
	if ! log=$("${quilt[@]}" refresh "${REFRESH_ARGS[@]}" 2>&1); then
		failed=$p
		echo "$tag: FAILED: quilt refresh of $p:" >&2
		printf '%s\n' "$log" | head -n 20 >&2
		break
	fi
done
docs_failed=
if [ -z "$failed" ] && [ "$mode" = --check ] &&
   ! "$here/check-docs.sh" "$tree" "$out" "$work/series"; then
	docs_failed=1
fi
"${quilt[@]}" pop -a -f -q >/dev/null 2>&1 || true
if [ -s .pc/applied-patches ]; then
	echo "$tag: could not pop the scratch tree $tree; it is unpacked anew next time" >&2
else
	rm -rf .pc .scratch-busy
fi
[ -z "$failed" ] || exit 1
[ -z "$docs_failed" ] || exit 1

changed=()
for p in "${names[@]}"; do
	cmp -s "$out/$p" "$patches/$p" || changed+=("$p")
done

if [ ${#changed[@]} -eq 0 ]; then
	echo "$tag: all ${#names[@]} patches are in canonical form (quilt refresh ${REFRESH_ARGS[*]})"
	exit 0
fi

if [ "$mode" = --check ]; then
	for p in "${changed[@]}"; do
		echo "$tag: $p is not in canonical form; 'make refresh' would change:" >&2
		diff -u --label "patches/$p" --label "patches/$p (refreshed)" \
			"$patches/$p" "$out/$p" | head -n 40 | sed 's/^/    /' >&2 || true
	done
	echo "$tag: FAILED: ${#changed[@]} of ${#names[@]} patches not in canonical form: ${changed[*]}" >&2
	exit 1
fi

for p in "${changed[@]}"; do
	cat "$out/$p" > "$patches/$p"
	echo "$tag: rewrote $p"
done
echo "$tag: ${#changed[@]} of ${#names[@]} patches rewritten in canonical form"
