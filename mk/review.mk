# SPDX-License-Identifier: GPL-2.0
#
# Review of the series: lint, refresh, bisect, compare-rfc, sparse.
# lint, refresh and bisect work in their own scratch trees under $(BUILD)
# (lint/, bisect/), never in $(KSRC); sparse checks $(KSRC) after "make
# kernel" without changing it.  "make help-review" describes them.

SEEDS		?= $(CURDIR)/../shared/seeds
CHECKPATCH_KEPT	?= $(CURDIR)/scripts/checkpatch-kept
LINT_DIR	 = $(BUILD)/lint
# the lint parses the documentation the series adds
DEB_PACKAGES	+= python3-docutils

BISECT_DIR	 = $(BUILD)/bisect
BISECT_FROM	?=

COMPARE_ARGS	?=

.PHONY: help-review lint refresh bisect compare-rfc sparse

help-review:
	@echo 'Review targets (lint, refresh, bisect: own scratch trees under $$(BUILD)):'
	@echo '  lint         series, headers, Test: trailers, no history in the code,'
	@echo '               checkpatch --strict against scripts/checkpatch-kept,'
	@echo '               canonical diff format, the documentation the series adds'
	@echo '  refresh      rewrite every patch in the canonical diff format'
	@echo '               (quilt refresh -p ab --no-timestamps --no-index --diffstat --sort)'
	@echo '  bisect       fresh tree, push one patch at a time, config + build'
	@echo '               after each; names the first patch that breaks'
	@echo '               (BISECT_FROM=REV: only prefixes ending at patches'
	@echo '               changed since git REV)'
	@echo '  compare-rfc  each of the ten seeded RFC patches against its port:'
	@echo '               files then/now, hunks unchanged/changed/added/dropped'
	@echo '               (COMPARE_ARGS="--detail 0009" for first differences, one patch)'
	@echo '  sparse       make kernel, then make C=2 over the C files of the series;'
	@echo '               fails on a warning in a file the series adds'
	@echo
	@echo '  SEEDS=$(SEEDS)'
	@echo '  BISECT_FROM=$(BISECT_FROM) COMPARE_ARGS=$(COMPARE_ARGS)'

lint:
	@$(CURDIR)/scripts/lint-series.sh $(TARBALL) $(LINT_DIR) $(PATCHES) \
		$(SERIES) $(CHECKPATCH_KEPT) $(SEEDS)

refresh:
	@$(CURDIR)/scripts/refresh-series.sh --write $(TARBALL) $(LINT_DIR) \
		$(PATCHES) $(SERIES)

bisect:
	@BISECT_FROM='$(BISECT_FROM)' $(CURDIR)/scripts/bisect-series.sh \
		$(TARBALL) $(BISECT_DIR) $(PATCHES) $(SERIES) $(JOBS) $(FRAGMENTS)

compare-rfc:
	@python3 $(CURDIR)/scripts/compare-rfc.py --seeds $(SEEDS) \
		--patches $(PATCHES) $(COMPARE_ARGS)

# sparse checks the main tree $(KSRC) as "make kernel" built it; with
# C=2 it only reruns sparse on objects that are up to date.
sparse: kernel
	@$(CURDIR)/scripts/sparse-series.sh $(KSRC) $(PATCHES) $(SERIES) $(JOBS)
