#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""lint-series.py: check the quilt series the way a maintainer would.

  lint-series.py --patches DIR --series FILE [--repo DIR]
                 [--checkpatch-tree KSRC --kept FILE [--seeds DIR]]
                 [--list-kept]

Checks, each failure named with the patch and what is wrong:

series    series lists every file of patches/ exactly once and nothing
          else (comments and blank lines allowed, no quilt options); names
          are NNNN-slug.patch, numbered 0001, 0002, ... in series order;
          after the RFC's 0001-0016 the numbers only have to increase: a
          section may start at a number reserved for it (the fixes of
          tools/kgraft start at 0040).
headers   every patch has From:, Date: (RFC 2822), Subject:, a body and a
          Signed-off-by:.  Patches 0001-0016 (the RFC's) carry the RFC's
          subject "[RFC NN/16]" with their own number and port notes,
          "[port: ...]" lines after the first Signed-off-by:.
tests     a patch of ours (0017 on) names the test that showed the need
          for it in its trailers, in the block of the first Signed-off-by:
          (just before it), one line per test:
              Test: initramfs/tests/test-kgr-foo.sh
          the path from the repository's top, of a tests/test-*.sh file that
          exists.  A test named only in the prose does not count (nor does
          it fail).  A patch whose diff touches only Documentation/ and
          MAINTAINERS carries "Test: none (documentation)" instead.
format    the static side of the canonical format (quilt refresh -p ab
          --no-timestamps --no-index --diffstat --sort): no git headers or
          index lines, a/ and b/ prefixes, no timestamps, a diffstat that
          lists the patch's files, files in sorted order.  (refresh-series.sh
          --check does the byte-exact part on a scratch tree.)
history   code and comments say what the code does, never which patch or
          issue brought it: no "patch 0NNN", "patches 0NNN", "issue N" or
          "(0NNN)" in the lines a patch adds (its description may), nor in
          the repository's tests, samples, configs, tools and Makefile
          (README.md, series, scripts/ and .ci/ are about the series and
          may). The references that older patches still carry are counted
          in scripts/history-kept, one "NNNN COUNT" line per patch: a patch
          with more fails, one with fewer must have its count lowered.
checkpatch  scripts/checkpatch.pl --strict, run in KSRC, on every patch:
          every ERROR, WARNING and CHECK must match an entry of the kept
          list (FILE, see scripts/checkpatch-kept); an ERROR may be kept
          only as "verbatim from the RFC"; a finding kept as "verbatim from
          the RFC" must show only lines that occur in the RFC seeds (when
          --seeds is given); an entry that matches nothing is stale and
          fails too.

