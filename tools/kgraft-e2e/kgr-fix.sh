#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kgr-fix.sh FIX KDIR SRC OUT
#
# A kGraft patch module from a source patch alone, with no list of
# functions:
#   FIX   a patch against linux-source-6.1 (-p1), as for quilt
#   KDIR  the built kernel the module is for (what QEMU boots): its
#         .config, vmlinux, Module.symvers, modules, and the .cmd files
#         that say which objects include which header
#   SRC   the same tree and series, configured as KDIR, prepared by
#         "make kgr-src"; objects are compiled here on demand with
#         -ffunction-sections -fdata-sections
#   OUT   gets kgr_fix_NAME.ko (NAME: FIX's file name without .patch),
#         its log and report.txt
#
# 1. The objects FIX touches: a .c file's object; for a header, every
#    object of vmlinux or a module that includes it (KDIR's .cmd files).
# 2. Each is compiled in SRC without FIX (kept if up to date), saved,
#    compiled with FIX applied, saved; then FIX is taken back and SRC is
#    as it was (the objects and their .cmd files restored, the sources'
#    times too), so the next fix rebuilds nothing it does not touch.
# 3. kgr-diff.py compares each pair: the changed functions, and what
#    cannot be live patched (refused before any module is built).
# 4. Their new code goes into a module with a stub of kGraft's API; the
#    references to the running kernel are resolved when it loads.
#
# The fix's description may carry what the module's modinfo tells the
# administrator ("kgr info", "kgr patches -v"), in lines of their own:
#   Kgr-Version: V     MODULE_VERSION (a Debian version: the patch
#                      package's version)
#   Kgr-Cve: ID...     MODULE_INFO(kgraft_cve), one per ID
#   Kgr-Bug: ID...     MODULE_INFO(kgraft_bug), one per ID
# and the module always says which fix it was made from (kgraft_fix),
# with the fix's subject as its description.
#
# Environment: JOBS (default nproc), KARCH (default x86_64),
# KGR_REPLACE_ALL (1: a cumulative patch, which replaces every patch
# applied before it; the patch packages are), KGR_PACKAGE (the Debian
# package the module goes into, MODULE_INFO(kgraft_package)).

set -euo pipefail

[ $# -eq 4 ] || { echo "usage: $0 FIX KDIR SRC OUT" >&2; exit 2; }
fix=$(realpath "$1") kdir=$(realpath "$2") src=$(realpath "$3")
mkdir -p "$4"
out=$(realpath "$4")
here=$(cd "$(dirname "$0")" && pwd)
jobs=${JOBS:-$(nproc)}
karch=${KARCH:-x86_64}
name=$(basename "$fix" .patch)
cname=$(echo "$name" | tr -c 'a-zA-Z0-9_\n' '_')
mod=kgr_fix_$cname
start=$(date +%s)

replace_all=${KGR_REPLACE_ALL:-0}
package=${KGR_PACKAGE:-}

say() { echo "kgr-fix: $name: $*"; }
die() { echo "kgr-fix: $name: error: $*" >&2; exit 1; }
refuse() { echo "kgr-fix: $name: refused: $*" >&2; exit 3; }

[ -f "$fix" ] || die "no such patch: $1"
case $replace_all in 0|1) ;; *) die "KGR_REPLACE_ALL is 0 or 1, not '$replace_all'" ;; esac

# header KEY: the value of "KEY: ..." in the fix's description
header() {
	sed -n '/^---$/q; s/^'"$1"': //p' "$fix" | head -n 1
}
# cstr TEXT: TEXT as a C string literal
cstr() {
	printf '"%s"' "$(printf '%s' "$1" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g')"
}
version=$(header Kgr-Version)
# the description: the fix's subject, without its [PATCH ...] tag
subject=$(sed -n '/^$/q; s/^Subject: *\(\[[^]]*\] *\)*//p' "$fix" | head -n 1)
[ -n "$subject" ] || subject="kGraft patch made from $name.patch by kgr-fix.sh"
cves=$(header Kgr-Cve)
bugs=$(header Kgr-Bug)
case $version in
''|[0-9]*) ;;
*) die "Kgr-Version must start with a digit (a Debian version): $version" ;;
esac
case $version in
*[!A-Za-z0-9.+~:-]*) die "Kgr-Version has a character a Debian version cannot: $version" ;;
esac
for f in .config vmlinux Module.symvers vmlinux.a; do
	[ -e "$kdir/$f" ] || die "no $kdir/$f: build the kernel first"
