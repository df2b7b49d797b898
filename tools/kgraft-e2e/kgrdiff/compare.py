# SPDX-License-Identifier: GPL-2.0
"""The comparison of kgr-diff.py: what a source change changed in one
object, function by function, and what of it cannot be live patched.

Target says what a relocation refers to independently of where things
are (a function or variable by name, a string literal by its text, a
constant or an anonymous place by its content), and body() is a
function's code with its relocations in those terms, so that code that
only moved, or a string that moved within its section, compares equal.
LineMap knows which line numbers the fix only moved, for code and
strings that differ in nothing else.

Diff compares the object without and with the change: the changed
functions (a .cold part counts as its function's), the added ones, and
the carried ones, static functions without a fentry site (an inline
function gcc emitted out of line) that come with the new code while
their callers are patched instead.  What cannot be live patched is
collected in Diff.refusals, one message each: changed data, a changed
__init or __exit function, a changed function ftrace cannot redirect.
Refused is raised for those, by kgr-diff.py and by the module's builder.
"""

import re

from .elf import (RSIZE, R_X86_64_PC32, R_X86_64_PLT32, SHF_ALLOC, SHF_MERGE, SHF_STRINGS,
                  SHF_WRITE, SHN_UNDEF, SHT_NOBITS, STB_LOCAL, STT_FUNC, STT_NOTYPE,
                  STT_OBJECT, STT_SECTION)

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

    def moved(self, old, new, files=None):
        """whether line old of some file (of @files, if given) is line new
        after the fix"""
        for name, hunks in self.files.items():
            if files is not None and name not in files:
                continue
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

    def files_named(self, rels):
        """the files of the fix whose names the code refers to as strings
        (the __FILE__ that goes with a __LINE__, as in might_sleep())"""
        named = set()
        for x in rels:
            if len(x) < 4 or x[2] != 'string':
                continue
            text = x[3][0].decode(errors='replace')
            for name in self.files:
                path = name.split('/', 1)[1] if name.startswith(('a/', 'b/')) else name
                if text == path or text.endswith('/' + path):
                    named.add(name)
        return named

    def only_lines(self, a, b, rels):
        """whether code a and b differ only in 32-bit values that are line
        numbers the fix moved, in a file whose name the code refers to
        (@rels): a constant that the fix changed by as much as it moved
        some line elsewhere is a change"""
        if len(a) != len(b) or not self.files:
            return False
        files = self.files_named(rels)
        if not files:
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
                if 0 < va < 1000000 and self.moved(va, vb, files):
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


def cold_parts(funcs, name):
    """the .cold parts of function @name among @funcs: gcc names them
    NAME.cold, or NAME.cold.N when it numbers them"""
    return sorted(f for f in funcs if is_cold(f) and parent(f) == name)


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
                                 (ob[0] == nb[0] or self.lines.only_lines(ob[0], nb[0], ob[1]))):
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
