#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# demo-lifecycle.sh BZIMAGE INITRAMFS LOG: boot the busybox guest into its
# shell and type a session of the patch lifecycle into it, a command every
# DELAY seconds (default 2): stacking, revert, module targets, SUSE's API,
# replace-all and the kgr tool, as an administrator would. The console
# goes to LOG.
set -eu

[ $# -eq 3 ] || { echo "usage: $0 BZIMAGE INITRAMFS LOG" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)

{
	sleep 15	# to the shell prompt, under TCG
	while IFS= read -r line; do
		printf '%s\n' "$line"
		sleep "${DELAY:-2}"
	done <<'CMDS'
cd /lib/modules-test
insmod kgr_test_proc.ko
insmod kgr_test_target_stack.ko
insmod kgr_test_target_replace.ko
echo stack > /proc/kgr_test/select
cat /proc/kgr_test/version
insmod kgr_test_patch_stack.ko
cat /proc/kgr_test/version
insmod kgr_test_stack.ko
cat /proc/kgr_test/version
kgr patches
echo 1 > /sys/kernel/kgraft/kgr_test_patch_stack/revert
echo 1 > /sys/kernel/kgraft/kgr_test_stack/revert
cat /proc/kgr_test/version
rmmod kgr_test_stack
insmod kgr_test_modpatch.ko
cat /sys/kernel/kgraft/kgr_test_modpatch/state
insmod kgr_test_mod.ko
cat /proc/kgr_test_mod/init /proc/kgr_test_mod/version
rmmod kgr_test_mod
cat /sys/kernel/kgraft/kgr_test_modpatch/state
insmod kgr_test_mod.ko
cat /proc/kgr_test_mod/version
insmod kgr_test_dup.ko
insmod kgr_test_suse.ko
kgr patches
echo replace > /proc/kgr_test/select
insmod kgr_test_replace.ko
kgr patches
cat /proc/kgr_test/version
cat /proc/kgr_test_mod/version
echo stack > /proc/kgr_test/select
cat /proc/kgr_test/version
rmmod kgr_test_patch_stack kgr_test_modpatch kgr_test_suse
echo replace > /proc/kgr_test/select
kgr-probe -w trip > /dev/null &
echo 1 > /sys/kernel/kgraft/kgr_test_replace/revert
kgr status
kgr blocking
kgr check; echo "kgr check: exit $?"
kill %1
kgr status
cat /proc/kgr_test/version
poweroff -f
CMDS
} | "$here/qemu-run.sh" --kernel "$1" --initrd "$2" --log "$3" \
	--timeout 300 --interactive --append 'rdinit=/init kgr.shell=1'