done
[ -f "$src/.kgr-src-ready" ] || die "$src is not prepared: make kgr-src"
cmp -s "$kdir/.config" "$src/.config" || die "$src/.config differs from $kdir/.config: make kgr-src"

# a fix left applied by a run that was killed: take it back first
applied=$src/.kgr-fix-applied
if [ -f "$applied" ]; then
	say "taking back $(head -n 1 "$applied"), left applied by an interrupted run"
	(cd "$src" && patch -p1 -R -s --no-backup-if-mismatch < "$(head -n 1 "$applied")") ||
		die "cannot take back $(head -n 1 "$applied") in $src: make distclean, then make kgr-src"
	rm -f "$applied"
fi

rm -rf "$out"/*.ko "$out/work"
mkdir -p "$out/work/orig" "$out/work/patched" "$out/module"
work=$out/work

# --- 1. the files and objects ------------------------------------------
files=$(sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$fix" | sort -u)
[ -n "$files" ] || die "$fix changes no file (not a -p1 patch with a/ and b/?)"
gone=$(grep -c '^+++ /dev/null' "$fix" || true)
[ "$gone" = 0 ] || refuse "it deletes a file"
for f in $files; do
	[ -f "$src/$f" ] || refuse "it adds $f: a new file is a new object, which nothing in the running kernel calls"
done

# the objects of vmlinux (link order) and of the modules
(cd "$kdir" && ar t vmlinux.a) > "$work/vmlinux.objs"
: > "$work/module.objs"
while read -r ko; do
	m=${ko%.ko}
	n=$(basename "$m" | tr - _)
	if [ -f "$kdir/$m.mod" ]; then
		tr ' ' '\n' < "$kdir/$m.mod" | grep . | sed "s|\$| $n|"
	else
		echo "$m.o $n"
	fi
done < "$kdir/modules.order" >> "$work/module.objs"

objects=
for f in $files; do
	case $f in
	*.c)
		objects+=" ${f%.c}.o" ;;
	*.h)
		users=$(cd "$kdir" && grep -rlF --include='.*.o.cmd' "$f" . |
			sed 's|^\./||; s|/\.\([^/]*\)\.cmd$|/\1|; s|^\.\([^/]*\)\.cmd$|\1|' | sort -u)
		objects+=" $users" ;;
	*)
		refuse "it changes $f, which is neither C source nor a header" ;;
	esac
done
kept= skipped=
for o in $(echo "$objects" | tr ' ' '\n' | sort -u); do
	if grep -qxF "$o" "$work/vmlinux.objs" || grep -q "^$o " "$work/module.objs"; then
		kept+=" $o"
	else
		skipped+=" $o"
	fi
done
[ -z "$skipped" ] || say "objects not in vmlinux or a module, not patched:$skipped"
[ -n "$kept" ] || die "no object of vmlinux or of a module is built from what it changes"
say "objects:$kept"

# --- 2. without and with the fix ----------------------------------------
kmake() {
	make -C "$src" ARCH="$karch" -j"$jobs" \
		KCFLAGS="-ffunction-sections -fdata-sections -I$here/include" "$@" \
		> "$work/make.log" 2>&1 || { tail -n 30 "$work/make.log" >&2; return 1; }
}
cmdfile() { echo "$(dirname "$1")/.$(basename "$1").cmd"; }

t0=$(date +%s)
kmake $kept || die "the objects do not build without the fix (log $work/make.log)"
for o in $kept; do
	mkdir -p "$work/orig/$(dirname "$o")"
	cp -p "$src/$o" "$work/orig/$o"
	cp -p "$src/$(cmdfile "$o")" "$work/orig/$(cmdfile "$o")"
done
t1=$(date +%s)

for f in $files; do
	touch -r "$src/$f" "$work/orig/$f.time" 2>/dev/null || { mkdir -p "$work/orig/$(dirname "$f")"; touch -r "$src/$f" "$work/orig/$f.time"; }
done
restore() {
	(cd "$src" && patch -p1 -R -s --no-backup-if-mismatch < "$fix") && rm -f "$applied"
	for f in $files; do
		touch -r "$work/orig/$f.time" "$src/$f"
	done
	for o in $kept; do
		cp -p "$work/orig/$o" "$src/$o"
		cp -p "$work/orig/$(cmdfile "$o")" "$src/$(cmdfile "$o")"
		touch "$src/$o"
	done
}
(cd "$src" && patch -p1 -s --dry-run --no-backup-if-mismatch < "$fix") > "$work/patch.log" 2>&1 ||
	{ cat "$work/patch.log" >&2; die "$fix does not apply to the series"; }
cp "$fix" "$work/fix.patch"
echo "$work/fix.patch" > "$applied"
(cd "$src" && patch -p1 -s --no-backup-if-mismatch < "$fix")
trap restore EXIT
trap 'exit 130' INT TERM
kmake $kept || die "the objects do not build with the fix (log $work/make.log)"
for o in $kept; do
	mkdir -p "$work/patched/$(dirname "$o")"
	cp -p "$src/$o" "$work/patched/$o"
done
restore
trap - EXIT
t2=$(date +%s)
say "built $(echo $kept | wc -w) object(s) without and with the fix: $((t1 - t0)) s + $((t2 - t1)) s"

# --- 3. compare ---------------------------------------------------------
if [ ! -f "$kdir/.kgr-kallsyms" ] || [ "$kdir/vmlinux" -nt "$kdir/.kgr-kallsyms" ]; then
	nm -n "$kdir/vmlinux" > "$kdir/.kgr-kallsyms.tmp"
	(cd "$kdir" && nm -A --defined-only vmlinux.a 2>/dev/null) |
		awk '$(NF-1) ~ /^[a-z]$/ { split($1, p, ":"); print p[2], $(NF-1), $NF }' > "$kdir/.kgr-locals.tmp"
	mv "$kdir/.kgr-locals.tmp" "$kdir/.kgr-locals"
	mv "$kdir/.kgr-kallsyms.tmp" "$kdir/.kgr-kallsyms"
fi
bugsize=8
grep -q '^CONFIG_DEBUG_BUGVERBOSE=y' "$kdir/.config" && bugsize=12

: > "$work/manifest"
: > "$out/report.txt"

# diff_args I O: kgr-diff.py's arguments for object O, the I-th
diff_args() {
	local i=$1 o=$2 m ko

	m=$(awk -v o="$o" '$1 == o { print $2 }' "$work/module.objs")
	args=(--object-path "$o" --exports "$kdir/Module.symvers" --tag "$i"
	      --bug-entry-size "$bugsize" --fix "$fix")
	if [ -n "$m" ]; then
		ko=$(grep -E "(^|/)$m.ko$" "$kdir/modules.order" | head -1)
		[ -n "$ko" ] || die "no module $m in $kdir/modules.order"
		readelf -sW "$kdir/$ko" | awk 'NF >= 8 && $7 != "UND" { print 0, ($5 == "LOCAL" ? "t" : "T"), $8 }' \
			> "$work/kallsyms$i"
		args+=(--obj "$m" --kallsyms "$work/kallsyms$i")
	else
		args+=(--obj vmlinux --kallsyms "$kdir/.kgr-kallsyms" --locals "$kdir/.kgr-locals")
	fi
}

# The new global functions of each object, which the others may call:
# the module carries them, and the calls go to its copies.
: > "$work/provided"
i=0
for o in $kept; do
	i=$((i + 1))
	diff_args "$i" "$o"
	/usr/bin/python3 "$here/kgr-diff.py" "${args[@]}" "$work/orig/$o" "$work/patched/$o" 2> /dev/null |
		awk '$1 == "provides" { print $2, $3 }' >> "$work/provided" || true
done

status=0 i=0 parts=
for o in $kept; do
	i=$((i + 1))
	diff_args "$i" "$o"
	m=$(awk -v o="$o" '$1 == o { print $2 }' "$work/module.objs")
	args+=(--provided "$work/provided" --out "$work/new$i.o" --manifest "$work/manifest$i")
	rc=0
	/usr/bin/python3 "$here/kgr-diff.py" "${args[@]}" "$work/orig/$o" "$work/patched/$o" \
		> "$work/diff$i.txt" 2> "$work/diff$i.err" || rc=$?
	sed "s|^|$o: |" "$work/diff$i.txt" >> "$out/report.txt"
	cat "$work/diff$i.err" >&2
	case $rc in
	0) ;;
	1) status=3 ;;
	*) die "kgr-diff.py failed on $o" ;;
	esac
	[ -s "$work/manifest$i" ] &&
		sed "s/^\(patch\|callback\) /\1 ${m:-vmlinux} /" "$work/manifest$i" >> "$work/manifest"
	if [ -s "$work/manifest$i" ] || grep -q '^provides ' "$work/diff$i.txt"; then
		parts+=" new$i.o"
		cp "$work/new$i.o" "$out/module/"
		# modpost (CONFIG_MODVERSIONS) reads each object's .cmd file
		# for the CRCs of what it exports: nothing here
		: > "$out/module/.new$i.o.cmd"
	fi
done
[ $status = 0 ] || refuse "see the lines above (kgr-diff: refused: ...); no module built"
grep -q '^patch ' "$work/manifest" ||
	refuse "no function's code changed: nothing to patch (report: $out/report.txt)"
# one callback of a kind per object: the objects of one module share it
dup=$(awk '$1 == "callback" { print $2, $3 }' "$work/manifest" | sort | uniq -d)
[ -z "$dup" ] || refuse "two callbacks of one kind for one object: $dup"
t3=$(date +%s)
say "changed: $(awk '$1 == "patch" { print $2 ":" $3 }' "$work/manifest" | tr '\n' ' ')"

# --- 4. the module --------------------------------------------------------
{
	echo "/* generated by tools/kgraft-e2e/kgr-fix.sh from $name.patch */"
	echo '#include <linux/kgr.h>'
	echo '#include <linux/module.h>'
	echo
	awk '$1 == "patch" { print "extern void " $5 "(void);" }
	     $1 == "callback" { print "extern " ($3 == "pre_patch" ? "int " : "void ") $4 \
				"(struct kgr_patch *patch);" }' "$work/manifest"
	echo
	if grep -q '^callback ' "$work/manifest"; then
		echo "/* the callbacks the fix names (kgr-fix.h), per object */"
		echo "static struct kgr_callbacks callbacks[] = {"
		awk '$1 == "callback" { cb[$2] = cb[$2] "\t\t." $3 " = " $4 ",\n" }
		     END { for (o in cb) printf "\t{\n\t\t.objname = \"%s\",\n%s\t},\n", o, cb[o] }' \
			"$work/manifest"
		echo "	{ }"
		echo "};"
		echo
	fi
	echo "static struct kgr_patch patch = {"
	echo "	.name = \"$mod\","
	echo "	.owner = THIS_MODULE,"
	grep -q '^callback ' "$work/manifest" && echo "	.obj_callbacks = callbacks,"
	[ "$replace_all" = 0 ] || echo "	.replace_all = true,"
	echo "	.patches = {"
	awk '$1 == "patch" { printf "\t\t__KGR_PATCH_ENTRY(\"%s:%s\", %s, %s),\n", $2, $3, $5, $4 }' \
		"$work/manifest"
	echo "		KGR_PATCH_END"
	echo "	}"
	echo "};"
	cat <<EOF

