#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sign-modules.sh KSRC MODULE.ko...
#
# Sign each module in place with the key the kernel of KSRC was built
# with (CONFIG_MODULE_SIG_KEY, by default certs/signing_key.pem, which the
# build generated; its certificate is built into that kernel's
# .builtin_trusted_keys), as "make modules_install" would. A module
# that ends in a signature already is left as it is. Nothing is done,
# successfully, when KSRC has no CONFIG_MODULE_SIG.

set -euo pipefail

[ $# -ge 1 ] || { echo "usage: $0 KSRC MODULE.ko..." >&2; exit 2; }
ksrc=$1
shift
grep -q '^CONFIG_MODULE_SIG=y' "$ksrc/.config" || exit 0
hash=$(sed -n 's/^CONFIG_MODULE_SIG_HASH="\(.*\)"$/\1/p' "$ksrc/.config")
key=$(sed -n 's/^CONFIG_MODULE_SIG_KEY="\(.*\)"$/\1/p' "$ksrc/.config")
case $key in /*) ;; *) key=$ksrc/$key ;; esac
[ -x "$ksrc/scripts/sign-file" ] && [ -r "$key" ] ||
	{ echo "sign-modules: CONFIG_MODULE_SIG, but no scripts/sign-file or $key in $ksrc" >&2; exit 1; }
for ko in "$@"; do
	! tail -c 28 "$ko" | grep -qax "~Module signature appended~" || continue
	"$ksrc/scripts/sign-file" "$hash" "$key" "$ksrc/certs/signing_key.x509" "$ko"
done
