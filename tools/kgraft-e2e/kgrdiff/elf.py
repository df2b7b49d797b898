# SPDX-License-Identifier: GPL-2.0
"""Relocatable x86_64 ELF objects for kgr-diff.py: reading one, writing one.

Elf reads an object as gcc writes it (with -ffunction-sections
-fdata-sections): every section with its data, the symbols of .symtab in
their order, and for each section the relocations of its .rela section,
sorted by offset, as (offset, type, symbol index, addend).  Nothing else
of the file is kept; an object that is not a relocatable x86_64 ELF64
little-endian file is BadInput.

Out builds the patch module's object from what is added to it and
writes it with a fixed layout: the ELF header, the sections in the order
they were added, their .rela sections, .symtab, .strtab and .shstrtab,
then the section headers.  Each added section gets a section symbol
whose index is the section's; the globals and undefined symbols follow
the locals in the order added; relocations are written sorted by offset.
An object Out wrote reads back with Elf to the same sections (of a
NOBITS one, its size), symbols and relocations, and written again from
them gives the same bytes.
"""

import struct

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
