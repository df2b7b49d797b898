#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Scenario 8: /proc/<pid>/kgr_in_progress exists for every process and
# every thread (/proc/<pid>/task/<tid>/), is readable by its owner only
# (0400, as in the RFC) and reads 0 or 1.

. "$(dirname "$0")/functions.sh"

start_test "/proc/<pid>/kgr_in_progress"

n=0
for d in /proc/[0-9]* /proc/[0-9]*/task/[0-9]*; do
	[ -d "$d" ] || continue		# gone meanwhile
	f=$d/kgr_in_progress
	if [ ! -e "$f" ]; then
		[ -d "$d" ] || continue
		die "no $f"
	fi
	mode=$(stat -c %a "$f" 2>/dev/null) || continue
	assert_eq 400 "$mode" "mode of $f"
	v=$(cat "$f" 2>/dev/null) || continue
	case $v in
	0|1) ;;
	*) die "$f reads '$v'" ;;
	esac
	n=$((n + 1))
done
[ "$n" -gt 20 ] || die "checked only $n files"
log "$n files: mode 0400, value 0 or 1"

# Owner only: an unprivileged user reads its own file, not root's.
out=$(kgr-runas 65534 sh -c 'cat /proc/self/kgr_in_progress') ||
	die "uid 65534 cannot read its own kgr_in_progress"
assert_eq 0 "$out" "uid 65534's own kgr_in_progress"
if kgr-runas 65534 cat /proc/1/kgr_in_progress 2>/dev/null; then
	die "uid 65534 read /proc/1/kgr_in_progress"
fi

log "ok"
exit 0
