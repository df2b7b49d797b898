# SPDX-License-Identifier: GPL-2.0
#
# Booting the guest in QEMU: boot (no rebuild), demo or run (the RFC's
# sample), check (the host tests, then the whole suite, judged) and
# check-debug, check-preempt on other kernels, the red runs of the fixes,
# and an interactive shell.

.PHONY: boot demo run check-host check check-many check-debug check-preempt red-runs shell

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

# The host's own scripts (log judge, TAP runner, lint, bench report) on
# stored fixtures: seconds, no kernel.
check-host:
	@$(CURDIR)/scripts/host-tests.sh

check: check-host images
	@rc=0; \
	$(QEMU_RUN) --timeout $(QEMU_TIMEOUT) --log $(LOG) --append '$(KAPPEND)' || rc=$$?; \
	$(CURDIR)/scripts/check-log.sh $(LOG) || rc=1; \
	exit $$rc

# The whole suite on a kernel with lockdep, atomic-sleep checks, KASAN,
# kmemleak and list debugging, in its own build folder.  The RFC tools'
# end-to-end module (KGR_E2E) is built for the normal kernel only: its
# guest test skips here. So are the fixes (KGR_FIXES=0, test-kgr-fixes.sh
# skips): their expectations hold for the normal and Debian configs, but
# with the debug options some macros pass their caller's __LINE__ as an
# argument (PROVE_RCU's checks in rcu_dereference(), might_sleep()), so
# the comment-only fix changes proc_pid_status()'s code and is built
# instead of refused (seen 2026-12-07).
check-debug:
	$(MAKE) check BUILD=$(BUILD)/debug LOG_NAME=debug KGR_E2E=0 KGR_FIXES=0 \
		CONFIG_FRAGMENTS=$(CURDIR)/configs/debug.config \
		QEMU_MEM=1G QEMU_TIMEOUT=3600

# The consistency scenarios once more, each with a patch of 1025
# functions: kgr.many=1 has load_mod take the .many variant of a
# scenario's patch (samples/kgr-test/build.sh), which carries the 1024
# functions of kgr_test_many before the scenario's own. Normal kernel,
# one boot of its own.
MANY_TESTS	= test-kgr-blocked.sh,test-kgr-one-trip.sh,test-kgr-threads.sh,$\
		  test-kgr-kthread.sh,test-kgr-irq.sh,test-kgr-stress.sh,$\
		  test-kgr-bh.sh,test-kgr-exit.sh,test-kgr-fork.sh
check-many:
	$(MAKE) check LOG_NAME=many \
		KAPPEND='kgr.many=1 kgr.tests=$(MANY_TESTS) $(KAPPEND)'

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
# prockmsg nopfree revdirect dshare seltimeout accept keep cbstate reverse
# reverseflip reversenops tramppack nocap trampclass jmpshared jmpnew
# noptramp fatfunc atexit; bhmany and forkmany: bh and fork with a patch
# of 1025 functions, kgr.many=1).
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
