#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""kgr-diff.py: the functions a source change changed in one object file,
and an object with their new code for a kGraft patch module.

usage: kgr-diff.py [options] ORIG.o PATCHED.o

ORIG.o and PATCHED.o are the same object of the kernel built without and
with the change, both with -ffunction-sections -fdata-sections.  A
function changed when its code or its relocations differ, compared by
what they refer to (a function or variable by name, a string literal by
its text), so that code that only moved, or a string that moved within
its section, does not count.  The callers of a changed inline function
changed too (the inlined copy is in their code), and so do gcc's clones
(.isra, .constprop, .part): each is a function of its own, with its own
fentry site, and is patched under its own name.  A .cold part belongs to
its function.

What cannot be live patched is refused, with the reason and the place:
changed or new data (a variable's initial value, a constant table, a
structure's size), a changed __init or __exit function, a changed
function without a fentry site (notrace, noinstr), a new static variable
of a function, a reference to a symbol the running kernel does not have.

With --out, writes OUT.o: the changed functions and the functions the
change added (named kgr_new_<name>), the string literals and anonymous
constants they use, their entries of __jump_table, __ex_table,
__bug_table and .altinstructions, and a __mcount_loc for their fentry
sites; every other reference becomes a reference to the running kernel:
the plain name for what --exports lists, ".kgr.sym.OBJ.NAME,POS" for the
rest, which the module loader resolves (kernel/module/kgraft.c).  With
--manifest, writes one line per patched function: "patch NAME POS NEWSYM".

Exit status 0: changed functions found (or none, see the report); 1:
refused (messages on stderr, "kgr-diff: refused: ..."); 2: bad usage or
input.
"""

import argparse
import re
import struct
import sys

# ELF constants (relocatable x86_64 objects only)
SHT_PROGBITS, SHT_SYMTAB, SHT_STRTAB, SHT_RELA, SHT_NOBITS = 1, 2, 3, 4, 8
SHF_WRITE, SHF_ALLOC, SHF_EXECINSTR, SHF_MERGE, SHF_STRINGS = 1, 2, 4, 0x10, 0x20
SHF_INFO_LINK = 0x40
STT_NOTYPE, STT_OBJECT, STT_FUNC, STT_SECTION, STT_FILE = 0, 1, 2, 3, 4
STB_LOCAL, STB_GLOBAL, STB_WEAK = 0, 1, 2
SHN_UNDEF, SHN_ABS, SHN_COMMON = 0, 0xfff1, 0xfff2
R_X86_64_64, R_X86_64_PC32, R_X86_64_PLT32 = 1, 2, 4
R_X86_64_32, R_X86_64_32S, R_X86_64_PC64 = 10, 11, 24
PCREL = (R_X86_64_PC32, R_X86_64_PLT32, R_X86_64_PC64)
RSIZE = {R_X86_64_64: 8, R_X86_64_PC32: 4, R_X86_64_PLT32: 4,
         R_X86_64_32: 4, R_X86_64_32S: 4, R_X86_64_PC64: 8}

# tables whose entries point into a function and that the module loader
# handles for a module: entry size, carried with the function
CARRIED = {'__jump_table': 16, '__ex_table': 12, '.altinstructions': 12}
# tables the new code can do without: the module works without its
# entries (objtool's lists for retpolines, return thunks, static calls,
# ORC unwind info: stack traces through the new code are not reliable)
DROPPED = ('__mcount_loc', '.orc_unwind_ip', '.orc_unwind', '.retpoline_sites',
           '.return_sites', '.static_call_sites', '.parainstructions',
           '.smp_locks', '.ibt_endbr_seal', '.call_sites', '__ksymtab',
           '.discard', '.rela', '.debug', '.note', '.comment', '.BTF',
           '__patchable_function_entries', '.eh_frame')


class Refused(Exception):
    pass


class BadInput(Exception):
    pass


class Section:
    def __init__(self, idx, name, sh):
        self.idx, self.name = idx, name
        (self.name_off, self.type, self.flags, self.addr, self.offset,
         self.size, self.link, self.info, self.align, self.entsize) = sh
        self.data = b''
        self.relocs = []        # (offset, type, symidx, addend)

    @property
    def code(self):
        return bool(self.flags & SHF_EXECINSTR)


class Symbol:
    def __init__(self, idx, name, st):
        self.idx, self.name = idx, name
        _, info, self.other, self.shndx, self.value, self.size = st
        self.type, self.bind = info & 0xf, info >> 4


class Elf:
    def __init__(self, path):
        self.path = path
        try:
            with open(path, 'rb') as f:
                raw = f.read()
        except OSError as e:
            raise BadInput(f'{path}: {e.strerror}')
        if raw[:4] != b'\x7fELF' or raw[4] != 2 or raw[5] != 1:
            raise BadInput(f'{path}: not a 64-bit little-endian ELF file')
        e_type, e_machine = struct.unpack_from('<HH', raw, 16)
        if e_type != 1 or e_machine != 62:
            raise BadInput(f'{path}: not a relocatable x86_64 object')
        shoff, = struct.unpack_from('<Q', raw, 40)
        shentsize, shnum, shstrndx = struct.unpack_from('<HHH', raw, 58)
        hdrs = [struct.unpack_from('<IIQQQQIIQQ', raw, shoff + i * shentsize)
                for i in range(shnum)]
        strtab = raw[hdrs[shstrndx][4]:hdrs[shstrndx][4] + hdrs[shstrndx][5]]
        self.sections = []
        for i, sh in enumerate(hdrs):
            sec = Section(i, cstr(strtab, sh[0]), sh)
            if sec.type != SHT_NOBITS:
                sec.data = raw[sec.offset:sec.offset + sec.size]
            self.sections.append(sec)
        self.symbols = []
        for sec in self.sections:
            if sec.type != SHT_SYMTAB:
                continue
            names = self.sections[sec.link].data
            for i in range(sec.size // 24):
                st = struct.unpack_from('<IBBHQQ', sec.data, i * 24)
                self.symbols.append(Symbol(i, cstr(names, st[0]), st))
        for sec in self.sections:
            if sec.type != SHT_RELA:
                continue
            target = self.sections[sec.info]
            for i in range(sec.size // 24):
                off, info, add = struct.unpack_from('<QQq', sec.data, i * 24)
                target.relocs.append((off, info & 0xffffffff, info >> 32, add))
        for sec in self.sections:
            sec.relocs.sort()
        # defined functions and variables by name
        self.funcs, self.objects = {}, {}
        for sym in self.symbols:
            if sym.shndx in (SHN_UNDEF, SHN_ABS, SHN_COMMON) or sym.shndx >= len(self.sections):
                continue
            if sym.type == STT_FUNC:
                self.funcs[sym.name] = sym
            elif sym.type == STT_OBJECT:
                self.objects.setdefault(sym.name, sym)

    def sec(self, sym):
        return self.sections[sym.shndx]

    def symbol_at(self, sec, off):
        """the named function or variable of SEC that covers OFF"""
        best = None
        for sym in self.symbols:
            if sym.shndx != sec.idx or sym.type not in (STT_FUNC, STT_OBJECT):
                continue
            if sym.value <= off < sym.value + max(sym.size, 1):
                if best is None or sym.size < best.size:
                    best = sym
        return best

    def relocs_in(self, sym):
        sec = self.sec(sym)
        return [r for r in sec.relocs if sym.value <= r[0] < sym.value + sym.size]


def cstr(data, off):
    end = data.find(b'\0', off)
    return data[off:end if end >= 0 else len(data)].decode('utf-8', 'replace')


STATIC_LOCAL = re.compile(r'^(.+)\.(\d+)$')


def target_offset(rtype, addend):
    """where a relocation points inside its symbol's section"""
    return addend + 4 if rtype in (R_X86_64_PC32, R_X86_64_PLT32) else addend


class Target:
    """what a relocation refers to, independent of where things are"""

    def __init__(self, elf, reloc):
        off, rtype, symidx, addend = reloc
        sym = elf.symbols[symidx]
        self.sym, self.delta, self.section = sym, addend, None
        self.kind, self.key = 'sym', sym.name
        # a local label gas kept (.LC3 of a string) counts as its
        # section plus the label's offset
        self.base = 0
        label = (sym.type == STT_NOTYPE and sym.bind == STB_LOCAL and
                 0 < sym.shndx < len(elf.sections))
        if label:
            self.base = sym.value
        if sym.type != STT_SECTION and not label:
            if sym.bind == STB_LOCAL and sym.type == STT_OBJECT:
                m = STATIC_LOCAL.match(sym.name)
                if m:
                    self.kind, self.key = 'static', m.group(1)
            return
        sec = elf.sections[sym.shndx]
        self.section = sec
        toff = target_offset(rtype, addend) + self.base
        addend += self.base
        if sec.flags & SHF_MERGE and sec.flags & SHF_STRINGS:
            start = sec.data.rfind(b'\0', 0, toff) + 1
            end = sec.data.find(b'\0', toff)
            self.kind = 'string'
            self.key = (sec.data[start:end], toff - start)
            self.delta = addend - toff
            return
        if sec.flags & SHF_MERGE:
            n = max(sec.entsize, 1)
            self.kind, self.key = 'const', sec.data[toff - toff % n:toff - toff % n + n]
            self.delta = addend - toff + toff % n
            return
        named = None
        # an instruction may have an immediate after its displacement:
        # the target is then 1, 2 or 4 bytes further than addend + 4
        for extra in ((0, 1, 2, 4) if rtype in (R_X86_64_PC32, R_X86_64_PLT32) else (0,)):
            named = elf.symbol_at(sec, toff + extra)
            if named is not None:
                break
        if named is None:
            only = [s for s in elf.symbols if s.shndx == sec.idx and s.type in (STT_FUNC, STT_OBJECT)]
            if len(only) == 1 and sec.name.endswith('.' + only[0].name):
                named = only[0]
        if named is not None:
            self.sym = named
            self.delta = addend - named.value
            self.kind, self.key = 'sym', named.name
            if named.bind == STB_LOCAL and named.type == STT_OBJECT:
                m = STATIC_LOCAL.match(named.name)
                if m:
                    self.kind, self.key = 'static', m.group(1)
            return
        self.kind, self.key = 'anon', (sec.name, addend)

    def ident(self):
        return (self.kind, self.key, self.delta)


def body(elf, sym):
    """a function's code and relocations, independent of its position"""
    sec = elf.sec(sym)
    code = bytearray(sec.data[sym.value:sym.value + sym.size])
    rels = []
    for off, rtype, symidx, addend in elf.relocs_in(sym):
        t = Target(elf, (off, rtype, symidx, addend))
        rel = off - sym.value
        code[rel:rel + RSIZE.get(rtype, 4)] = bytes(RSIZE.get(rtype, 4))
        if t.kind == 'anon':
            # a jump table, a constant, a string outside a merged section
            # (KASAN's redzones): its content
            rels.append((rel, rtype, t.kind, t.key[0], anon_content(elf, t, rtype)))
        else:
            rels.append((rel, rtype) + t.ident())
    return bytes(code), rels


ANON_WINDOW = 64


def anon_content(elf, t, rtype):
    """what is at an anonymous place: up to 64 bytes and their relocations
    (a string: up to its end), not where it is in its section"""
    sec = t.section
    start = max(target_offset(rtype, t.key[1]), 0)
    end = min(start + ANON_WINDOW, len(sec.data))
    rels = []
    for off, rt, symidx, addend in sec.relocs:
        if start <= off < end:
            tt = Target(elf, (off, rt, symidx, addend))
            if tt.section is sec:
                rels.append((off - start, rt, 'self', addend - start))
            else:
                rels.append((off - start, rt) + tt.ident())
    data = sec.data[start:end]
    if not rels and b'\0' in data:
        data = data[:data.index(b'\0')]
    return repr((data, rels))


class LineMap:
    """where the fix moved the lines of each file it changes: a change of
    the code that is only __LINE__ moving (might_sleep(), WARN_ON() with
    some configs) is not a change of the function"""

    def __init__(self, path):
        self.files = {}
        if not path:
            return
        name = None
        with open(path, errors='replace') as f:
            for line in f:
                if line.startswith('+++ '):
                    name = line[4:].split()[0]
                    self.files[name] = []
                m = re.match(r'^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@', line)
                if m and name:
                    old, oldn = int(m.group(1)), int(m.group(2) or 1)
                    new, newn = int(m.group(3)), int(m.group(4) or 1)
                    self.files[name].append((old, oldn, new, newn))

    def moved(self, old, new):
        """whether some file's line old is line new after the fix"""
        for hunks in self.files.values():
            shift = 0
            inside = False
            for hold, holdn, hnew, hnewn in hunks:
                if old >= hold + holdn:
                    shift += hnewn - holdn
                elif old >= hold:
                    inside = True
            if not inside and shift and old + shift == new:
                return True
        return False

    def same_text(self, a, b):
        """strings that differ only in line numbers the fix moved (KASAN's
        descriptions of a function's stack variables: "tcomm:100")"""
        pa, pb = re.split(rb'(\d+)', a), re.split(rb'(\d+)', b)
        if len(pa) != len(pb):
            return False
        for i, (x, y) in enumerate(zip(pa, pb)):
            if x != y and not (i % 2 and self.moved(int(x), int(y))):
                return False
        return True

    def same_rels(self, ra, rb):
        if ra == rb:
            return True
        if len(ra) != len(rb) or not self.files:
            return False
        for x, y in zip(ra, rb):
            if x == y:
                continue
            if not (x[:3] == y[:3] and x[2] == 'string' and x[4:] == y[4:] and
                    x[3][1] == y[3][1] and self.same_text(x[3][0], y[3][0])):
                return False
        return True

    def only_lines(self, a, b):
        """whether code a and b differ only in 32-bit values that are line
        numbers the fix moved"""
        if len(a) != len(b) or not self.files:
            return False
        i = 0
        while i < len(a):
            if a[i] == b[i]:
                i += 1
                continue
            j = i
            while j < len(a) and a[j] != b[j]:
                j += 1
            ok = False
            for s in range(max(j - 4, 0), i + 1):
                if s + 4 > len(a):
                    continue
                va = int.from_bytes(a[s:s + 4], 'little')
                vb = int.from_bytes(b[s:s + 4], 'little')
                if 0 < va < 1000000 and self.moved(va, vb):
                    ok = True
                    j = max(j, s + 4)
                    break
            if not ok:
                return False
            i = j
        return True


def data_ident(elf, sym):
    sec = elf.sec(sym)
    data = sec.data[sym.value:sym.value + sym.size] if sec.type != SHT_NOBITS else b''
    rels = []
    for off, rtype, s, a in elf.relocs_in(sym):
        t = Target(elf, (off, rtype, s, a))
        rels.append((off - sym.value, rtype) +
                    ((t.key[0], anon_content(elf, t, rtype)) if t.kind == 'anon' else t.ident()))
    return (sym.size, sec.type == SHT_NOBITS, data, rels)


def has_fentry(elf, sym):
    for off, rtype, symidx, addend in elf.relocs_in(sym):
        if elf.symbols[symidx].name == '__fentry__' and off - sym.value < 16:
            return off - sym.value
    return None


def parent(name):
    """the function a .cold part belongs to"""
    return name[:-5] if name.endswith('.cold') else re.sub(r'\.cold\.\d+$', '', name)


def is_cold(name):
    return name.endswith('.cold') or re.search(r'\.cold\.\d+$', name) is not None


def init_section(sec):
    return sec.name.startswith(('.init.', '.exit.'))


class Diff:
    def __init__(self, orig, new, where, lines=None):
        self.orig, self.new, self.where = orig, new, where
        self.lines = lines or LineMap(None)
        self.refusals = []
        self.changed, self.added = [], []
        self.compare()

    def refuse(self, what):
        self.refusals.append(f'{self.where}: {what}')

    def compare(self):
        o, n = self.orig, self.new
        changed = set()
        for name, sym in n.funcs.items():
            if name not in o.funcs:
                if not is_cold(name):
                    self.added.append(name)
                continue
            if name.startswith(('_sub_I_', '_sub_D_')):
                continue        # gcc's constructors (KASAN): they ran at boot
            ob, nb = body(o, o.funcs[name]), body(n, sym)
            if ob != nb and not (self.lines.same_rels(ob[1], nb[1]) and
                                 (ob[0] == nb[0] or self.lines.only_lines(ob[0], nb[0]))):
                changed.add(parent(name))
        # a changed function without a fentry site cannot be redirected;
        # a static one that only functions of this object call comes
        # with the new code, and its callers are patched instead (an
        # inline function that gcc emitted out of line is notrace)
        callers = self.callers(n)
        self.carried = []
        todo = sorted(changed)
        seen = set(todo)
        while todo:
            name = todo.pop(0)
            sym = n.funcs.get(name)
            if sym is None:
                self.refuse(f'{name}: only its .cold part changed, and {name} is not in the object')
                continue
            sec = n.sec(sym)
            if init_section(sec):
                self.refuse(f'{name}: changed an __init or __exit function (section {sec.name}), which runs only at boot or unload')
            elif has_fentry(n, sym) is not None:
                self.changed.append(name)
            elif sym.bind != STB_LOCAL or name in callers.get(None, ()):
                what = 'a global function' if sym.bind != STB_LOCAL else 'referred to from data'
                self.refuse(f'{name}: changed a function without a fentry site (notrace or noinstr, section {sec.name}), '
                            f'{what}: ftrace cannot redirect it')
            else:
                self.carried.append(name)
                for caller in sorted(callers.get(name, ())):
                    if caller not in seen:
                        seen.add(caller)
                        todo.append(caller)
        for name in self.added:
            if init_section(n.sec(n.funcs[name])):
                self.refuse(f'{name}: added an __init or __exit function')
        # data: changed values, sizes, relocations; new variables.  A
        # static variable of a function is known by its name without gcc's
        # number (which another change in the file shifts) and by the
        # function that uses it; a constant one (__func__, a table) is
        # the new code's own and comes with it, changed or not
        self.static_owner = {id(o): self.static_owners(o), id(n): self.static_owners(n)}
        okeys = {}
        for name, sym in o.objects.items():
            okeys[self.data_key(o, sym)] = sym
        for name, sym in n.objects.items():
            sec = n.sec(sym)
            if not sec.flags & SHF_ALLOC or init_section(sec) or self.const_local(n, sym):
                continue
            key = self.data_key(n, sym)
            osym = okeys.get(key)
            if osym is None:
                continue        # new: refused only if the new code uses it
            if data_ident(o, osym) != data_ident(n, sym):
                self.refuse(f'changed data: {name} ({sec.name}, {osym.size} -> {sym.size} bytes): '
                            'the running kernel keeps its own copy, with the old value and size')
        self.okeys = okeys

    @staticmethod
    def callers(elf):
        """function name -> the functions that refer to it; None: data refers to it"""
        out = {}
        for sec in elf.sections:
            if not sec.relocs or not sec.flags & SHF_ALLOC:
                continue
            for reloc in sec.relocs:
                t = Target(elf, reloc)
                if t.kind != 'sym' or t.sym.type != STT_FUNC or t.sym.shndx == SHN_UNDEF:
                    continue
                if sec.code:
                    owner = elf.symbol_at(sec, reloc[0])
                    if owner is not None and owner.name != t.sym.name:
                        out.setdefault(t.sym.name, set()).add(parent(owner.name))
                elif not sec.name.startswith(DROPPED) and sec.name not in CARRIED and \
                        sec.name != '__bug_table':
                    out.setdefault(None, set()).add(t.sym.name)
        return out

    @staticmethod
    def static_owners(elf):
        """static variable of a function -> the function that uses it"""
        out = {}
        for sec in elf.sections:
            if not sec.code or not sec.relocs:
                continue
            for reloc in sec.relocs:
                t = Target(elf, reloc)
                if t.kind != 'static':
                    continue
                owner = elf.symbol_at(sec, reloc[0])
                if owner is not None:
                    name = parent(owner.name)
                    if t.sym.name not in out or name < out[t.sym.name]:
                        out[t.sym.name] = name
        return out

    def data_key(self, elf, sym):
        m = STATIC_LOCAL.match(sym.name) if sym.bind == STB_LOCAL else None
        if not m:
            return ('sym', sym.name)
        return ('static', m.group(1), self.static_owner[id(elf)].get(sym.name))

    @staticmethod
    def const_local(elf, sym):
        """a constant static variable of a function"""
        return (sym.bind == STB_LOCAL and STATIC_LOCAL.match(sym.name) is not None and
                not elf.sec(sym).flags & SHF_WRITE)


# ---------------------------------------------------------------------------
# the output object


class Out:
    """a relocatable object built from sections and symbols"""

    def __init__(self):
        self.sections = []      # [name, type, flags, align, data, entsize, relocs]
        self.symbols = [('', 0, 0, 0, 0, 0)]  # name, info, shndx(out index), value, size, other
        self.globals = []
        self.undef = {}

    def add_section(self, name, stype, flags, align, data, entsize=0):
        self.sections.append([name, stype, flags, align, bytearray(data), entsize, []])
        idx = len(self.sections)        # 1-based in the file (0 is null)
        self.symbols.append(('', STT_SECTION, idx, 0, 0, 0))
        return idx

    def section_sym(self, idx):
        return idx                      # section symbols come in order

    def add_global(self, name, stype, shndx, value, size):
        self.globals.append((name, (STB_GLOBAL << 4) | stype, shndx, value, size, 0))
        return ('g', len(self.globals) - 1)

    def add_undef(self, name):
        if name not in self.undef:
            self.globals.append((name, (STB_GLOBAL << 4) | STT_NOTYPE, 0, 0, 0, 0))
            self.undef[name] = ('g', len(self.globals) - 1)
        return self.undef[name]

    def write(self, path):
        nloc = len(self.symbols)
        syms = self.symbols + self.globals

        def symidx(ref):
            return ref if isinstance(ref, int) else nloc + ref[1]
        secs = [s[:] for s in self.sections]
        for i, s in enumerate(self.sections):
            if s[6]:
                data = b''.join(struct.pack('<QQq', off, (symidx(ref) << 32) | rtype, add)
                                for off, rtype, ref, add in sorted(s[6], key=lambda r: r[0]))
                secs.append(['.rela' + s[0], SHT_RELA, SHF_INFO_LINK, 8, data, 24, i + 1])
        strtab = bytearray(b'\0')
        symdata = bytearray()
        for name, info, shndx, value, size, other in syms:
            off = 0
            if name:
                off = len(strtab)
                strtab += name.encode() + b'\0'
            symdata += struct.pack('<IBBHQQ', off, info, other, shndx, value, size)
        # layout: header, sections, shstrtab; symtab at the end of the table
        allsecs = list(secs)
        symtab_idx = len(allsecs) + 1
        allsecs.append(['.symtab', SHT_SYMTAB, 0, 8, bytes(symdata), 24, 'strtab', nloc])
        allsecs.append(['.strtab', SHT_STRTAB, 0, 1, bytes(strtab), 0])
        shstr = bytearray(b'\0')
        name_off = []
        for s in allsecs + [['.shstrtab']]:
            name_off.append(len(shstr))
            shstr += s[0].encode() + b'\0'
        allsecs.append(['.shstrtab', SHT_STRTAB, 0, 1, bytes(shstr), 0])
        body_ = bytearray(64)
        hdrs = [struct.pack('<IIQQQQIIQQ', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)]
        for i, s in enumerate(allsecs):
            name, stype, flags, align, data, entsize = s[:6]
            align = max(align, 1)
            while len(body_) % align:
                body_ += b'\0'
            off = len(body_)
            size = len(data)
            if stype != SHT_NOBITS:
                body_ += data
            link = info = 0
            if stype == SHT_RELA:
                link, info = symtab_idx, s[6]
            elif stype == SHT_SYMTAB:
                link, info = symtab_idx + 1, s[7]
            hdrs.append(struct.pack('<IIQQQQIIQQ', name_off[i], stype, flags, 0, off,
                                    size, link, info, align, entsize))
        while len(body_) % 8:
            body_ += b'\0'
        shoff = len(body_)
        ehdr = bytearray(b'\x7fELF\x02\x01\x01' + bytes(9))
        ehdr += struct.pack('<HHIQQQIHHHHHH', 1, 62, 1, 0, 0, shoff, 0, 64, 0, 0, 64,
                            len(hdrs), len(hdrs) - 1)
        body_[:64] = ehdr
        with open(path, 'wb') as f:
            f.write(body_ + b''.join(hdrs))


def cname(name):
    return re.sub(r'\W', '_', name)


class Builder:
    """the new code of one object, and what it needs of the running kernel"""

    def __init__(self, diff, args, kernel):
        self.d, self.args, self.kernel = diff, args, kernel
        self.n = diff.new
        self.out = Out()
        self.func_out = {}      # function name -> (out section, value in it)
        self.sec_out = {}       # patched section index -> out section
        self.kernel_refs = {}   # reference name -> why
        self.tag = args.tag

    def newname(self, name):
        return f'kgr_new{self.tag}_{cname(name)}'

    def build(self):
        n = self.n
        include = list(self.d.changed) + list(self.d.added) + list(self.d.carried)
        for name in list(include):
            for cold in (f'{name}.cold',):
                if cold in n.funcs and cold not in include:
                    include.append(cold)
        for name in include:
            sym = n.funcs[name]
            sec = n.sec(sym)
            data = sec.data[sym.value:sym.value + sym.size]
            idx = self.out.add_section(f'.text.kgr.{name}', SHT_PROGBITS,
                                       SHF_ALLOC | SHF_EXECINSTR, 16, data)
            self.func_out[name] = (idx, sym)
            self.out.add_global(self.newname(name), STT_FUNC, idx, 0, sym.size)
        for name in include:
            idx, sym = self.func_out[name]
            for off, rtype, symidx, addend in n.relocs_in(sym):
                ref, add = self.resolve((off, rtype, symidx, addend), name)
                if ref is not None:
                    self.out.sections[idx - 1][6].append((off - sym.value, rtype, ref, add))
        self.carry_tables()
        self.mcount()
        self.out.add_section('.note.GNU-stack', SHT_PROGBITS, 0, 1, b'')

    def owner(self, off, sec):
        """the included function (and its out section) that covers sec+off"""
        for name, (idx, sym) in self.func_out.items():
            if sym.shndx == sec.idx and sym.value <= off < sym.value + sym.size:
                return idx, sym
        return None

    def copy_section(self, sec):
        if sec.idx not in self.sec_out:
            flags = sec.flags & ~SHF_INFO_LINK
            idx = self.out.add_section(sec.name, sec.type, flags, sec.align, sec.data, sec.entsize)
            self.sec_out[sec.idx] = idx
            for off, rtype, symidx, addend in sec.relocs:
                ref, add = self.resolve((off, rtype, symidx, addend), sec.name)
                if ref is not None:
                    self.out.sections[idx - 1][6].append((off, rtype, ref, add))
        return self.sec_out[sec.idx]

    def resolve(self, reloc, where):
        """(out symbol, addend) for a relocation of the new code"""
        off, rtype, symidx, addend = reloc
        n = self.n
        t = Target(n, reloc)
        addend += t.base
        if t.kind in ('string', 'const'):
            return self.out.section_sym(self.copy_section(t.section)), addend
        if t.kind == 'anon':
            sec = t.section
            if sec.flags & SHF_EXECINSTR:
                inc = self.owner(target_offset(rtype, addend), sec)
                if inc:
                    return inc[0], addend - inc[1].value
                if sec.name.startswith(('.altinstr_aux', '.altinstr_replacement')):
                    # static_cpu_has()'s slow path, an alternative's code
                    return self.out.section_sym(self.copy_section(sec)), addend
                raise Refused(f'{where}: refers to code at {sec.name}+{addend:#x} outside any function')
            if sec.flags & SHF_WRITE:
                raise Refused(f'{where}: refers to writable data without a name ({sec.name}+{addend:#x}), '
                              'which a module cannot share with the running kernel')
            return self.out.section_sym(self.copy_section(sec)), addend
        target = t.sym
        if target.type == STT_FUNC and target.name in self.func_out:
            idx, fsym = self.func_out[target.name]
            return idx, t.delta if t.section is not None else addend
        if target.shndx == SHN_UNDEF:
            return self.kernel_ref(target.name, target, where), addend
        # a function or variable of this object that the kernel has
        name = target.name
        if target.type == STT_OBJECT and Diff.const_local(n, target):
            value = 0 if t.section is not None else target.value
            return self.out.section_sym(self.copy_section(n.sec(target))), addend + value
        if target.type == STT_OBJECT:
            okey = self.d.data_key(n, target)
            osym = self.d.okeys.get(okey)
            if osym is None:
                raise Refused(f'{where}: uses the new variable {name}, which the running kernel does not have'
                              + (' (a new static variable would not be shared)' if okey[0] == 'static' else ''))
            name = osym.name
        elif target.type == STT_FUNC and target.name not in self.d.orig.funcs:
            raise Refused(f'{where}: calls {name}, which is not in the object without the change')
        add = t.delta if t.section is not None else addend
        return self.kernel_ref(name, target, where), add

    def kernel_ref(self, name, sym, where):
        local = sym.bind == STB_LOCAL
        if not local and name in self.kernel.exports:
            return self.out.add_undef(name)
        pos = self.kernel.position(name, local, sym, where)
        ref = f'.kgr.sym.{self.args.obj}.{name},{pos}'
        self.kernel_refs[ref] = where
        return self.out.add_undef(ref)

    def carry_tables(self):
        n = self.n
        carried = {}
        for sec in n.sections:
            base = sec.name
            if not sec.relocs or sec.flags & SHF_EXECINSTR or not sec.flags & SHF_ALLOC:
                continue
            # which entries point into the new code
            hits = set()
            unpatched = False   # refers to new code that no fentry site leads to
            for off, rtype, symidx, addend in sec.relocs:
                t = Target(n, (off, rtype, symidx, addend))
                code_sec = n.sections[n.symbols[symidx].shndx] if n.symbols[symidx].shndx < len(n.sections) else None
                if t.kind == 'sym' and t.sym.type == STT_FUNC and t.sym.name in self.func_out:
                    hits.add(off)
                    unpatched |= t.sym.name not in self.d.changed
                elif code_sec is not None and code_sec.code and n.symbols[symidx].type == STT_SECTION and \
                        self.owner(target_offset(rtype, addend), code_sec):
                    hits.add(off)
            if not hits:
                continue
            if base in CARRIED:
                carried[base] = (sec, hits)
            elif base == '__bug_table':
                carried[base] = (sec, hits)
            elif base.startswith(DROPPED) or (not sec.flags & SHF_WRITE and base.startswith('.rodata')):
                continue
            elif base.startswith('.altinstr_replacement'):
                continue
            elif unpatched:
                print(f'kgr-diff: {self.d.where}: note: {base} refers to a function of the new code that is '
                      'not patched (it keeps referring to the running kernel\'s)', file=sys.stderr)
        for base, (sec, hits) in sorted(carried.items()):
            size = CARRIED.get(base) or self.kernel.bug_entry_size
            entries = sorted({off - off % size for off in hits})
            data = bytearray()
            relocs = []
            for e in entries:
                data += sec.data[e:e + size]
                for off, rtype, symidx, addend in sec.relocs:
                    if e <= off < e + size:
                        relocs.append((off, rtype, symidx, addend, len(data) - size + off - e))
            idx = self.out.add_section(base, sec.type, sec.flags & ~SHF_INFO_LINK, sec.align, data)
            for off, rtype, symidx, addend, newoff in relocs:
                t = Target(n, (off, rtype, symidx, addend))
                if base == '.altinstructions' and t.section is not None and \
                        t.section.name.startswith('.altinstr_replacement'):
                    ref, add = self.out.section_sym(self.copy_section(t.section)), addend
                else:
                    ref, add = self.resolve((off, rtype, symidx, addend), f'{base} entry')
                self.out.sections[idx - 1][6].append((newoff, rtype, ref, add))

    def mcount(self):
        data = bytearray()
        relocs = []
        for name, (idx, sym) in self.func_out.items():
            if is_cold(name) or name not in self.d.changed:
                continue
            f = has_fentry(self.n, sym)
            # the call instruction starts one byte before the relocation
            relocs.append((len(data), R_X86_64_64, idx, f - 1))
            data += bytes(8)
        if relocs:
            idx = self.out.add_section('__mcount_loc', SHT_PROGBITS, SHF_ALLOC, 8, data)
            self.out.sections[idx - 1][6].extend(relocs)


class Kernel:
    """what the running kernel has: exports, and its symbols' positions"""

    def __init__(self, args):
        self.exports = set()
        for path in args.exports or []:
            with open(path) as f:
                for line in f:
                    parts = line.split('\t')
                    if len(parts) >= 2:
                        self.exports.add(parts[1])
        self.syms = {}          # name -> [(type letter, owner object or None)]
        if args.kallsyms:
            with open(args.kallsyms) as f:
                for line in f:
                    parts = line.split()
                    if len(parts) >= 3:
                        self.syms.setdefault(parts[2], []).append(parts[1])
        self.owners = {}        # name -> [objects that define a local of that name, link order]
        if args.locals:
            with open(args.locals) as f:
                for line in f:
                    obj, letter, name = line.split()
                    self.owners.setdefault(name, []).append((obj, letter))
        self.object_path = args.object_path
        self.bug_entry_size = args.bug_entry_size

    def position(self, name, local, sym, where):
        """which of the kernel's symbols called NAME: 0 if only one"""
        cands = self.syms.get(name)
        if not cands:
            raise Refused(f'{where}: refers to {name}, which is not in the running kernel\'s symbol table '
                          '(inlined or dropped there)')
        if len(cands) == 1:
            return 0
        if not local:
            ups = [i for i, c in enumerate(cands) if c.isupper()]
            if len(ups) == 1:
                return ups[0] + 1
            raise Refused(f'{where}: cannot tell which of {len(cands)} symbols {name} is')
        kind = 't' if sym.type == STT_FUNC else None
        owners = self.owners.get(name, [])
        objs = [o for o, letter in owners if kind is None or letter.lower() == kind]
        if self.object_path in objs:
            k = objs.index(self.object_path)
            same = [i for i, c in enumerate(cands) if c.islower() and (kind is None or c == kind)]
            if len(same) == len(objs):
                return same[k] + 1
        raise Refused(f'{where}: cannot tell which of the {len(cands)} symbols {name} of the running kernel '
                      f'is the one of {self.object_path}')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('orig')
    ap.add_argument('patched')
    ap.add_argument('--out', help='write the new code to this object')
    ap.add_argument('--manifest', help='write the patched functions to this file')
    ap.add_argument('--obj', default='vmlinux', help='vmlinux, or the module the object is part of')
    ap.add_argument('--object-path', default='', help="the object's path in the tree (for positions)")
    ap.add_argument('--exports', action='append', help='Module.symvers of the running kernel')
    ap.add_argument('--kallsyms', help='"ADDR TYPE NAME" lines of OBJ in kallsyms order (nm -n)')
    ap.add_argument('--locals', help='"OBJECT TYPE NAME" lines: local symbols per object, link order')
    ap.add_argument('--tag', default='', help='a suffix for kgr_new names (several objects)')
    ap.add_argument('--bug-entry-size', type=int, default=12)
    ap.add_argument('--fix', help='the source patch: line numbers it only moved are no change')
    args = ap.parse_args()
    where = args.object_path or args.patched
    try:
        orig, new = Elf(args.orig), Elf(args.patched)
        d = Diff(orig, new, where, LineMap(args.fix))
        for name in d.changed:
            print(f'changed {name}')
        for name in d.added:
            print(f'added {name}')
        if d.refusals:
            raise Refused('\n'.join(d.refusals))
        if args.out and d.changed:
            b = Builder(d, args, Kernel(args))
            b.build()
            b.out.write(args.out)
            for ref, why in sorted(b.kernel_refs.items()):
                print(f'kernel {ref} ({why})')
            if args.manifest:
                with open(args.manifest, 'w') as f:
                    for name in d.changed:
                        sym = new.funcs[name]
                        pos = Kernel.position(b.kernel, name, sym.bind == STB_LOCAL, sym,
                                              f'{name} (the function to patch)')
                        f.write(f'patch {name} {pos} {b.newname(name)}\n')
    except BadInput as e:
        print(f'kgr-diff: error: {e}', file=sys.stderr)
        return 2
    except Refused as e:
        for line in str(e).split('\n'):
            print(f'kgr-diff: refused: {line}', file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
