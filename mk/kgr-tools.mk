# SPDX-License-Identifier: GPL-2.0
#
# The RFC's kGraft tools (tools/kgraft), built from Debian packages and
# checked, and the RFC's chain end to end: from a changed function to a
# patch module that the guest loads.  "make help-kgr-tools" describes them.

# A variant of the main kernel (demo fix
# tools/kgraft-e2e/demo-meminfo-memused.patch, -ffunction-sections
# -fdata-sections, DWARF 5) gives vmlinux.o; create-kgrmodule.sh takes the
# changed function out of it and builds kgrmodule.ko against the main
# kernel; the guest test test-kgr-tools-meminfo.sh loads it.  With
# KGR_E2E=1 (the default, set in the Makefile) "make initramfs" (so demo,
# check) builds all of it first; KGR_E2E=0 skips it and the guest test
# reports SKIP.

KGR_TOOLS	 = $(KSRC)/tools/kgraft
KGR_E2E_DIR	 = $(BUILD)/kgraft-e2e
KGR_VSRC	 = $(KGR_E2E_DIR)/linux-source-6.1
KGR_E2E_PATCH	?= $(CURDIR)/tools/kgraft-e2e/demo-meminfo-memused.patch
KGR_E2E_SYMS	?= meminfo_proc_show
KGR_E2E_KO	 = $(KGR_E2E_DIR)/kgrmodule.ko

DEB_PACKAGES	+= binutils-source libdwarf-dev time perl
# with KGR_E2E=0 a kgrmodule.ko left by an earlier build (for an older
# kernel) stays out of the guest, whose test then skips
ifeq ($(KGR_E2E),1)
GUEST_MODULES	+= $(KGR_E2E_KO)
endif

KGR_TESTS	 = $(CURDIR)/tools/kgraft-e2e/tests

.PHONY: help-kgr-tools kgr-tools kgr-tools-check kgr-variant kgr-inline-tree \
	kgr-module kgr-bad-input kgr-e2e

help-kgr-tools:
	@echo 'kGraft tools targets (the RFC'"'"'s tools/kgraft):'
	@echo '  kgr-tools        build $$(KSRC)/tools/kgraft: dwarf-inline-tree, objcopy-hacked'
	@echo '                   (from Debian binutils-source; the first build takes minutes)'
	@echo '  kgr-tools-check  the tools'"'"' make check: the RFC example (app.c) with DWARF 5'
	@echo '                   and DWARF 4, extraction, bad input; asserts every result'
	@echo '  kgr-variant      the variant kernel: demo fix, -ffunction-sections, DWARF 5,'
	@echo '                   built up to vmlinux.o in $$(KGR_E2E_DIR)'
	@echo '  kgr-inline-tree  dwarf-inline-tree on the variant vmlinux.o (time, peak memory,'
	@echo '                   checks), and DWARF 4 against DWARF 5 on a kernel object'
	@echo '  kgr-module       create-kgrmodule.sh $$(KGR_E2E_SYMS) -> $$(KGR_E2E_KO)'
	@echo '  kgr-bad-input    bad input to the tools on the kernel objects fails clearly'
	@echo '  kgr-e2e          all of the above; "make initramfs" calls it when KGR_E2E=1'
	@echo
	@echo '  KGR_E2E=$(KGR_E2E) KGR_E2E_SYMS=$(KGR_E2E_SYMS)'
	@echo '  KGR_E2E_PATCH=$(KGR_E2E_PATCH)'
	@echo '  (any source change: make kgr-module KGR_E2E_PATCH=fix.patch KGR_E2E_SYMS="f g")'
	@echo '  KGR_E2E_DIR=$(KGR_E2E_DIR)'

kgr-tools: tree
	+$(MAKE) -C $(KGR_TOOLS) dwarf-inline-tree objcopy-hacked JOBS=$(JOBS)

kgr-tools-check: kgr-tools
	@JOBS=$(JOBS) $(KGR_TESTS)/test-kgraft-tools-check.sh $(KGR_TOOLS)

kgr-variant: config
	@JOBS=$(JOBS) KARCH=$(KARCH) KGR_PATCH=$(KGR_E2E_PATCH) \
		$(CURDIR)/tools/kgraft-e2e/build-variant.sh \
		$(KGR_E2E_DIR) $(KSRC) $(TARBALL) $(PATCHES) $(SERIES)

kgr-inline-tree: kgr-tools kgr-variant
	@$(KGR_TESTS)/test-kgraft-inline-tree.sh $(KGR_VSRC) $(KGR_TOOLS) $(KGR_E2E_DIR)

kgr-module: kernel kgr-tools kgr-variant
	@$(CURDIR)/tools/kgraft-e2e/make-module.sh $(KGR_VSRC) $(KSRC) $(KGR_TOOLS) \
		$(KGR_E2E_DIR) $(KGR_E2E_SYMS)

kgr-bad-input: kernel kgr-tools kgr-variant
	@$(KGR_TESTS)/test-kgraft-bad-input.sh $(KGR_VSRC) $(KSRC) $(KGR_TOOLS)

kgr-e2e: kgr-tools-check kgr-inline-tree kgr-module kgr-bad-input
