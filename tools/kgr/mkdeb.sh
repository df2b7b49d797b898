#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkdeb.sh tools OUTDIR VERSION
# mkdeb.sh patch MODULE.ko OUTDIR [KERNEL_VERSION]
#
# Debian packages of kGraft, made with dpkg-deb (no debian/ tree to keep):
#
# kgraft-tools_VERSION_all.deb: the administrator's tool, /usr/sbin/kgr,
#   its manual kgr(8), and kgr.service (enabled), which loads the
#   installed patches of the running kernel at boot.
#
# kgraft-patch-RELEASE_V_amd64.deb: one patch module (a cumulative one,
#   made by kgr-fix.sh with KGR_REPLACE_ALL=1) for kernel RELEASE, in
#   /lib/modules/RELEASE/kgraft/. V is the module's version (modinfo;
#   Kgr-Version in the fix). Depends on kgraft-tools and, with
#   KERNEL_VERSION, on linux-image-RELEASE of exactly that version (the
#   package "make deb" builds). A newer version of the package replaces
#   the older on the disk, and its module replaces the older patch in
#   the running kernel. Its scripts:
#     postinst  loads the module ("kgr load") when the running kernel is
#               RELEASE and no newer cumulative patch is loaded; a load
#               that fails is reported, and the package stays installed
#     prerm     on removal, reverts the patch ("kgr revert") if it is
#               loaded; a revert the kernel refuses stops the removal
#     postrm    nothing is left: dpkg removes the file and the directory
#               once it is empty
#
# Environment: KGR_DEB_MAINTAINER (default "kGraft 6.1 port
# <kgraft-port@localhost>").

set -euo pipefail

stage=
maint=${KGR_DEB_MAINTAINER:-kGraft 6.1 port <kgraft-port@localhost>}
here=$(cd "$(dirname "$0")" && pwd)

usage() {
	echo "usage: $0 tools OUTDIR VERSION" >&2
	echo "       $0 patch MODULE.ko OUTDIR [KERNEL_VERSION]" >&2
	exit 2
}
die() { echo "mkdeb: $*" >&2; exit 1; }

# build STAGE OUTDIR: the package of STAGE (with STAGE/DEBIAN/control)
build() {
	local deb

	deb=$2/$(sed -n 's/^Package: //p' "$1/DEBIAN/control")_$(sed -n 's/^Version: //p' \
		"$1/DEBIAN/control")_$(sed -n 's/^Architecture: //p' "$1/DEBIAN/control").deb
	mkdir -p "$2"
	dpkg-deb --root-owner-group -Zxz --build "$1" "$deb" > /dev/null
	echo "mkdeb: $deb"
}

tools_deb() {
	local out=$1 version=$2

	case $version in
	[0-9]*) ;;
	*) die "the version must start with a digit: $version" ;;
	esac
	stage=$(mktemp -d)
	trap 'rm -rf "$stage"' EXIT
	install -D -m 0755 "$here/kgr" "$stage/usr/sbin/kgr"
	install -d "$stage/usr/share/man/man8"
	gzip -9n < "$here/kgr.8" > "$stage/usr/share/man/man8/kgr.8.gz"
	install -D -m 0644 "$here/kgr.service" "$stage/lib/systemd/system/kgr.service"
	install -d "$stage/DEBIAN"
	cat > "$stage/DEBIAN/control" <<EOF
Package: kgraft-tools
Version: $version
Architecture: all
Maintainer: $maint
Section: admin
Priority: optional
Depends: kmod
Description: kGraft live patching: the administrator's tool
 kgr loads, reverts, installs and lists kGraft live patches, shows what
 holds a transition and helps it on; kgr.service loads the patches
 installed for the running kernel at boot.
EOF
	# enable the unit as debhelper's scripts do, without debhelper
	cat > "$stage/DEBIAN/postinst" <<'EOF'
#!/bin/sh
set -e
if [ "$1" = configure ]; then
	if command -v deb-systemd-helper > /dev/null; then
		deb-systemd-helper enable kgr.service
	elif command -v systemctl > /dev/null; then
		systemctl enable kgr.service
	fi
	[ ! -d /run/systemd/system ] || systemctl daemon-reload || true
fi
exit 0
EOF
	cat > "$stage/DEBIAN/postrm" <<'EOF'
