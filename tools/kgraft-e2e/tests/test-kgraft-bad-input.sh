#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test-kgraft-bad-input.sh VSRC KSRC TOOLS
#
# Bad input to the kGraft tools on real kernel objects: each case must
# exit non-zero with a message that says what is wrong, and leave no
# module behind.
#   - dwarf-inline-tree on the main kernel's vmlinux (built without debug
#     info) and on a vmlinux.o that does not exist;
#   - extract-syms.sh and create-kgrmodule.sh in a directory without
#     vmlinux.o;
#   - extract-syms.sh and create-kgrmodule.sh on the variant's vmlinux.o
#     with a function that does not exist.
# (tools/kgraft/check.sh does the same on the RFC's app.c.)

set -uo pipefail

[ $# -eq 3 ] || { echo "usage: $0 VSRC KSRC TOOLS" >&2; exit 2; }
vsrc=$(realpath "$1") ksrc=$(realpath "$2") tools=$(realpath "$3")
pass=0 fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# fails MESSAGE WHAT CMD...: CMD must exit non-zero and print MESSAGE on stderr
fails() {
	local msg=$1 what=$2 rc

	shift 2
	"$@" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	if [ $rc -ne 0 ] && grep -q -F -e "$msg" "$tmp/err"; then
		echo "ok - $what: exit $rc: $(grep -m1 -F -e "$msg" "$tmp/err")"
		pass=$((pass + 1))
	else
		echo "not ok - $what: exit $rc, expected '$msg' on stderr; stderr was:"
		sed 's/^/#   /' "$tmp/err" | tail -n 5
		fail=$((fail + 1))
	fi
}

fails "has no DWARF debug information" \
	"dwarf-inline-tree on the main vmlinux (no debug info)" \
	"$tools/dwarf-inline-tree" "$ksrc/vmlinux"
fails "can't open" "dwarf-inline-tree on a missing vmlinux.o" \
	"$tools/dwarf-inline-tree" "$tmp/vmlinux.o"
fails "vmlinux.o needs to exist" "extract-syms.sh without vmlinux.o" \
	bash -c "cd $tmp && $tools/extract-syms.sh meminfo_proc_show"
fails "vmlinux.o needs to exist" "create-kgrmodule.sh without vmlinux.o" \
	bash -c "cd $tmp && $tools/create-kgrmodule.sh meminfo_proc_show"
[ -e "$tmp/kgrafttmp" ] && { echo "not ok - create-kgrmodule.sh left $tmp/kgrafttmp"; fail=$((fail + 1)); }

# On the real vmlinux.o, in a scratch directory (a link to it), so the
# variant tree's kgrafttmp is not touched.
mkdir "$tmp/v"
ln -s "$vsrc/vmlinux.o" "$tmp/v/vmlinux.o"
fails "kgr_no_such_function: no such function in vmlinux.o" \
	"extract-syms.sh with a function that does not exist" \
	bash -c "cd $tmp/v && $tools/extract-syms.sh meminfo_proc_show kgr_no_such_function"
fails "kgr_no_such_function: no such function in vmlinux.o" \
	"create-kgrmodule.sh with a function that does not exist" \
	bash -c "cd $tmp/v && KDIR=$ksrc $tools/create-kgrmodule.sh kgr_no_such_function"
if [ -e "$tmp/v/kgrafttmp/kgrmodule.ko" ]; then
	echo "not ok - create-kgrmodule.sh made a module anyway"
	fail=$((fail + 1))
fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
