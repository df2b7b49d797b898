#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""kgr_diff_test.py: unit checks of tools/kgraft-e2e/kgrdiff/, run by
test-kgr-diff.sh.

The ELF writer's round trip (an object Out wrote reads back with Elf to
what was added to it, and written again from that gives the same bytes,
for the stored patch objects of fixtures/kgr-diff/ too), the reader on
a gcc object, and the pure parts of the comparison: .cold names,
relocation targets, code and strings compared independently of
positions, line numbers a fix only moved, the carried inline function.

Prints one line per check, "ok: ..." or "FAIL: ..." (with the reason
indented below); exit status 0 when every check passed, 1 otherwise.
"""

import os
import sys
import tempfile
import traceback
import unittest

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, 'fixtures', 'kgr-diff')
sys.path.insert(0, os.path.join(HERE, '..', '..', 'tools', 'kgraft-e2e'))

from kgrdiff.compare import (Diff, LineMap, Target, body, cold_parts, has_fentry,
                             is_cold, parent, target_offset)
from kgrdiff.elf import (R_X86_64_64, R_X86_64_PC32, R_X86_64_PLT32, SHF_ALLOC,
                         SHF_EXECINSTR, SHF_INFO_LINK, SHF_MERGE, SHF_STRINGS, SHF_WRITE,
                         SHN_UNDEF, SHT_NOBITS, SHT_PROGBITS, SHT_RELA, SHT_STRTAB,
                         SHT_SYMTAB, STB_GLOBAL, STB_LOCAL, STT_FUNC, STT_NOTYPE,
                         STT_SECTION, BadInput, Elf, Out)


def fixture(case, name):
    return os.path.join(FIXTURES, case, name)


def rewrite(elf):
    """an Out with what ELF (an object Out wrote) has: its sections, its
    globals and undefined symbols, its relocations"""
    out = Out()
    symtab = [s for s in elf.sections if s.type == SHT_SYMTAB][0]
    nloc = symtab.info
    idx = {}
    for sec in elf.sections[1:]:
        if sec.type in (SHT_RELA, SHT_SYMTAB, SHT_STRTAB):
            continue
        data = bytes(sec.size) if sec.type == SHT_NOBITS else sec.data
        idx[sec.idx] = out.add_section(sec.name, sec.type, sec.flags, sec.align, data, sec.entsize)
    # the locals are the null symbol and the section symbols Out makes
    assert len(out.symbols) == nloc, (len(out.symbols), nloc)
    for sym in elf.symbols[nloc:]:
        if sym.shndx == SHN_UNDEF:
            out.add_undef(sym.name)
        else:
            out.add_global(sym.name, sym.type, idx[sym.shndx], sym.value, sym.size)
    for sec in elf.sections:
        for off, rtype, symidx, addend in sec.relocs:
            ref = symidx if symidx < nloc else ('g', symidx - nloc)
            out.sections[idx[sec.idx] - 1][6].append((off, rtype, ref, addend))
    return out


class Scratch(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix='kgr-diff-test.')
        self.addCleanup(self.tmp.cleanup)

    def path(self, name):
        return os.path.join(self.tmp.name, name)


class TestElf(Scratch):
    def test_writer_reads_back(self):
        """elf: what Out writes reads back with Elf: sections, symbols, relocations"""
        code = bytes(range(0x90, 0x90 + 32))
        out = Out()
        text = out.add_section('.text.kgr.f', SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 16, code)
        strs = out.add_section('.rodata.str1.1', SHT_PROGBITS, SHF_ALLOC | SHF_MERGE | SHF_STRINGS,
                               1, b'hello\0world\0', 1)
        bss = out.add_section('.bss.x', SHT_NOBITS, SHF_ALLOC | SHF_WRITE, 8, bytes(16))
        func = out.add_global('kgr_new_f', STT_FUNC, text, 0, len(code))
        ext = out.add_undef('printk')
        self.assertEqual(out.add_undef('printk'), ext)
        relocs = out.sections[text - 1][6]
        relocs += [(20, R_X86_64_64, func, 0), (1, R_X86_64_PC32, out.section_sym(strs), 2),
                   (9, R_X86_64_PLT32, ext, -4)]
        out.write(self.path('a.o'))

        elf = Elf(self.path('a.o'))
        self.assertEqual([s.name for s in elf.sections],
                         ['', '.text.kgr.f', '.rodata.str1.1', '.bss.x', '.rela.text.kgr.f',
                          '.symtab', '.strtab', '.shstrtab'])
        t, r, b = elf.sections[text], elf.sections[strs], elf.sections[bss]
        self.assertEqual((t.type, t.flags, t.align, t.data), (SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 16, code))
        self.assertEqual((r.flags, r.entsize, r.data), (SHF_ALLOC | SHF_MERGE | SHF_STRINGS, 1, b'hello\0world\0'))
        self.assertEqual((b.type, b.size, b.data), (SHT_NOBITS, 16, b''))
        rela, symtab = elf.sections[4], elf.sections[5]
        self.assertEqual((rela.type, rela.flags, rela.link, rela.info, rela.entsize),
                         (SHT_RELA, SHF_INFO_LINK, 5, text, 24))
        self.assertEqual((symtab.link, symtab.info), (6, 4))
        # the null symbol, a section symbol per section, then the globals
        self.assertEqual([(s.type, s.bind, s.shndx) for s in elf.symbols[:4]],
                         [(STT_NOTYPE, STB_LOCAL, 0), (STT_SECTION, STB_LOCAL, text),
                          (STT_SECTION, STB_LOCAL, strs), (STT_SECTION, STB_LOCAL, bss)])
        self.assertEqual([(s.name, s.type, s.bind, s.shndx, s.value, s.size) for s in elf.symbols[4:]],
                         [('kgr_new_f', STT_FUNC, STB_GLOBAL, text, 0, len(code)),
                          ('printk', STT_NOTYPE, STB_GLOBAL, SHN_UNDEF, 0, 0)])
        self.assertEqual(elf.funcs['kgr_new_f'].idx, 4)
        # sorted by offset, globals after the locals
        self.assertEqual(t.relocs, [(1, R_X86_64_PC32, strs, 2), (9, R_X86_64_PLT32, 5, -4),
                                    (20, R_X86_64_64, 4, 0)])

        # and written again from what was read: the same bytes
        rewrite(elf).write(self.path('b.o'))
        with open(self.path('a.o'), 'rb') as a, open(self.path('b.o'), 'rb') as b:
            self.assertEqual(a.read(), b.read())

    def test_round_trip_fixtures(self):
        """elf: each stored patch object read with Elf and written again by Out: the same bytes"""
        cases = [c for c in sorted(os.listdir(FIXTURES))
                 if os.path.exists(fixture(c, 'expected/new.elf'))]
        self.assertGreaterEqual(len(cases), 3)
        for case in cases:
            with self.subTest(case=case):
                src = fixture(case, 'expected/new.elf')
                rewrite(Elf(src)).write(self.path(case))
                with open(src, 'rb') as a, open(self.path(case), 'rb') as b:
                    self.assertEqual(a.read(), b.read())

    def test_reader_gcc_object(self):
        """elf: a gcc object: functions, variables, relocations sorted, the fentry site"""
        elf = Elf(fixture('changed-function', 'orig.elf'))
        sym = elf.funcs['drop_caches_sysctl_handler']
        self.assertEqual((sym.bind, elf.sec(sym).name), (STB_GLOBAL, '.text.drop_caches_sysctl_handler'))
        self.assertEqual(sorted(elf.objects), ['stfu.0', 'sysctl_drop_caches'])
        self.assertEqual(has_fentry(elf, sym), 1)
        for sec in elf.sections:
            self.assertEqual(sec.relocs, sorted(sec.relocs))
        self.assertTrue(all(sym.value <= r[0] < sym.value + sym.size for r in elf.relocs_in(sym)))
        self.assertIs(elf.symbol_at(elf.sec(sym), sym.value + sym.size - 1), sym)

    def test_bad_input(self):
        """elf: not an object, not relocatable, no file: BadInput"""
        with open(self.path('text'), 'wb') as f:
            f.write(b'not an object\n')
        with open(fixture('changed-function', 'orig.elf'), 'rb') as f:
            raw = bytearray(f.read())
        raw[16] = 3     # e_type ET_DYN
        with open(self.path('dyn'), 'wb') as f:
            f.write(raw)
        for name, msg in (('text', 'not a 64-bit little-endian ELF file'),
                          ('dyn', 'not a relocatable x86_64 object'),
                          ('none', 'No such file or directory')):
            with self.subTest(name=name):
                with self.assertRaises(BadInput) as e:
                    Elf(self.path(name))
                self.assertEqual(str(e.exception), f'{self.path(name)}: {msg}')


class TestCompare(Scratch):
    def test_cold(self):
        """compare: .cold parts and their function, clones are no .cold part"""
        self.assertEqual([parent(n) for n in ('f.cold', 'f.cold.3', 'f.isra.0.cold', 'f.constprop.0')],
                         ['f', 'f', 'f.isra.0', 'f.constprop.0'])
        self.assertEqual([is_cold(n) for n in ('f.cold', 'f.cold.12', 'f.constprop.0', 'cold')],
                         [True, True, False, False])
        funcs = ('f', 'f.cold', 'f.cold.2', 'f.isra.0', 'f.isra.0.cold', 'g.cold.1', 'ff.cold')
        self.assertEqual(cold_parts(funcs, 'f'), ['f.cold', 'f.cold.2'])
        self.assertEqual(cold_parts(funcs, 'f.isra.0'), ['f.isra.0.cold'])
        self.assertEqual(cold_parts(funcs, 'h'), [])

    def test_target_offset(self):
        """compare: a PC-relative relocation points 4 bytes past its addend"""
        self.assertEqual(target_offset(R_X86_64_PC32, -4), 0)
        self.assertEqual(target_offset(R_X86_64_PLT32, 12), 16)
        self.assertEqual(target_offset(R_X86_64_64, 8), 8)

    def test_body_independent_of_positions(self):
        """compare: unchanged code compares equal though its symbols moved; strings by text"""
        o, n = Elf(fixture('clone', 'orig.elf')), Elf(fixture('clone', 'patched.elf'))
        for name in ('bm_entry_read', 'bm_fill_super', 'parse_command'):
            with self.subTest(name=name):
                raw_o = [(r[0] - o.funcs[name].value,) + r[1:] for r in o.relocs_in(o.funcs[name])]
                raw_n = [(r[0] - n.funcs[name].value,) + r[1:] for r in n.relocs_in(n.funcs[name])]
                self.assertNotEqual(raw_o, raw_n)
                self.assertEqual(body(o, o.funcs[name]), body(n, n.funcs[name]))
        for name in ('bm_status_read', 'load_misc_binary'):
            self.assertNotEqual(body(o, o.funcs[name]), body(n, n.funcs[name]))
        sym = n.funcs['bm_entry_read']
        targets = [Target(n, r) for r in n.relocs_in(sym)]
        self.assertIn((b'enabled', 0), [t.key for t in targets if t.kind == 'string'])
        self.assertEqual(Diff.static_owners(n), {'bm_files.1': 'bm_fill_super'})

    def test_changed_relocation_only(self):
        """compare: the same code referring to another field of a variable is a change"""
        o, n = Elf(fixture('refused-struct-layout', 'orig.elf')), Elf(fixture('refused-struct-layout', 'patched.elf'))
        ob, nb = body(o, o.funcs['proc_root_getattr']), body(n, n.funcs['proc_root_getattr'])
        self.assertEqual(ob[0], nb[0])
        self.assertNotEqual(ob[1], nb[1])
        d = Diff(o, n, 'fs/proc/root.o')
        self.assertEqual(d.changed, ['proc_root_getattr'])
        self.assertEqual(len(d.refusals), 1)
        self.assertIn('changed data: proc_root (.data.proc_root, 176 -> 184 bytes)', d.refusals[0])

    def test_line_map(self):
        """compare: line numbers a fix only moved are no change, lines it changed are"""
        with open(self.path('fix.patch'), 'w') as f:
            f.write('--- a/f.c\n+++ b/f.c\n@@ -10,3 +10,5 @@\n x\n+y\n+z\n x\n x\n')
        lines = LineMap(self.path('fix.patch'))
        self.assertTrue(lines.moved(20, 22))
        self.assertFalse(lines.moved(20, 21))
        self.assertFalse(lines.moved(11, 13))   # inside the hunk
        self.assertFalse(lines.moved(5, 5))     # before it: not moved
        self.assertTrue(lines.same_text(b'tcomm:20', b'tcomm:22'))
        self.assertFalse(lines.same_text(b'tcomm:20', b'tcomm:23'))

        def code(line):
            return b'\xbe' + line.to_bytes(4, 'little') + b'\xe8\0\0\0\0'
        # might_sleep(): __FILE__ in a string, __LINE__ in an immediate
        file_rels = [(1, 2, 'string', (b'dir/f.c', 0))]
        other_rels = [(1, 2, 'string', (b'dir/g.c', 0))]
        self.assertTrue(lines.only_lines(code(20), code(22), file_rels))
        self.assertFalse(lines.only_lines(code(20), code(23), file_rels))
        self.assertFalse(LineMap(None).only_lines(code(20), code(22), file_rels))
        # a constant changed by as much as a line moved: not a line number
        # unless the code names the file it is a line of
        self.assertFalse(lines.only_lines(code(20), code(22), []))
        self.assertFalse(lines.only_lines(code(20), code(22), other_rels))

    def test_inline_followed_to_callers(self):
        """compare: a changed static function without a fentry site is carried, its callers patched"""
        o, n = Elf(fixture('inline-caller', 'orig.elf')), Elf(fixture('inline-caller', 'patched.elf'))
        self.assertIsNone(has_fentry(n, n.funcs['__do_sys_sysinfo']))
        self.assertEqual(Diff.callers(n)['__do_sys_sysinfo'], {'__x64_sys_sysinfo'})
        d = Diff(o, n, 'kernel/sys.o')
        self.assertEqual((d.changed, d.added, d.carried, d.refusals),
                         (['__x64_sys_sysinfo'], [], ['__do_sys_sysinfo'], []))

    def test_clone_added(self):
        """compare: a new gcc clone is added, not changed"""
        o, n = Elf(fixture('clone', 'orig.elf')), Elf(fixture('clone', 'patched.elf'))
        d = Diff(o, n, 'fs/binfmt_misc.o')
        self.assertEqual((d.changed, d.added, d.carried, d.refusals),
                         (['bm_status_read', 'load_misc_binary'], ['queued_read_unlock.constprop.0'], [], []))

    def test_new_static_local(self):
        """compare: a new static variable of a function has no key of the old object"""
        o, n = Elf(fixture('new-static-local', 'orig.elf')), Elf(fixture('new-static-local', 'patched.elf'))
        d = Diff(o, n, 'fs/proc/version.o')
        sym = n.objects['reads.0']
        self.assertEqual(Diff.static_owners(n), {'reads.0': 'version_proc_show'})
        self.assertEqual(d.data_key(n, sym), ('static', 'reads', 'version_proc_show'))
        self.assertNotIn(d.data_key(n, sym), d.okeys)
        self.assertFalse(Diff.const_local(n, sym))


class Result(unittest.TestResult):
    """one line per check, "ok: ..." or "FAIL: ...\""""

    def addSuccess(self, test):
        super().addSuccess(test)
        print(f'ok: {test.shortDescription()}')

    def report(self, test, err):
        sub = test.id().partition(' ')[2]       # a subtest's parameters
        print(f'FAIL: {test.shortDescription()}{" " + sub if sub else ""}')
        for line in ''.join(traceback.format_exception(*err)).rstrip().split('\n'):
            print(f'    | {line}')

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.report(test, err)

    def addError(self, test, err):
        super().addError(test, err)
        self.report(test, err)

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None:
            self.report(subtest, err)


def main():
    suite = unittest.defaultTestLoader.loadTestsFromModule(sys.modules[__name__])
    result = Result()
    suite.run(result)
    return 0 if result.wasSuccessful() else 1


if __name__ == '__main__':
    sys.exit(main())
