#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# BPF on a patched function, with the tool an administrator uses:
# bpftrace's kfunc and kretfunc probes (a BPF trampoline, attached by
# ftrace's direct call) on __x64_sys_iopl, which the RFC's sample patch
# replaces and kGraft calls directly once finalized. kGraft steps aside
# while bpftrace is attached: both probes fire, and the call still runs
# the patch's new code (its message in dmesg), from the kfunc probe's
# direct call and from the kretfunc probe's call of the function. When
# bpftrace exits, kGraft calls the function directly again.
#
# Needs bpftrace and the kernel's BTF: "make check-debian-bpf" boots a
# Debian guest with both; elsewhere the test skips.
#
# kgr-timeout: 600

. "$(dirname "$0")/functions.sh"

T=/sys/kernel/tracing
NEW_IOPL='kgr-patcher: this is a new sys_iopl()'
OUT=/tmp/bpftrace.out

iopl_line() {
	enabled_line __x64_sys_iopl
}

command -v bpftrace > /dev/null || skip "no bpftrace in this guest"
[ -f /sys/kernel/btf/vmlinux ] || skip "no BTF in this kernel (/sys/kernel/btf/vmlinux)"

# new_iopl: how many times the patch's iopl() has said so
new_iopl() {
	dmesg | grep -c -F "$NEW_IOPL"
}

start_test "bpftrace's kfunc and kretfunc probes on a patched function"
[ -d $T/events ] || mount -t tracefs nodev $T || die "cannot mount tracefs"
load_mod kgr_patcher
kgr_wait_finalized 60
kgr_direct_alone __x64_sys_iopl bpf_trampoline

log "% bpftrace -e 'kfunc:__x64_sys_iopl {...} kretfunc:__x64_sys_iopl {...}' &"
bpftrace -B line -e '
	kfunc:__x64_sys_iopl { printf("kfunc comm=%s\n", comm); }
	kretfunc:__x64_sys_iopl { printf("kretfunc comm=%s ret=%d\n", comm, retval); }' \
	> $OUT 2>&1 &
BPF_PID=$!
wait_for 'grep -q "^Attaching" $OUT' 300 ||
	die "bpftrace did not attach within 300 s: $(cat $OUT)"
# bpftrace prints "Attaching" before it attaches: wait for the trampoline
wait_for 'iopl_line | grep -q bpf_trampoline' 60 ||
	die "no BPF trampoline on __x64_sys_iopl: $(iopl_line); bpftrace: $(cat $OUT)"
log "enabled_functions with bpftrace: $(iopl_line)"
iopl_line | grep -q " I " || die "kGraft's handler is not on __x64_sys_iopl: $(iopl_line)"
expect_log "steps aside for another direct call"

before=$(new_iopl)
assert_eq "iopl(3) = 0" "$(kgr-iopl 3 | head -n 1)" "iopl(3) under bpftrace"
wait_for 'grep -q "^kretfunc comm=kgr-iopl ret=0" $OUT' 30 ||
	die "the kretfunc probe did not see iopl() return 0: $(cat $OUT)"
grep -q "^kfunc comm=kgr-iopl" $OUT || die "the kfunc probe did not fire: $(cat $OUT)"
[ "$(new_iopl)" -gt "$before" ] || die "iopl() under bpftrace ran the old code"
log "bpftrace: $(grep -c kgr-iopl $OUT) lines for kgr-iopl; the new iopl() ran $(($(new_iopl) - before)) time(s)"

start_test "bpftrace exits: kGraft calls the function directly again"
kill -INT $BPF_PID
# gone, or a zombie that the wait below reaps
if ! wait_for 'grep -q "^State:.*Z" /proc/$BPF_PID/status 2>/dev/null ||
	       [ ! -d /proc/$BPF_PID ]' 60; then
	for t in /proc/$BPF_PID/task/*; do
		log "bpftrace thread ${t##*/}: $(cat $t/comm) wchan=$(cat $t/wchan) syscall=$(cat $t/syscall)"
		log "$(grep -E '^(State|SigPnd|ShdPnd|SigBlk|SigIgn|SigCgt)' $t/status | tr '\n' ' ')"
		log "$(cat $t/stack 2>/dev/null | tr '\n' ' ')"
	done
	kill -KILL $BPF_PID
	die "bpftrace did not exit within 60 s of SIGINT"
fi
wait $BPF_PID 2>/dev/null
kgr_direct_alone __x64_sys_iopl bpf_trampoline
before=$(new_iopl)
assert_eq "iopl(3) = 0" "$(kgr-iopl 3 | head -n 1)" "iopl(3) after bpftrace"
[ "$(new_iopl)" -gt "$before" ] || die "iopl() after bpftrace ran the old code"
# the RFC's sample holds a reference to itself ("removing not supported"):
# it stays loaded, reverted
kgr_revert kgr_patcher
kgr_wait_reverted kgr_patcher 60
log "ok"
exit 0