#!/bin/sh
set -e
if command -v deb-systemd-helper > /dev/null; then
	case $1 in
	remove) deb-systemd-helper mask kgr.service > /dev/null || true ;;
	purge) deb-systemd-helper purge kgr.service > /dev/null || true
	       deb-systemd-helper unmask kgr.service > /dev/null || true ;;
	esac
fi
[ ! -d /run/systemd/system ] || systemctl daemon-reload || true
exit 0
EOF
	chmod 0755 "$stage/DEBIAN/postinst" "$stage/DEBIAN/postrm"
	build "$stage" "$out"
}

# modinfo_of MODULE KEY
modinfo_of() {
	/sbin/modinfo -F "$2" "$1" 2>/dev/null || modinfo -F "$2" "$1"
}

patch_deb() {
	local ko=$1 out=$2 kver=${3:-} rel mod version pkg depends desc cves

	[ -f "$ko" ] || die "no such module: $ko"
	[ "$(modinfo_of "$ko" kgraft)" = Y ] || die "$ko is not a kGraft patch module"
	rel=$(modinfo_of "$ko" vermagic | cut -d' ' -f1)
	mod=$(modinfo_of "$ko" name)
	version=$(modinfo_of "$ko" version)
	[ -n "$version" ] || die "$ko has no version (Kgr-Version in the fix)"
	pkg=kgraft-patch-$(echo "$rel" | tr 'A-Z_' 'a-z-')
	[ "$(modinfo_of "$ko" kgraft_package)" = "$pkg" ] ||
		die "$ko says it goes into package '$(modinfo_of "$ko" kgraft_package)', not $pkg (KGR_PACKAGE=$pkg for kgr-fix.sh)"
	depends="kgraft-tools${kver:+, linux-image-$rel (= $kver)}"
	desc=$(modinfo_of "$ko" description)
	cves=$(modinfo_of "$ko" kgraft_cve | tr '\n' ' ')
	stage=$(mktemp -d)
	trap 'rm -rf "$stage"' EXIT
	install -D -m 0644 "$ko" "$stage/lib/modules/$rel/kgraft/$mod.ko"
	install -d "$stage/DEBIAN"
	cat > "$stage/DEBIAN/control" <<EOF
Package: $pkg
Version: $version
Architecture: amd64
Maintainer: $maint
Section: kernel
Priority: optional
Depends: $depends
Description: kGraft live patch for Linux $rel${desc:+: $desc}
 The cumulative live patch $mod for kernel $rel, loaded when the
 package is installed and at every boot of that kernel.
 ${cves:+Fixes: ${cves% }.}
EOF
	sed -i '/^ $/d' "$stage/DEBIAN/control"
	cat > "$stage/DEBIAN/postinst" <<EOF
#!/bin/sh
set -e
[ "\$1" = configure ] || exit 0
[ "\$(uname -r)" = "$rel" ] && [ -d /sys/kernel/kgraft ] || exit 0
# a newer cumulative patch loaded already: it stays
for d in /sys/kernel/kgraft/*/; do
	[ -f "\$d/owner" ] && [ "\$(cat "\$d/replace_all")" = 1 ] || continue
	v=\$(cat "/sys/module/\$(cat "\$d/owner")/version" 2>/dev/null) || continue
	if dpkg --compare-versions "\$v" gt "$version"; then
		echo "$pkg: a newer patch (\$v) is loaded; $mod is not"
		exit 0
	fi
done
kgr load "$mod" ||
	echo "$pkg: $mod is installed, but did not load (see above)" >&2
exit 0
EOF
	cat > "$stage/DEBIAN/prerm" <<EOF
#!/bin/sh
set -e
[ "\$1" = remove ] || exit 0
[ -d "/sys/module/$mod" ] || exit 0
kgr revert "$mod"
EOF
	cat > "$stage/DEBIAN/postrm" <<EOF
#!/bin/sh
set -e
[ "\$1" = purge ] || exit 0
rmdir "/lib/modules/$rel/kgraft" 2> /dev/null || true
exit 0
EOF
	chmod 0755 "$stage/DEBIAN/postinst" "$stage/DEBIAN/prerm" "$stage/DEBIAN/postrm"
	build "$stage" "$out"
}

[ $# -ge 1 ] || usage
case $1 in
tools) [ $# -eq 3 ] || usage; tools_deb "$2" "$3" ;;
patch) [ $# -ge 3 ] && [ $# -le 4 ] || usage; patch_deb "$2" "$3" "${4:-}" ;;
*) usage ;;
esac
