#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The guest came up as the other tests expect: /proc and /sys mounted,
# both CPUs online, and nothing in the kernel log says BUG:.

. "$(dirname "$0")/functions.sh"

start_test "boot sanity"

grep -q '^proc /proc proc ' /proc/mounts || die "/proc is not mounted"
grep -q '^sysfs /sys sysfs ' /proc/mounts || die "/sys is not mounted"

online=$(cat /sys/devices/system/cpu/online)
log "online CPUs: $online"
assert_eq "0-1" "$online" "online CPUs"

if dmesg | grep 'BUG:'; then
	die "the kernel log has BUG: lines"
fi

log "ok"
exit 0
