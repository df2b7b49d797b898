# SPDX-License-Identifier: GPL-2.0
#
# The build: "make kernel" builds bzImage and the modules in $(KSRC),
# "make testmods" the kGraft test modules out of tree, and "make initramfs"
# (or "make images") the guest's initramfs with all it carries.

.PHONY: kernel testmods initramfs images

kernel: config
	$(KMAKE) -j$(JOBS) modules_prepare
	$(KMAKE) -j$(JOBS) bzImage modules
	@echo 'kernel: $(BZIMAGE)'

# The kGraft test modules (samples/kgr-test/), built out of tree.
testmods: kernel
	$(CURDIR)/samples/kgr-test/build.sh $(KSRC) $(TESTMOD_DIR)

# All that the initramfs carries is built first, in this order: the
# kernel and its sample, the test modules, the RFC tools' end-to-end module
# (KGR_E2E=1, mk/kgr-tools.mk), the patch modules of the fixes (KGR_FIXES=1,
# mk/kgr-fix.mk) and the benchmark modules (mk/bench.mk).  GUEST_MODULES,
# which those files extend, names the files that go in.
initramfs: kernel testmods $(if $(filter 1,$(KGR_E2E)),kgr-e2e) \
	   $(if $(filter 1,$(KGR_FIXES)),kgr-fixes) benchmods
	@MODULES='$(GUEST_MODULES)' HOST_PROGRAMS='$(GUEST_PROGRAMS)' \
		$(CURDIR)/scripts/mkinitramfs.sh \
		$(INITRAMFS) $(BUILD)/initramfs

images: initramfs
