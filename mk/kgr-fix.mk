# SPDX-License-Identifier: GPL-2.0
#
# Patch modules from a source patch alone: "make kgr-fix FIX=fix.patch"
# builds one for the kernel QEMU boots, "make kgr-fixes" one for every fix
# of $(KGR_FIX_DIR).  "make help-kgr-fix" describes the targets.

# "make kgr-src" prepares $(KGR_SRC), the tree with the series and the
# kernel's .config in which kgr-fix.sh compiles, on demand, the objects a
# fix touches, with -ffunction-sections -fdata-sections, without and with
# the fix; "make kgr-fix FIX=fix.patch" compares them (kgr-diff.py) and
# builds $(KGR_FIX_OUT)/NAME/kgr_fix_NAME.ko for $(KSRC), the kernel QEMU
# boots.

KGR_SRC_DIR	 = $(BUILD)/kgr-src
KGR_SRC		 = $(KGR_SRC_DIR)/linux-source-6.1
KGR_FIX_OUT	 = $(BUILD)/kgr-fixes
KGR_FIX_DIR	?= $(CURDIR)/tools/kgraft-e2e/fixes
FIX		?=
KGR_FIX_FILES	 = $(KGR_FIX_OUT)/*/kgr_fix_*.ko $(KGR_FIX_OUT)/kgr-fixes.list \
		   $(KSRC)/fs/binfmt_misc.ko

DEB_PACKAGES	+= patch

# KGR_FIXES=1 (the default, set in the Makefile): "make initramfs" (so
# check) builds every fix of $(KGR_FIX_DIR) first ("make kgr-fixes"), and
# the guest test test-kgr-fixes.sh loads each module; 0 skips them (the
# test reports SKIP)
ifeq ($(KGR_FIXES),1)
GUEST_MODULES	+= $(KGR_FIX_FILES)
endif

.PHONY: help-kgr-fix kgr-src kgr-fix kgr-fixes

help-kgr-fix:
	@echo 'Patch modules from a source patch alone:'
	@echo '  kgr-fix FIX=f.patch  f.patch (against linux-source-6.1, -p1) -> a kGraft'
	@echo '                     module for the kernel QEMU boots, or a refusal that says why:'
	@echo '                     $$(KGR_FIX_OUT)/NAME/kgr_fix_NAME.ko, report.txt, work/'
	@echo '  kgr-fixes          every fix of $$(KGR_FIX_DIR), as each says (Kgr-* lines);'
	@echo '                     "make initramfs" calls it when KGR_FIXES=1'
	@echo '  kgr-src            prepare $$(KGR_SRC), where the objects are compiled'
	@echo
	@echo '  KGR_FIXES=$(KGR_FIXES) KGR_FIX_DIR=$(KGR_FIX_DIR)'
	@echo '  KGR_FIX_OUT=$(KGR_FIX_OUT) KGR_SRC=$(KGR_SRC)'

kgr-src: kernel
	@JOBS=$(JOBS) KARCH=$(KARCH) $(CURDIR)/tools/kgraft-e2e/prepare-src.sh \
		$(KGR_SRC_DIR) $(KSRC) $(TARBALL) $(PATCHES) $(SERIES)

# every fix of $(KGR_FIX_DIR): built, or refused as its Kgr-Refused line says
kgr-fixes: kgr-src
	@JOBS=$(JOBS) KARCH=$(KARCH) $(CURDIR)/tools/kgraft-e2e/run-fixes.sh $(KGR_FIX_DIR) \
		$(KSRC) $(KGR_SRC) $(KGR_FIX_OUT)

kgr-fix: kgr-src
	@test -n "$(FIX)" || { echo 'usage: make kgr-fix FIX=path/to/fix.patch' >&2; exit 2; }
	@JOBS=$(JOBS) KARCH=$(KARCH) $(CURDIR)/tools/kgraft-e2e/kgr-fix.sh $(FIX) $(KSRC) \
		$(KGR_SRC) $(KGR_FIX_OUT)/$(basename $(notdir $(FIX)))
