# SPDX-License-Identifier: GPL-2.0
#
# Debian packages of kGraft for an administrator (tools/kgr/mkdeb.sh):
# the tool, and a patch package per cumulative fix.  "make help-kgr-deb"
# describes the targets.

KGR_DEB_OUT	 = $(BUILD)/debs
KGR_TOOLS_VERSION ?= 1.0
KGR_TOOLS_DEB	 = $(KGR_DEB_OUT)/kgraft-tools_$(KGR_TOOLS_VERSION)_all.deb
KGR_DEB_WORK	 = $(BUILD)/kgr-debs
KGR_DEMO_DIR	 = $(CURDIR)/tools/kgr/demo
# the version of linux-image-RELEASE a patch package depends on exactly;
# empty: no dependency on a kernel package (the guests boot a bzImage)
KGR_KERNEL_VERSION ?=

DEB_PACKAGES	+= dpkg

.PHONY: help-kgr-deb kgr-tools-deb kgr-deb kgr-deb-demo

help-kgr-deb:
	@echo 'Debian packages (in $$(KGR_DEB_OUT)):'
	@echo '  kgr-tools-deb      kgraft-tools: kgr, kgr(8), kgr.service'
	@echo '  kgr-deb FIX=f.patch  a patch package kgraft-patch-RELEASE for the kernel'
	@echo '                     QEMU boots: kgr-fix.sh with KGR_REPLACE_ALL=1 (cumulative),'
	@echo '                     the module signed with the kernel'"'"'s key; version: the'
	@echo '                     fix'"'"'s Kgr-Version'
	@echo '  kgr-deb-demo       the two demonstration patch packages of tools/kgr/demo/'
	@echo
	@echo '  KGR_TOOLS_VERSION=$(KGR_TOOLS_VERSION) KGR_KERNEL_VERSION=$(KGR_KERNEL_VERSION)'

kgr-tools-deb:
	@$(CURDIR)/tools/kgr/mkdeb.sh tools $(KGR_DEB_OUT) $(KGR_TOOLS_VERSION)

# $(call kgr_deb,FIX): the patch package of FIX
define kgr_deb
	@rel=$$(cat $(KSRC)/include/config/kernel.release); \
	out=$(KGR_DEB_WORK)/$(basename $(notdir $(1))); \
	rm -f $$out/*.ko; \
	KGR_REPLACE_ALL=1 KGR_PACKAGE=kgraft-patch-$$(echo $$rel | tr 'A-Z_' 'a-z-') \
	JOBS=$(JOBS) KARCH=$(KARCH) $(CURDIR)/tools/kgraft-e2e/kgr-fix.sh $(1) $(KSRC) \
		$(KGR_SRC) $$out && \
	$(CURDIR)/scripts/sign-modules.sh $(KSRC) $$out/*.ko && \
	$(CURDIR)/tools/kgr/mkdeb.sh patch $$out/*.ko $(KGR_DEB_OUT) $(KGR_KERNEL_VERSION)
endef

kgr-deb: kgr-src
	@test -n "$(FIX)" || { echo 'usage: make kgr-deb FIX=path/to/fix.patch' >&2; exit 2; }
	$(call kgr_deb,$(FIX))

kgr-deb-demo: kgr-src
	@rm -f $(KGR_DEB_OUT)/kgraft-patch-*.deb
	$(call kgr_deb,$(KGR_DEMO_DIR)/demo-1.patch)
	$(call kgr_deb,$(KGR_DEMO_DIR)/demo-2.patch)