Exit status 0 when everything passes, 1 otherwise.
"""

import argparse
import email.utils
import fnmatch
import os
import re
import subprocess
import sys

RFC_LAST = 16          # patches 0001..0016 are the RFC's
VERBATIM = 'verbatim from the RFC'

problems = []


def problem(where, msg):
    problems.append((where, msg))
    print('lint: %s: %s' % (where, msg))


def series_entries(series):
    """(lineno, entry) for every non-comment line of series."""
    out = []
    with open(series, encoding='utf-8') as f:
        for n, line in enumerate(f, 1):
            line = line.split('#', 1)[0].strip()
            if line:
                out.append((n, line))
    return out


def check_series(patches, series):
    where = os.path.basename(series)
    entries = series_entries(series)
    names = []
    seen = {}
    for n, e in entries:
        if len(e.split()) != 1:
            problem('%s:%d' % (where, n),
                    "'%s': only a patch name per line (no quilt options)" % e)
            e = e.split()[0]
        if e in seen:
            problem('%s:%d' % (where, n),
                    '%s is listed twice (first on line %d)' % (e, seen[e]))
            continue
        seen[e] = n
        names.append(e)
        if not os.path.isfile(os.path.join(patches, e)):
            problem('%s:%d' % (where, n), '%s is not a file in patches/' % e)
    files = sorted(os.listdir(patches))
    for f in files:
        if f not in seen:
            problem(where, 'patches/%s is not listed in series' % f)
    expect = 1
    last = 0
    for e in names:
        m = re.match(r'^(\d{4})-[A-Za-z0-9][A-Za-z0-9._-]*\.patch$', e)
        if not m:
            problem(e, 'name is not NNNN-slug.patch')
            continue
        num = int(m.group(1))
        if (expect <= 16 or num <= 16) and num != expect:
            problem(e, 'numbered %s, but it is patch %d of series'
                    % (m.group(1), expect))
        elif num <= last:
            problem(e, 'numbered %s, not above the patch before it (%04d)'
                    % (m.group(1), last))
        last = num
        expect += 1
    return [e for e in names if os.path.isfile(os.path.join(patches, e))]


def split_patch(text):
    """(header lines, diff lines): the diff starts at the first ---/+++ pair."""
    lines = text.split('\n')
    for i in range(len(lines) - 1):
        if (lines[i].startswith('--- ') and lines[i + 1].startswith('+++ ')) \
                or lines[i].startswith('diff --git ') \
                or lines[i].startswith('Index: '):
            return lines[:i], lines[i:]
    return lines, []


TRAILER = re.compile(r'^[A-Z][A-Za-z-]*-by: |^Cc: |^Fixes: |^Link: |^Test: ')
# a patch of ours names its test so, one per line, in the trailer block
TEST_TRAILER = re.compile(r'^Test:\s*(.*?)\s*$')
TEST_PATH = re.compile(r'^(?:[A-Za-z0-9_+-][A-Za-z0-9_.+-]*/)*tests/'
                       r'test-[A-Za-z0-9_.+-]+\.sh$')
TEST_NONE = 'none (documentation)'
# what a patch may touch and still carry TEST_NONE
DOCS = re.compile(r'^Documentation/|^MAINTAINERS$')


HISTORY = re.compile(r'\b[Pp]atch(?:es)? 0?\d{2,3}\b|\b[Ii]ssue \d+\b'
                     r'|\(0\d{3}\)')
# what leads a line of a comment or of a script, taken off to join two lines
LEADER = re.compile(r'^\s*(?:/?\*+|//|#+)?\s*')


def history_hits(lines):
    """The lines that name a patch or an issue, alone or with the line
    after them (a reference that a comment wraps: "patch" / "09")."""
    hits = []
    for i, l in enumerate(lines):
        if HISTORY.search(l):
            hits.append(i)
        elif i + 1 < len(lines) and not HISTORY.search(lines[i + 1]):
            joined = l.rstrip() + ' ' + LEADER.sub('', lines[i + 1])
            if HISTORY.search(joined):
                hits.append(i)
    return hits
# what the repository's own files are checked in (the rest is about the
# series itself: README's map, series banners, the review scripts)
HISTORY_DIRS = ('initramfs', 'samples', 'configs', 'tools', 'debian-guest',
                'mk')
HISTORY_FILES = ('Makefile',)


def read_history_kept(path):
    """{patch number: count} from scripts/history-kept."""
    kept = {}
    if not path or not os.path.exists(path):
        return kept
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.split('#', 1)[0].strip()
            if not line:
                continue
            m = re.match(r'^(\d{4})\s+(\d+)$', line)
            if not m:
                problem('%s:%d' % (path, n), 'not "NNNN COUNT": %s' % line)
                continue
            kept[m.group(1)] = int(m.group(2))
    return kept


def check_history_patch(name, diff, kept):
    """The lines @name adds name no patch or issue, beyond its kept count."""
    added = [l[1:] for l in diff if l.startswith('+') and not l.startswith('+++')]
    hits = [added[i].strip() for i in history_hits(added)]
    allowed = kept.pop(name[:4], 0)
    if len(hits) > allowed:
        for h in hits[allowed:]:
            problem(name, 'history in the code (say what it does, not which '
                    'patch or issue brought it): %s' % h)
        if allowed:
            problem(name, '%d references, scripts/history-kept allows %d'
                    % (len(hits), allowed))
    elif len(hits) < allowed:
        problem(name, 'scripts/history-kept allows %d references, the patch '
                'has %d: lower its count' % (allowed, len(hits)))


def check_history_repo(repo):
    """No file of the repository's own names a patch or an issue."""
    paths = [os.path.join(repo, f) for f in HISTORY_FILES]
    for d in HISTORY_DIRS:
        for root, dirs, files in os.walk(os.path.join(repo, d)):
            dirs.sort()
            paths += [os.path.join(root, f) for f in sorted(files)]
    for path in paths:
        if not os.path.isfile(path):
            continue
        with open(path, encoding='utf-8', errors='replace') as f:
            lines = f.read().split('\n')
        for i in history_hits(lines):
            problem('%s:%d' % (os.path.relpath(path, repo), i + 1),
                    'names a patch or an issue (say what the code '
                    'does and why): %s' % lines[i].strip())


