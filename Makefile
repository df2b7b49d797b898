# SPDX-License-Identifier: GPL-2.0
#
# kGraft (RFC, 2014-04-30) ported to Debian 12's Linux 6.1 as a quilt
# series: unpack the tree, apply the series, configure, build, and boot the
# result in QEMU with a small test initramfs.  "make help" lists the targets.
#
# Everything generated lives under $(BUILD); the repository itself is only
# read (the kernel tree gets symlinks to patches/ and series).
#
# The targets live in mk/*.mk, one file a section (the tree, the
# configuration, the build, running, cleaning, then the review, the RFC
# tools, patch modules from a source patch, the benchmark and the Debian
# guests), read in that order at the end; this file holds what they share.

BUILD		?= $(CURDIR)/build
KSRC		 = $(BUILD)/linux-source-6.1
TARBALL		?= /usr/src/linux-source-6.1.tar.xz

KARCH		?= x86_64
JOBS		?= $(shell nproc)
CONFIG_FRAGMENTS ?=
# The configuration starts from BASE_CONFIG: "tinyconfig", or a Debian
# config file (.xz), whose modules "make mod2noconfig" turns off; then
# KGR_FRAGMENT and CONFIG_FRAGMENTS are merged on top ("make check-debian"
# uses Debian's config with configs/debian.config).
BASE_CONFIG	?= tinyconfig
KGR_FRAGMENT	?= $(CURDIR)/configs/kgr.config
FRAGMENTS	 = $(abspath $(KGR_FRAGMENT)) $(abspath $(CONFIG_FRAGMENTS))

PATCHES		?= $(CURDIR)/patches
SERIES		?= $(CURDIR)/series

