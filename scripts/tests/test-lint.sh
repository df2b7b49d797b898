#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test-lint.sh: host test of scripts/lint-series.py, the checks of
# "make lint" that need no kernel tree (series, headers, tests, format,
# history; checkpatch and the byte-exact refresh are left out, as
# lint-series.py leaves them out without --checkpatch-tree).
#
# Each case copies the fixture repository of fixtures/lint/ (a series
# with banners, the sixteen RFC patches made from rfc.patch.in, three
# patches of ours, the tests they name) into a scratch directory, changes
# one thing and runs the lint on it: the clean fixture must pass, each
# planted defect must fail with its message.  One line per case,
# "ok: ..." or "FAIL: ..."; exit status 0 when every case passed, 1
# otherwise.  Run from the repository's top (any directory works).

set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
lint=$here/../lint-series.py
fixture=$here/fixtures/lint
scratch=$(mktemp -d "${TMPDIR:-/tmp}/test-lint.XXXXXX") || exit 1
trap 'rm -rf "$scratch"' EXIT

failed=0
cases=0
n=0

# A fresh copy of the clean fixture in $repo.
fresh() {
	n=$((n + 1))
	repo=$scratch/$n
	cp -a "$fixture/repo" "$repo"
	local nn
	for nn in 01 02 03 04 05 06 07 08 09 10 11 12 13 14 15 16; do
		sed "s/@NN@/$nn/g" "$fixture/rfc.patch.in" \
			> "$repo/patches/00$nn-kgr-fixture-change-$nn.patch"
	done
}

# Run the lint on $repo; its output in $out, its exit status in $rc.
run_lint() {
	out=$(cd "$repo" && python3 "$lint" --patches patches --series series \
		--repo . --history-kept history-kept 2>&1)
	rc=$?
}

report() {
	cases=$((cases + 1))
	if [ "$1" = ok ]; then
		echo "ok: $2"
	else
		echo "FAIL: $2"
		echo "$out" | sed 's/^/    | /'
		failed=1
	fi
}

# expect_pass DESCRIPTION: the lint passes on $repo.
expect_pass() {
	run_lint
	if [ "$rc" -eq 0 ] && grep -q ' 0 problems$' <<<"$out"; then
		report ok "$1"
	else
		report FAIL "$1 (exit $rc, expected a pass)"
	fi
}

# expect_fail DESCRIPTION MESSAGE: the lint fails on $repo and says
# MESSAGE (a fixed string).
expect_fail() {
	run_lint
	if [ "$rc" -ne 1 ]; then
		report FAIL "$1 (exit $rc, expected 1)"
	elif ! grep -qF -- "$2" <<<"$out"; then
		report FAIL "$1 (no '$2' in the output)"
	else
		report ok "$1"
	fi
}

p17=patches/0017-kgr-fix-the-one-thing.patch
p40=patches/0040-kgr-tools-fix-the-other-thing.patch
p600=patches/0600-kgr-document-the-fixture.patch
start=$(date +%s%N)

# --- the clean fixture -------------------------------------------------------

fresh
expect_pass "the clean fixture passes"

# --- tests: the Test: trailers -------------------------------------------------

fresh
sed -i '/^Test: /d' "$repo/$p17"
expect_fail "a patch of ours without a Test: trailer fails" \
	"0017-kgr-fix-the-one-thing.patch: no Test: trailer naming the test"

fresh
# the trailer moved into the prose: a paragraph of its own
sed -i 's|^Test: initramfs/tests/test-kgr-one.sh$|&\n|' "$repo/$p17"
expect_fail "a Test: line in the prose is not a trailer" \
	"('Test: initramfs/tests/test-kgr-one.sh' is in the prose, not in the trailers)"

fresh
sed -i 's|^Test: initramfs/tests/test-kgr-one.sh$|Test: initramfs/tests/test-kgr-none.sh|' \
	"$repo/$p17"
expect_fail "a Test: trailer naming a file that does not exist fails" \
	"Test: initramfs/tests/test-kgr-none.sh: no such file in the repository"

fresh
sed -i 's|^Test: initramfs/tests/test-kgr-one.sh$|Test: test-kgr-one.sh|' "$repo/$p17"
expect_fail "a Test: trailer with the basename only fails" \
	"malformed trailer 'Test: test-kgr-one.sh'"

fresh
sed -i 's|^Test: initramfs/tests/test-kgr-one.sh$|Test: ../1/initramfs/tests/test-kgr-one.sh|' \
	"$repo/$p17"
expect_fail "a Test: trailer with a path out of the repository fails" \
	"malformed trailer 'Test: ../1/initramfs/tests/test-kgr-one.sh'"