def patch_number(name):
    m = re.match(r'^(\d{4})-', name)
    return int(m.group(1)) if m else None


def check_headers(name, header, repo, diff=()):
    # the message ends at the '---' line before the diffstat
    msg = header
    if '---' in header:
        msg = header[:header.index('---')]
    top = {}
    i = 0
    while i < len(msg) and msg[i].strip():
        m = re.match(r'^([A-Za-z-]+): ?(.*)$', msg[i])
        if m:
            top.setdefault(m.group(1), m.group(2))
        i += 1
    body = msg[i:]
    for h in ('From', 'Date', 'Subject'):
        if not top.get(h, '').strip():
            problem(name, 'no %s: line in the header block at the top' % h)
    if top.get('From') and not re.search(r'<[^<>@\s]+@[^<>\s]+>', top['From']):
        problem(name, "From: '%s' has no <address>" % top['From'])
    if top.get('Date'):
        try:
            email.utils.parsedate_to_datetime(top['Date'])
        except (TypeError, ValueError, IndexError):
            problem(name, "Date: '%s' is not an RFC 2822 date" % top['Date'])
    # the prose: what is neither a trailer, nor an author line, nor
    # inside a [port: ...] note
    prose = []
    inside = False
    for ln in body:
        if ln.startswith('[port:'):
            inside = True
        if not inside and ln.strip() and not TRAILER.match(ln) \
                and not ln.startswith('From: '):
            prose.append(ln)
        if inside and ln.rstrip().endswith(']'):
            inside = False
    if not prose:
        problem(name, 'no body: nothing says what the patch does and why')
    sob = [k for k, ln in enumerate(body) if ln.startswith('Signed-off-by: ')]
    if not sob:
        problem(name, 'no Signed-off-by: line')
    for k in sob:
        if not re.match(r'^Signed-off-by: [^<>]+ <[^<>@\s]+@[^<>\s]+>', body[k]):
            problem(name, "malformed '%s'" % body[k])

    num = patch_number(name)
    if num is None:
        return
    notes = [k for k, ln in enumerate(body) if ln.startswith('[port:')]
    if num <= RFC_LAST:
        want = '[RFC %02d/%d]' % (num, RFC_LAST)
        if want not in top.get('Subject', ''):
            problem(name, 'Subject: does not carry the RFC number %s' % want)
        if not notes:
            problem(name, 'an RFC patch without port notes ([port: ...] lines)')
        for k in notes:
            if sob and k < sob[0]:
                problem(name, 'port note on body line %d comes before the '
                        "original Signed-off-by: (put it after the RFC's "
                        'trailers)' % (k + 1))
            j = k
            while j < len(body) and not body[j].rstrip().endswith(']'):
                j += 1
            if j == len(body):
                problem(name, "port note '%s' has no closing ']'"
                        % body[k][:40])
    else:
        if '[RFC ' in top.get('Subject', ''):
            problem(name, 'a patch of ours (0017+) must not claim an RFC number')
        check_test_trailers(name, body, sob, repo, diff)


def trailer_block(body, k):
    """(first, end) of the paragraph of body that holds line k."""
    first, end = k, k + 1
    while first > 0 and body[first - 1].strip():
        first -= 1
    while end < len(body) and body[end].strip():
        end += 1
    return first, end


