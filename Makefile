# SPDX-License-Identifier: GPL-2.0
#
# kGraft (RFC, 2014-04-30) ported to Debian 12's Linux 6.1 as a quilt
# series: unpack the tree, apply the series, configure, build, and boot the
# result in QEMU with a small test initramfs.  "make help" lists the targets.
#
# Everything generated lives under $(BUILD); the repository itself is only
# read (the kernel tree gets symlinks to patches/ and series).

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

.PHONY: help deps tree config kernel testmods initramfs images boot demo run check check-debug check-preempt red-runs \
	shell clean distclean

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
	@echo '  check      like demo, then judge the console log (exit status = verdict)'
	@echo '  check-debug  check on a lockdep/KASAN/kmemleak/DEBUG_LIST kernel ($$(BUILD)/debug)'
	@echo '  check-preempt  check on a fully preemptible kernel (CONFIG_PREEMPT, $$(BUILD)/preempt)'
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
	@echo '"make help-kgr-fix" (a patch module from a source patch alone).'

deps:
	@$(CURDIR)/scripts/install-deps.sh $(DEB_PACKAGES)

# --- the tree ---------------------------------------------------------------

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

# --- configuration ----------------------------------------------------------

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

# --- build ------------------------------------------------------------------

kernel: config
	$(KMAKE) -j$(JOBS) modules_prepare
	$(KMAKE) -j$(JOBS) bzImage modules
	@echo 'kernel: $(BZIMAGE)'

# The kGraft test modules (samples/kgr-test/), built out of tree.
testmods: kernel
	$(CURDIR)/samples/kgr-test/build.sh $(KSRC) $(TESTMOD_DIR)

initramfs: kernel testmods
	@MODULES='$(GUEST_MODULES)' HOST_PROGRAMS='$(GUEST_PROGRAMS)' \
		$(CURDIR)/scripts/mkinitramfs.sh \
		$(INITRAMFS) $(BUILD)/initramfs

images: initramfs

# --- running ----------------------------------------------------------------

define boot-guest
	@test -f $(BZIMAGE) -a -f $(INITRAMFS) || \
		{ echo 'boot: no $(BZIMAGE) or $(INITRAMFS); run "make demo" first' >&2; exit 1; }
	@$(QEMU_RUN) --timeout $(QEMU_TIMEOUT) --log $(LOG) --append '$(KAPPEND)'
endef

boot:
	$(boot-guest)

# The demo boots the guest and runs the RFC's sample alone: it patches
# iopl() and capable() and finalizes, then the guest powers off.
DEMO_TESTS	?= test-kgr-sample.sh

demo run: images
	@$(QEMU_RUN) --timeout $(QEMU_TIMEOUT) --log $(LOG) \
		--append 'kgr.tests=$(DEMO_TESTS) $(KAPPEND)'

check: images
	@rc=0; \
	$(QEMU_RUN) --timeout $(QEMU_TIMEOUT) --log $(LOG) --append '$(KAPPEND)' || rc=$$?; \
	$(CURDIR)/scripts/check-log.sh $(LOG) || rc=1; \
	exit $$rc

# The whole suite on a kernel with lockdep, atomic-sleep checks, KASAN,
# kmemleak and list debugging, in its own build folder.  The RFC tools'
# end-to-end module (KGR_E2E) is built for the normal kernel only: its
# guest test skips here.
check-debug:
	$(MAKE) check BUILD=$(BUILD)/debug LOG_NAME=debug KGR_E2E=0 \
		CONFIG_FRAGMENTS=$(CURDIR)/configs/debug.config \
		QEMU_MEM=1G QEMU_TIMEOUT=3600

# The whole suite on a fully preemptible kernel (CONFIG_PREEMPT), in its
# own build folder: the consistency tests depend on preemption. The RFC
# tools' module is built for the normal kernel only.
check-preempt:
	$(MAKE) check BUILD=$(BUILD)/preempt LOG_NAME=preempt KGR_E2E=0 \
		CONFIG_FRAGMENTS=$(CURDIR)/configs/preempt.config

