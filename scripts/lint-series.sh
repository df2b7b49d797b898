#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# lint-series.sh TARBALL WORKDIR PATCHES SERIES KEPT SEEDS
#
# The series as a maintainer would check it ("make lint"):
#
#  1. series, headers, the Test: trailers of our patches, the static diff
#     format and no history in the code (lint-series.py;
#     scripts/history-kept counts what older patches still carry);
#  2. scripts/checkpatch.pl --strict on every patch, each finding either
#     absent or kept in KEPT with its reason (lint-series.py; the RFC seeds
#     in SEEDS verify the "verbatim from the RFC" entries);
#  3. the byte-exact canonical format: every patch pushed with zero fuzz
#     and refreshed on a scratch tree must come out unchanged
#     (refresh-series.sh --check), and the documentation the series
#     creates must parse (check-docs.sh, on that tree).
#
# checkpatch and the refresh run in the pristine scratch tree
# WORKDIR/linux-source-6.1, unpacked from TARBALL on first use.  All checks
# run; the exit status is 1 when any failed.

set -euo pipefail

[ $# -eq 6 ] || { echo "usage: $0 TARBALL WORKDIR PATCHES SERIES KEPT SEEDS" >&2; exit 2; }

tarball=$1
mkdir -p "$2"
work=$(cd "$2" && pwd)
patches=$3
series=$4
kept=$5
seeds=$6
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)

start=$(date +%s)
failed=()

# One user of a scratch tree at a time (lint and refresh share WORKDIR).
if [ "${SCRATCH_LOCK_HELD:-}" != "$work" ]; then
	exec 9> "$work/.lock"
	flock -n 9 || { echo "lint: waiting for $work/.lock (another run)" >&2; flock 9; }
	export SCRATCH_LOCK_HELD=$work
fi

tree=$("$here/scratch-tree.sh" "$tarball" "$work")

python3 "$here/lint-series.py" --patches "$patches" --series "$series" \
	--repo "$repo" --checkpatch-tree "$tree" --kept "$kept" \
	--seeds "$seeds" --history-kept "$here/history-kept" ||
	failed+=("series/headers/format/history/checkpatch")

"$here/refresh-series.sh" --check "$tarball" "$work" "$patches" "$series" ||
	failed+=("canonical format")

if [ ${#failed[@]} -ne 0 ]; then
	echo "lint: FAILED (${failed[*]}) after $(($(date +%s) - start)) s"
	exit 1
fi
echo "lint: passed after $(($(date +%s) - start)) s"
