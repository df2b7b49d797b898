# SPDX-License-Identifier: GPL-2.0
"""kgrdiff: the parts of kgr-diff.py, which compares an object of the
kernel built without and with a source change and writes the new code of
the changed functions for a kGraft patch module.

  elf.py      reading and writing relocatable x86_64 ELF objects
  compare.py  the comparison, function by function: changed, added and
              carried functions, and what is refused
  module.py   the patch module's object: the new code, its tables, and
              its references to the running kernel

kgr-diff.py, next to this package, is the command line.  The host test
scripts/tests/test-kgr-diff.sh runs it on stored pairs of objects.
"""