TESTMOD_DIR	 = $(BUILD)/kgr-test
# the glob is expanded by mkinitramfs.sh, after the test modules are built
GUEST_MODULES	?= $(KSRC)/samples/kgr/kgr_patcher.ko $(TESTMOD_DIR)/*.ko
# Debian programs copied into the initramfs with their shared libraries
GUEST_PROGRAMS	?= /usr/bin/stress-ng

# The optional parts of the initramfs, 1 (the default) or 0: the RFC
# tools' end-to-end module (KGR_E2E, mk/kgr-tools.mk) and the patch modules
# of every fix of $(KGR_FIX_DIR) (KGR_FIXES, mk/kgr-fix.mk).  With 0 a part
# is neither built nor put into the guest, whose test of it reports SKIP.
# mk/build.mk reads them in the prerequisites of initramfs.
KGR_E2E		?= 1
KGR_FIXES	?= 1

QEMU_ACCEL	?= tcg,thread=single
QEMU_TIMEOUT	?= 1200
QEMU_SMP	?= 2
QEMU_MEM	?= 512M
KAPPEND		?=
LOG_NAME	?= console

LOGDIR		 = $(BUILD)/logs
LOG		 = $(LOGDIR)/$(LOG_NAME).log
BZIMAGE		 = $(KSRC)/arch/x86/boot/bzImage
INITRAMFS	 = $(BUILD)/initramfs.cpio.gz

STAMP_UNPACK	 = $(BUILD)/.stamp-unpack
STAMP_TREE	 = $(BUILD)/.stamp-tree
STAMP_CONFIG	 = $(BUILD)/.stamp-config

DEB_PACKAGES	 = linux-source-6.1 gcc binutils make flex bison bc libelf-dev \
		   libssl-dev quilt qemu-system-x86 busybox-static cpio kmod \
		   xz-utils python3 dwarves sparse stress-ng

# The kernel's make gets ARCH and V explicitly; do not hand it our own
# command-line variables (BUILD=, LOG_NAME=, ...) through MAKEFLAGS.
MAKEOVERRIDES	:=
KMAKE		 = $(MAKE) -C $(KSRC) ARCH=$(KARCH) $(if $(V),V=$(V))

QEMU_RUN	 = $(CURDIR)/scripts/qemu-run.sh --kernel $(BZIMAGE) \
		   --initrd $(INITRAMFS) --accel $(QEMU_ACCEL) \
		   --smp $(QEMU_SMP) --mem $(QEMU_MEM)

SERIES_PATCHES	 = $(wildcard $(SERIES) $(PATCHES)/*.patch)

# Targets below depend on each other in a fixed order; "make deps demo"
# must run deps first even under -j.  The kernel build itself is parallel.
.NOTPARALLEL:
.DEFAULT_GOAL := help

# A prerequisite that is always out of date: a target lists it when what
# the target records (a stamp's series, a root filesystem's packages) no
# longer holds, so that its recipe runs again.
.PHONY: .FORCE
.FORCE:

.PHONY: help deps

help:
	@echo 'kGraft on Linux 6.1: build and boot in QEMU'
	@echo
	@echo '  deps       install the Debian packages needed (root; no-op if present)'
	@echo '  tree       unpack $(TARBALL) into $$(BUILD) and quilt push the series'
	@echo '  config     tinyconfig + configs/kgr.config (+ $$(CONFIG_FRAGMENTS)), checked'
	@echo '  kernel     build bzImage and modules'
	@echo '  testmods   build the kGraft test modules (samples/kgr-test/) out of tree'
	@echo '  initramfs  build $$(BUILD)/initramfs.cpio.gz (busybox, /init, tests, modules)'
	@echo '  boot       boot the current bzImage + initramfs, no rebuild'
	@echo '  demo, run  tree -> config -> kernel -> initramfs -> boot, running the RFC'"'"'s'
	@echo '             sample only (DEMO_TESTS=$(DEMO_TESTS)); the main job'
	@echo '  check-host the host tests (scripts/tests/: log judge, TAP runner, lint, bench report)'
	@echo '  check      check-host, then like demo, judging the console log (exit status = verdict)'
	@echo '  check-debug  check on a lockdep/KASAN/kmemleak/DEBUG_LIST kernel ($$(BUILD)/debug)'
	@echo '  check-preempt  check on a fully preemptible kernel (CONFIG_PREEMPT, $$(BUILD)/preempt)'
	@echo '  check-many     the consistency scenarios with patches of 1025 functions (kgr.many=1)'
	@echo '  red-runs       take each fix of ours back in turn, boot its test'
	@echo '                 (must fail); RED_KERNEL=preempt|normal, RED_CASES=...'
	@echo '  shell      like demo, but the guest gives an interactive shell (Ctrl-A x quits)'
	@echo '  clean      remove the initramfs and logs'
	@echo '  distclean  remove $$(BUILD) entirely'
	@echo
	@echo 'Variables (current value):'
	@echo '  BUILD=$(BUILD)'
	@echo '  SERIES=$(SERIES) PATCHES=$(PATCHES)'
	@echo '  CONFIG_FRAGMENTS=$(CONFIG_FRAGMENTS)'
	@echo '  GUEST_MODULES=$(GUEST_MODULES)'
	@echo '  GUEST_PROGRAMS=$(GUEST_PROGRAMS)'
	@echo '  QEMU_ACCEL=$(QEMU_ACCEL) QEMU_TIMEOUT=$(QEMU_TIMEOUT) QEMU_SMP=$(QEMU_SMP) QEMU_MEM=$(QEMU_MEM)'
	@echo '  KAPPEND=$(KAPPEND)'
	@echo '  LOG_NAME=$(LOG_NAME) -> $(LOG)'
	@echo '  JOBS=$(JOBS) V=$(V)'
	@echo
	@echo 'Guest knobs for KAPPEND: kgr.tests=GLOB (run only matching tests),'
	@echo 'kgr.timeout=SECS (default per-test timeout, 300).  TREE_FORCE=1 lets'
	@echo '"make tree" drop changes not refreshed into the top patch.'
	@echo
	@echo 'More targets: "make help-review" (lint, refresh, bisect, compare-rfc,'
	@echo 'sparse: reviewing the series), "make help-kgr-tools" (the RFC tools),'
	@echo '"make help-bench" (bench: kGraft against livepatch, a table and a plot),'
	@echo '"make help-debian" (check-debian: Debian'"'"'s kernel config, a systemd guest),'
	@echo '"make help-debian-pg" (bench-debian-pg: PostgreSQL under transitions),'
	@echo '"make help-kgr-fix" (a patch module from a source patch alone),'
	@echo '"make help-kgr-deb" (Debian packages of the tool and of patches).'

deps:
	@$(CURDIR)/scripts/install-deps.sh $(DEB_PACKAGES)

include mk/tree.mk
include mk/config.mk
include mk/build.mk
include mk/run.mk
include mk/clean.mk
include mk/review.mk
include mk/kgr-tools.mk
include mk/kgr-fix.mk
include mk/kgr-deb.mk
include mk/bench.mk
include mk/debian.mk
include mk/debian-pg.mk
include mk/debian-bpf.mk
