#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-docs.sh TREE PATCHES SERIES
#
# The documentation files that the series creates, checked in TREE (a
# kernel tree with the whole series applied) as the kernel's own tools
# would take them:
#
#  - each new .rst file is parsed with docutils, the parser under the
#    kernel's Sphinx build; any message of level 2 (warning) or above
#    fails. Of the kernel's own Sphinx directives only kernel-doc is
#    used: what it names is run through scripts/kernel-doc -rst -Werror,
#    which must print the identifiers asked for and no warning;
#  - each new file under Documentation/ABI is read by
#    scripts/get_abi.pl validate, which must report nothing about it.
#
# Exit status 1 when a file fails, 0 otherwise.

set -euo pipefail

[ $# -eq 3 ] || { echo "usage: $0 TREE PATCHES SERIES" >&2; exit 2; }
tree=$1
patches=$2
series=$3

# the files a patch of the series creates: "--- /dev/null", then "+++ b/F"
mapfile -t created < <(
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$series" |
	while read -r p; do
		awk '/^--- \/dev\/null/ { new = 1; next }
		     new && /^\+\+\+ / { sub(/^\+\+\+ [^\/]*\//, ""); print }
		     { new = 0 }' "$patches/$p"
	done | sort -u)

failed=0
checked=0
for f in "${created[@]}"; do
	case $f in
	Documentation/ABI/*)
		dir=$(dirname "$f")
		out=$(cd "$tree" && perl scripts/get_abi.pl --dir "$dir" validate 2>&1 |
		      grep -F "$(basename "$f")" || true)
		if [ -n "$out" ]; then
			echo "docs: $f: get_abi.pl validate:" >&2
			printf '%s\n' "$out" | sed 's/^/    /' >&2
			failed=1
		fi
		checked=$((checked + 1))
		;;
	*.rst)
		if ! out=$(python3 - "$tree" "$f" 2>&1 <<'PY'
import subprocess
import sys
import docutils.core
import docutils.utils
from docutils.parsers.rst import Directive, directives

tree, rel = sys.argv[1], sys.argv[2]
path = f'{tree}/{rel}'
asked = []


class KernelDoc(Directive):
    """kernel-doc FILE: noted here, checked with scripts/kernel-doc below"""
    required_arguments = 1
    option_spec = {o: directives.unchanged for o in
                   ('identifiers', 'no-identifiers', 'functions', 'export',
                    'internal', 'doc')}

    def run(self):
        asked.append((self.arguments[0], self.options))
        return []


directives.register_directive('kernel-doc', KernelDoc)
with open(path, encoding='utf-8') as f:
    text = f.read()
try:
    docutils.core.publish_doctree(
        text, source_path=path,
        settings_overrides={'report_level': 2, 'halt_level': 2})
except docutils.utils.SystemMessage as e:
    sys.exit(str(e))
for src, opts in asked:
    names = (opts.get('identifiers') or opts.get('functions') or '').split()
    cmd = ['perl', 'scripts/kernel-doc', '-rst', '-Werror']
    for n in names:
        cmd += ['-function', n]
    r = subprocess.run(cmd + [src], cwd=tree, capture_output=True, text=True)
    warnings = [l for l in r.stderr.splitlines()
                if 'Sphinx version not found' not in l]
    if r.returncode or warnings:
        sys.exit(f'kernel-doc {src}: ' + '; '.join(warnings or ['failed']))
    for n in names:
        if f' {n}' not in r.stdout:
            sys.exit(f'kernel-doc {src}: no documentation of {n}')
PY
		); then
			echo "docs: $f: $out" >&2
			failed=1
		fi
		checked=$((checked + 1))
		;;
	esac
done

if [ "$failed" -ne 0 ]; then
	echo "docs: FAILED" >&2
	exit 1
fi
echo "docs: $checked files the series creates under Documentation parse cleanly"
