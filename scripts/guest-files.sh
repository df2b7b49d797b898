# SPDX-License-Identifier: GPL-2.0
#
# guest-files.sh: sourced by mkinitramfs.sh and mkdebian-image.sh, which
# put the same test files into both guests.
#
# guest_tests_and_helpers SRC STAGE BINDIR CC: copy SRC/tests/ to
# STAGE/tests/ (every *.sh executable; tests.list, the order the runner
# runs the tests in, is required and stays a plain 0644 file), and build
# each SRC/src/NAME.c with "CC -static" into STAGE/BINDIR/NAME; install
# tools/kgr/kgr as STAGE/BINDIR/kgr.  Reports through say(); warns about
# a test that tests.list does not name or a name without its test (the
# guest's runner reports both as "not ok").

guest_tests_and_helpers() {
	local src=$1 stage=$2 bindir=$3 cc=$4 c name listed t

	[ -f "$src/tests/tests.list" ] || {
		echo "guest-files: no $src/tests/tests.list (the tests, in the order they run)" >&2
		return 1
	}
	mkdir -p "$stage/tests" "$stage/$bindir"
	cp -R "$src/tests/." "$stage/tests/"
	find "$stage/tests" -name '*.sh' -exec chmod 0755 {} +
	chmod 0644 "$stage/tests/tests.list"
	# the names tests.list gives, comments and blank lines left out
	listed=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' -e 's/^[[:space:]]*//' \
		-e 's/[[:space:]].*//' "$stage/tests/tests.list")
	say "tests, in the order of tests.list: ${listed//$'\n'/ }"
	for t in "$stage/tests"/test-*.sh; do
		[ -e "$t" ] || continue
		grep -qxF "${t##*/}" <<< "$listed" ||
			echo "guest-files: warning: ${t##*/} is not in tests.list (the guest reports it as not ok)" >&2
	done
	for t in $listed; do
		[ -f "$stage/tests/$t" ] ||
			echo "guest-files: warning: tests.list names $t, which is not in $src/tests (the guest reports it as not ok)" >&2
	done

	# the administrator's tool (tools/kgr/kgr), on the PATH
	install -m 0755 "$src/../tools/kgr/kgr" "$stage/$bindir/kgr"
	say "kgr tool"

	for c in "$src"/src/*.c; do
		[ -e "$c" ] || continue
		name=$(basename "$c" .c)
		"$cc" -static -O2 -Wall -o "$stage/$bindir/$name" "$c"
		say "cc $name"
	done
}