fresh
sed -i 's|^Test: initramfs/tests/test-kgr-one.sh$|& (new)|' "$repo/$p17"
expect_fail "a Test: trailer with words after the path fails" \
	"malformed trailer 'Test: initramfs/tests/test-kgr-one.sh (new)'"

fresh
sed -i 's|^Test: tools/kgraft-e2e/tests/test-kgraft-two.sh$|Test: initramfs/tests/test-kgr-one.sh|' \
	"$repo/$p40"
expect_fail "the same test named twice fails" \
	"Test: initramfs/tests/test-kgr-one.sh is given twice"

fresh
sed -i 's|^Test: initramfs/tests/test-kgr-one.sh$|Test: none (documentation)|' "$repo/$p17"
expect_fail "\"Test: none (documentation)\" on a patch that changes code fails" \
	'changes documentation alone (Documentation/, MAINTAINERS); this one changes kernel/kgr-01.c, kernel/kgr-02.c'

fresh
sed -i '/^Test: /d' "$repo/$p600"
expect_fail "a documentation patch without a Test: trailer fails" \
	"0600-kgr-document-the-fixture.patch: no Test: trailer"

fresh
sed -i 's|^\(Test: initramfs/tests/test-kgr-one.sh\)$|\1\nTest: none (documentation)|' \
	"$repo/$p40"
expect_fail "\"Test: none (documentation)\" next to a test fails" \
	'"Test: none (documentation)" together with other Test: trailers'

fresh
printf 'Test: initramfs/tests/test-kgr-one.sh\n' > "$scratch/line"
sed -i "/^\[port: /r $scratch/line" "$repo/patches/0003-kgr-fixture-change-03.patch"
expect_pass "an RFC patch needs no Test: trailer (and may carry one)"

# --- history -------------------------------------------------------------------

fresh
printf '# from patch 0302\n' >> "$repo/initramfs/tests/test-kgr-one.sh"
expect_fail "\"patch 0302\" in a comment of a test fails" \
	"initramfs/tests/test-kgr-one.sh:4: names a patch or an issue"

fresh
printf '# the order kept as in patch\n# 09 of the RFC\n' >> "$repo/initramfs/tests/test-kgr-one.sh"
expect_fail "a reference that a comment wraps (\"patch\" / \"09\") fails" \
	"initramfs/tests/test-kgr-one.sh:4: names a patch or an issue"

fresh
sed -i 's|^ \* history check reads. \*/$| * history check reads (issue 21). */|' \
	"$repo/samples/sample.c"
expect_fail "\"issue 21\" in a comment of samples/ fails" \
	"samples/sample.c:2: names a patch or an issue"

fresh
printf '# see (0017)\n' >> "$repo/Makefile"
expect_fail "\"(0017)\" in the Makefile fails" \
	"Makefile:3: names a patch or an issue"

fresh
mkdir -p "$repo/scripts"
printf '# patch 0017 and issue 21 may be named here\n' > "$repo/scripts/notes.sh"
expect_pass "scripts/ may name patches and issues"

fresh
sed -i 's|^+int kgr_fixture_one;$|+int kgr_fixture_one;	/* issue 21 */|' "$repo/$p17"
expect_fail "a line a patch adds naming an issue fails" \
	"history in the code (say what it does, not which patch or issue brought it): int kgr_fixture_one;	/* issue 21 */"

fresh
sed -i 's|^+int kgr_fixture_one;$|+int kgr_fixture_one;	/* issue 21 */|' "$repo/$p17"
printf '0017 1\n' >> "$repo/history-kept"
expect_pass "a reference that history-kept counts passes"

fresh
printf '0017 1\n' >> "$repo/history-kept"
expect_fail "a history-kept count above the patch's references fails" \
	"scripts/history-kept allows 1 references, the patch has 0: lower its count"

# --- series ----------------------------------------------------------------------

fresh
cp "$repo/$p17" "$repo/patches/0018-kgr-not-in-series.patch"
expect_fail "a file of patches/ that series does not list fails" \
	"patches/0018-kgr-not-in-series.patch is not listed in series"

fresh
sed -i 's|^0040-kgr-tools-fix-the-other-thing.patch$|0017-kgr-fix-the-one-thing.patch|' \
	"$repo/series"
rm "$repo/$p40"
expect_fail "a patch listed twice fails" \
	"0017-kgr-fix-the-one-thing.patch is listed twice (first on line"

fresh
sed -i 's|^0017-kgr-fix-the-one-thing.patch$|& -p1|' "$repo/series"
expect_fail "a quilt option in series fails" \
	"only a patch name per line (no quilt options)"

