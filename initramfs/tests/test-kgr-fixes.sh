#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Patch modules made from source patches alone: every fix of
# tools/kgraft-e2e/fixes/ that kgr-fix.sh turned into a module, in the
# order of $MODDIR/kgr-fixes.list (written by run-fixes.sh from the Kgr-*
# lines of each fix).  For each: its check command gives the old output
# (Kgr-Old); the module loads (its references to symbols nothing exports
# are resolved by the module loader, kernel/module/kgraft.c) and the
# patch finalizes; the check gives the new output (Kgr-New); the patch is
# reverted and the module removed; the check gives the old output again.
#
# The list also has the link-time address of _text: on a kernel with
# KASLR (the Debian config) the test logs how far the kernel was moved,
# so the log shows that the modules were loaded into a moved kernel.
#
# kgr-timeout: 300

. "$(dirname "$0")/functions.sh"

LIST=$MODDIR/kgr-fixes.list
# the Kgr-Setup and Kgr-Check commands may use it
export MODDIR
FINALIZE_BOUND=20

start_test "patch modules made from source patches (tools/kgraft-e2e/fixes)"

[ -f "$LIST" ] || skip "no $LIST in the guest (made by 'make kgr-fixes'; KGR_FIXES=0 leaves it out)"

# check NAME WHEN ERE: the check command's output must match ERE
check() {
	out=$(sh -c "$check" 2>&1)
	log "$1: $2: $out"
	echo "$out" | grep -qE -- "$3" || die "$1: $2: the check printed '$out', which does not match '$3'"
}

link=$(sed -n 's/^link_text //p' "$LIST")
kaslr=$(sed -n 's/^kaslr //p' "$LIST")
run=$(awk '$3 == "_text" { print $1 }' /proc/kallsyms)
if [ -n "$link" ] && [ -n "$run" ] && [ "$run" != 0000000000000000 ]; then
	log "_text at 0x$run, linked at 0x$link; KASLR in the config: $kaslr"
	if [ "$run" != "$link" ]; then
		log "KASLR moved the kernel: the modules below cannot use addresses of the build"
	elif [ "$kaslr" = y ]; then
		log "KASLR did not move the kernel at this boot (nokaslr, or an offset of 0)"
	fi
fi

n=0
while read -r key rest; do
	case $key in
	fix)	name=$rest setup= check= old= new= mod= ;;
	module)	mod=$rest ;;
	setup)	setup=$rest ;;
	check)	check=$rest ;;
	old)	old=$rest ;;
	new)	new=$rest ;;
	end)
		[ -n "$mod" ] && [ -n "$check" ] && [ -n "$old" ] && [ -n "$new" ] ||
			die "$LIST: fix $name lacks module, check, old or new"
		[ -f "$MODDIR/$mod.ko" ] || die "$name: no $MODDIR/$mod.ko"
		if [ -n "$setup" ]; then
			log "$name: setup: $setup"
			sh -c "$setup" || die "$name: the setup failed"
		fi
		check "$name" "before" "$old"

		done_before=$(dmesg | grep -c 'kgr succeeded$')
		log "% insmod $mod.ko"
		insmod "$MODDIR/$mod.ko" 2> /tmp/insmod.err || {
			cat /tmp/insmod.err
			dmesg | tail -n 20
			die "$name: insmod $mod.ko failed"
		}
		wait_for '[ "$(dmesg | grep -c "kgr succeeded$")" -gt "$done_before" ]' $FINALIZE_BOUND ||
			die "$name: the patch did not finalize within $FINALIZE_BOUND s"
		[ -d "$KGR_SYS/$mod" ] || die "$name: no $KGR_SYS/$mod"
		log "$name: $(tr '\n' ' ' < "$KGR_SYS/$mod/state" 2>/dev/null)"
		check "$name" "patched" "$new"

		kgr_revert "$mod"
		kgr_wait_reverted "$mod" $FINALIZE_BOUND
		rmmod "$mod" || die "$name: rmmod $mod after the revert failed"
		check "$name" "reverted" "$old"
		n=$((n + 1))
		;;
	'#'*|link_text|kaslr|'') ;;
	*)	die "$LIST: unknown line '$key $rest'" ;;
	esac
done < "$LIST"

[ $n -gt 0 ] || die "$LIST lists no fix"
log "$n fixes: old output, patched, new output, reverted, old output again"
log "ok"
exit 0
