#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""compare-rfc.py: the port side by side with the RFC patches it carries.

  compare-rfc.py --seeds DIR --patches DIR [--detail] [PATCH...]

For each RFC patch present in the seeds (seed 002 is RFC 01/16 and our
0001, and so on; the map is SEED_MAP below) print, file by file, what the
RFC touched and what the port touches, and how the port's hunks relate to
the RFC's:

  unchanged  a port hunk whose added and removed lines are the RFC's, byte
             for byte (context and line numbers may differ; a port hunk
             that is an exact run of one RFC hunk's lines, because 6.1's
             context split that hunk, counts here too)
  changed    a port hunk that carries a good part of an RFC hunk's lines
             with differences (in the same file, or moved from another
             one: "<-" names the RFC's file)
  added      a port hunk with no RFC counterpart
  dropped    an RFC hunk that no port hunk carries

followed by the deviations one per line (port hunk, RFC hunk, first
differing line) and the first line of each port note, the place to read
why.  "lines" counts the RFC's added/removed lines found verbatim in the
port's hunks of the same patch.
"""

import argparse
import difflib
import os
import re
import sys

# seed number -> our patch number
SEED_MAP = [(2, 1), (3, 2), (4, 4), (5, 6), (6, 8), (7, 9), (8, 11), (9, 12),
            (10, 15), (11, 16)]

HUNK = re.compile(r'^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$')


class Hunk:
    def __init__(self, path, old, new, func):
        self.path, self.old, self.new, self.func = path, old, new, func
        self.lines = []            # (op, text) with op in ' +-'
        self.kind = None           # unchanged / changed / added / dropped
        self.peer = None
        self.note = ''

    def changes(self):
        return [(op, t.rstrip()) for op, t in self.lines if op in '+-']

    def norm(self):
        return [(op, ' '.join(t.split())) for op, t in self.changes()]

    def counts(self):
        c = self.changes()
        return (sum(1 for op, _ in c if op == '+'),
                sum(1 for op, _ in c if op == '-'))

    def where(self):
        return '%s @@ -%d +%d' % (self.path, self.old, self.new)


def parse(path):
    """(message lines, {file: [Hunk]}, [files in order])"""
    with open(path, encoding='utf-8', errors='replace') as f:
        lines = f.read().split('\n')
    files = {}
    order = []
    msg = []
    i = 0
    in_diff = False
    while i < len(lines):
        ln = lines[i]
        if ln.startswith('--- ') and i + 1 < len(lines) \
                and lines[i + 1].startswith('+++ '):
            in_diff = True
            old = ln[4:].split('\t')[0]
            new = lines[i + 1][4:].split('\t')[0]
            p = new if new != '/dev/null' else old
            p = re.sub(r'^[ab]/', '', p)
            if p not in files:
                files[p] = []
                order.append(p)
            i += 2
            while i < len(lines):
                m = HUNK.match(lines[i])
                if not m:
                    break
                h = Hunk(p, int(m.group(1)), int(m.group(3)),
                         m.group(5).strip())
                nold = int(m.group(2)) if m.group(2) is not None else 1
                nnew = int(m.group(4)) if m.group(4) is not None else 1
                i += 1
                while (nold > 0 or nnew > 0) and i < len(lines):
                    t = lines[i]
                    op, text = (t[:1] or ' '), t[1:]
                    if op == '\\':
                        i += 1
                        continue
                    h.lines.append((op, text))
                    if op in ' -':
                        nold -= 1
                    if op in ' +':
                        nnew -= 1
                    i += 1
                files[p].append(h)
            continue
        if not in_diff:
            msg.append(ln)
        i += 1
    return msg, files, order


def is_run(small, big):
    """small is a contiguous run of big"""
    n = len(small)
    return n > 0 and any(big[k:k + n] == small for k in range(len(big) - n + 1))


def similarity(a, b):
    """share of a's and b's change lines that the two have in common"""
    if not a or not b:
        return 0.0
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    common = sum(bl.size for bl in sm.get_matching_blocks())
    return common / max(len(a), len(b)), common / len(a)


def text_similarity(p, s):
    """how alike the two hunks' changed text reads, character by character"""
    a = '\n'.join(op + t for op, t in p.norm())
    b = '\n'.join(op + t for op, t in s.norm())
    if not a or not b:
        return 0.0
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()


def compare(seed_files, port_files):
    seeds = [h for hs in seed_files.values() for h in hs]
    ports = [h for hs in port_files.values() for h in hs]
    # 1. unchanged: equal, or split by 6.1's context into runs that
    #    together are the RFC hunk
    for p in ports:
        for s in seed_files.get(p.path, []):
            if p.changes() == s.changes():
                p.kind, p.peer = 'unchanged', s
                break
    for s in seeds:
        runs = [p for p in port_files.get(s.path, [])
                if not p.kind and is_run(p.changes(), s.changes())]
        runs.sort(key=lambda p: p.old)
        if len(runs) >= 2 and \
                sum((p.changes() for p in runs), []) == s.changes():
            for p in runs:
                p.kind, p.peer = 'unchanged', s
                p.note = 'part of a split RFC hunk'
    # 2. changed: the most similar RFC hunk, same file first, then any file
    for same_file in (True, False):
        cands = []
        for p in ports:
            if p.kind:
                continue
            for s in seeds:
                if (s.path == p.path) != same_file:
                    continue
                both, of_port = similarity(p.norm(), s.norm())
                if same_file:
                    # a port hunk that is mostly RFC lines, or whose text
                    # reads like the RFC's hunk (a line rewritten for 6.1)
                    score = max(both, of_port, text_similarity(p, s))
                    ok = score >= 0.3 if score > text_similarity(p, s) \
                        else score >= 0.6
                else:
                    score = both
                    ok = len(p.norm()) >= 2 and score >= 0.5
                if ok:
                    cands.append((p.norm() == s.norm(), score, id(p), p, s))
        cands.sort(key=lambda c: (not c[0], -c[1]))
        for _, score, _, p, s in cands:
            if p.kind:
                continue
            p.kind, p.peer = 'changed', s
            if p.norm() == s.norm():
                p.note = 'same lines, whitespace differs'
            else:
                sm = difflib.SequenceMatcher(None, p.norm(), s.norm(),
                                             autojunk=False)
                common = sum(b.size for b in sm.get_matching_blocks())
                p.note = 'shares %d of its %d lines, text %d%% alike' % (
                    common, len(s.norm()), round(100 * text_similarity(p, s)))
            if not same_file:
                p.note += ', <- %s' % s.path
    for p in ports:
        if not p.kind:
            p.kind = 'added'
    carried = {id(p.peer) for p in ports if p.peer is not None}
    for s in seeds:
        s.kind = 'carried' if id(s) in carried else 'dropped'
    return seeds, ports


def first_difference(p, s):
    a = ['%s%s' % x for x in s.changes()]
    b = ['%s%s' % x for x in p.changes()]
    for ln in difflib.unified_diff(a, b, lineterm='', n=0):
        if ln.startswith(('---', '+++', '@@')):
            continue
        return ('RFC ' if ln[0] == '-' else 'port ') + ln[1:]
    return ''


def port_notes(msg):
    notes = []
    for ln in msg:
        if ln.startswith('[port:'):
            notes.append(ln)
    return notes


def fmt_counts(hunks):
    if not hunks:
        return '-'
    a = sum(h.counts()[0] for h in hunks)
    d = sum(h.counts()[1] for h in hunks)
    return '%dh +%d/-%d' % (len(hunks), a, d)


def report(seed_path, patch_path, detail, out):
    smsg, sfiles, sorder = parse(seed_path)
    pmsg, pfiles, porder = parse(patch_path)
    seeds, ports = compare(sfiles, pfiles)
    subj = next((ln[9:] for ln in smsg if ln.startswith('Subject: ')), '?')
    out.append('%s  <-  seeds/%s' % (os.path.basename(patch_path),
                                      os.path.basename(seed_path)))
    out.append('  %s' % subj)
    files = sorted(set(sorder) | set(porder))
    w = max([len(f) for f in files] + [10])
    head = '  %-*s  %-15s %-15s %9s %7s %5s %7s' % (
        w, 'file', 'RFC (then)', 'port (now)', 'unchanged', 'changed',
        'added', 'dropped')
    out.append(head)
    out.append('  ' + '-' * (len(head) - 2))
    tot = {'unchanged': 0, 'changed': 0, 'added': 0, 'dropped': 0}

    def cell(n):
        return str(n) if n else '-'
    for f in files:
        sh, ph = sfiles.get(f, []), pfiles.get(f, [])
        c = {k: sum(1 for h in ph if h.kind == k)
             for k in ('unchanged', 'changed', 'added')}
        c['dropped'] = sum(1 for h in sh if h.kind == 'dropped')
        for k in tot:
            tot[k] += c[k]
        mark = '' if (sh and ph) else (' (RFC only)' if sh else ' (port only)')
        out.append('  %-*s  %-15s %-15s %9s %7s %5s %7s%s' % (
            w, f, fmt_counts(sh), fmt_counts(ph), cell(c['unchanged']),
            cell(c['changed']), cell(c['added']), cell(c['dropped']), mark))
    out.append('  ' + '-' * (len(head) - 2))
    out.append('  %-*s  %-15s %-15s %9s %7s %5s %7s' % (
        w, 'total', fmt_counts(seeds), fmt_counts(ports),
        cell(tot['unchanged']), cell(tot['changed']), cell(tot['added']),
        cell(tot['dropped'])))
    out.append('  files: %d then, %d now; %d in both' % (
        len(sorder), len(porder), len(set(sorder) & set(porder))))
    # lines carried verbatim
    rfc_lines = [(h.path, x) for h in seeds for x in h.changes()]
    port_pool = {}
    for h in ports:
        for x in h.changes():
            port_pool[(h.path, x)] = port_pool.get((h.path, x), 0) + 1
    kept = 0
    for k in rfc_lines:
        if port_pool.get(k, 0) > 0:
            port_pool[k] -= 1
            kept += 1
    out.append('  lines: %d of the RFC\'s %d added/removed lines are in the '
               'port verbatim' % (kept, len(rfc_lines)))
    devs = [p for p in ports if p.kind != 'unchanged']
    drops = [s for s in seeds if s.kind == 'dropped']
    if devs or drops:
        out.append('  deviations:')
    for p in devs:
        if p.kind == 'changed':
            line = '    changed  %s  (RFC %s; %s)' % (p.where(), p.peer.where(),
                                                    p.note)
            if detail:
                line += '\n             first difference: %s' % \
                    first_difference(p, p.peer)[:90]
        else:
            first = next((op + t for op, t in p.changes()), '')
            line = '    added    %s  %s' % (p.where(), first.strip()[:60])
        out.append(line)
    for s in drops:
        first = next((op + t for op, t in s.changes()), '')
        out.append('    dropped  RFC %s  %s' % (s.where(), first.strip()[:60]))
    notes = port_notes(pmsg)
    out.append('  port notes (%d), the why:' % len(notes))
    for n in notes:
        out.append('    ' + (n if len(n) <= 96 else n[:93] + '...'))
    out.append('')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--seeds', required=True)
    ap.add_argument('--patches', required=True)
    ap.add_argument('--detail', action='store_true',
                    help='show the first difference of each changed hunk')
    ap.add_argument('only', nargs='*', help='patch numbers or names to show')
    a = ap.parse_args()
    if not os.path.isdir(a.seeds):
        print('compare-rfc: no seeds at %s (SEEDS=)' % a.seeds)
        return 1
    seeds = {int(f[:3]): f for f in os.listdir(a.seeds)
             if re.match(r'^\d{3}-.*\.patch$', f)}
    patches = {int(f[:4]): f for f in os.listdir(a.patches)
               if re.match(r'^\d{4}-.*\.patch$', f)}
    out = ['The port against the RFC (seeds in %s).' % a.seeds,
           'Nh +A/-D: N hunks adding A and removing D lines.  Port hunks are',
           'unchanged (the RFC\'s added/removed lines byte for byte), changed',
           '(from an RFC hunk, with differences) or added (no RFC counterpart);',
           'RFC hunks no port hunk carries are dropped.  The port notes say why.',
           '']
    rc = 0
    shown = 0
    for sn, pn in SEED_MAP:
        if a.only and not any(o.lstrip('0') == str(pn) or
                              (pn in patches and o in patches[pn])
                              for o in a.only):
            continue
        if sn not in seeds:
            out.append('%04d: seed %03d missing from %s\n' % (pn, sn, a.seeds))
            rc = 1
            continue
        if pn not in patches:
            out.append('%04d: no such patch in %s\n' % (pn, a.patches))
            rc = 1
            continue
        report(os.path.join(a.seeds, seeds[sn]),
               os.path.join(a.patches, patches[pn]), a.detail, out)
        shown += 1
    print('\n'.join(out))
    print('compare-rfc: %d RFC patches compared with the port' % shown)
    return rc


if __name__ == '__main__':
    sys.exit(main())