# The red runs of the fixes (scripts/red-runs.py): each fix taken
# back in turn in the preemptible kernel's tree (RED_KERNEL=normal: the
# normal kernel's, $(BUILD)), built, and the test that guards it booted
# alone; every one must fail. The source is put back after each run.
# RED_CASES picks some (bh fork stale safepoint idle hotplug pin symbols stub exit
# unseen rmtp uring symref symrules perfn keep kick kicksleep dops objpos
# prockmsg nopfree revdirect dshare seltimeout accept).
# RED_KERNEL=debian: the Debian-config kernel's tree, and each test booted
# alone in the Debian guest (systemd, networking, rsyslog).
RED_KERNEL	?= preempt
RED_CASES	?=
RED_BUILD	 = $(if $(filter normal,$(RED_KERNEL)),$(BUILD),$(if $(filter debian,$(RED_KERNEL)),$(DEBIAN_BUILD),$(BUILD)/preempt))
RED_MAKE	 = $(if $(filter debian,$(RED_KERNEL)),$(MAKE),$(MAKE) BUILD=$(RED_BUILD) KGR_E2E=0 \
		   $(if $(filter normal,$(RED_KERNEL)),,CONFIG_FRAGMENTS=$(CURDIR)/configs/preempt.config))

red-runs:
	$(RED_MAKE) $(if $(filter debian,$(RED_KERNEL)),debian-image,images)
	python3 $(CURDIR)/scripts/red-runs.py --ksrc $(RED_BUILD)/linux-source-6.1 \
		--stamp $(RED_BUILD)/.stamp-tree --logdir $(RED_BUILD)/logs \
		$(if $(filter debian,$(RED_KERNEL)),--debian) \
		--make '$(RED_MAKE)' $(RED_CASES)

shell: images
	@$(QEMU_RUN) --interactive --timeout 0 --log $(LOGDIR)/shell.log \
		--append 'rdinit=/init kgr.shell=1 $(KAPPEND)'

# --- cleaning ---------------------------------------------------------------

clean:
	rm -rf $(BUILD)/initramfs $(INITRAMFS) $(LOGDIR)

distclean:
	rm -rf $(BUILD)

.PHONY: .FORCE
.FORCE:

# ============================================================================
# Review of the series: lint, refresh, bisect, compare-rfc, sparse.
# lint, refresh and bisect work in their own scratch trees under $(BUILD)
# (lint/, bisect/), never in $(KSRC); sparse checks $(KSRC) after "make
# kernel" without changing it.  "make help-review" describes them.
# ============================================================================

SEEDS		?= $(CURDIR)/../shared/seeds
CHECKPATCH_KEPT	?= $(CURDIR)/scripts/checkpatch-kept
LINT_DIR	 = $(BUILD)/lint

BISECT_DIR	 = $(BUILD)/bisect
BISECT_FROM	?=

COMPARE_ARGS	?=

.PHONY: help-review lint refresh bisect compare-rfc sparse

help-review:
	@echo 'Review targets (lint, refresh, bisect: own scratch trees under $$(BUILD)):'
	@echo '  lint         series, headers, format, checkpatch --strict against'
	@echo '               scripts/checkpatch-kept, canonical diff format'
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

# ============================================================================
# kGraft tools: tools/kgraft built from Debian packages and
# checked, and the RFC's chain end to end.  A variant of the main kernel
# (demo fix tools/kgraft-e2e/demo-meminfo-memused.patch, -ffunction-sections
# -fdata-sections, DWARF 5) gives vmlinux.o; create-kgrmodule.sh takes the
# changed function out of it and builds kgrmodule.ko against the main
# kernel; the guest test test-kgr-tools-meminfo.sh loads it.  With
# KGR_E2E=1 (the default) "make initramfs" (so demo, check) builds all of
# it first; KGR_E2E=0 skips it and the guest test reports SKIP.
# "make help-kgr-tools" describes the targets.
# ============================================================================

KGR_E2E		?= 1
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

ifeq ($(KGR_E2E),1)
initramfs: kgr-e2e
endif

# ============================================================================
# Patch modules from a source patch alone.  "make kgr-src"
# prepares $(KGR_SRC), the tree with the series and the kernel's .config
# in which kgr-fix.sh compiles, on demand, the objects a fix touches,
# with -ffunction-sections -fdata-sections, without and with the fix;
# "make kgr-fix FIX=fix.patch" compares them (kgr-diff.py) and builds
# $(KGR_FIX_OUT)/NAME/kgr_fix_NAME.ko for $(KSRC), the kernel QEMU boots.
# ============================================================================

