# SPDX-License-Identifier: GPL-2.0
#
# PostgreSQL under kGraft transitions: "make bench-debian-pg" runs pgbench
# in the Debian guest alone, then while a patch module is applied and
# reverted in a loop, and fails on a client error or a slow transition.

# Not part of check-debian: it takes minutes of TCG.  The Debian guest with
# PostgreSQL 15 and pgbench from Debian's packages runs pgbench alone,
# then the same pgbench while kgr_pg.ko (samples/kgr-pg/: read, write,
# pread64, pwrite64, sendto, recvfrom, epoll_wait, futex, fsync and
# fdatasync, each replaced by code that behaves the same) is applied,
# reverted and removed in a loop; the host prints the figures and fails on
# a client error or a transition not finalized within the bounds.  All of
# it lives in $(PG_BUILD), with a copy of the Debian-config kernel tree
# (bzImage, headers, signing key: no object files), taken again whenever
# $(DEBIAN_BZIMAGE) is newer.  "make help-debian-pg" describes it.

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
