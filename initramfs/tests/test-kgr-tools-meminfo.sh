#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The kGraft tools end to end: a module that tools/kgraft's
# create-kgrmodule.sh generated from a real source change, loaded into
# the kernel built without it.  The change is
# tools/kgraft-e2e/demo-meminfo-memused.patch: /proc/meminfo gains a line
# "MemUsed:" after "MemAvailable:", MemTotal - MemFree - Buffers - Cached.
# The new meminfo_proc_show() was taken out of a -ffunction-sections build
# of vmlinux.o by objcopy-hacked; it calls a static function
# (show_val_kb) and functions that are not exported (vm_commit_limit,
# vmalloc_nr_pages, pcpu_nr_pages, arch_report_meminfo), which the
# module got resolved at build time and checks at load time.
#
# Before the insmod there is no MemUsed line; right after it a new process
# sees it (through the slow stub: a task blocked in the kernel holds the
# transition open), with the right value, and every other line is still
# there in the same order; released, patching finalizes ("kgr
# succeeded"); afterwards nobody is in progress and the new code stays.
# Without the module (KGR_E2E=0) the test is skipped.
#
# kgr-timeout: 240

. "$(dirname "$0")/functions.sh"

FINALIZE_BOUND=5

# names: the first field of every /proc/meminfo line, one line
names() {
	awk '{ printf "%s ", $1 }' /proc/meminfo
}

start_test "kgraft tools: module generated from the meminfo demo fix"

[ -f "$MODDIR/kgrmodule.ko" ] ||
	skip "no kgrmodule.ko in the initramfs (made by 'make kgr-module'; KGR_E2E=0 skips it)"

grep -q '^MemUsed:' /proc/meminfo && die "MemUsed: in /proc/meminfo before the patch"
before=$(names)
log "before: $before"
case $before in
*"MemAvailable: Buffers:"*) ;;
*) die "unexpected /proc/meminfo layout before the patch" ;;
esac
for n in CommitLimit: VmallocUsed: Percpu: DirectMap4k:; do
	case " $before" in *" $n "*) ;; *) die "no $n line before the patch" ;; esac
done

# Without a task held in the kernel the transition ends within
# milliseconds, before the checks below could run.
stub_count 1
hold_transition /tmp/meminfo-hold.out

# An earlier test's patch may still be in its transition: kgr refuses a
# second one with -EAGAIN until it is finalized.
tries=0
log "% insmod kgrmodule.ko"
while ! insmod "$MODDIR/kgrmodule.ko" 2> /tmp/insmod.err; do
	tries=$((tries + 1))
	if [ $tries -ge 60 ] || ! kmsg_since_mark | grep -q 'another patching not yet finalized'; then
		cat /tmp/insmod.err
		kmsg_since_mark | tail -n 20
		die "insmod kgrmodule.ko failed"
	fi
	sleep 2
done
kmsg_since_mark | grep -q -e 'kgrmodule: .* is not at' && die "a resolved symbol did not check out"

# A new process (cat) runs the new meminfo_proc_show().
after=$(names)
log "after:  $after"
want=$(echo "$before" | sed 's/MemAvailable: /MemAvailable: MemUsed: /')
assert_eq "$want" "$after" "/proc/meminfo lines after the patch"

# Its value, from one read of the file.
awk '
	{ v[$1] = $2; u[$1] = $3 }
	END {
		want = v["MemTotal:"] - v["MemFree:"] - v["Buffers:"] - v["Cached:"]
		printf "MemUsed: %s %s; MemTotal - MemFree - Buffers - Cached = %d\n", \
			v["MemUsed:"], u["MemUsed:"], want
		exit !(v["MemUsed:"] == want && u["MemUsed:"] == "kB" && want > 0)
	}' /proc/meminfo > /tmp/memused.out
ok=$?
log "$(cat /tmp/memused.out)"
[ $ok -eq 0 ] || die "MemUsed has the wrong value"

# The lines the non-exported functions print have sane values.
for n in CommitLimit: Percpu: DirectMap4k:; do
	v=$(awk -v n=$n '$1 == n { print $2 }' /proc/meminfo)
	log "$n $v kB"
	[ "${v:-0}" -gt 0 ] || die "$n is '$v' with the new code"
done

kmsg_since_mark | grep -q '^kgr succeeded$' &&
	die "patching finalized while a task was held in the kernel"

release_hold /tmp/meminfo-hold.out
kgr_wait_finalized $FINALIZE_BOUND
# the slow stub counts its calls
n=$(stub_calls meminfo_proc_show new)
stub_count 0
[ "${n:-0}" -ge 1 ] || die "the slow stub sent '$n' calls to the new code"

n=0
for f in /proc/[0-9]*/kgr_in_progress; do
	v=$(cat "$f" 2>/dev/null) || continue
	n=$((n + 1))
	[ "$v" = 0 ] || die "$f reads '$v' after 'kgr succeeded'"
done
log "$n /proc/<pid>/kgr_in_progress files read 0"

# The fast stub keeps calling the new code.
assert_eq "$want" "$(names)" "/proc/meminfo lines after finalization"
grep '^MemUsed:' /proc/meminfo | while read -r line; do log "$line"; done

log "ok"
exit 0