def check_test_trailers(name, body, sob, repo, diff):
    """A patch of ours names its test(s) in "Test:" trailers."""
    want = ("one 'Test: PATH' line per test just before Signed-off-by:, "
            'PATH from the repository\'s top (e.g. '
            'initramfs/tests/test-kgr-foo.sh), or "Test: %s" for a patch '
            'that changes only documentation' % TEST_NONE)
    block = trailer_block(body, sob[0]) if sob else (len(body), len(body))
    tests = [m.group(1) for m in map(TEST_TRAILER.match, body[slice(*block)])
             if m]
    if not tests:
        prose = [ln for ln in body if TEST_TRAILER.match(ln)]
        where = (" ('%s' is in the prose, not in the trailers)"
                 % prose[0].strip()) if prose else ''
        problem(name, 'no Test: trailer naming the test that showed the need '
                'for the patch%s: %s' % (where, want))
        return
    seen = set()
    for t in tests:
        if t in seen:
            problem(name, 'Test: %s is given twice' % t)
            continue
        seen.add(t)
        if t == TEST_NONE:
            code = [f for f in diff_files(diff) if not DOCS.match(f)]
            if code:
                problem(name, '"Test: %s" is only for a patch that changes '
                        'documentation alone (Documentation/, MAINTAINERS); '
                        'this one changes %s' % (TEST_NONE, ', '.join(code)))
            if len(tests) > 1:
                problem(name, '"Test: %s" together with other Test: '
                        'trailers' % TEST_NONE)
        elif not TEST_PATH.match(t):
            problem(name, "malformed trailer 'Test: %s': one test per "
                    'line, the path of a tests/test-*.sh file and nothing '
                    'after it' % t)
        elif not os.path.isfile(os.path.join(repo, t)):
            problem(name, 'Test: %s: no such file in the repository (the '
                    "path is from the repository's top)" % t)


def diff_files(diff):
    """The files a diff changes (the b/ side, or a/ for a deletion)."""
    files = []
    for n, ln in enumerate(diff):
        if ln.startswith('--- ') and n + 1 < len(diff) \
                and diff[n + 1].startswith('+++ '):
            old = ln[4:].split('\t')[0]
            new = diff[n + 1][4:].split('\t')[0]
            path = new if new != '/dev/null' else old
            files.append(path.split('/', 1)[1] if '/' in path else path)
    return files


def check_format(name, header, diff):
    if not diff:
        problem(name, 'no diff in the patch')
        return
    files = []
    for n, ln in enumerate(diff, 1):
        where = '%s: diff line %d' % (name, n)
        if ln.startswith('diff --git ') or ln.startswith('Index: ') \
                or re.match(r'^index [0-9a-f]+\.\.[0-9a-f]+', ln) \
                or re.match(r'^(new|deleted) file mode |^(old|new) mode ', ln) \
                or ln.startswith('Binary files ') or ln.startswith('==='):
            problem(where, "'%s': git/quilt metadata, not the canonical "
                    'format' % ln[:60])
        if ln.startswith('--- ') and n < len(diff) \
                and diff[n].startswith('+++ '):
            old, new = ln[4:], diff[n][4:]
            for side, path, pfx in (('---', old, 'a/'), ('+++', new, 'b/')):
                if '\t' in path or re.search(r'\s\d{4}-\d\d-\d\d ', path):
                    problem(where, '%s line has a timestamp' % side)
                    path = path.split('\t')[0]
                if path != '/dev/null' and not path.startswith(pfx):
                    problem(where, "%s %s: not the '-p ab' form (%sPATH)"
                            % (side, path, pfx))
            f = new[2:] if new != '/dev/null' else old[2:]
            files.append(f.split('\t')[0])
    if files != sorted(files):
        problem(name, 'files are not in sorted order (--sort): %s'
                % ' '.join(files))
    if '---' not in header:
        problem(name, "no '---' line and diffstat before the diff (--diffstat)")
        return
    stat = header[header.index('---') + 1:]
    listed = []
    summary = False
    for n, ln in enumerate(stat, header.index('---') + 2):
        m = re.match(r'^ (\S+)\s+\|\s+\d+', ln)
        if m and not summary:
            listed.append(m.group(1))
        elif re.match(r'^ \d+ files? changed', ln) and not summary:
            summary = True
        elif ln.strip():
            problem('%s: line %d' % (name, n), "'%s' between the diffstat "
                    'and the diff (git/quilt metadata?)' % ln[:60])
    if not summary or sorted(listed) != sorted(set(files)):
        problem(name, 'the diffstat does not list the files of the diff '
                '(make refresh)')


