#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# qemu-run.sh --kernel BZIMAGE {--initrd CPIO | --drive IMAGE} [options]
#
# Boot the test kernel in qemu-system-x86_64 with the console on this
# terminal and tee'd to a log.  Unless --timeout 0, the guest runs under a
# hard host-side timeout; when it expires QEMU is killed, the log says so
# and the exit status is 124.
#
#   --kernel FILE     bzImage
#   --initrd FILE     initramfs
#   --drive FILE      a raw disk image, as virtio (/dev/vda); with it the
#                     initramfs is optional (root=/dev/vda in --append)
#   --log FILE        console log (default: console.log)
#   --append STRING   extra kernel command line
#   --accel NAME      QEMU's -accel value: tcg,thread=single (default),
#                     tcg (multi-threaded TCG) or kvm; QEMU_ACCEL sets
#                     the default
#   --smp N           CPUs (default 2)
#   --mem SIZE        memory (default 512M)
#   --timeout SECS    host-side limit, 0 for none (default 600)
#   --interactive     keep stdin (for the shell); otherwise stdin is /dev/null
#   --qemu-arg ARG    one more argument for QEMU, repeatable (e.g.
#                     --qemu-arg -icount --qemu-arg shift=0,sleep=off)

set -euo pipefail

kernel=
initrd=
drive=
log=console.log
append=
# One host thread for all vCPUs (round-robin TCG), not QEMU's default of
# one thread per vCPU (MTTCG).  With MTTCG, QEMU 7.2 can keep a stale
# translation of code that another vCPU is rewriting: a vCPU that
# translated an int3 of text_poke_bp() just as the other vCPU replaced it
# goes on executing that int3 for good (the kernel's int3 handler sees no
# int3 in memory and returns to the same address), and the guest hangs
# (RCU stall at the fentry site being patched, the other CPU waiting in
# smp_call_function_many_cond()).  Seen about once in 25 boots of
# test-kgr-hotplug.sh + test-kgr-idle.sh, never with thread=single.
accel=${QEMU_ACCEL:-tcg,thread=single}
smp=2
mem=512M
timeout=600
interactive=0
extra=()

usage() {
	awk 'NR > 2 && /^#/ { sub(/^# ?/, ""); print; next } NR > 2 { exit }' "$0" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	--kernel)	kernel=$2; shift 2 ;;
	--initrd)	initrd=$2; shift 2 ;;
	--drive)	drive=$2; shift 2 ;;
	--log)		log=$2; shift 2 ;;
	--append)	append=$2; shift 2 ;;
	--accel)	accel=$2; shift 2 ;;
	--smp)		smp=$2; shift 2 ;;
	--mem)		mem=$2; shift 2 ;;
	--timeout)	timeout=$2; shift 2 ;;
	--interactive)	interactive=1; shift ;;
	--qemu-arg)	extra+=("$2"); shift 2 ;;
	*)		usage ;;
	esac
done

[ -f "$kernel" ] || { echo "qemu-run: no kernel '$kernel'" >&2; exit 1; }
if [ -n "$initrd" ] || [ -z "$drive" ]; then
	[ -f "$initrd" ] || { echo "qemu-run: no initrd '$initrd'" >&2; exit 1; }
fi
if [ -n "$drive" ]; then
	[ -f "$drive" ] || { echo "qemu-run: no disk image '$drive'" >&2; exit 1; }
fi
case $timeout in
''|*[!0-9]*) echo "qemu-run: bad --timeout '$timeout'" >&2; exit 2 ;;
esac

cmdline="console=ttyS0 panic=-1 oops=panic loglevel=7 printk.devkmsg=on${append:+ $append}"

qemu=(qemu-system-x86_64 -accel "$accel")
case $accel in kvm*) qemu+=(-cpu host) ;; esac
qemu+=(-smp "$smp" -m "$mem" -nographic -no-reboot -nic none
       -kernel "$kernel")
[ -n "$initrd" ] && qemu+=(-initrd "$initrd")
[ -n "$drive" ] && qemu+=(-drive "file=$drive,if=virtio,format=raw")
qemu+=(-append "$cmdline")
qemu+=(${extra[@]+"${extra[@]}"})

mkdir -p "$(dirname "$log")"
: > "$log"

note() {
	echo "qemu-run: $*" | tee -a "$log"
}

if [ "$timeout" -gt 0 ]; then
	# --foreground keeps QEMU in our process group, so ^C still reaches it.
	run=(timeout --foreground -k 10 "$timeout" "${qemu[@]}")
	note "timeout ${timeout}s; accel $accel; log $log"
else
	run=("${qemu[@]}")
	note "no timeout; accel $accel; log $log"
fi
note "$(printf '%q ' "${qemu[@]}")"
[ "$interactive" = 1 ] && echo "qemu-run: Ctrl-A x quits QEMU"

restore_tty() {
	[ -t 0 ] && stty sane 2>/dev/null
	return 0
}
trap restore_tty EXIT

start=$SECONDS
set +e
if [ "$interactive" = 1 ]; then
	"${run[@]}" 2>&1 | tee -a "$log"
else
	"${run[@]}" < /dev/null 2>&1 | tee -a "$log"
fi
rc=${PIPESTATUS[0]}
set -e
elapsed=$((SECONDS - start))

if [ "$timeout" -gt 0 ] && { [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; }; then
	note "TIMEOUT after $timeout s, killed"
	exit 124
fi
note "qemu exited with status $rc after $elapsed s"
exit "$rc"