fresh
sed -i '/^0017-/d; s|^0040-kgr-tools-fix-the-other-thing.patch$|&\n0017-kgr-fix-the-one-thing.patch|' \
	"$repo/series"
expect_fail "a patch numbered below the one before it fails" \
	"0017-kgr-fix-the-one-thing.patch: numbered 0017, not above the patch before it (0040)"

fresh
sed -i '/^0005-/d' "$repo/series"
rm "$repo/patches/0005-kgr-fixture-change-05.patch"
expect_fail "a gap in the RFC's numbering fails" \
	"0006-kgr-fixture-change-06.patch: numbered 0006, but it is patch 5 of series"

fresh
mv "$repo/$p17" "$repo/patches/17-kgr-fix-the-one-thing.patch"
sed -i 's|^0017-kgr-fix-the-one-thing.patch$|17-kgr-fix-the-one-thing.patch|' "$repo/series"
expect_fail "a name that is not NNNN-slug.patch fails" \
	"17-kgr-fix-the-one-thing.patch: name is not NNNN-slug.patch"

# --- headers ---------------------------------------------------------------------

fresh
sed -i '/^From: /d' "$repo/$p17"
expect_fail "a patch without From: fails" \
	"0017-kgr-fix-the-one-thing.patch: no From: line in the header block at the top"

fresh
sed -i 's|^From: .*|From: Port Author|' "$repo/$p17"
expect_fail "a From: without an address fails" \
	"From: 'Port Author' has no <address>"

fresh
sed -i 's|^Date: .*|Date: 2026-12-03 08:30|' "$repo/$p17"
expect_fail "a Date: that is not RFC 2822 fails" \
	"Date: '2026-12-03 08:30' is not an RFC 2822 date"

fresh
sed -i '/^Subject: /d' "$repo/$p40"
expect_fail "a patch without Subject: fails" \
	"0040-kgr-tools-fix-the-other-thing.patch: no Subject: line"

fresh
sed -i '/^Signed-off-by: /d' "$repo/$p17"
expect_fail "a patch without Signed-off-by: fails" \
	"0017-kgr-fix-the-one-thing.patch: no Signed-off-by: line"

fresh
sed -i 's|^Signed-off-by: .*|Signed-off-by: Port Author|' "$repo/$p40"
expect_fail "a malformed Signed-off-by: fails" \
	"malformed 'Signed-off-by: Port Author'"

fresh
sed -i 's|^Subject: \[RFC 07/16\]|Subject: [RFC 08/16]|' \
	"$repo/patches/0007-kgr-fixture-change-07.patch"
expect_fail "an RFC patch with another's RFC number fails" \
	"Subject: does not carry the RFC number [RFC 07/16]"

fresh
sed -i '/^\[port: /d' "$repo/patches/0009-kgr-fixture-change-09.patch"
expect_fail "an RFC patch without port notes fails" \
	"an RFC patch without port notes ([port: ...] lines)"

fresh
sed -i 's|^Subject: \[PATCH 17\]|Subject: [RFC 17/16]|' "$repo/$p17"
expect_fail "a patch of ours with an RFC number fails" \
	"a patch of ours (0017+) must not claim an RFC number"

# --- format ------------------------------------------------------------------------

fresh
sed -i 's|^--- a/kernel/kgr-01.c$|--- kernel/kgr-01.c|' "$repo/$p17"
expect_fail "a diff without the a/ prefix fails" \
	"--- kernel/kgr-01.c: not the '-p ab' form (a/PATH)"

fresh
sed -i 's|^+++ b/kernel/kgr-02.c$|&	2026-12-03 08:30:00.000000000 +0000|' "$repo/$p17"
expect_fail "a timestamp on a +++ line fails" "+++ line has a timestamp"

fresh
sed -i 's|^--- a/kernel/kgr-02.c$|index 0123abc..4567def 100644\n&|' "$repo/$p17"
expect_fail "a git index line fails" "git/quilt metadata, not the canonical format"

fresh
sed -i '/^ kernel\/kgr-02.c /d' "$repo/$p17"
expect_fail "a diffstat that leaves a file out fails" \
	"the diffstat does not list the files of the diff (make refresh)"

# ---------------------------------------------------------------------------------

ms=$((($(date +%s%N) - start) / 1000000))
if [ "$failed" -eq 0 ]; then
	echo "test-lint: all $cases cases passed in $ms ms"
else
	echo "test-lint: FAILED ($cases cases, $ms ms)"
fi
exit "$failed"