# --- checkpatch -------------------------------------------------------------

FINDING = re.compile(r'^(ERROR|WARNING|CHECK):([A-Z0-9_]+): (.*)$')
TOTAL = re.compile(r'^total: (\d+) errors, (\d+) warnings, (\d+) checks')


class Finding:
    def __init__(self, patch, level, ftype, msg):
        self.patch, self.level, self.type, self.msg = patch, level, ftype, msg
        self.file = '-'          # '-' = commit message
        self.line = None
        self.lines = []          # the lines checkpatch shows

    def added(self):
        """The lines the finding shows, without their diff marker."""
        if self.file == '-':
            return [ln for ln in self.lines if ln.strip()][:1]
        return [ln[1:] for ln in self.lines
                if ln.startswith('+') and not ln.startswith('+++')]

    def text(self):
        return self.msg + '\n' + '\n'.join(self.lines)

    def __str__(self):
        loc = self.file if self.line is None else '%s:%s' % (self.file, self.line)
        shown = self.added()
        code = (' | ' + shown[0].strip()[:70]) if shown else ''
        return '%s:%s: %s (%s)%s' % (self.level, self.type, self.msg, loc, code)


def run_checkpatch(ksrc, path, name):
    cmd = ['perl', os.path.join(ksrc, 'scripts', 'checkpatch.pl'),
           '--strict', '--show-types', '--color=never', path]
    r = subprocess.run(cmd, cwd=ksrc, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True,
                       errors='replace')
    out = r.stdout.split('\n')
    findings = []
    cur = None
    total = None
    for ln in out:
        m = FINDING.match(ln)
        if m:
            cur = Finding(name, m.group(1), m.group(2), m.group(3))
            findings.append(cur)
            continue
        t = TOTAL.match(ln)
        if t:
            total = sum(int(x) for x in t.groups())
            cur = None
            continue
        if cur is None:
            continue
        if not ln.strip():
            cur = None
            continue
        fm = re.match(r'^#\d+: FILE: (.*?):(\d+):\s*$', ln)
        if fm and cur.file == '-' and not cur.lines:
            cur.file, cur.line = fm.group(1), int(fm.group(2))
            continue
        if re.match(r'^#\d+: ?$', ln) and not cur.lines:
            continue
        cur.lines.append(ln)
    if total is None:
        problem(name, 'checkpatch did not run to its summary: %s'
                % ' '.join(out[-3:]))
    elif total != len(findings):
        problem(name, 'checkpatch reports %d findings, %d parsed'
                % (total, len(findings)))
    return findings


class Kept:
    def __init__(self, where, patch, ftype, file, text, reason):
        self.where, self.patch, self.type = where, patch, ftype
        self.file, self.text, self.reason = file, text, reason
        self.hits = []

    def matches(self, f):
        return (fnmatch.fnmatchcase(f.patch, self.patch)
                and (self.type == '*' or self.type == f.type)
                and fnmatch.fnmatchcase(f.file, self.file)
                and (self.text == '*' or self.text in f.text()))


def read_kept(path):
    kept = []
    with open(path, encoding='utf-8') as f:
        for n, line in enumerate(f, 1):
            s = line.strip()
            if not s or s.startswith('#'):
                continue
            parts = [p.strip() for p in s.split(' | ')]
            where = '%s:%d' % (os.path.basename(path), n)
            if len(parts) != 5 or not all(parts):
                problem(where, 'want "patch | TYPE | file | text | reason", '
                        'got %r' % s[:60])
                continue
            kept.append(Kept(where, *parts))
    return kept


