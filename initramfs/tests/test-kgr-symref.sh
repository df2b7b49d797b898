#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# What a patch module may reach through a ".kgr.sym." reference (the
# unexported symbols that kgr-fix.sh's modules use): a GPL module's
# reference to an unexported symbol (kgr_in_progress_lock) resolves, and
# the module taints the kernel K, as a livepatch module does; a reference
# to an exported symbol (kstrtoint) is refused, so that the export's GPL
# and namespace rules cannot be bypassed; and so is the reference of a
# module whose license is not GPL-compatible. That last case taints the
# kernel P for the rest of the boot, which turns lockdep off: it is left
# out on a kernel with lockdep (the debug kernel).
#
# kgr-timeout: 60

. "$(dirname "$0")/functions.sh"

start_test "a .kgr.sym reference: GPL modules, unexported symbols, taint K"

load_mod kgr_test_symref_gpl
expect_log "kgr_test_symref_gpl: kgr_in_progress_lock resolved"
taint=$(cat /sys/module/kgr_test_symref_gpl/taint)
log "kgr_test_symref_gpl: taint '$taint'"
case $taint in
*K*) ;;
*) die "kgr_test_symref_gpl does not taint the kernel K (taint '$taint')" ;;
esac
unload_mod kgr_test_symref_gpl

refuse kgr_test_symref_export
expect_log "kgr_test_symref_export: .kgr.sym.vmlinux.kstrtoint,0: kstrtoint is exported; link to it by name"

if [ -e /proc/lockdep ]; then
	log "a kernel with lockdep: the proprietary module's case is left out"
else
	refuse kgr_test_symref_prop
	expect_log "kgr_test_symref_prop: .kgr.sym.vmlinux.kgr_in_progress_lock,0: a module whose license is not GPL-compatible may not refer to symbols that are not exported"
fi
log "ok"
exit 0
