#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench-report.py: the kGraft/livepatch benchmark's table and plot.

    bench-report.py --icount LOG [--icount LOG ...] --wall LOG --out DIR

Reads the "KGR-BENCH ..." lines that initramfs/tests/test-kgr-bench.sh
printed into the console logs of the benchmark's boots: the per-call
figures from the boots under "-icount shift=0,sleep=off" (deterministic:
the guest clock counts executed instructions), the transitions and the
memory from the boot without icount (wall time of a TCG guest).  Prints
one markdown table, writes it to DIR/bench.md, the samples of the first
transition under load to DIR/transition-load.dat and, with gnuplot, the
plot DIR/transition-load.png.  Exits 1 only when a log lacks the figures
(the benchmark did not run), never because of what they are.
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys

SYSTEMS = ('kgr', 'klp')
NAMES = {'kgr': 'kGraft (handler)', 'klp': 'livepatch',
         'kgrt': 'kGraft (trampolines)',
         'kgrm': 'kGraft next to many', 'klpm': 'livepatch next to many'}


def bench_lines(path):
    """The KGR-BENCH lines of a console log, without the prefix."""
    lines = []
    with open(path, errors='replace') as f:
        for line in f:
            m = re.search(r'KGR-BENCH (.*\S)', line)
            if m:
                lines.append(m.group(1))
    return lines


MODES = ('sleep', 'sleepfn', 'busy', 'mix')
MODE_NAMES = {'sleep': 'asleep (futex)',
              'sleepfn': 'asleep (futex), function-level consistency',
              'busy': 'busy (getppid loop, nice 19)',
              'mix': 'half and half'}


def kv(words):
    """{'a': '1'} from ['a=1', ...]; words without '=' are skipped."""
    return dict(w.split('=', 1) for w in words if '=' in w)


def parse(path):
    res = {'call': {}, 'trans': [], 'daemons': [], 'samples': {}, 'size': {},
           'module': {}, 'trampoline': None, 'params': {}, 'done': False,
           'scale': {}, 'threads': {}, 'holds': {}}
    for line in bench_lines(path):
        w = line.split()
        if w[0] == 'call' and len(w) >= 3:
            res['call'][(w[1], w[2])] = kv(w[3:])
        elif w[0] == 'trans' and len(w) >= 3:
            d = kv(w[3:])
            d.update(tag=w[1], kind=w[2])
            res['trans'].append(d)
        elif w[0] == 'daemons' and len(w) >= 3:
            d = kv(w[3:])
            d.update(tag=w[1], kind=w[2])
            res['daemons'].append(d)
        elif w[0] == 'sample' and len(w) >= 5:
            d = kv(w[3:])
            res['samples'].setdefault((w[1], w[2]), []).append(
                (int(d['t_ms']), int(d['old'])))
        elif w[0] == 'size':
            res['size'].update({k: int(v) for k, v in kv(w[1:]).items()})
        elif w[0] == 'module' and len(w) == 4:
            res['module'][w[1]] = int(w[3])
        elif w[0] == 'trampoline' and len(w) == 2 and w[1].isdigit():
            res['trampoline'] = int(w[1])
        elif w[0] == 'scale' and len(w) >= 3 and w[1].isdigit():
            res['scale'].setdefault((int(w[1]), w[2]), {}).update(kv(w[3:]))
        elif w[0] == 'threads' and len(w) >= 3:
            d = kv(w[3:])
            if d.get('n', '').isdigit() and 'mode' in d:
                res['threads'][(int(d['n']), d['mode'], w[2])] = d
        elif w[0] == 'holds' and len(w) >= 3:
            res['holds'][(w[1], w[2])] = kv(w[3:])
        elif w[0] == 'params':
            res['params'] = kv(w[1:])
        elif w[0] == 'many' and len(w) == 2 and w[1].isdigit():
            res['many'] = int(w[1])
        elif w[0] == 'done':
            res['done'] = True
    return res


def per_call(call, system, case):
    """ns per call of one timed loop, or None."""
    d = call.get((system, case))
    if not d:
        return None
    return int(d['ns']) / int(d['loops'])


