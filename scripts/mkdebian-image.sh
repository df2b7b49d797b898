#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkdebian-image.sh ROOTFS.tar STAGING_DIR IMAGE KSRC
#
# Make the Debian guest's disk: unpack ROOTFS.tar (Debian 12 made by
# mmdebstrap, cached by the Makefile) into STAGING_DIR (emptied first),
# add the kGraft tests and what runs them, and write an ext4 image of it
# with "mke2fs -d" (no loop mount).  Added to the Debian system:
#   /tests/                  initramfs/tests/ (tests.list: the tests, in
#                            the order kgr-run-tests runs them)
#   /lib/modules-test/*.ko   every module in $MODULES that exists, signed
#                            with KSRC's module signing key when KSRC has
#                            CONFIG_MODULE_SIG (Debian's config does)
#   /lib/modules-unsigned/   the modules in $UNSIGNED, as they are
#   /var/cache/kgr-debs/     the packages in $DEBS (kgraft-tools, patch
#                            packages), for the guest's dpkg -i
#   /bin/NAME                initramfs/src/NAME.c, built with gcc -static
#   /usr/local/bin/kgr-run-tests   initramfs/kgr-run-tests (the TAP runner)
#   /usr/local/sbin/kgr-tests-unit and kgr-tests.service (debian-guest/),
#                            enabled; serial-getty@ttyS0 only with
#                            kgr.shell=1, then with root logged in
#   hostname, hosts, fstab (/dev/vda on /), a machine-id (no first boot),
#   and the apt timers masked (the guest has no network).
#
# Environment: MODULES (space-separated .ko paths), DEBS and UNSIGNED
# (space-separated .deb and .ko paths), IMAGE_SIZE (default 2G), CC
# (default gcc).

set -euo pipefail

. "$(dirname "$0")/guest-files.sh"

[ $# -eq 4 ] || { echo "usage: $0 ROOTFS.tar STAGING_DIR IMAGE KSRC" >&2; exit 2; }

rootfs=$1
stage=$2
image=$3
ksrc=$4
top=$(cd "$(dirname "$0")/.." && pwd)
src=$top/initramfs
guest=$top/debian-guest
size=${IMAGE_SIZE:-2G}
cc=${CC:-gcc}
modules=${MODULES:-}
debs=${DEBS:-}
unsigned=${UNSIGNED:-}

say() { echo "debian-image: $*"; }

[ -r "$rootfs" ] || { echo "debian-image: no $rootfs" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] ||
	{ echo "debian-image: must run as root (the files keep their owners)" >&2; exit 1; }

start=$SECONDS
rm -rf "$stage"
mkdir -p "$stage"
tar -xpf "$rootfs" -C "$stage" --numeric-owner
say "unpacked $rootfs"

mkdir -p "$stage/lib/modules-test" "$stage/usr/local/bin" "$stage/usr/local/sbin"
# /bin is a symlink to usr/bin in Debian 12 (merged /usr).
guest_tests_and_helpers "$src" "$stage" usr/bin "$cc"

nmod=0
for ko in $modules; do
	if [ -f "$ko" ]; then
		cp "$ko" "$stage/lib/modules-test/"
		nmod=$((nmod + 1))
	else
		echo "debian-image: warning: module $ko not found, skipped" >&2
	fi
done
ls "$stage"/lib/modules-test/*.ko > /dev/null 2>&1 &&
	"$top/scripts/sign-modules.sh" "$ksrc" "$stage"/lib/modules-test/*.ko
say "$nmod modules$(grep -q '^CONFIG_MODULE_SIG=y' "$ksrc/.config" && echo ', signed')"

# modules left unsigned on purpose, for the lockdown test
if [ -n "$unsigned" ]; then
	mkdir -p "$stage/lib/modules-unsigned"
	# shellcheck disable=SC2086
	cp $unsigned "$stage/lib/modules-unsigned/"
	say "unsigned: $(cd "$stage/lib/modules-unsigned" && echo *.ko)"
fi

# the Debian packages of the tool and of patches, for dpkg -i in the guest
if [ -n "$debs" ]; then
	mkdir -p "$stage/var/cache/kgr-debs"
	for f in $debs; do
		# a pattern that matched nothing: "make deb" did not run
		[ ! -f "$f" ] || cp "$f" "$stage/var/cache/kgr-debs/"
	done
	say "packages: $(cd "$stage/var/cache/kgr-debs" && echo *.deb)"
fi

install -m 0755 "$src/kgr-run-tests" "$stage/usr/local/bin/kgr-run-tests"
install -m 0755 "$guest/kgr-tests-unit" "$stage/usr/local/sbin/kgr-tests-unit"
sysd=$stage/etc/systemd/system
install -m 0644 "$guest/kgr-tests.service" "$sysd/kgr-tests.service"
mkdir -p "$sysd/multi-user.target.wants" "$sysd/serial-getty@ttyS0.service.d"
ln -sfn /etc/systemd/system/kgr-tests.service "$sysd/multi-user.target.wants/kgr-tests.service"
install -m 0644 "$guest/kgr-shell.conf" "$sysd/serial-getty@ttyS0.service.d/kgr-shell.conf"
for unit in apt-daily.timer apt-daily-upgrade.timer systemd-firstboot.service; do
	ln -sfn /dev/null "$sysd/$unit"
done

echo kgr-debian > "$stage/etc/hostname"
printf '127.0.0.1\tlocalhost\n127.0.1.1\tkgr-debian\n::1\t\tlocalhost ip6-localhost ip6-loopback\n' \
	> "$stage/etc/hosts"
printf '/dev/vda\t/\text4\trw,errors=remount-ro\t0\t0\n' > "$stage/etc/fstab"
# A machine-id of its own: no first-boot units, one journal directory.
od -An -N16 -tx1 /dev/urandom | tr -d ' \n' > "$stage/etc/machine-id"
echo >> "$stage/etc/machine-id"

mkdir -p "$(dirname "$image")"
rm -f "$image.tmp"
mke2fs -q -t ext4 -L kgr-root -d "$stage" "$image.tmp" "$size"
mv "$image.tmp" "$image"
say "$image ($size, $(du -sh --apparent-size "$stage" | cut -f1) of files) in $((SECONDS - start)) s"
