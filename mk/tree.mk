# SPDX-License-Identifier: GPL-2.0
#
# The kernel tree: "make tree" unpacks $(TARBALL) into $(BUILD) and
# pushes the series onto it with quilt, again from scratch whenever the
# series or a patch changed.

.PHONY: tree

$(STAMP_UNPACK): $(TARBALL)
	@$(CURDIR)/scripts/unpack-tree.sh $(TARBALL) $(BUILD) linux-source-6.1
	@touch $@

# Re-applied from scratch whenever series or any patch changed, or when
# SERIES, PATCHES or the set of patch files is not what the stamp records.
TREE_ID		 = $(SERIES) $(PATCHES) $(notdir $(SERIES_PATCHES))

$(STAMP_TREE): $(STAMP_UNPACK) $(SERIES_PATCHES) scripts/apply-series.sh \
	       $(if $(filter-out $(file <$(STAMP_TREE)),$(TREE_ID))$(filter-out $(TREE_ID),$(file <$(STAMP_TREE))),.FORCE)
	@$(CURDIR)/scripts/apply-series.sh $(KSRC) $(PATCHES) $(SERIES) $@
	@echo '$(TREE_ID)' > $@

tree: $(STAMP_TREE)
