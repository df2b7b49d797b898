#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-variant.sh OUTDIR MAIN_KSRC TARBALL PATCHES SERIES
#
# Build the "variant" kernel of the kGraft tools' end-to-end run: the
# same tree, series and configuration as the main kernel (MAIN_KSRC, which
# is what QEMU boots), plus
#   - a source change, pushed by quilt after the series: $KGR_PATCH,
#     by default the demonstration fix demo-meminfo-memused.patch,
#   - -ffunction-sections -fdata-sections (KCFLAGS), as the RFC's
#     tools/kgraft/README asks, so that objcopy-hacked can take single
#     functions out of vmlinux.o,
#   - debug info in gcc 12's default format, DWARF 5 (variant.config).
# Only vmlinux.o is built: it is what the RFC's scripts read.
#
# The tree is OUTDIR/linux-source-6.1.  The series is re-applied only when
# a patch, the series or the demo fix changed (the hash of all of them is
# kept in OUTDIR/.stamp-series).  The configuration must equal the main
# kernel's except for the debug info options; anything else would make
# the extracted code disagree with the kernel it is loaded into.
#
# Environment: KGR_PATCH, JOBS (default nproc), KARCH (default x86_64).

set -euo pipefail

[ $# -eq 5 ] || { echo "usage: $0 OUTDIR MAIN_KSRC TARBALL PATCHES SERIES" >&2; exit 2; }
out=$1 main=$2 tarball=$3 patches=$4 series=$5
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
demo=$(realpath "${KGR_PATCH:-$here/demo-meminfo-memused.patch}")
fragment=$here/variant.config
vsrc=$out/linux-source-6.1
jobs=${JOBS:-$(nproc)}
karch=${KARCH:-x86_64}

say() { echo "variant: $*"; }
die() { echo "variant: error: $*" >&2; exit 1; }

[ -f "$demo" ] || die "no $demo (KGR_PATCH)"
[ -f "$main/.config" ] || die "no $main/.config: configure the main kernel first (make config)"

mkdir -p "$out"
"$top/scripts/unpack-tree.sh" "$tarball" "$out" linux-source-6.1

# The variant's series: the repository's, then the demo fix.  Its patches
# directory holds links to the repository's patches and to the demo fix.
vpatches=$out/patches
vseries=$out/series
mkdir -p "$vpatches"
find "$vpatches" -maxdepth 1 -type l -delete
for p in "$patches"/*.patch; do
	[ -e "$p" ] && ln -s "$p" "$vpatches/"
done
ln -s "$demo" "$vpatches/kgraft-change-$(basename "$demo")"
{
	cat "$series"
	echo
	echo '# kGraft tools end-to-end (tools/kgraft-e2e): the source change to'
	echo '# make a live patch of, applied to this variant only, never to the'
	echo '# kernel QEMU boots'
	echo "kgraft-change-$(basename "$demo")"
} > "$vseries.new"
mv "$vseries.new" "$vseries"

id=$(cat "$vseries" "$vpatches"/* "$top/scripts/apply-series.sh" | sha256sum | cut -d' ' -f1)
if [ "$(cat "$out/.stamp-series" 2>/dev/null)" != "$id" ]; then
	rm -f "$out/.stamp-series"
	# a scratch tree, never edited by hand: nothing to guard
	TREE_FORCE=1 "$top/scripts/apply-series.sh" "$vsrc" "$vpatches" "$vseries" \
		"$out/.stamp-series"
	echo "$id" > "$out/.stamp-series"
else
	say "series and demo fix unchanged, tree kept"
fi

# Configuration: the main kernel's, plus debug info.
cp "$main/.config" "$vsrc/.config.main"
(cd "$vsrc" && ARCH=$karch scripts/kconfig/merge_config.sh -m .config.main "$fragment" > /dev/null)
make -s -C "$vsrc" ARCH="$karch" olddefconfig
"$top/scripts/check-config.sh" "$vsrc/.config" "$fragment"
strip_debug() {
	grep -v -e '^# Automatically generated' -e '^# Linux/' \
		-e 'CONFIG_DEBUG_INFO' -e 'CONFIG_PAHOLE_' -e 'CONFIG_GDB_SCRIPTS' \
		-e 'CONFIG_DEBUG_EFI' -e 'CONFIG_AS_HAS_NON_CONST_LEB128' \
		-e 'CONFIG_CC_HAS_WORKING_NOSANITIZE_ADDRESS' -e '^$' "$1" | grep -v '^#$' || true
}
if ! diff <(strip_debug "$main/.config") <(strip_debug "$vsrc/.config") > "$out/config.diff"; then
	cat "$out/config.diff" >&2
	die "the variant's configuration differs from $main/.config beyond debug info (see above)"
fi
say "configuration: $main/.config + $(basename "$fragment") (only debug info differs)"

say "make vmlinux_o (KCFLAGS=-ffunction-sections -fdata-sections, -j$jobs)"
make -C "$vsrc" ARCH="$karch" -j"$jobs" \
	KCFLAGS="-ffunction-sections -fdata-sections" vmlinux_o
say "$vsrc/vmlinux.o: $(du -m "$vsrc/vmlinux.o" | cut -f1) MiB"
