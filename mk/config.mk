# SPDX-License-Identifier: GPL-2.0
#
# The configuration: "make config" makes $(KSRC)/.config from BASE_CONFIG
# with KGR_FRAGMENT and CONFIG_FRAGMENTS merged on top, and checks that
# every option of the fragments came out as asked.

.PHONY: config

# A missing .config forces a rerun even when the stamp looks fresh.
$(STAMP_CONFIG): $(STAMP_TREE) $(FRAGMENTS) scripts/check-config.sh \
		 $(filter-out tinyconfig,$(BASE_CONFIG)) \
		 $(if $(wildcard $(KSRC)/.config),,.FORCE)
ifeq ($(BASE_CONFIG),tinyconfig)
	$(KMAKE) tinyconfig
else
	xz -dc $(BASE_CONFIG) > $(KSRC)/.config
	$(KMAKE) mod2noconfig
endif
	cd $(KSRC) && ARCH=$(KARCH) scripts/kconfig/merge_config.sh -m .config $(FRAGMENTS)
	$(KMAKE) olddefconfig
	$(CURDIR)/scripts/check-config.sh $(KSRC)/.config $(FRAGMENTS)
	@touch $@

config: $(STAMP_CONFIG)
