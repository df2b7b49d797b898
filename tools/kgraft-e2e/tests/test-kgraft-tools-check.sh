#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test-kgraft-tools-check.sh TOOLS
#
# The kGraft tools built from Debian packages alone and their own check:
# "make -C TOOLS check" (tools/kgraft of the patched tree) builds
# dwarf-inline-tree (libdwarf-dev, libelf-dev; dwarf_names.c generated
# from the installed dwarf.h) and objcopy-hacked (binutils-source), runs
# the RFC's example invocations on app.c and then tools/kgraft/check.sh,
# which asserts their results for DWARF 5 and DWARF 4 and the handling of
# bad input.  The exit status is the verdict.

set -euo pipefail

[ $# -eq 1 ] || { echo "usage: $0 TOOLS" >&2; exit 2; }
tools=$1

for f in /usr/include/libdwarf/dwarf.h /usr/include/libdwarf/libdwarf.h \
	 /usr/include/libelf.h /usr/src/binutils/binutils-2.40.tar.xz; do
	[ -f "$f" ] || { echo "kgr-tools-check: no $f (make deps)" >&2; exit 1; }
done

# The generated files must come from this build, not from a shipped copy.
rm -f "$tools/dwarf_names.c" "$tools/dwarf_names.h"
make -C "$tools" check
test -s "$tools/dwarf_names.c" && grep -q 'get_TAG_name' "$tools/dwarf_names.c" ||
	{ echo "kgr-tools-check: dwarf_names.c was not generated" >&2; exit 1; }
echo "kgr-tools-check: dwarf_names.c generated from /usr/include/libdwarf/dwarf.h: $(wc -l < "$tools/dwarf_names.c") lines"