KGR_SRC_DIR	 = $(BUILD)/kgr-src
KGR_SRC		 = $(KGR_SRC_DIR)/linux-source-6.1
KGR_FIX_OUT	 = $(BUILD)/kgr-fixes
KGR_FIX_DIR	?= $(CURDIR)/tools/kgraft-e2e/fixes
FIX		?=
# KGR_FIXES=1 (the default): "make initramfs" (so check) builds every fix
# of $(KGR_FIX_DIR) first ("make kgr-fixes"), and the guest test
# test-kgr-fixes.sh loads each module; 0 skips them (the test reports SKIP)
KGR_FIXES	?= 1
KGR_FIX_FILES	 = $(KGR_FIX_OUT)/*/kgr_fix_*.ko $(KGR_FIX_OUT)/kgr-fixes.list \
		   $(KSRC)/fs/binfmt_misc.ko

DEB_PACKAGES	+= patch

ifeq ($(KGR_FIXES),1)
GUEST_MODULES	+= $(KGR_FIX_FILES)
initramfs: kgr-fixes
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

# ============================================================================
# Benchmark: kGraft against upstream livepatch on one kernel
# (CONFIG_KGR=y, CONFIG_LIVEPATCH=y).  samples/kgr-bench/ has the target
# module and the patch modules for both; the guest side is
# initramfs/tests/test-kgr-bench.sh with its helper initramfs/src/kgr-bench.c.
# "make bench" boots the guest $(BENCH_ICOUNT_RUNS) times under
# "-icount shift=0,sleep=off" for the per-call figures (deterministic), once
# without for the transitions (wall time), and prints one markdown table;
# $(BENCH_DIR) gets the table, the samples and a PNG plot of the threads
# still in the old universe during a transition under load.  It prints
# figures and never fails because a machine is slow.  "make check" runs the
# same test as a short smoke run that asserts the figures make sense.
# ============================================================================

BENCHMOD_DIR	 = $(BUILD)/kgr-bench
BENCH_DIR	 = $(BUILD)/bench
BENCH_ICOUNT_RUNS ?= 2
BENCH_LOOPS	?= 200000
BENCH_REPS	?= 5
BENCH_BUSY	?= 4
BENCH_SLEEPERS	?= 8
BENCH_SLEEP_MS	?= 2000
# tasks of each of the 7 kinds of daemon asleep in the kernel for good
# (poll, epoll_wait, read, futex, select, pause, wait4: 8 tasks a unit)
BENCH_DAEMONS	?= 2
BENCH_TIMEOUT	?= 3600
# QEMU 7.2 under -icount does not bring up this kernel's second vCPU (it
# hangs in "Booting SMP configuration"), so the icount boots have one CPU.
# The RTC follows the virtual clock from a fixed date: a boot that reads
# the host's clock differs in the last ns of an otherwise identical run.
BENCH_ICOUNT_SMP ?= 1
BENCH_ICOUNT_ARGS = --smp $(BENCH_ICOUNT_SMP) \
		   --qemu-arg -icount --qemu-arg shift=0,sleep=off \
		   --qemu-arg -rtc --qemu-arg base=2024-01-01T00:00:00,clock=vm

DEB_PACKAGES	+= gnuplot-nox
GUEST_MODULES	+= $(BENCHMOD_DIR)/*.ko

BENCH_KAPPEND	 = kgr.tests=test-kgr-bench.sh kgr.timeout=$(BENCH_TIMEOUT) \
		   kgr.bench.loops=$(BENCH_LOOPS) kgr.bench.reps=$(BENCH_REPS) \
		   kgr.bench.busy=$(BENCH_BUSY) kgr.bench.sleepers=$(BENCH_SLEEPERS) \
		   kgr.bench.sleep_ms=$(BENCH_SLEEP_MS) kgr.bench.daemons=$(BENCH_DAEMONS)

.PHONY: help-bench benchmods bench

help-bench:
	@echo 'Benchmark targets:'
	@echo '  benchmods  build the benchmark modules (samples/kgr-bench/) out of tree'
	@echo '  bench      per-call cost, transition time and memory of kGraft and'
	@echo '             livepatch: $(BENCH_ICOUNT_RUNS) boots under -icount (per call, deterministic)'
	@echo '             and one without (transitions, wall time); prints one markdown'
	@echo '             table, writes it and a PNG plot to $$(BENCH_DIR)'
	@echo
	@echo '  BENCH_DIR=$(BENCH_DIR)'
	@echo '  BENCH_ICOUNT_RUNS=$(BENCH_ICOUNT_RUNS) BENCH_LOOPS=$(BENCH_LOOPS) BENCH_REPS=$(BENCH_REPS) (1..5)'
	@echo '  BENCH_BUSY=$(BENCH_BUSY) BENCH_SLEEPERS=$(BENCH_SLEEPERS) BENCH_SLEEP_MS=$(BENCH_SLEEP_MS)'
	@echo '  BENCH_DAEMONS=$(BENCH_DAEMONS) (of each of 7 kinds asleep in the kernel: poll, epoll_wait,'
	@echo '    read, futex, select, pause, wait4)'
	@echo '  BENCH_TIMEOUT=$(BENCH_TIMEOUT) (seconds per boot) BENCH_ICOUNT_SMP=$(BENCH_ICOUNT_SMP)'

benchmods: kernel
	$(CURDIR)/samples/kgr-bench/build.sh $(KSRC) $(BENCHMOD_DIR)

initramfs: benchmods

bench: images
	@mkdir -p $(BENCH_DIR)
	@start=$$(date +%s); \
	for i in $$(seq 1 $(BENCH_ICOUNT_RUNS)); do \
		echo "bench: icount boot $$i of $(BENCH_ICOUNT_RUNS) (per call), log $(LOGDIR)/bench-icount-$$i.log"; \
		$(QEMU_RUN) --timeout $(BENCH_TIMEOUT) --log $(LOGDIR)/bench-icount-$$i.log \
			$(BENCH_ICOUNT_ARGS) \
			--append '$(BENCH_KAPPEND) kgr.bench=percall' > /dev/null || \
			echo "bench: icount boot $$i: qemu-run exit status $$?"; \
	done; \
	echo "bench: wall-time boot (transitions), log $(LOGDIR)/bench-wall.log"; \
	$(QEMU_RUN) --timeout $(BENCH_TIMEOUT) --log $(LOGDIR)/bench-wall.log \
		--append '$(BENCH_KAPPEND) kgr.bench=full' > /dev/null || \
		echo "bench: wall-time boot: qemu-run exit status $$?"; \
	echo "bench: boots took $$(( $$(date +%s) - start )) s"; echo; \
	python3 $(CURDIR)/scripts/bench-report.py --out $(BENCH_DIR) \
		$(foreach i,$(shell seq 1 $(BENCH_ICOUNT_RUNS)),--icount $(LOGDIR)/bench-icount-$(i).log) \
		--wall $(LOGDIR)/bench-wall.log

# ============================================================================
# The Debian guest: a second kernel built from
# Debian's own configuration (package linux-config-6.1, flavour
# $(DEBIAN_FLAVOUR); its modules off, what QEMU needs built in, kGraft on:
# configs/debian.config) in its own folder $(DEBIAN_BUILD), and a Debian 12
# root filesystem made by mmdebstrap with systemd as PID 1 and ordinary
# daemons (sshd, cron, rsyslog, dbus).  kgr-tests.service runs
# kgr-run-tests there once the system is up, with its TAP on ttyS0, then
# powers the guest off; the host judges the log as "make check" does, and
# also wants no failed systemd unit.  "make help-debian" describes it.
# ============================================================================

# cloud-amd64: Debian's amd64 configuration for virtual machines (virtio,
# KVM and Xen guest support, no bare-metal drivers), which is what a QEMU
# guest is; it also builds in a fraction of the time of "amd64".
DEBIAN_FLAVOUR	?= cloud-amd64
DEBIAN_CONFIG	?= /usr/src/linux-config-6.1/config.amd64_none_$(DEBIAN_FLAVOUR).xz
DEBIAN_BUILD	?= $(BUILD)/debian
DEBIAN_KSRC	 = $(DEBIAN_BUILD)/linux-source-6.1
DEBIAN_BZIMAGE	 = $(DEBIAN_KSRC)/arch/x86/boot/bzImage

DEB_PACKAGES	+= linux-config-6.1 mmdebstrap e2fsprogs

# The sub-make that builds in $(DEBIAN_BUILD).  The tools' end-to-end
# module is built for the tinyconfig kernel only (its guest test skips).
# DEBIAN_MAKEFLAGS: options for it that make does not pass down itself
# (red-runs gives it "-o" the tree's stamp, so that an edit stays).
DEBIAN_MAKE	 = $(MAKE) $(DEBIAN_MAKEFLAGS) BUILD=$(DEBIAN_BUILD) BASE_CONFIG=$(DEBIAN_CONFIG) \
		   KGR_FRAGMENT=$(CURDIR)/configs/debian.config KGR_E2E=0

# The guest: Debian 12 from mmdebstrap (cached as $(DEBIAN_ROOTFS), made
# again only when the package list changes), plus the tests, the test
# modules built against the Debian-config kernel, the helpers and the
# unit (scripts/mkdebian-image.sh, a few seconds: every run boots a fresh
# image).
DEBIAN_SUITE	?= bookworm
DEBIAN_GUEST_PACKAGES ?= systemd-sysv udev dbus openssh-server cron rsyslog \
		   stress-ng kmod procps iproute2 less
DEBIAN_ROOTFS	 = $(DEBIAN_BUILD)/rootfs.tar
DEBIAN_SPACE	:= $(subst ,, )
DEBIAN_COMMA	:= ,
DEBIAN_PKGLIST	 = $(DEBIAN_BUILD)/rootfs.packages
DEBIAN_IMAGE	 = $(DEBIAN_BUILD)/debian.img
DEBIAN_IMAGE_SIZE ?= 2G
DEBIAN_MODULES	 = $(DEBIAN_KSRC)/samples/kgr/kgr_patcher.ko \
		   $(DEBIAN_BUILD)/kgr-test/*.ko $(DEBIAN_BUILD)/kgr-bench/*.ko \
		   $(if $(filter 1,$(KGR_FIXES)),$(DEBIAN_BUILD)/kgr-fixes/*/kgr_fix_*.ko \
		   $(DEBIAN_BUILD)/kgr-fixes/kgr-fixes.list $(DEBIAN_KSRC)/fs/binfmt_misc.ko)

