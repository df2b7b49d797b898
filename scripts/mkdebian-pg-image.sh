#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkdebian-pg-image.sh ROOTFS.tar STAGING_DIR IMAGE KSRC
#
# The disk of "make bench-debian-pg": the Debian guest's image as
# mkdebian-image.sh makes it (ROOTFS.tar has PostgreSQL 15 and pgbench as
# well; MODULES names kgr_pg.ko, signed there with KSRC's key), but booting
# into the PostgreSQL run instead of the test suite:
#   /usr/local/sbin/kgr-pg-bench and kgr-pg-bench.service (debian-guest/),
#   enabled; kgr-tests.service disabled (its files stay).
# mkdebian-image.sh writes IMAGE from STAGING_DIR; this changes
# STAGING_DIR and writes IMAGE again from it.
#
# Environment: as mkdebian-image.sh (MODULES, IMAGE_SIZE, CC).

set -euo pipefail

[ $# -eq 4 ] || { echo "usage: $0 ROOTFS.tar STAGING_DIR IMAGE KSRC" >&2; exit 2; }

stage=$2
image=$3
top=$(cd "$(dirname "$0")/.." && pwd)
guest=$top/debian-guest
size=${IMAGE_SIZE:-2G}

"$top/scripts/mkdebian-image.sh" "$@"

start=$SECONDS
sysd=$stage/etc/systemd/system
rm -f "$sysd/multi-user.target.wants/kgr-tests.service"
install -m 0755 "$guest/kgr-pg-bench" "$stage/usr/local/sbin/kgr-pg-bench"
install -m 0644 "$guest/kgr-pg-bench.service" "$sysd/kgr-pg-bench.service"
ln -sfn /etc/systemd/system/kgr-pg-bench.service \
	"$sysd/multi-user.target.wants/kgr-pg-bench.service"
[ -x "$stage/usr/lib/postgresql/15/bin/pgbench" ] ||
	{ echo "debian-pg-image: no pgbench in $1" >&2; exit 1; }
[ -f "$stage/lib/modules-test/kgr_pg.ko" ] ||
	{ echo "debian-pg-image: no kgr_pg.ko in MODULES" >&2; exit 1; }

rm -f "$image.tmp"
mke2fs -q -t ext4 -L kgr-root -d "$stage" "$image.tmp" "$size"
mv "$image.tmp" "$image"
echo "debian-pg-image: $image with kgr-pg-bench.service in $((SECONDS - start)) s"
