#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkinitramfs.sh OUTPUT.cpio.gz STAGING_DIR
#
# Build the guest's initramfs in STAGING_DIR (emptied first) and pack it:
#   /bin/busybox    the host's static busybox, with its applet symlinks
#   /init           initramfs/init
#   /bin/kgr-run-tests  initramfs/kgr-run-tests (the TAP runner)
#   /tests/         initramfs/tests/ (tests.list: the tests, in the order
#                   kgr-run-tests runs them)
#   /bin/NAME       initramfs/src/NAME.c, built with gcc -static
#   /lib/modules-test/*.ko   every module in $MODULES that exists
#   each host program in $HOST_PROGRAMS that exists, at its own path,
#   with the shared libraries ldd lists for it (e.g. Debian's stress-ng)
#
# Environment: MODULES (space-separated .ko paths), HOST_PROGRAMS
# (space-separated absolute paths), BUSYBOX (default
# /bin/busybox), CC (default gcc), INITRAMFS_DIR (default: initramfs/ next
# to this script's directory).

set -euo pipefail

. "$(dirname "$0")/guest-files.sh"

[ $# -eq 2 ] || { echo "usage: $0 OUTPUT.cpio.gz STAGING_DIR" >&2; exit 2; }

out=$1
stage=$2
top=$(cd "$(dirname "$0")/.." && pwd)
src=${INITRAMFS_DIR:-$top/initramfs}
busybox=${BUSYBOX:-/bin/busybox}
cc=${CC:-gcc}
modules=${MODULES:-}
host_programs=${HOST_PROGRAMS:-}

say() { echo "initramfs: $*"; }

[ -x "$busybox" ] || { echo "initramfs: no $busybox (apt-get install busybox-static)" >&2; exit 1; }
if readelf -l "$busybox" | grep -q 'Requesting program interpreter'; then
	echo "initramfs: $busybox is dynamically linked; install busybox-static" >&2
	exit 1
fi
[ -f "$src/init" ] || { echo "initramfs: no $src/init" >&2; exit 1; }

rm -rf "$stage"
mkdir -p "$stage"
for d in bin sbin usr/bin usr/sbin dev proc sys tmp root etc tests lib/modules-test; do
	mkdir -p "$stage/$d"
done

cp "$busybox" "$stage/bin/busybox"
napplets=0
for applet in $("$stage/bin/busybox" --list-full); do
	[ -e "$stage/$applet" ] && continue
	mkdir -p "$stage/$(dirname "$applet")"
	ln -s /bin/busybox "$stage/$applet"
	napplets=$((napplets + 1))
done
say "busybox with $napplets applets"

install -m 0755 "$src/init" "$stage/init"
install -m 0755 "$src/kgr-run-tests" "$stage/bin/kgr-run-tests"

guest_tests_and_helpers "$src" "$stage" bin "$cc"

for ko in $modules; do
	if [ -f "$ko" ]; then
		cp "$ko" "$stage/lib/modules-test/"
		say "module $(basename "$ko")"
	else
		echo "initramfs: warning: module $ko not found, skipped" >&2
	fi
done

# copy_file FILE: FILE at the same path in the staging tree, symlinks
# resolved (a library's soname link becomes the library itself).
copy_file() {
	mkdir -p "$stage/$(dirname "$1")"
	cp -L "$1" "$stage/$1"
}

for prog in $host_programs; do
	if [ ! -x "$prog" ]; then
		echo "initramfs: warning: host program $prog not installed, skipped" >&2
		continue
	fi
	copy_file "$prog"
	# "libm.so.6 => /lib/x86_64-linux-gnu/libm.so.6 (0x...)" and the
	# dynamic loader "/lib64/ld-linux-x86-64.so.2 (0x...)"
	libs=$(ldd "$prog" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }
				  $1 ~ /^\// { print $1 }')
	nlibs=0
	for lib in $libs; do
		[ -e "$stage/$lib" ] || copy_file "$lib"
		nlibs=$((nlibs + 1))
	done
	say "host program $prog with $nlibs libraries"
done

# Sorted names and root ownership make the archive independent of the
# host's directory order and of who built it.
(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort |
	cpio -o -H newc -R 0:0 --quiet) | gzip -9 -n > "$out.tmp"
mv "$out.tmp" "$out"
say "$out ($(du -k "$out" | cut -f1) KiB)"