DEBIAN_MEM	?= 1G
DEBIAN_TIMEOUT	?= 3600
DEBIAN_LOG	 = $(LOGDIR)/debian.log
DEBIAN_KAPPEND	 = root=/dev/vda rw rootfstype=ext4 $(KAPPEND)
DEBIAN_QEMU_RUN	 = $(CURDIR)/scripts/qemu-run.sh --kernel $(DEBIAN_BZIMAGE) \
		   --drive $(DEBIAN_IMAGE) --accel $(QEMU_ACCEL) \
		   --smp $(QEMU_SMP) --mem $(DEBIAN_MEM)

.PHONY: help-debian debian-config debian-kernel debian-rootfs debian-image \
	debian-boot check-debian debian-shell bench-debian

help-debian:
	@echo 'The Debian guest: Debian'"'"'s kernel config, a systemd guest'
	@echo '  debian-config  Debian'"'"'s $(DEBIAN_FLAVOUR) config, modules off, + configs/debian.config,'
	@echo '                 checked (KASLR, PREEMPT_DYNAMIC, cgroups, io_uring, IA32, retpolines)'
	@echo '  debian-kernel  build it and the test/benchmark modules in $$(DEBIAN_BUILD)'
	@echo '  debian-rootfs  Debian $(DEBIAN_SUITE) by mmdebstrap (root), cached as $$(DEBIAN_ROOTFS)'
	@echo '  debian-image   $$(DEBIAN_IMAGE): the rootfs + tests, modules, helpers,'
	@echo '                 kgr-tests.service (mke2fs -d, no loop mount)'
	@echo '  check-debian   all of the above, boot (systemd as PID 1, sshd, cron, rsyslog,'
	@echo '                 dbus), run the suite from kgr-tests.service, power off, judge'
	@echo '                 the log and the failed units (exit status = verdict)'
	@echo '  bench-debian   "make bench" on the Debian-config kernel (retpolines, return'
	@echo '                 thunks, PREEMPT_DYNAMIC) with the busybox initramfs; table'
	@echo '                 and logs in $$(DEBIAN_BUILD)/bench and $$(DEBIAN_BUILD)/logs'
	@echo '  check-debian-bpf  the same with BTF (configs/bpf.config) and bpftrace, in'
	@echo '                 $$(BPF_BUILD): test-kgr-bpf.sh and test-kgr-direct-share.sh'
	@echo '                 (log: $$(BPF_LOG); about twice the build time)'
	@echo '  debian-boot    boot the current kernel and image, no rebuild, no verdict'
	@echo '  debian-shell   boot it with kgr.shell=1: root logged in on ttyS0, no tests'
	@echo '                 (run kgr-run-tests by hand; "poweroff" or Ctrl-A x quits)'
	@echo
	@echo '  DEBIAN_FLAVOUR=$(DEBIAN_FLAVOUR) DEBIAN_CONFIG=$(DEBIAN_CONFIG)'
	@echo '  DEBIAN_BUILD=$(DEBIAN_BUILD)'
	@echo '  DEBIAN_SUITE=$(DEBIAN_SUITE) DEBIAN_IMAGE_SIZE=$(DEBIAN_IMAGE_SIZE)'
	@echo '  DEBIAN_GUEST_PACKAGES=$(DEBIAN_GUEST_PACKAGES)'
	@echo '  DEBIAN_MEM=$(DEBIAN_MEM) DEBIAN_TIMEOUT=$(DEBIAN_TIMEOUT) KAPPEND=$(KAPPEND)'
	@echo '  log: $(DEBIAN_LOG)'