def fmt_call(call, system, case):
    ns = per_call(call, system, case)
    base = per_call(call, system, 'unpatched')
    if ns is None or not base:
        return 'n/a'
    return '%.2f ns (%.2f×)' % (ns, ns / base)


def universe_ok(call, system, case):
    """Did the loop run where it should (old/new code, universe)?"""
    d = call.get((system, case))
    if not d:
        return False
    loops = int(d['loops'])
    want = {'unpatched': loops, 'old': loops, 'new': 2 * loops,
            'after': 2 * loops}[case]
    return int(d['sum']) == want


def mmm(values, scale, unit, digits):
    if not values:
        return 'n/a'
    f = '%%.%df' % digits
    return '%s / %s / %s %s' % (f % (min(values) / scale),
                                f % (statistics.median(values) / scale),
                                f % (max(values) / scale), unit)


def trans_values(trans, kind, scen, key):
    return [int(t[key]) for t in trans
            if t['kind'] == kind and t['tag'].startswith(scen + '-')
            and key in t and int(t[key]) >= 0]


def trans_count(trans, kind, scen):
    return len([t for t in trans
                if t['kind'] == kind and t['tag'].startswith(scen + '-')])


DAEMON_KINDS = 'poll, epoll_wait, read of a pipe, futex wait, select, ' \
    'pause, wait4'


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--icount', action='append', default=[])
    ap.add_argument('--wall', required=True)
    ap.add_argument('--out', required=True)
    args = ap.parse_args()

    missing = []
    icount = []
    for path in args.icount:
        r = parse(path) if os.path.exists(path) else None
        if not r or not r['done']:
            missing.append(path)
        else:
            icount.append(r)
    wall = parse(args.wall) if os.path.exists(args.wall) else None
    if not wall or not wall['done']:
        missing.append(args.wall)
    # A boot without figures fails the run; the report is still written
    # from the other boots when they have what it needs.
    for path in missing:
        print('bench: no complete benchmark in %s (see that log)' % path,
              file=sys.stderr)
    if not icount or not wall or not wall['done']:
        return 1

    ic = icount[0]['call']
    cases = [(s, c) for s in SYSTEMS + ('kgrt', 'kgrm', 'klpm')
             for c in ('unpatched', 'old', 'new', 'after')]
    raw = [tuple((k, ic_['call'].get(k, {}).get('ns')) for k in cases)
           for ic_ in icount]
    same = all(r == raw[0] for r in raw)
    p = wall['params']
    sz = wall['size']
    tramp = wall['trampoline'] or 0

    rows = []
    clock_ic = 'icount (deterministic)'
    clock_w = 'wall (TCG guest)'
    rows.append(('call, unpatched function',
                 fmt_call(ic, 'kgr', 'unpatched'),
                 fmt_call(ic, 'klp', 'unpatched'), clock_ic))
    # kgrt: kGraft with its direct calls and trampolines (the
    # default); kgr: the handler (kgr.direct=0)
    for univ in ('old', 'new'):
        rows.append(('call during the transition, caller in the %s universe '
                     '(kGraft: transition trampoline)' % univ,
                     fmt_call(ic, 'kgrt', univ), fmt_call(ic, 'klp', univ),
                     clock_ic))
    for univ in ('old', 'new'):
        rows.append(('call during the transition, caller in the %s universe '
                     '(kGraft: the handler\'s slow path; kgr.direct=0)'
                     % univ,
                     fmt_call(ic, 'kgr', univ), fmt_call(ic, 'klp', univ),
                     clock_ic))
    rows.append(('call after the transition (kGraft: direct call)',
                 fmt_call(ic, 'kgrt', 'after'), fmt_call(ic, 'klp', 'after'),
                 clock_ic))
    rows.append(('call after the transition (kGraft: the handler, '
                 'the RFC\'s fast stub; kgr.direct=0)',
                 fmt_call(ic, 'kgr', 'after'), fmt_call(ic, 'klp', 'after'),
                 clock_ic))
    # the same function cases, next to N patched functions (older logs
    # have none)
    many = icount[0].get('many')
    if many:
        for case, what in (('old', 'during the transition, caller in the '
                            'old universe'),
                           ('new', 'during the transition, caller in the '
                            'new universe'),
                           ('after', 'after the transition')):
            rows.append(('call %s, the function patched next to %d others '
                         '(kGraft: trampolines)' % (what, many),
                         fmt_call(ic, 'kgrm', case),
                         fmt_call(ic, 'klpm', case), clock_ic))
    tr = wall['trans']
    inits = {s: trans_values(tr, s, 'idle', 'init_us') +
             trans_values(tr, s, 'load', 'init_us') for s in SYSTEMS}
    rows.append(('patch module init (min / median / max of %d)'
                 % len(inits['kgr']),
                 mmm(inits['kgr'], 1000, 'ms', 1),
                 mmm(inits['klp'], 1000, 'ms', 1), clock_w))
    daemons = int(p.get('daemons', 0))
    scens = (('idle', 'idle guest'),
             ('load', '%s busy + %s nanosleep + %d daemon tasks asleep in '
              'the kernel' % (p.get('busy', '?'), p.get('sleepers', '?'),
                              8 * daemons)))
    for scen, what in scens:
        done = {s: trans_values(tr, s, scen, 'done_us') for s in SYSTEMS}
        n = trans_count(tr, 'kgr', scen)
        unfinished = {s: trans_count(tr, s, scen) - len(done[s])
                      for s in SYSTEMS}

        def cell(s):
            c = mmm(done[s], 1e6, 's', 3)
            if unfinished[s]:
                c += ' (%d NOT COMPLETE)' % unfinished[s]
            return c
        rows.append(('transition, %s, insmod to finalized (min / median / '
                     'max of %d)' % (what, n), cell('kgr'), cell('klp'),
                     clock_w))
    for scen, what in (('idle', 'idle guest'), ('load', 'under load')):
        last = trans_values(tr, 'kgr', scen, 'last_us')
        rows.append(('kGraft: last task crossed to the check that finalized, '
                     '%s (min / median / max of %d)' % (what, len(last)),
                     mmm(last, 1000, 'ms', 2),
                     'n/a (no such figure)', clock_w))
    fin = {scen: [1000 * v for v in trans_values(tr, 'kgr', scen, 'fin_ms')]
           for scen in ('idle', 'load')}
    rows.append(('kGraft: kgr_start_patching() to the check that finalized '
                 '(min / median / max)',
                 'idle %s; under load %s' % (mmm(fin['idle'], 1000, 'ms', 0),
                                              mmm(fin['load'], 1000, 'ms', 0)),
                 'n/a', clock_w))
    work = (trans_values(tr, 'kgr', 'idle', 'work_us') +
            trans_values(tr, 'kgr', 'load', 'work_us'))
    rows.append(('kGraft: kgr_finalize(), "kgr succeeded" to "transition '
                 'finalized" (min / median / max of %d)' % len(work),
                 mmm(work, 1000, 'ms', 2), 'n/a', clock_w))
    trig = []
    for scen, what in scens:
        ts = [t.get('trigger', '-1') for t in tr
              if t['kind'] == 'kgr' and t['tag'].startswith(scen + '-')]
        counts = ', '.join('%d %s' % (ts.count(k), {
            'at-once': 'checked at once', 'periodic': 'periodic check',
            '-1': 'no "transition finalized" line'}.get(k, k))
            for k in sorted(set(ts)))
        trig.append('%s: %s' % (scen, counts or 'none'))
    rows.append(('kGraft: what finalized the transition (of %d each)'
                 % trans_count(tr, 'kgr', 'idle'), '; '.join(trig), 'n/a',
                 'kernel log'))
    dm = wall['daemons']
    ret = {}
    for s in SYSTEMS:
        ds = [d for d in dm if d['kind'] == s and d['tag'].startswith('load-')]
        ret[s] = '%d (%s tasks, %d transitions)' % (
            sum(int(d['returned']) for d in dm if d['kind'] == s),
            ds[0]['tasks'] if ds else '?', len(ds))
    rows.append(('daemons\' system calls that returned during the '
                 'transitions (must be 0)', ret['kgr'], ret['klp'],
                 'count'))
    rows.append(('memory per task',
                 '%d B (a TIF flag bit)' % sz.get('kgr_task_bytes', 0),
                 '%d B (task_struct.patch_state) + a TIF flag bit'
                 % sz.get('klp_task_bytes', 0), 'sizeof'))
    # ftrace's filter of one function: its hash, one bucket, the entry
    filt = (sz.get('ftrace_hash', 0) + sz.get('ftrace_bucket', 0) +
            sz.get('ftrace_entry', 0))
    kgr_ptrs = sz.get('kgr_caches_ptr', 0) + sz.get('kgr_patch_ptr', 0)
    kgr_fn = (sz.get('kgr_patch_fun', 0) + kgr_ptrs +
              sz.get('kgr_loc_caches', 0) + sz.get('kgr_func', 0) +
              2 * sz.get('ftrace_entry', 0))
    klp_fn = sz.get('klp_func', 0) + sz.get('klp_ops_slab', 0) + filt
    rows.append(('memory per patched function (kGraft: called directly)',
                 '%d B (entry %d, pointers %d, caches %d, kgr_func %d, '
                 'ftrace\'s direct call 2 × %d); new code at an odd address: '
                 '+ 16 B of trampoline; while the function needs the '
                 'handler: + %d B and an ftrace trampoline'
                 % (kgr_fn, sz.get('kgr_patch_fun', 0), kgr_ptrs,
                    sz.get('kgr_loc_caches', 0), sz.get('kgr_func', 0),
                    sz.get('ftrace_entry', 0),
                    sz.get('ftrace_ops_slab', 0) + filt),
                 '%d B (klp_func %d, klp_ops %d, ftrace\'s filter %d) + an '
                 'ftrace trampoline + a sysfs directory'
                 % (klp_fn, sz.get('klp_func', 0), sz.get('klp_ops_slab', 0),
                    filt),
                 'sizeof, ksize'))
    rows.append(('ftrace trampoline of a function\'s ftrace_ops (kGraft: '
                 'its handler, kgr.direct=0)',
                 '%d B of code in a 4 KiB page of its own' % tramp,
                 'the same, for every patched function', 'trampoline_size'))
    kgr_patch = sz.get('kgr_patch', 0) + sz.get('kgr_patch_ptr', 0)
    klp_patch = (sz.get('klp_patch', 0) + 2 * sz.get('klp_object', 0) +
                 sz.get('klp_func', 0))
    rows.append(('memory per patch',
                 '%d B (kgr_patch, end pointer) + 1 B per CPU (%d) until '
                 'finalized + a sysfs directory'
                 % (kgr_patch, sz.get('nr_cpu_ids', 0)),
                 '%d B (klp_patch, 2 klp_object, end klp_func) + sysfs '
                 'directories' % klp_patch, 'sizeof'))
    rows.append(('patch module in memory (/proc/modules)',
                 '%s B' % wall['module'].get('kgr', 'n/a'),
                 '%s B' % wall['module'].get('klp', 'n/a'), 'page-rounded'))

    table = ['| figure | kGraft | livepatch | clock |',
             '|---|---|---|---|']
    table += ['| %s | %s | %s | %s |' % r for r in rows]
    notes = []
    icp = icount[0]['params']
    notes.append('Per call: %s calls of a cheap non-inlined function per '
                 'timed loop, interrupts off, under QEMU "-icount shift=0,'
                 'sleep=off" (one vCPU): the guest clock advances 1 ns per '
                 'executed instruction, so a figure is instructions per '
                 'call, independent of the host; the ratio is to the same '
                 'function unpatched.' % icp.get('loops', '?'))
    notes.append('Deterministic: %d icount boots gave %s per-call totals.'
                 % (len(icount), 'identical' if same else 'DIFFERENT'))
    for s in SYSTEMS + ('kgrt',) + (('kgrm', 'klpm') if many else ()):
        bad = [c for c in ('unpatched', 'old', 'new', 'after')
               if not universe_ok(ic, s, c)]
        if bad:
            notes.append('WARNING: %s loops %s ran other code than '
                         'expected.' % (NAMES[s], ', '.join(bad)))
    notes.append('Transitions: wall time of the TCG guest (noisy, host '
                 'dependent), from just before finit_module() to "kgr: '
                 'transition finalized" (after kgr_finalize()) / "patching '
                 'complete", time stamps of the kernel log; load: getppid() '
                 'loops, nanosleep(%s ms) loops and %s of each kind of '
                 'daemon that sleeps in the kernel for good (%s; wait4 for '
                 'a child of its own in pause()); the test shell sleeps in '
                 'wait4() in both scenarios.'
                 % (p.get('sleep_ms', '?'), daemons, DAEMON_KINDS))
    notes.append('kGraft: last task crossed to finalized: the kernel\'s '
                 'own figure ("B us after the last task crossed"), up to '
                 'the check that found no task left, before '
                 'kgr_finalize(); "checked at once": the check the last '
                 'crossing (or the start) asked for, "periodic check": the '
                 'safety net (100 ms doubling to 1 s).')

    sc = wall['scale']
    sizes = sorted({n for n, _ in sc})
    if sizes:
        def ms(n, kind, key):
            v = sc.get((n, kind), {}).get(key)
            return '%s ms' % v if v is not None else 'n/a'
        table += ['', '| functions in the patch | kGraft apply (finalization) '
                  '| livepatch apply | kGraft revert (finalization) '
                  '| livepatch revert |', '|---|---|---|---|---|']
        for n in sizes:
            table.append('| %d | %s (%s) | %s | %s (%s) | %s |' % (
                n, ms(n, 'kgr', 'apply_ms'), ms(n, 'kgr', 'fin_ms'),
                ms(n, 'klp', 'apply_ms'), ms(n, 'kgr', 'revert_ms'),
                ms(n, 'kgr', 'rfin_ms'), ms(n, 'klp', 'revert_ms')))
        if any('insmod_apply_ms' in v for v in sc.values()):
            table += ['', '| functions in the patch | longest insmod of an '
                      'unrelated module: kGraft apply | livepatch apply '
                      '| kGraft revert | livepatch revert |',
                      '|---|---|---|---|---|']
            for n in sizes:
                table.append('| %d | %s | %s | %s | %s |' % (
                    n, ms(n, 'kgr', 'insmod_apply_ms'),
                    ms(n, 'klp', 'insmod_apply_ms'),
                    ms(n, 'kgr', 'insmod_revert_ms'),
                    ms(n, 'klp', 'insmod_revert_ms')))
            notes.append('Longest insmod: the same steps again, while '
                         'kgr_test_mod (which no patch touches) is loaded '
                         'and removed in a loop, 50 ms apart; the longest '
                         'load, from /proc/uptime (10 ms steps).')
        if any('slab_kb' in v for v in sc.values()):
            def per_fn(n, kind):
                v = sc.get((n, kind), {})
                if 'slab_kb' not in v:
                    return 'n/a'
                slab = int(v['slab_kb']) * 1024
                vm = int(v['vmalloc_kb']) * 1024 - int(v['module_b'])
                return '%d B (slab %d, vmalloc %d)' % (
                    (slab + vm) // n, slab // n, vm // n)
            table += ['', '| functions in the patch | memory per function, '
                      'measured: kGraft | livepatch |', '|---|---|---|']
            for n in sizes:
                table.append('| %d | %s | %s |' % (
                    n, per_fn(n, 'kgr'), per_fn(n, 'klp')))
            notes.append('Memory measured: the growth of /proc/meminfo\'s '
                         'Slab and VmallocUsed from before the insmod to the '
                         'end of the transition (vm.stat_refresh first), '
                         'less the patch module (/proc/modules), divided by '
                         'the number of functions; kB steps, so the small '
                         'patches are noise.')
        notes.append('Patches of N functions (kgr_test_many, one boot, '
                     'idle guest, wall time of the TCG guest): from just '
                     'before finit_module() (or the write that starts the '
                     'revert) to the end of the transition, "kgr: transition '
                     'finalized" / "patching complete", time stamps of the '
                     'kernel log; in parentheses kGraft\'s finalization, '
                     'which holds its lock.')

    th = wall['threads']
    if th:
        def tms(n, mode, kind, what='done_us'):
            d = th.get((n, mode, kind), {})
            us = int(d.get(what, -1))
            return '%.2f s' % (us / 1e6) if us >= 0 else 'n/a'

        def fork(n, mode, kind):
            d = th.get((n, mode, kind), {})
            if 'fork_max_us' not in d:
                return 'n/a'
            base = int(d['fork_base_max_us']) / 1e3
            if int(d['fork_max_us']) < 0:
                return 'no fork ended (%.1f)' % base
            return '%.1f ms (%.1f)' % (int(d['fork_max_us']) / 1e3, base)
        def hold(n, mode, kind, what='walks'):
            funcs = {('kgr', 'walks'): ('kgr_mark_all', 'kgr_any_marked'),
                     ('klp', 'walks'): ('klp_start_transition',
                                        'klp_try_complete_transition'),
                     ('kgr', 'pins'): ('kgr_snap_fn', 'kgr_at_exit_fn',
                                       'kgr_switch_fn'),
                     ('klp', 'pins'): ('klp_check_and_switch_task',)}[
                         (kind, what)]
            d = wall['holds'].get(('%s-%d' % (mode, n), kind), {})
            us = [int(d[f].split('/')[1]) for f in funcs
                  if f in d and '/' in d[f] and d[f].split('/')[1] != '-1']
            calls = [int(d[f].split('/')[0]) for f in funcs
                     if f in d and '/' in d[f] and d[f].split('/')[0] != '-1']
            if not us:
                return 'n/a'
            if what == 'pins':
                return '%d us (%d looks)' % (max(us), sum(calls))
            return '%.1f ms (%d walks)' % (max(us) / 1e3, sum(calls))
        table += ['', '| threads | they | kGraft transition | livepatch '
                  'transition | kGraft revert | livepatch revert | '
                  'kGraft: longest fork (before) | livepatch: '
                  'longest fork (before) | kGraft: longest walk under '
                  'tasklist_lock | livepatch: the same | kGraft: longest '
                  'look at a pinned task (interrupts off) | livepatch: the '
                  'same |',
                  '|---|---|---|---|---|---|---|---|---|---|---|---|']
        for n, mode in sorted({(n, m) for n, m, _ in th},
                              key=lambda k: (k[0], MODES.index(k[1])
                                             if k[1] in MODES else 9)):
            table.append('| %d | %s | %s | %s | %s | %s | %s | %s | %s | %s '
                         '| %s | %s |'
                         % (n, MODE_NAMES.get(mode, mode), tms(n, mode, 'kgr'),
                            tms(n, mode, 'klp'),
                            tms(n, mode, 'kgr', 'revert_us'),
                            tms(n, mode, 'klp', 'revert_us'),
                            fork(n, mode, 'kgr'),
                            fork(n, mode, 'klp'), hold(n, mode, 'kgr'),
                            hold(n, mode, 'klp'),
                            hold(n, mode, 'kgr', 'pins'),
                            hold(n, mode, 'klp', 'pins')))
        notes.append('Threads: a patch of one function applied while N '
                     'threads of one process sleep in a futex wait, call '
                     'getppid() in a loop at nice 19, or half and half; '
                     '"function-level consistency": the sleepers again, '
                     'the kGraft patch with .per_function set (livepatch '
                     'has that model anyway); from just '
                     'before finit_module() to "kgr: transition finalized" / '
                     '"patching complete" (kernel log time stamps). Then '
                     'reverted, the threads still there: from just before '
                     'the write to the revert file (kGraft) or of 0 to '
                     'enabled (livepatch) to "kgr: transition finalized" / '
                     '"unpatching complete". Longest '
                     'fork: a task forks a child that exits at once, waits '
                     'for it and sleeps 1 ms, in a loop; the longest round '
                     'trip during the transition that applies, and in '
                     'parentheses during the second before it. Longest walk '
                     '(apply and revert): the longest call of '
                     'the functions that walk the task list under '
                     'tasklist_lock (kGraft: kgr_mark_all(), '
                     'kgr_any_marked(); livepatch: klp_start_transition(), '
                     'klp_try_complete_transition()), entry to return, by '
                     'kretprobes; a fork waits for the lock with its '
                     'interrupts off meanwhile. Longest look at a pinned '
                     'task (apply and revert): the longest call of the functions that '
                     'task_call_func() runs with the task\'s locks held '
                     'and interrupts off (kGraft: kgr_snap_fn(), '
                     'kgr_at_exit_fn(), kgr_switch_fn(); livepatch: '
                     'klp_check_and_switch_task()).')

    os.makedirs(args.out, exist_ok=True)
    text = ('\n'.join(table) + '\n\n' +
            ''.join('- %s\n' % n for n in notes))
    print(text, end='')
    with open(os.path.join(args.out, 'bench.md'), 'w') as f:
        f.write(text)

    # the first transition under load of each system, for gnuplot
    dat = os.path.join(args.out, 'transition-load.dat')
    with open(dat, 'w') as f:
        for s in SYSTEMS:
            f.write('# %s: t (s)  threads in the old universe\n' % NAMES[s])
            for t, old in wall['samples'].get(('load-1', s), []):
                f.write('%.3f %d\n' % (t / 1000, old))
            f.write('\n\n')
    png = os.path.join(args.out, 'transition-load.png')
    # a dashed line where each transition completed, labelled on the
    # side with more room, in the full plot and in the first 3.5 s
    tmax = max([t / 1000 for k in wall['samples'] if k[0] == 'load-1'
                for t, _ in wall['samples'][k]] + [1])
    marks, zoom_marks = '', ''
    for i, sys_ in enumerate(SYSTEMS):
        done = [int(t['done_us']) for t in tr
                if t['kind'] == sys_ and t['tag'] == 'load-1']
        if not done or done[0] < 0:
            continue
        x = done[0] / 1e6
        line = ("set arrow from %.3f, graph 0 to %.3f, graph 1 nohead "
                "dt 2 lc %d\n" % (x, x, i + 1))
        label = ("set label '%s complete: %.2f s' at %.3f, graph %.2f "
                 "%%s tc lt %d\n" % (NAMES[sys_], x, x, 0.7 - 0.15 * i, i + 1))
        side = {True: 'left offset 0.5,0', False: 'right offset -0.5,0'}
        marks += line + label % side[x < tmax / 2]
        if x <= 3.5:
            zoom_marks += line + label % side[x < 1.75]
    if shutil.which('gnuplot'):
        plot = (("plot '%s' index 0 using 1:2 with steps lw 2 lt 1 "
                 "title 'kGraft (kgr_in_progress = 1)', "
                 "'%s' index 1 using 1:2 with steps lw 2 lt 2 dt 3 "
                 "title 'livepatch (patch_state = 0)'") % (dat, dat))
        script = '''
set terminal pngcairo size 900,800 noenhanced
set output '%s'
set multiplot layout 2,1 title 'Threads still in the old universe during a transition under load (%s busy + %s nanosleep + %d daemon tasks)'
set ylabel 'threads in the old universe'
set key top right
set grid
set yrange [-0.5:*]
%s
set xlabel 'seconds since just before finit_module() of the patch (wall time, TCG guest)'
%s
unset arrow
unset label
%s
set xrange [0:3.5]
set xlabel 'the first 3.5 s (per-CPU idle tasks are not in /proc and not counted)'
%s
unset multiplot
''' % (png, p.get('busy', '?'), p.get('sleepers', '?'), 8 * daemons,
       marks, plot, zoom_marks, plot)
        r = subprocess.run(['gnuplot'], input=script, text=True)
        if r.returncode == 0:
            print('\nPlot: %s' % png)
        else:
            print('\nbench: gnuplot failed; data in %s' % dat,
                  file=sys.stderr)
    else:
        print('\nbench: no gnuplot (make deps installs gnuplot-nox); data '
              'in %s' % dat, file=sys.stderr)
    return 1 if missing else 0


if __name__ == '__main__':
    sys.exit(main())
