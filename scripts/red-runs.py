#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Red runs of the consistency fixes (issue 11): for each fix, take it
back in the built tree (a small edit of the patched kernel source), build,
boot the guest with the test that guards it, put the source back, and
report whether the test failed, as it must.

    red-runs.py --ksrc KSRC --make 'MAKE VARS...' [--stamp FILE] [--debian] [ID...]

KSRC is the patched tree of the build folder the make command uses
(e.g. build/preempt/linux-source-6.1 with BUILD=build/preempt and the
preempt config fragment: "make red-runs" passes these). The tree must be
at the end of the series and built ("make check-preempt" leaves it so).
With --debian the make command is the top-level one, and each test boots
alone in the Debian guest (make debian-image, then debian-boot).
The source is restored whatever happens; the next build rebuilds what the
edits touched.  Exit status 0 when every run was red.
"""

import argparse
import os
import re
import shlex
import signal
import subprocess
import sys

# id: (issue 11 item, the patch that fixed it, tests, extra kernel
# arguments, [(file, old, new), ...]): each edit takes the fix back
CASES = {
    'bh': ('1', '0150', ['test-kgr-bh.sh'], '', [
        # BH-disabled process context sent to the per-CPU flag, as
        # in_interrupt() did, in the trampoline and in the handler
        ('arch/x86/kernel/kgr_tramp.c', 'NMI_MASK | HARDIRQ_MASK | SOFTIRQ_OFFSET',
         'NMI_MASK | HARDIRQ_MASK | SOFTIRQ_MASK'),
        ('kernel/kgr_stack.c', '\tif (!in_task())\n', '\tif (in_interrupt())\n'),
    ]),
    'fork': ('2', '0100', ['test-kgr-fork.sh'], '', [
        # the child keeps the thread flags it copied in dup_task_struct(),
        # before its parent was marked
        ('kernel/kgr_transition.c',
         'void kgr_copy_process(struct task_struct *child)\n{\n',
         'void kgr_copy_process(struct task_struct *child)\n{\n\treturn;\n'),
    ]),
    'stale': ('3', '0156', ['test-kgr-stale-read.sh'], '', [
        # the order before 0156: kgr_trans.switch_allowed is read before the
        # mark is tested, at every safe point, and nothing notices a
        # patch that started in between (0157's stack walk of a kthread
        # stays between the read and the clear)
        ('include/linux/sched.h',
         '\tif (unlikely(test_tsk_thread_flag(p, TIF_KGR_IN_PROGRESS)))\n'
         '\t\tkgr_task_cross(p);\n',
         '\tkgr_task_cross(p);\n'),
        ('kernel/kgr_transition.c',
         '\tif (READ_ONCE(kgr_trans.switch_seq) != seq) {\n',
         '\tif (0 && READ_ONCE(kgr_trans.switch_seq) != seq) {\n'),
    ]),
    'safepoint': ('4', '0157', ['test-kgr-safepoint.sh'], '', [
        # a kthread crosses at any safe point, whatever is on its stack
        ('kernel/kgr_transition.c',
         '\tnr = stack_trace_save_tsk_reliable(current, stack, KGR_OWN_STACK_ENTRIES);\n',
         '\treturn false;\n'
         '\tnr = stack_trace_save_tsk_reliable(current, stack, KGR_OWN_STACK_ENTRIES);\n'),
    ]),
    'idle': ('5', '0159', ['test-kgr-idle.sh'], '', [
        # the idle tasks are not marked: each runs the new code from
        # the moment the stubs are live, in the middle of an iteration
        ('kernel/kgr_transition.c',
         '\tfor_each_possible_cpu(cpu)\n'
         '\t\tif (!test_and_set_tsk_thread_flag(idle_task(cpu), TIF_KGR_IN_PROGRESS))\n'
         '\t\t\tatomic_inc(&kgr_trans.tasks_marked);\n', ''),
    ]),
    'hotplug': ('6', '0155', ['test-kgr-hotplug.sh'], '', [
        # an offline CPU keeps the old universe for its interrupts
        ('kernel/kgr_transition.c',
         '\t\tif (!cpu_online(cpu)) {\n'
         '\t\t\tWRITE_ONCE(*per_cpu_ptr(kgr_patch->irq_use_new, cpu),\n'
         '\t\t\t\t   !kgr_reverting);\n'
         '\t\t\tcontinue;\n',
         '\t\tif (!cpu_online(cpu)) {\n'
         '\t\t\tcontinue;\n'),
    ]),
    'pin': ('7', '0151', ['test-kgr-pin.sh'], '', [
        # the patch module is not held while its patch is applied
        ('kernel/kgr.c',
         '\t\tstruct module *mod = __module_address(addr[i]);\n',
         '\t\tstruct module *mod = NULL;\n'),
    ]),
    'symbols': ('8', '0152', ['test-kgr-symbols.sh'], '', [
        # an ambiguous name patches the first function of that name
        ('kernel/kgr.c', '\tif (a.count > 1 && !a.pos) {\n',
         '\tif (0 && a.count > 1 && !a.pos) {\n'),
    ]),
    'stub': ('9', '0153', ['test-kgr-stub.sh'], 'kgr.stub_log=1', []),
    'exit': ('10', '0154', ['test-kgr-exit.sh'], '', [
        # a dying task's mark stays until the periodic check
        ('kernel/kgr_transition.c',
         'void kgr_task_dead(struct task_struct *p)\n{\n\tkgr_task_switch(p);\n}\n',
         'void kgr_task_dead(struct task_struct *p)\n{\n}\n'),
    ]),
    # Do no harm: invisible nudges, io_uring, forced transitions, symbol
    # references, function-level consistency
    'unseen': ('21.1', '0500', ['test-kgr-nudge-unseen.sh'], '', [
        # every task asleep interruptibly in a listed call is nudged,
        # whatever its file, flags or signal mask
        ('kernel/kgr_nudge.c',
         '\twhy = kgr_call_why(p, s);\n\tif (why)\n\t\treturn why;\n',
         '\twhy = NULL;\n'),
        ('kernel/kgr_nudge.c',
         '\t\ts->why = kgr_task_why(p);\n', '\t\ts->why = NULL;\n'),
    ]),
    'rmtp': ('21.1', '0500', ['test-kgr-nudge.sh'], '', [
        # nanosleep() writes the time left at a nudge too
        ('kernel/time/hrtimer.c',
         'TT_NONE && !kgr_nudged()) {', 'TT_NONE) {'),
    ]),
    'uring': ('21.2', '0502', ['test-kgr-uring.sh'], '', [
        # io_uring's threads taken for user tasks, as before
        ('kernel/kgr_nudge.c',
         '\t} else if (p->flags & PF_IO_WORKER) {\n',
         '\t} else if (0) {\n'),
    ]),
    'symref': ('21.7', '0503', ['test-kgr-symref.sh'], '', [
        # no taint at all: the first check the test makes
        ('kernel/module/kgraft.c',
         '\tif (!err && !test_bit(TAINT_LIVEPATCH, &mod->taints)) {\n',
         '\tif (0) {\n'),
    ]),
    'symrules': ('21.7', '0503', ['test-kgr-symref.sh'], '', [
        # the license and export checks taken back
        ('kernel/module/kgraft.c',
         '\tif (test_bit(TAINT_PROPRIETARY_MODULE, &mod->taints)) {\n',
         '\tif (0) {\n'),
        ('kernel/module/kgraft.c',
         '\t} else if (kgr_ref_exported(&ref)) {\n', '\t} else if (0) {\n'),
    ]),
    'perfn': ('21.1', '0504', ['test-kgr-per-function.sh'], '', [
        # the tasks that hold the transition stay where they are
        ('kernel/kgr_nudge.c',
         '\t    kgr_transition_per_function() &&\n',
         '\t    kgr_transition_per_function() && 0 &&\n'),
    ]),
    'kick': ('21.3', '0505', ['test-kgr-kick.sh'], '', [
        # a task running in a registered ioctl() is never interrupted
        ('kernel/kgr_nudge.c',
         '\tif (regs->ax != -ENOSYS ||\n', '\tif (1 || regs->ax != -ENOSYS ||\n'),
    ]),
    'kicksleep': ('21.3', '0505', ['test-kgr-kick.sh'], '', [
        # nor one asleep in it: every ioctl() is refused, as before
        ('kernel/kgr_nudge.c', '\t{ __NR_ioctl, KGR_IOCTL },\n', ''),
    ]),
    'dops': ('21.5', '0506', ['test-kgr-coexist.sh'], '', [
        # a direct call that ftrace refuses keeps the ops it took
        ('kernel/kgr_stack.c', '\t\tif (taken) {\n', '\t\tif (0) {\n'),
    ]),
    'objpos': ('21.5', '0507', ['test-kgr-module-pos.sh'], '', [
        # a module loaded again is searched at the patch's position
        ('kernel/kgr.c', 'kgr_old_fentry(patch_fun, mod, c->objpos, NULL)',
         'kgr_old_fentry(patch_fun, mod, patch_fun->sympos, NULL)'),
    ]),
    'prockmsg': ('21.1', '0508', ['test-kgr-nudge.sh'], '', [
        # a read of /proc/kmsg is not nudged
        ('kernel/kgr_nudge.c', '\tif (IS_ENABLED(CONFIG_PROC_FS) && proc_kmsg_file(file))\n',
         '\tif (0)\n'),
    ]),
    'nopfree': ('21.5', '0509', ['test-kgr-nop-free.sh'], '', [
        # a nop taken off is freed at once, as a kthread may compare
        # its stack with it
        ('kernel/kgr_stack.c',
         '\t\tlist_del_rcu(&nop->nop);\n\t\tlist_add(&nop->stack, &dead);\n',
         '\t\tlist_del(&nop->nop);\n\t\tkfree(nop);\n'),
    ]),
    'revdirect': ('21.5', '0510', ['test-kgr-direct.sh'], '', [
        # a revert brings the handler back, as before
        ('kernel/kgr_stack.c',
         '\tif (f->direct && !f->ipmodify && kgr_func_on_top(c)) {\n\t\ttramp = kgr_tramp_alloc(c, kgr_below(f, c));\n',
         '\tif (0) {\n\t\ttramp = kgr_tramp_alloc(c, kgr_below(f, c));\n'),
    ]),
    'dshare': ('21.6', '0512', ['test-kgr-direct-share.sh'], '', [
        # kGraft keeps its direct call: the other one is refused (EBUSY)
        ('kernel/kgr_stack.c',
         '\tif (kgr_own_direct_ops(ops))\n\t\treturn;\n\tmutex_lock(&kgr_in_progress_lock);\n\tf = kgr_find_func(ip);\n\tif (f) {\n\t\tf->yielded = true;\n',
         '\tif (1)\n\t\treturn;\n\tmutex_lock(&kgr_in_progress_lock);\n\tf = kgr_find_func(ip);\n\tif (f) {\n\t\tf->yielded = true;\n'),
    ]),
    'seltimeout': ('21.1', '0514', ['test-kgr-nudge-timeout.sh'], '', [
        # a nudged select keeps no end: its restart starts the time left again
        ('fs/select.c',
         '\tif (!kgr_nudged())\n\t\treturn false;\n\trestart->fn = poll_select_restart_tag;\n',
         '\tif (1)\n\t\treturn false;\n\trestart->fn = poll_select_restart_tag;\n'),
    ]),
    'accept': ('21.1', '0515', ['test-kgr-nudge.sh'], '', [
        # accept()'s address length pointer read as receive flags again
        ('kernel/kgr_nudge.c',
         '\t{ __NR_accept, KGR_ACCEPT },\n',
         '\t{ __NR_accept, KGR_RECVMSG },\n'),
    ]),
    'keep': ('21.4', '0501', ['test-kgr-force-keep.sh'], '', [
        # a forced revert lets the patch's module go, as a normal one does
        ('kernel/kgr_transition.c',
         '\tforced = kgr_trans.forced;\n', '\tforced = false;\n'),
    ]),
    'cbstate': ('23.4', '0402', ['test-kgr-callbacks.sh'], '', [
        # a cumulative patch without an applied patch's state is let in
        ('kernel/kgr.c', '\tret = kgr_states_compatible(patch);\n',
         '\tret = 0;\n'),
    ]),
    'reverse': ('22', '0700', ['test-kgr-reverse.sh'], '', [
        # a revert during the patch's own transition is refused again
        ('kernel/kgr.c',
         '\tif (kgr_in_progress && kgr_patch == patch && !kgr_reverting) {\n',
         '\tif (0) {\n'),
    ]),
    'reverseflip': ('22', '0700', ['test-kgr-reverse.sh'], '', [
        # the transition turns round, but the tasks' marks stay as they
        # were (the idle tasks' are still flipped)
        ('kernel/kgr_transition.c',
         '\t\t\tmarked += kgr_flip_mark(p);\n',
         '\t\t\tmarked += kgr_task_in_progress(p);\n'),
    ]),
    'tramppack': ('25.3', '0800', ['test-kgr-many.sh'], '', [
        # every trampoline takes a page of its own again
        ('kernel/kgr_stack.c',
         '\t\tif (pos < KGR_TRAMP_UNITS)\n\t\t\tgoto found;\n',
         '\t\tif (0)\n\t\t\tgoto found;\n'),
    ]),
    'nocap': ('25.1', '0802', ['test-kgr-many.sh'], '', [
        # a cap on the functions called directly, as the pool of 64 was
        ('kernel/kgr_stack.c',
         '\tif (!READ_ONCE(ftrace_enabled))\n\t\treturn -EBUSY;\n'
         '\tkgr_share_self = f->ipmodify;\n',
         '\tif (!READ_ONCE(ftrace_enabled))\n'
         '\t\treturn -EBUSY;\n'
         '\t{\n'
         '\t\tstruct kgr_func *g;\n'
         '\t\tint n = 0;\n'
         '\n'
         '\t\tlist_for_each_entry(g, &kgr_funcs, node)\n'
         '\t\t\tn += g->direct;\n'
         '\t\tif (n >= 64)\n'
         '\t\t\treturn -ENOSPC;\n'
         '\t}\n'
         '\tkgr_share_self = f->ipmodify;\n'),
        # ... and no batch beyond it
        ('kernel/kgr_stack.c',
         '\t\t\tif (!ftrace_direct_ips_add(&kgr_direct_ops, add.ips,\n',
         '\t\t\tif (add.n <= 64 &&\n'
         '\t\t\t    !ftrace_direct_ips_add(&kgr_direct_ops, add.ips,\n'),
    ]),
    'trampclass': ('25.3', '0802', ['test-kgr-many.sh'], '', [
        # finalized and transition trampolines share one list of pages
        ('kernel/kgr_stack.c',
         '\tstruct list_head *pages = &kgr_tramp_pages[units > 1];\n',
         '\tstruct list_head *pages = &kgr_tramp_pages[0];\n'),
    ]),
    'jmpshared': ('25.2', '0803', ['test-kgr-direct.sh'], '', [
        # a shared fentry site treats a jump-mode direct call as a call:
        # its target runs with the return address into the function
        ('arch/x86/kernel/ftrace_64.S',
         '1:\ttestb\t$1, %al\t\t\t/* FTRACE_DIRECT_JMP */\n\tjnz\t2f\n',
         '1:\n'),
    ]),
    'jmpnew': ('25.2', '0804', ['test-kgr-many.sh'], '', [
        # a finalized function jumps to a trampoline, not its new code
        ('kernel/kgr_stack.c',
         '\tif (top->finalized && !ftrace_direct_is_jmp(top->new))\n'
         '\t\treturn (u8 *)top->new;\n', ''),
    ]),
    'noptramp': ('25.4', '0805', ['test-kgr-many.sh'], '', [
        # the nops of a replace_all patch take the handler again
        ('kernel/kgr_stack.c',
         '\t\ttramp = kgr_push_batching && f->direct && !f->ipmodify ?\n',
         '\t\ttramp = 0 && f->direct && !f->ipmodify ?\n'),
    ]),
    'fatfunc': ('25.3', '0806', ['test-kgr-bench.sh'], '', [
        # every kgr_func carries the handler's ftrace_ops again
        ('kernel/kgr_internal.h',
         '\tstruct ftrace_ops *ops;\n',
         '\tstruct ftrace_ops *ops;\n\tstruct ftrace_ops handler_ops;\n'),
    ]),
    'atexit': ('25.5', '0807', ['test-kgr-at-exit.sh'], '', [
        # a task preempted on its way back to user mode is not marked so
        ('kernel/entry/common.c',
         '\t\t\tkgr_set_at_exit(true);\n', ''),
    ]),
    'reversenops': ('22', '0700', ['test-kgr-reverse.sh'], '', [
        # a cumulative patch turned round leaves its nops on their functions
        ('kernel/kgr.c',
         '\t\t\tkgr_func_pop_nops(kgr_patch, NULL);\n'
         '\t\t\tlist_add_tail(&kgr_patch->list, released);\n',
         '\t\t\tlist_add_tail(&kgr_patch->list, released);\n'),
    ]),
}


# what the test must say when it fails for the fix taken back (a regular
# expression on its first "FAIL:" line; a guest that died matches
# "GUEST DIED"): a run red for another reason (a slow guest, say) is not
# counted
EXPECT = {
    'bh': r'mixed versions|switches within the trip',
    'fork': r'switches within the trip|first call of the trip',
    'stale': r"switches within the kthread's trip|first call of the kthread's held trip",
    'safepoint': r'rounds with old and new code',
    'idle': r'mixed old and new code|no idle iteration ran the new code',
    'hotplug': r'CPU 1',
    'pin': r'removed under its live stub|not in /proc/modules|complained|GUEST DIED',
    'symbols': r'kgr_test_dup_noname loaded|ambiguous|kgr_test_dup_fn\(\) of',
    'stub': r'kgr.stub_log by default',
    'exit': r'periodic check',
    'unseen': r"returned while the patch loaded|expected 'ret=8 errno=0'|expected 'ret=1 errno=0'|does not name",
    'rmtp': r"nanosleep's rem after a nudge",
    'uring': r'did not finalize',
    'symref': r'does not taint the kernel K',
    'symrules': r'kgr_test_symref_export loaded',
    'perfn': r'patching did not finalize',
    'kick': r'patching did not finalize',
    'kicksleep': r'patching did not finalize',
    'dops': r'no direct call for kgr_test_fn_coexist_klp',
    'objpos': r'insmod kgr_test_twin_[ab].ko failed|kgr_test_twin_[ab].s function after it loaded again',
    'prockmsg': r'patching did not finalize',
    'nopfree': r'nops freed while the walker compared with them|KASAN|GUEST DIED',
    'revdirect': r'no direct call during the revert|the handler is there during the revert',
    'dshare': r'the other direct call was refused: .*no direct call on kgr_test_fn_direct_share \(-16\)',
    'seltimeout': r'the nudged select took \d+ ms for a timeout of 4000 ms',
    'accept': r'patching did not finalize within 5 s',
    'keep': r'rmmod of a module a task may still run|does not say that|does not list|GUEST DIED',
    'cbstate': r'kgr_test_callbacks_c loaded',
    'tramppack': r'the trampolines of \d+ functions take \d+ pages',
    'nocap': r'only \d+ of the 1024 functions (are called directly|jump to their new code)',
    'jmpshared': r"kgr_test_fn_direct\(\) (traced|with a kprobe and a kretprobe): expected '2'|GUEST DIED",
    'jmpnew': r'only 0 of the 1024 functions jump to their new code',
    'noptramp': r"functions not on a transition trampoline of their nop|called directly while their nops' transition is held",
    'trampclass': r'the trampolines of \d+ functions take \d+ pages',
    'fatfunc': r'kGraft keeps \d+ B per function called directly, livepatch \d+ B',
    'atexit': r'no task was switched on its way back to user mode',
    'reverse': r'the revert of kgr_test_patch_reverse was refused',
    'reverseflip': r'the revert of kgr_test_patch_reverse did not finalize|the held trip|the held task',
    # a nop left on top of kgr_test_fn_reverse_all() sends the calls of
    # tasks that are not marked below it, but the patch below can no
    # longer be reverted
    'reversenops': r'kgr_test_fn_reverse_all\(\) after the revert|the revert of kgr_test_patch_reverse_all was refused',
}

# The same fixes taken back with the scenario's function the 1025th of
# its patch (kgr.many=1: the patch carries kgr_test_many's 1024
# functions before it): the tests still catch them in a large patch.
for _cid in ('bh', 'fork'):
    _item, _patch, _tests, _kappend, _edits = CASES[_cid]
    CASES[_cid + 'many'] = ('25', _patch, _tests,
                            ('%s kgr.many=1' % _kappend).strip(), _edits)
    EXPECT[_cid + 'many'] = EXPECT[_cid]


def edit(ksrc, edits):
    """Apply the edits; return the original texts to restore."""
    saved = {}
    for path, old, new in edits:
        full = os.path.join(ksrc, path)
        text = saved.get(full)
        if text is None:
            with open(full) as f:
                text = f.read()
            saved[full] = text
        with open(full) as f:
            cur = f.read()
        if cur.count(old) != 1:
            restore(saved)
            raise SystemExit('red-runs: %s: the text to change is not there '
                             'exactly once (has the fix changed?)' % path)
        with open(full, 'w') as f:
            f.write(cur.replace(old, new))
    return saved


def restore(saved):
    for full, text in saved.items():
        with open(full, 'w') as f:
            f.write(text)


def verdicts(log):
    """{test: (ok, first FAIL line)} from a guest console log."""
    res, fail = {}, {}
    last_fail = None
    with open(log, errors='replace') as f:
        for line in f:
            m = re.search(r'# kgr-test: FAIL: (.*)', line)
            if m and last_fail is None:
                last_fail = m.group(1).strip()
            m = re.match(r'(not ok|ok) \d+ (\S+)', line)
            if m:
                res[m.group(2)] = m.group(1) == 'ok'
                fail[m.group(2)] = last_fail
                last_fail = None
    return {t: (res[t], fail[t]) for t in res}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--ksrc', required=True)
    ap.add_argument('--make', required=True)
    ap.add_argument('--stamp', required=True,
                    help='the tree stamp of that build folder')
    ap.add_argument('--logdir', required=True)
    ap.add_argument('--debian', action='store_true',
                    help='build the Debian guest (debian-image) and boot it '
                    '(debian-boot) instead of the busybox initramfs')
    ap.add_argument('ids', nargs='*')
    a = ap.parse_args()
    # a kill still puts the source back (the finally below)
    signal.signal(signal.SIGTERM, lambda sig, frame: sys.exit(128 + sig))
    make = shlex.split(a.make)
    ids = a.ids or list(CASES)
    red = 0
    for cid in ids:
        item, patch, tests, kappend, edits = CASES[cid]
        saved = edit(a.ksrc, edits)
        name = 'red-%s' % cid
        try:
            # make passes no -o down: the Debian sub-make gets it so
            build = (['debian-image', 'DEBIAN_MAKEFLAGS=-o ' + a.stamp]
                     if a.debian else ['initramfs'])
            rc = subprocess.call(make + ['-o', a.stamp] + build,
                                 stdout=subprocess.DEVNULL)
            if rc:
                raise SystemExit('red-runs: %s: the build failed' % cid)
            if a.debian:
                boot = ['debian-boot', 'DEBIAN_LOG=' +
                        os.path.join(a.logdir, name + '.log')]
            else:
                boot = ['-o', 'kernel', '-o', 'initramfs', 'boot',
                        'LOG_NAME=' + name]
            subprocess.call(make + ['-o', a.stamp] + boot +
                            ['KAPPEND=kgr.tests=%s %s' %
                             (','.join(tests), kappend)],
                            stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
        finally:
            restore(saved)
        log = os.path.join(a.logdir, name + '.log')
        v = verdicts(log) if os.path.exists(log) else {}
        for t in tests:
            ok, why = v.get(t, (None, None))
            if ok is None:
                why = 'GUEST DIED (no verdict; see the log)'
            if ok:
                state = 'GREEN: the test did not see the fix taken back'
            elif re.search(EXPECT[cid], why or ''):
                red += 1
                state = 'red'
            else:
                state = 'RED FOR ANOTHER REASON'
            print('red-runs: item %s (patch %s), %s: %s%s; log %s' %
                  (item, patch, t, state, ': ' + why if why else '', log))
            sys.stdout.flush()
    total = sum(len(CASES[c][2]) for c in ids)
    print('red-runs: %d of %d runs red for the expected reason' %
          (red, total))
    return 0 if red == total else 1


if __name__ == '__main__':
    sys.exit(main())