debian-config:
	$(DEBIAN_MAKE) config

debian-kernel:
	$(DEBIAN_MAKE) kernel testmods benchmods $(if $(filter 1,$(KGR_FIXES)),kgr-fixes)

# $(call debian_rootfs_changed,PACKAGES,LIST): .FORCE when the packages
# differ from those LIST says the tarball was made with
debian_rootfs_changed = $(if $(filter-out $(file <$(2)),$(1))$(filter-out $(1),$(file <$(2))),.FORCE)

# $(call debian_rootfs,PACKAGES,LIST): the recipe of a Debian root
# filesystem tarball ($@) with PACKAGES, by mmdebstrap; LIST records them
define debian_rootfs
	@mkdir -p $(@D)
	mmdebstrap --mode=root --variant=minbase \
		--include='$(subst $(DEBIAN_SPACE),$(DEBIAN_COMMA),$(strip $(1)))' \
		--dpkgopt='path-exclude=/usr/share/doc/*' \
		--dpkgopt='path-include=/usr/share/doc/*/copyright' \
		--dpkgopt='path-exclude=/usr/share/man/*' \
		--dpkgopt='path-exclude=/usr/share/locale/*' \
		$(DEBIAN_SUITE) $@.tmp.tar
	mv $@.tmp.tar $@
	@echo '$(strip $(1))' > $(2)