static int __init kgr_fix_init(void)
{
	return kgr_patch_kernel(&patch);
}

static void __exit kgr_fix_exit(void)
{
	kgr_patch_remove(&patch);
}

module_init(kgr_fix_init);
module_exit(kgr_fix_exit);
MODULE_LICENSE("GPL");
MODULE_INFO(kgraft, "Y");
MODULE_DESCRIPTION($(cstr "$subject"));
MODULE_INFO(kgraft_fix, $(cstr "$name"));
EOF
	[ -z "$version" ] || echo "MODULE_VERSION($(cstr "$version"));"
	[ -z "$package" ] || echo "MODULE_INFO(kgraft_package, $(cstr "$package"));"
	for id in $cves; do
		echo "MODULE_INFO(kgraft_cve, $(cstr "$id"));"
	done
	for id in $bugs; do
		echo "MODULE_INFO(kgraft_bug, $(cstr "$id"));"
	done
} > "$out/module/$mod-stub.c"
{
	echo "obj-m := $mod.o"
	echo "$mod-y := $mod-stub.o$parts"
} > "$out/module/Kbuild"
make -C "$kdir" ARCH="$karch" M="$out/module" modules > "$work/module.log" 2>&1 ||
	{ tail -n 30 "$work/module.log" >&2; die "the module does not build (log $work/module.log)"; }
cp "$out/module/$mod.ko" "$out/$mod.ko"
want=$(cat "$kdir/include/config/kernel.release")
got=$(modinfo -F vermagic "$out/$mod.ko" | cut -d' ' -f1)
[ "$want" = "$got" ] || die "$mod.ko has vermagic '$got', the kernel is '$want'"
t4=$(date +%s)
say "$out/$mod.ko: $(grep -c '^patch ' "$work/manifest") function(s), $(grep -c '^callback ' "$work/manifest") callback(s), $(grep -c '^.* kernel ' "$out/report.txt" || true) reference(s) resolved at load"
say "times: objects $((t2 - t0)) s, compare $((t3 - t2)) s, module $((t4 - t3)) s, total $((t4 - start)) s"