def load_seed_lines(seeds):
    lines = set()
    if not seeds or not os.path.isdir(seeds):
        return None
    for f in sorted(os.listdir(seeds)):
        if not f.endswith('.patch'):
            continue
        with open(os.path.join(seeds, f), encoding='utf-8',
                  errors='replace') as fh:
            for ln in fh:
                ln = ln.rstrip('\n')
                lines.add(ln.rstrip())
                if ln[:1] in ('+', '-', ' '):
                    lines.add(ln[1:].rstrip())
    return lines


def devet(line):
    """Undo checkpatch's cat_vet() (tabs as ^I, a '$' at the end)."""
    if line.endswith('$'):
        line = line[:-1]
    return line.replace('^I', '\t')


def check_checkpatch(names, patches, ksrc, kept_path, seeds, list_kept):
    kept = read_kept(kept_path)
    seed_lines = load_seed_lines(seeds)
    if seed_lines is None:
        print('lint: note: no RFC seeds at %s; "verbatim from the RFC" '
              'entries are not verified' % seeds)
    total = 0
    new = 0
    for name in names:
        findings = run_checkpatch(ksrc, os.path.join(patches, name), name)
        total += len(findings)
        for f in findings:
            k = next((k for k in kept if k.matches(f)), None)
            if k is None:
                new += 1
                problem(name, 'checkpatch %s' % f)
                continue
            k.hits.append(f)
            verbatim = k.reason.startswith(VERBATIM)
            if f.level == 'ERROR' and not verbatim:
                problem(name, 'checkpatch ERROR kept by %s, but only code '
                        'verbatim from the RFC may keep an error: %s'
                        % (k.where, f))
            if verbatim and seed_lines is not None:
                missing = [ln for ln in f.added()
                           if ln.rstrip() not in seed_lines
                           and devet(ln).rstrip() not in seed_lines]
                if missing:
                    problem(name, '%s keeps it as verbatim from the RFC, but '
                            'the RFC seeds do not have %r: %s'
                            % (k.where, missing[0].strip()[:60], f))
    for k in kept:
        if not k.hits:
            problem(k.where, 'stale entry: no checkpatch finding matches '
                    '"%s | %s | %s | %s"' % (k.patch, k.type, k.file, k.text))
    nkept = sum(len(k.hits) for k in kept)
    print('lint: checkpatch --strict: %d findings in %d patches: %d kept '
          '(by %d entries of %s), %d not kept'
          % (total, len(names), nkept, len(kept),
             os.path.basename(kept_path), new))
    if list_kept:
        for k in kept:
            levels = {}
            for f in k.hits:
                levels[f.level] = levels.get(f.level, 0) + 1
            print('  %-3d %-22s %s %s: %s [%s]' % (
                len(k.hits), k.type, k.patch[:4], k.file, k.reason,
                ', '.join('%d %s' % (v, l) for l, v in sorted(levels.items()))))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--patches', required=True)
    ap.add_argument('--series', required=True)
    ap.add_argument('--repo', default='.')
    ap.add_argument('--checkpatch-tree')
    ap.add_argument('--kept')
    ap.add_argument('--seeds')
    ap.add_argument('--list-kept', action='store_true')
    ap.add_argument('--history-kept')
    a = ap.parse_args()
    for k in ('patches', 'series', 'repo', 'checkpatch_tree', 'kept', 'seeds',
              'history_kept'):
        if getattr(a, k):
            setattr(a, k, os.path.abspath(getattr(a, k)))

    names = check_series(a.patches, a.series)
    history_kept = read_history_kept(a.history_kept)
    for name in names:
        with open(os.path.join(a.patches, name), encoding='utf-8',
                  errors='replace') as f:
            header, diff = split_patch(f.read())
        check_headers(name, header, a.repo, diff)
        check_format(name, header, diff)
        check_history_patch(name, diff, history_kept)
    for num in sorted(history_kept):
        problem(a.history_kept, 'patch %s is not in the series' % num)
    check_history_repo(a.repo)
    print('lint: series, headers, tests, format, history: %d patches checked, '
          '%d problems' % (len(names), len(problems)))
    if a.checkpatch_tree:
        check_checkpatch(names, a.patches, a.checkpatch_tree, a.kept, a.seeds,
                         a.list_kept)
    if problems:
        print('lint: FAILED: %d problems' % len(problems))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