endef

$(DEBIAN_ROOTFS): $(call debian_rootfs_changed,$(DEBIAN_GUEST_PACKAGES),$(DEBIAN_PKGLIST))
	$(call debian_rootfs,$(DEBIAN_GUEST_PACKAGES),$(DEBIAN_PKGLIST))

debian-rootfs: $(DEBIAN_ROOTFS)

debian-image: debian-kernel $(DEBIAN_ROOTFS)
	@MODULES='$(DEBIAN_MODULES)' IMAGE_SIZE=$(DEBIAN_IMAGE_SIZE) \
		$(CURDIR)/scripts/mkdebian-image.sh $(DEBIAN_ROOTFS) \
		$(DEBIAN_BUILD)/rootfs $(DEBIAN_IMAGE) $(DEBIAN_KSRC)

# The benchmark on the Debian-config kernel: the same
# busybox initramfs and -icount boots as "make bench", built in
# $(DEBIAN_BUILD); the guest is not the Debian image (its daemons would
# disturb the wall-time figures).
bench-debian:
	$(DEBIAN_MAKE) bench

debian-boot:
	@$(DEBIAN_QEMU_RUN) --timeout $(DEBIAN_TIMEOUT) --log $(DEBIAN_LOG) \
		--append '$(DEBIAN_KAPPEND)'

check-debian: debian-image
	@rc=0; \
	$(DEBIAN_QEMU_RUN) --timeout $(DEBIAN_TIMEOUT) --log $(DEBIAN_LOG) \
		--append '$(DEBIAN_KAPPEND)' || rc=$$?; \
	$(CURDIR)/scripts/check-log.sh --systemd $(DEBIAN_LOG) || rc=1; \
	exit $$rc

debian-shell: debian-image
	@$(DEBIAN_QEMU_RUN) --interactive --timeout 0 --log $(LOGDIR)/debian-shell.log \
		--append '$(DEBIAN_KAPPEND) kgr.shell=1'

# ============================================================================
# PostgreSQL under kGraft transitions ("make bench-debian-pg"; not part of
# check-debian: it takes minutes of TCG).  The Debian guest with
# PostgreSQL 15 and pgbench from Debian's packages runs pgbench alone,
# then the same pgbench while kgr_pg.ko (samples/kgr-pg/: read, write,
# pread64, pwrite64, sendto, recvfrom, epoll_wait, futex, fsync and
# fdatasync, each replaced by code that behaves the same) is applied,
# reverted and removed in a loop; the host prints the figures and fails on
# a client error or a transition not finalized within the bounds.  All of
# it lives in $(PG_BUILD), with a copy of the Debian-config kernel tree
# (bzImage, headers, signing key: no object files), taken again whenever
# $(DEBIAN_BZIMAGE) is newer.  "make help-debian-pg" describes it.
# ============================================================================

