#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-config.sh DOTCONFIG FRAGMENT...
#
# Fail, naming each one, when an option a fragment asked for did not end
# up that way in DOTCONFIG after olddefconfig: "CONFIG_X=value" must be
# present verbatim, "# CONFIG_X is not set" (or CONFIG_X=n) must be absent
# or not set.  A later fragment overrides an earlier one, as in
# merge_config.sh.  Other comments, "# CONFIG_X=y" included, are ignored.

set -euo pipefail

[ $# -ge 2 ] || { echo "usage: $0 .config FRAGMENT..." >&2; exit 2; }

dotconfig=$1
shift

awk '
FNR == 1 { nfile++ }
# The .config comes first: record what each option ended up as.
nfile == 1 {
	if (match($0, /^CONFIG_[A-Za-z0-9_]+=/)) {
		final[substr($0, 1, RLENGTH - 1)] = substr($0, RLENGTH + 1)
	} else if ($0 ~ /^# CONFIG_[A-Za-z0-9_]+ is not set$/) {
		final[$2] = "n"
	}
	next
}
# Fragments: record the last request for each option and where it is.
{
	if (match($0, /^CONFIG_[A-Za-z0-9_]+=/)) {
		opt = substr($0, 1, RLENGTH - 1)
		want[opt] = substr($0, RLENGTH + 1)
	} else if ($0 ~ /^# CONFIG_[A-Za-z0-9_]+ is not set[[:space:]]*$/) {
		opt = $2
		want[opt] = "n"
	} else {
		next
	}
	if (!(opt in where))
		order[n++] = opt
	where[opt] = FILENAME ":" FNR
}
END {
	for (i = 0; i < n; i++) {
		opt = order[i]
		got = (opt in final) ? final[opt] : "n"
		if (want[opt] == got)
			continue
		printf "check-config: %s: asked %s, got %s (%s)\n", opt,
		       want[opt] == "n" ? "not set" : "=" want[opt],
		       got == "n" ? ((opt in final) ? "not set" : "absent (unmet dependency?)") : "=" got,
		       where[opt]
		bad++
	}
	if (bad) {
		printf "check-config: FAILED: %d of %d requested options are not in %s\n",
		       bad, n, ARGV[1]
		exit 1
	}
	printf "check-config: all %d requested options are set as asked\n", n
}
' "$dotconfig" "$@"
