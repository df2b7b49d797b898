#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make-module.sh VSRC KDIR TOOLS OUT SYMBOL...
#
# The RFC's chain, from a real source change to a kGraft module: in the
# variant tree VSRC (built by build-variant.sh: demo fix, -ffunction-
# sections, vmlinux.o), run TOOLS/create-kgrmodule.sh with the changed
# functions, building the module against KDIR, the main kernel that QEMU
# boots (its vermagic, its Module.symvers, its symbol addresses).  The
# module is copied to OUT/kgrmodule.ko, which the guest test
# initramfs/tests/test-kgr-tools-meminfo.sh loads.  OUT/kgrmodule.ko is
# removed first, so that a failed run never leaves an old module behind.

set -euo pipefail

[ $# -ge 5 ] || { echo "usage: $0 VSRC KDIR TOOLS OUT SYMBOL..." >&2; exit 2; }
mkdir -p "$4"
vsrc=$(realpath "$1") kdir=$(realpath "$2") tools=$(realpath "$3") out=$(realpath "$4")
shift 4

say() { echo "kgr-module: $*"; }
die() { echo "kgr-module: error: $*" >&2; exit 1; }

mkdir -p "$out"
rm -f "$out/kgrmodule.ko"
[ -f "$vsrc/vmlinux.o" ] || die "no $vsrc/vmlinux.o: make kgr-variant"
[ -f "$kdir/vmlinux" ] && [ -f "$kdir/Module.symvers" ] ||
	die "no $kdir/vmlinux or Module.symvers: make kernel"
[ -x "$tools/objcopy-hacked" ] && [ -x "$tools/create-kgrmodule.sh" ] ||
	die "no $tools/objcopy-hacked or create-kgrmodule.sh: make kgr-tools"

say "create-kgrmodule.sh $* (in $vsrc, KDIR=$kdir)"
start=$(date +%s)
rm -rf "$vsrc/kgrafttmp"
(cd "$vsrc" && KDIR=$kdir "$tools/create-kgrmodule.sh" "$@") > "$out/create-kgrmodule.log" 2>&1 || {
	tail -n 40 "$out/create-kgrmodule.log" >&2
	die "create-kgrmodule.sh failed (log: $out/create-kgrmodule.log)"
}
ko=$vsrc/kgrafttmp/kgrmodule.ko
[ -f "$ko" ] || die "create-kgrmodule.sh made no $ko"

want=$(cat "$kdir/include/config/kernel.release")
got=$(modinfo -F vermagic "$ko" | cut -d' ' -f1)
[ "$want" = "$got" ] || die "$ko has vermagic '$got', the kernel is '$want'"

cp "$ko" "$out/kgrmodule.ko"
say "$(grep -c '^copying section' "$out/create-kgrmodule.log") sections extracted; log $out/create-kgrmodule.log"
say "undefined symbols of the module (resolved by the module loader): $(nm -u "$ko" | awk '{ print $2 }' | tr '\n' ' ')"
say "$out/kgrmodule.ko for $want, $(($(date +%s) - start)) s"