PG_BUILD	?= $(BUILD)/pg
# its own folder: the copy of the kernel tree replaces $(PG_KSRC) whole
ifeq ($(abspath $(PG_BUILD)),$(abspath $(DEBIAN_BUILD)))
$(error PG_BUILD must not be DEBIAN_BUILD ($(DEBIAN_BUILD)))
endif
PG_KSRC		 = $(PG_BUILD)/linux-source-6.1
PG_BZIMAGE	 = $(PG_KSRC)/arch/x86/boot/bzImage
PG_PACKAGES	?= postgresql-15 postgresql-client-15
PG_GUEST_PACKAGES = $(strip $(DEBIAN_GUEST_PACKAGES) $(PG_PACKAGES))
PG_ROOTFS	 = $(PG_BUILD)/rootfs-pg.tar
PG_PKGLIST	 = $(PG_BUILD)/rootfs-pg.packages
PG_IMAGE	 = $(PG_BUILD)/debian-pg.img
PG_IMAGE_SIZE	?= 3G
PG_MODDIR	 = $(PG_BUILD)/kgr-pg
PG_MEM		?= $(DEBIAN_MEM)
PG_TIMEOUT	?= 1200
PG_LOG		 = $(PG_BUILD)/logs/debian-pg.log
# pgbench -i -s, -c, -j, -T (each of the two measured runs), the warm-up's
# -T, the pause after each transition, the fewest transitions that count
PG_SCALE	?= 2
PG_CLIENTS	?= 4
PG_JOBS		?= 2
PG_TIME		?= 120
PG_WARMUP	?= 10
PG_GAP_MS	?= 500
PG_MIN		?= 20
# a transition must finalize within PG_BOUND_MS of its start (the kernel's
# own figure) and within PG_WALL_BOUND_MS of the request (insmod or the
# write to revert; includes the module load and kgr_finalize())
PG_BOUND_MS	?= 5000
PG_WALL_BOUND_MS ?= 20000
PG_KAPPEND	 = $(DEBIAN_KAPPEND) kgrpg.scale=$(PG_SCALE) \
		   kgrpg.clients=$(PG_CLIENTS) kgrpg.jobs=$(PG_JOBS) \
		   kgrpg.time=$(PG_TIME) kgrpg.warmup=$(PG_WARMUP) \
		   kgrpg.gap=$(PG_GAP_MS) kgrpg.min=$(PG_MIN)

.PHONY: help-debian-pg debian-pg-kernel debian-pg-rootfs debian-pg-module \
	debian-pg-image bench-debian-pg debian-pg-report

help-debian-pg:
	@echo 'PostgreSQL under kGraft transitions, in the Debian guest (not in check-debian)'
	@echo '  debian-pg-kernel  copy the Debian-config kernel (bzImage, headers, signing'
	@echo '                    key) from $$(DEBIAN_BUILD) to $$(PG_KSRC); again when it is newer'
	@echo '  debian-pg-rootfs  Debian $(DEBIAN_SUITE) with $$(DEBIAN_GUEST_PACKAGES) and'
	@echo '                    $(PG_PACKAGES), cached as $$(PG_ROOTFS)'
	@echo '  debian-pg-module  kgr_pg.ko (samples/kgr-pg/) against $$(PG_KSRC)'
	@echo '  debian-pg-image   $$(PG_IMAGE): the Debian guest image, booting into'
	@echo '                    kgr-pg-bench.service instead of the tests'
	@echo '  bench-debian-pg   all of the above, boot: pgbench -i; a warm-up; pgbench alone;'
	@echo '                    pgbench while kgr_pg is applied/reverted/removed in a loop;'
	@echo '                    power off; print the table; exit 1 on a client error, a'
	@echo '                    transition not finalized within the bounds, fewer than'
	@echo '                    PG_MIN transitions or kernel badness (about 5 minutes)'
	@echo '  debian-pg-report  the table and verdict of the last boot again (no boot)'
	@echo
	@echo '  PG_SCALE=$(PG_SCALE) PG_CLIENTS=$(PG_CLIENTS) PG_JOBS=$(PG_JOBS) PG_TIME=$(PG_TIME) PG_WARMUP=$(PG_WARMUP)'
	@echo '  PG_GAP_MS=$(PG_GAP_MS) PG_MIN=$(PG_MIN) PG_BOUND_MS=$(PG_BOUND_MS) PG_WALL_BOUND_MS=$(PG_WALL_BOUND_MS)'
	@echo '  PG_BUILD=$(PG_BUILD) PG_MEM=$(PG_MEM) PG_TIMEOUT=$(PG_TIMEOUT)'
	@echo '  log: $(PG_LOG)'

