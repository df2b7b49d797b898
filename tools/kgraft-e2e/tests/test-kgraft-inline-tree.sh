#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test-kgraft-inline-tree.sh VSRC TOOLS OUT
#
# dwarf-inline-tree on a whole kernel object: the variant's vmlinux.o
# (DWARF 5, gcc 12's default).  Records the time and the peak memory
# (GNU time), keeps the output in OUT/vmlinux.inline-tree and the inline
# pairs (it2rev.pl) in OUT/vmlinux.inline-pairs, and checks what is known
# about fs/proc/meminfo.c: meminfo_proc_show and show_val_kb are defined
# there, meminfo_proc_show has global_node_page_state (include/linux/
# vmstat.h) inlined, no D or I line lacks its file.  Then the same object
# compiled with DWARF 4 (fs/proc/meminfo.c, with the variant's own command
# line plus -gdwarf-4) must give the same inline tree as with DWARF 5.

set -euo pipefail

[ $# -eq 3 ] || { echo "usage: $0 VSRC TOOLS OUT" >&2; exit 2; }
mkdir -p "$3"
vsrc=$(realpath "$1") tools=$(realpath "$2") out=$(realpath "$3")

say() { echo "inline-tree: $*"; }
fail=0
check() {	# check DESCRIPTION COMMAND...
	local what=$1

	shift
	if "$@"; then
		say "ok - $what"
	else
		say "not ok - $what"
		fail=1
	fi
}

[ -f "$vsrc/vmlinux.o" ] || { echo "inline-tree: no $vsrc/vmlinux.o: make kgr-variant" >&2; exit 1; }
mkdir -p "$out"
tree=$out/vmlinux.inline-tree
pairs=$out/vmlinux.inline-pairs

# Debian 12's libdwarf (20210528) reads no object whose section count
# takes ELF's extended numbering (65280 sections or more), and a vmlinux.o
# built with -ffunction-sections -fdata-sections gets there: the tool
# then says it has no DWARF. It reads instead a partial link of it whose
# text, rodata, data and bss sections are merged, one each: its DWARF
# is the same, relocated to the merged sections (checked below on one
# object, whose tree must not change).
cat > "$out/merge-sections.lds" <<'LDS'
SECTIONS {
	.text 0 : { *(.text .text.*) }
	.rodata 0 : { *(.rodata .rodata.*) }
	.data 0 : { *(.data .data.*) }
	.bss 0 : { *(.bss .bss.*) }
}
LDS
nsections() { readelf -h "$1" | awk '/Number of section headers/ { gsub(/[()]/, ""); print $NF }'; }
obj=$vsrc/vmlinux.o
n=$(nsections "$obj")
if [ "$n" -ge 65280 ]; then
	ld -r -T "$out/merge-sections.lds" -o "$out/vmlinux-merged.o" "$obj"
	say "vmlinux.o has $n sections, more than libdwarf reads: the tool reads a partial link with $(nsections "$out/vmlinux-merged.o")"
	obj=$out/vmlinux-merged.o
fi
say "dwarf-inline-tree vmlinux.o ($(du -m "$vsrc/vmlinux.o" | cut -f1) MiB)"
/usr/bin/time -f '%e %M' -o "$out/inline-tree.time" \
	"$tools/dwarf-inline-tree" "$obj" > "$tree"
rm -f "$out/vmlinux-merged.o"
read -r secs kib < "$out/inline-tree.time"
say "$(wc -l < "$tree") lines ($(grep -c '^D ' "$tree") D, $(grep -c '^I ' "$tree") I, $(grep -c '^U ' "$tree") U) in $secs s, peak RSS $((kib / 1024)) MiB"
echo "dwarf-inline-tree vmlinux.o: $secs s, $((kib / 1024)) MiB peak RSS, $(du -m "$vsrc/vmlinux.o" | cut -f1) MiB object" > "$out/inline-tree.summary"
perl "$tools/it2rev.pl" "$vsrc/" < "$tree" > "$pairs"

v=$(readelf --debug-dump=info "$vsrc/fs/proc/meminfo.o" | sed -n 's/^ *Version: *\([0-9]*\)$/\1/p' | sort -u)
check "fs/proc/meminfo.o has DWARF 5 (got: $v)" [ "$v" = 5 ]
m=$vsrc/fs/proc/meminfo.c
check "D fs/proc/meminfo.c:meminfo_proc_show" grep -q -x -F "D $m:meminfo_proc_show" "$tree"
check "D fs/proc/meminfo.c:show_val_kb" grep -q -x -F "D $m:show_val_kb" "$tree"
check "global_node_page_state (include/linux/vmstat.h) inlined into meminfo_proc_show" \
	grep -q -E '^(\./)?include/linux/vmstat.h:global_node_page_state .*fs/proc/meminfo.c:meminfo_proc_show( |$)' "$pairs"
nofile=$(grep -c -E '^[DI] :' "$tree" || true)
check "every D and I line names a file ($nofile do not)" [ "$nofile" = 0 ]
# header functions must not be attributed to .c files, nor the reverse:
# every I line of an inline function from a header names the header
wrong=$(grep -E '^I [^ ]*\.c:(global_node_page_state|seq_puts|get_current|arch_atomic_long_read)$' "$tree" | head -n 3 || true)
check "no header inline attributed to a .c file${wrong:+: $wrong}" [ -z "$wrong" ]

# DWARF 4 against DWARF 5 on one kernel object: the variant's command line
# for fs/proc/meminfo.o, writing elsewhere, with -gdwarf-4 last.
cmd=$(sed -n 's/^cmd_fs\/proc\/meminfo.o := //p' "$vsrc/fs/proc/.meminfo.o.cmd" |
	sed -e 's/ ; .*//' -e 's/-Wp,-MMD,[^ ]*//' -e 's| -o fs/proc/meminfo.o | -o '"$out"'/meminfo-dwarf4.o |')
(cd "$vsrc" && eval "$cmd -gdwarf-4")
v4=$(readelf --debug-dump=info "$out/meminfo-dwarf4.o" | sed -n 's/^ *Version: *\([0-9]*\)$/\1/p' | sort -u)
check "meminfo-dwarf4.o has DWARF 4 (got: $v4)" [ "$v4" = 4 ]
"$tools/dwarf-inline-tree" "$vsrc/fs/proc/meminfo.o" > "$out/meminfo-dwarf5.inline-tree"
ld -r -T "$out/merge-sections.lds" -o "$out/meminfo-merged.o" "$vsrc/fs/proc/meminfo.o"
"$tools/dwarf-inline-tree" "$out/meminfo-merged.o" > "$out/meminfo-merged.inline-tree"
check "fs/proc/meminfo.o merged as vmlinux.o may be: the same inline tree" \
	cmp -s "$out/meminfo-dwarf5.inline-tree" "$out/meminfo-merged.inline-tree"
"$tools/dwarf-inline-tree" "$out/meminfo-dwarf4.o" > "$out/meminfo-dwarf4.inline-tree"
check "fs/proc/meminfo.o: DWARF 4 and DWARF 5 give the same inline tree ($(wc -l < "$out/meminfo-dwarf5.inline-tree") lines)" \
	cmp -s "$out/meminfo-dwarf5.inline-tree" "$out/meminfo-dwarf4.inline-tree"
[ $fail = 0 ] || diff -u "$out/meminfo-dwarf5.inline-tree" "$out/meminfo-dwarf4.inline-tree" | head -n 20 || true
exit $fail
