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
changed data (a variable's initial value, a constant table, a
structure's size), a changed __init or __exit function, a changed
function without a fentry site (notrace, noinstr), a reference to a
symbol the running kernel does not have.  A variable the change added
is the module's own, created afresh with its initial value: a static
one of a function (a counter, the flag of a WARN_ONCE() or
pr_warn_once()) printed as "new-static NAME", any other as "new-data
NAME".

With --out, writes OUT.o: the changed functions and the functions the
change added (named kgr_new_<name>), the string literals and anonymous
constants they use, their entries of __jump_table, __ex_table,
__bug_table and .altinstructions, and a __mcount_loc for their fentry
sites; every other reference becomes a reference to the running kernel:
the plain name for what --exports lists, ".kgr.sym.OBJ.NAME,POS" for the
rest, which the module loader resolves (kernel/module/kgraft.c).  With
--manifest, writes one line per patched function: "patch NAME POS NEWSYM",
and one per callback the source names (tools/kgraft-e2e/include/kgr-fix.h,
section .kgr.callbacks.KIND): "callback KIND NEWSYM", printed as
"callback KIND NAME".

A global function the change adds is printed as "provides NAME NEWSYM":
another object of the same change may call it.  kgr-fix.sh gathers these
lines from every object first and gives them back with --provided; a
reference to NAME that the running kernel cannot resolve is then a
reference to NEWSYM, the copy the patch module carries.  An object whose
only change is such a function is written too (with no manifest line).

Exit status 0: changed functions found (or none, see the report); 1:
refused (messages on stderr, "kgr-diff: refused: ..."); 2: bad usage or
input, or an internal error (a traceback on stderr): never taken for a
refusal.
"""

# The work is done by the package kgrdiff/ next to this file: elf.py
# reads and writes the objects, compare.py compares them, module.py
# builds the patch module's object.  This file is the command line.

import argparse
import os
import sys
import traceback

# kgrdiff/ is in the source tree, where no __pycache__ should appear
# (nothing ignores it); it is found next to this file however this file
# is run (through a symlink, with python3 -I)
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))

from kgrdiff.compare import Diff, LineMap, Refused
from kgrdiff.elf import STB_LOCAL, BadInput, Elf
from kgrdiff.module import Builder, Kernel, has_callbacks, new_global_name


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
    ap.add_argument('--provided', help='"NAME NEWSYM" lines: new global functions of the other objects')
    args = ap.parse_args()
    if args.manifest and not args.out:
        ap.error('--manifest needs --out: it names the symbols of that object')
    where = args.object_path or args.patched
    try:
        orig, new = Elf(args.orig), Elf(args.patched)
        d = Diff(orig, new, where, LineMap(args.fix))
        for name in d.changed:
            print(f'changed {name}')
        for name in d.added:
            print(f'added {name}')
        provides = [name for name in d.added if new.funcs[name].bind != STB_LOCAL]
        for name in provides:
            print(f'provides {name} {new_global_name(args.tag, name)}')
        if d.refusals:
            raise Refused('\n'.join(d.refusals))
        callbacks = has_callbacks(new)
        if args.out and (d.changed or provides or callbacks):
            b = Builder(d, args, Kernel(args))
            b.build()
            callbacks = b.callbacks()
            b.out.write(args.out)
            for kind, name in callbacks:
                print(f'callback {kind} {name}')
            for ref, why in sorted(b.kernel_refs.items()):
                print(f'kernel {ref} ({why})')
            for name in b.new_locals:
                print(f'new-static {name} (created afresh in the patch module, with its initial '
                      'value; a later cumulative patch will have its own)')
            for name in b.new_data:
                print(f'new-data {name} (the patch module\'s own, with its initial value; the running '
                      'kernel\'s code does not see it, and a later cumulative patch will have its own)')
            if args.manifest and (d.changed or callbacks):
                with open(args.manifest, 'w') as f:
                    for name in d.changed:
                        sym = new.funcs[name]
                        pos = Kernel.position(b.kernel, name, sym.bind == STB_LOCAL, sym,
                                              f'{name} (the function to patch)')
                        f.write(f'patch {name} {pos} {b.newname(name)}\n')
                    for kind, name in callbacks:
                        f.write(f'callback {kind} {b.newname(name)}\n')
    except BadInput as e:
        print(f'kgr-diff: error: {e}', file=sys.stderr)
        return 2
    except Refused as e:
        for line in str(e).split('\n'):
            print(f'kgr-diff: refused: {line}', file=sys.stderr)
        return 1
    except Exception:			# a bug, or input it did not foresee
        traceback.print_exc()
        print(f'kgr-diff: internal error on {where}', file=sys.stderr)
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(main())