$(PG_BZIMAGE): $(wildcard $(DEBIAN_BZIMAGE))
	@test -f $(DEBIAN_BZIMAGE) || $(MAKE) debian-kernel
	@mkdir -p $(PG_BUILD)
	rm -rf $(PG_KSRC).tmp && mkdir -p $(PG_KSRC).tmp
	tar -C $(DEBIAN_KSRC)/.. -cf - --exclude='*.o' --exclude='*.a' --exclude='*.ko' \
		--exclude='.tmp_*' $(notdir $(DEBIAN_KSRC)) | tar -C $(PG_KSRC).tmp -xf -
	rm -rf $(PG_KSRC)
	mv $(PG_KSRC).tmp/$(notdir $(DEBIAN_KSRC)) $(PG_KSRC)
	rmdir $(PG_KSRC).tmp
	@# tar keeps whole seconds: the copy must not look older than its source
	touch -r $(DEBIAN_BZIMAGE) $@

debian-pg-kernel: $(PG_BZIMAGE)

$(PG_ROOTFS): $(call debian_rootfs_changed,$(PG_GUEST_PACKAGES),$(PG_PKGLIST))
	$(call debian_rootfs,$(PG_GUEST_PACKAGES),$(PG_PKGLIST))

debian-pg-rootfs: $(PG_ROOTFS)

debian-pg-module: $(PG_BZIMAGE)
	$(CURDIR)/samples/kgr-pg/build.sh $(PG_KSRC) $(PG_MODDIR)

debian-pg-image: debian-pg-module $(PG_ROOTFS)
	@MODULES='$(PG_MODDIR)/kgr_pg.ko' IMAGE_SIZE=$(PG_IMAGE_SIZE) \
		$(CURDIR)/scripts/mkdebian-pg-image.sh $(PG_ROOTFS) \
		$(PG_BUILD)/rootfs $(PG_IMAGE) $(PG_KSRC)

bench-debian-pg: debian-pg-image
	@start=$$(date +%s); rc=0; \
	echo "bench-debian-pg: booting (console in $(PG_LOG))"; \
	$(CURDIR)/scripts/qemu-run.sh --kernel $(PG_BZIMAGE) --drive $(PG_IMAGE) \
		--accel $(QEMU_ACCEL) --smp $(QEMU_SMP) --mem $(PG_MEM) \
		--timeout $(PG_TIMEOUT) --log $(PG_LOG) \
		--append '$(PG_KAPPEND)' > /dev/null || rc=$$?; \
	echo "bench-debian-pg: the boot took $$(( $$(date +%s) - start )) s, qemu-run exit status $$rc"; \
	echo; \
	BOUND_MS=$(PG_BOUND_MS) WALL_BOUND_MS=$(PG_WALL_BOUND_MS) MIN=$(PG_MIN) \
		$(CURDIR)/scripts/pg-bench-report.sh $(PG_LOG) || rc=1; \
	exit $$rc

debian-pg-report:
	@BOUND_MS=$(PG_BOUND_MS) WALL_BOUND_MS=$(PG_WALL_BOUND_MS) MIN=$(PG_MIN) \
		$(CURDIR)/scripts/pg-bench-report.sh $(PG_LOG)

# ============================================================================
# BPF on patched functions ("make check-debian-bpf"; not part of
# check-debian: its kernel carries DWARF and BTF, which makes its build
# take about twice as long).  The Debian-config kernel with BTF
# (configs/bpf.config after configs/debian.config) in $(BPF_BUILD), and
# the Debian guest with bpftrace from Debian's packages, which runs
# test-kgr-bpf.sh (bpftrace's kfunc and kretfunc probes on a function
# kGraft calls directly) and test-kgr-direct-share.sh.
# ============================================================================

# its own folder (check-debian runs there with DEBIAN_BUILD=$(BPF_BUILD))
BPF_BUILD	?= $(BUILD)/debian-bpf
BPF_TESTS	?= test-kgr-bpf.sh,test-kgr-direct-share.sh
BPF_LOG		 = $(LOGDIR)/debian-bpf.log

# pahole, which makes the BTF
DEB_PACKAGES	+= dwarves

.PHONY: check-debian-bpf

check-debian-bpf:
	$(MAKE) check-debian DEBIAN_BUILD=$(BPF_BUILD) \
		CONFIG_FRAGMENTS=$(CURDIR)/configs/bpf.config \
		DEBIAN_GUEST_PACKAGES='$(DEBIAN_GUEST_PACKAGES) bpftrace' \
		DEBIAN_IMAGE_SIZE=3G DEBIAN_LOG=$(BPF_LOG) \
		KAPPEND='kgr.tests=$(BPF_TESTS) $(KAPPEND)'
