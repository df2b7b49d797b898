# SPDX-License-Identifier: GPL-2.0
"""The patch module's object for kgr-diff.py: the new code of one object,
and what it needs of the running kernel.

Builder copies into an Out the changed functions, the functions the
change added, the carried ones and the .cold parts of all these, each
named kgr_new<TAG>_<name>; the string literals and anonymous constants
they use; their entries of __jump_table, __ex_table, __bug_table and
.altinstructions; and a __mcount_loc for the fentry sites of the changed
functions.  Every other reference becomes a reference to the running
kernel, as Kernel names it: the plain name for what Module.symvers
exports, ".kgr.sym.OBJ.NAME,POS" for the rest, which the module loader
resolves (POS tells apart the kernel's symbols of the same name, in
kallsyms order).  A reference the running kernel cannot satisfy (a new
variable, code outside any function, writable data without a name, a
name it does not have or cannot tell apart) is Refused.  A variable the
change added, a static one of a function or any other, is the module's
own: its section is copied with its initial value.
"""

import re
import sys

from .compare import (CARRIED, DROPPED, Diff, Refused, Target, cold_parts, has_fentry,
                      is_cold, target_offset)
from .elf import (R_X86_64_64, SHF_ALLOC, SHF_EXECINSTR, SHF_INFO_LINK, SHF_WRITE, SHN_UNDEF,
                  SHT_NOBITS, SHT_PROGBITS, STB_LOCAL, STT_FUNC, STT_OBJECT, STT_SECTION, Out)


def cname(name):
    return re.sub(r'\W', '_', name)


def new_global_name(tag, name):
    """what the patch module calls the new code of function @name of the
    object kgr-fix.sh tagged @tag"""
    return f'kgr_new{tag}_{cname(name)}'


# the kinds of callback a fix's source may name (include/kgr-fix.h), each
# a section .kgr.callbacks.<kind> of pointers to functions of the fix
CALLBACKS = ('pre_patch', 'post_patch', 'pre_revert', 'post_revert')
CALLBACK_SECTION = '.kgr.callbacks.'


def has_callbacks(elf):
    """whether the object names callbacks (kgr-fix.h)"""
    return any(sec.name.startswith(CALLBACK_SECTION) for sec in elf.sections)


def read_provided(path):
    """{NAME: NEWSYM}: the global functions that other objects of the fix
    add ("NAME NEWSYM" lines of --provided), which the module carries"""
    provided = {}
    if path:
        with open(path) as f:
            for line in f:
                parts = line.split()
                if len(parts) == 2:
                    provided[parts[0]] = parts[1]
    return provided


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
        self.provided = read_provided(getattr(args, 'provided', None))
        self.new_locals = []    # new static variables the module carries
        self.new_data = []      # the other new variables it carries

    def newname(self, name):
        return new_global_name(self.tag, name)

    def build(self):
        n = self.n
        include = list(self.d.changed) + list(self.d.added) + list(self.d.carried)
        for name in list(include):
            for cold in cold_parts(n.funcs, name):
                if cold not in include:
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

    def callbacks(self):
        """[(kind, function)]: the callbacks the object names, each a
        function the module carries; anything else is Refused"""
        n = self.n
        found = {}
        for sec in n.sections:
            if not sec.name.startswith(CALLBACK_SECTION):
                continue
            kind = sec.name[len(CALLBACK_SECTION):]
            if kind not in CALLBACKS:
                raise Refused(f'{sec.name}: no such kind of callback (there are {", ".join(CALLBACKS)})')
            for reloc in sec.relocs:
                t = Target(n, reloc)
                if t.kind != 'sym' or t.sym.type != STT_FUNC or t.sym.name not in self.func_out or t.delta:
                    raise Refused(f'{sec.name}: a callback must be a function of the fix, which the '
                                  f'module carries; {t.sym.name} is not')
                if kind in found:
                    raise Refused(f'{sec.name}: two {kind} callbacks, {found[kind]} and {t.sym.name}: '
                                  'one of each kind per object')
                found[kind] = t.sym.name
        return [(kind, found[kind]) for kind in CALLBACKS if kind in found]

    def owner(self, off, sec):
        """the included function (and its out section) that covers sec+off"""
        for name, (idx, sym) in self.func_out.items():
            if sym.shndx == sec.idx and sym.value <= off < sym.value + sym.size:
                return idx, sym
        return None

    def copy_section(self, sec):
        if sec.idx not in self.sec_out:
            flags = sec.flags & ~SHF_INFO_LINK
            data = bytes(sec.size) if sec.type == SHT_NOBITS else sec.data
            idx = self.out.add_section(sec.name, sec.type, flags, sec.align, data, sec.entsize)
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
            if target.name in self.provided and target.name not in self.kernel.syms:
                # a new global function of another object of the fix
                return self.out.add_undef(self.provided[target.name]), addend
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
                # a new variable: the module's own, with its initial
                # value (a _once flag of a function starts unset)
                new = self.new_locals if okey[0] == 'static' else self.new_data
                if name not in new:
                    new.append(name)
                value = 0 if t.section is not None else target.value
                return self.out.section_sym(self.copy_section(n.sec(target))), addend + value
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
            if base.startswith(CALLBACK_SECTION):
                continue        # callbacks(): the module's struct kgr_patch
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
