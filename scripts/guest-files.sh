# SPDX-License-Identifier: GPL-2.0
#
# guest-files.sh: sourced by mkinitramfs.sh and mkdebian-image.sh, which
# put the same test files into both guests.
#
# guest_tests_and_helpers SRC STAGE BINDIR CC: copy SRC/tests/ to
# STAGE/tests/ (every *.sh executable), and build each SRC/src/NAME.c
# with "CC -static" into STAGE/BINDIR/NAME; install tools/kgr/kgr as
# STAGE/BINDIR/kgr.  Reports through say().

guest_tests_and_helpers() {
	local src=$1 stage=$2 bindir=$3 cc=$4 c name

	mkdir -p "$stage/tests" "$stage/$bindir"
	cp -R "$src/tests/." "$stage/tests/"
	find "$stage/tests" -name '*.sh' -exec chmod 0755 {} +
	say "tests: $(cd "$stage/tests" && ls test-*.sh 2>/dev/null | tr '\n' ' ')"

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
