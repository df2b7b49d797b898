# SPDX-License-Identifier: GPL-2.0
#
# The Debian guest: a kernel from Debian's own configuration and a Debian 12
# root filesystem with systemd as PID 1; "make check-debian" builds both,
# boots, runs the suite and judges the log.  "make help-debian" describes it.

# The kernel is built from Debian's own configuration (package
# linux-config-6.1, flavour $(DEBIAN_FLAVOUR); its modules off, what QEMU
# needs built in, kGraft on: configs/debian.config) in its own folder
# $(DEBIAN_BUILD), and a Debian 12 root filesystem made by mmdebstrap with
# systemd as PID 1 and ordinary daemons (sshd, cron, rsyslog,
# dbus).  kgr-tests.service runs kgr-run-tests there once the system is up,
# with its TAP on ttyS0, then powers the guest off; the host judges the log
# as "make check" does, and also wants no failed systemd unit.

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
# image).  Manual pages are left out, but kgr(8), which the
# administrator's day (initramfs/tests/admin) reads with man-db's man once
# kgraft-tools is installed.
DEBIAN_SUITE	?= bookworm
DEBIAN_GUEST_PACKAGES ?= systemd-sysv udev dbus openssh-server cron rsyslog \
		   stress-ng kmod procps iproute2 less man-db initramfs-tools
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

# the packages of the kernel ("make deb"), the tool and the demonstration
# patches, which check-debian-admin installs, upgrades and removes
DEBIAN_DEBS	 = $(DEBIAN_BUILD)/debs/kgraft-*.deb $(DEBIAN_BUILD)/debs/linux-image-*.deb
# a patch module as kbuild made it, before it was signed: what
# lockdown=integrity refuses in test-admin-4-lockdown.sh
DEBIAN_UNSIGNED	 = $(DEBIAN_BUILD)/kgr-debs/demo-1/module/kgr_fix_demo_1.ko

DEBIAN_MEM	?= 1G
DEBIAN_TIMEOUT	?= 3600
DEBIAN_LOG	 = $(LOGDIR)/debian.log
DEBIAN_KAPPEND	 = root=/dev/vda rw rootfstype=ext4 $(KAPPEND)
DEBIAN_QEMU_ARGS = --drive $(DEBIAN_IMAGE) --accel $(QEMU_ACCEL) \
		   --smp $(QEMU_SMP) --mem $(DEBIAN_MEM)
DEBIAN_QEMU_RUN	 = $(CURDIR)/scripts/qemu-run.sh --kernel $(DEBIAN_BZIMAGE) $(DEBIAN_QEMU_ARGS)

.PHONY: help-debian debian-config debian-kernel debian-rootfs debian-image \
	debian-boot check-debian check-debian-admin debian-shell bench-debian deb

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
	@echo '  deb-dbg        "make deb" on that kernel: linux-image-RELEASE-dbg too'
	@echo '                 (log: $$(BPF_LOG); about twice the build time)'
	@echo '  deb            the kernel as Debian packages (linux-image, linux-headers,'
	@echo '                 linux-libc-dev, RELEASE-$(KGR_DEB_REVISION)) in $$(DEBIAN_BUILD)/debs'
	@echo '  check-debian-admin  an administrator'"'"'s day: the image booted four times'
	@echo '                 (initramfs/tests/admin/): install the tool and a patch package,'
	@echo '                 reboot (patched by kgr.service before network-pre.target) and'
	@echo '                 upgrade, boot with kgr.enable=0 and remove, boot with'
	@echo '                 lockdown=integrity (unsigned refused, signed loads)'
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

# The kernel's own packages carry this Debian revision: version
# RELEASE-$(KGR_DEB_REVISION).
KGR_DEB_REVISION ?= 1+kgraft1

# The patch packages depend on exactly the kernel package "make deb"
# builds (its version is known once the kernel is configured).
debian-kernel:
	$(DEBIAN_MAKE) kernel testmods benchmods $(if $(filter 1,$(KGR_FIXES)),kgr-fixes)
	$(DEBIAN_MAKE) kgr-tools-deb kgr-deb-demo \
		KGR_KERNEL_VERSION=$$(cat $(DEBIAN_KSRC)/include/config/kernel.release)-$(KGR_DEB_REVISION)

# The kernel as Debian packages (linux-image-RELEASE, linux-headers-RELEASE,
# linux-libc-dev; no -dbg package, as debian.config builds no debug
# info: "make deb-dbg" makes it, mk/debian-bpf.mk): the two steps of the kernel's "make bindeb-pkg" without its
# dpkg-buildpackage, whose rebuild with the packages' version would
# recompile much of the tree: scripts/package/mkdebian writes debian/,
# then "make intdeb-pkg" packs what the build made (20 s).  The packages
# go to $(DEBIAN_BUILD)/debs.
DEB_PACKAGES	+= dpkg-dev rsync

deb: debian-kernel
	@rel=$$(cat $(DEBIAN_KSRC)/include/config/kernel.release); \
	ver=$$rel-$(KGR_DEB_REVISION); \
	rm -f $(DEBIAN_BUILD)/linux-*.deb $(DEBIAN_BUILD)/debs/linux-*.deb; \
	cd $(DEBIAN_KSRC) && \
	KERNELRELEASE=$$rel ARCH=$(KARCH) UTS_MACHINE=$(KARCH) KDEB_SOURCENAME=linux-upstream \
		KDEB_PKGVERSION=$$ver MAKE=$(MAKE) $(SHELL) scripts/package/mkdebian && \
	$(MAKE) ARCH=$(KARCH) KDEB_PKGVERSION=$$ver intdeb-pkg > $(DEBIAN_BUILD)/deb.log 2>&1 || \
		{ tail -n 30 $(DEBIAN_BUILD)/deb.log; exit 1; }
	@mkdir -p $(DEBIAN_BUILD)/debs
	mv $(DEBIAN_BUILD)/linux-*.deb $(DEBIAN_BUILD)/debs/
	@ls -l $(DEBIAN_BUILD)/debs/linux-*.deb

# What dpkg leaves out of the guests: documentation but the copyrights,
# manual pages but kgr(8) (with its directory), translations.  The root
# filesystem keeps these rules for the packages installed in the guest.
DEBIAN_DPKG_OPTS = path-exclude=/usr/share/doc/* path-include=/usr/share/doc/*/copyright \
		   path-exclude=/usr/share/man/* path-include=/usr/share/man/man8 \
		   path-include=/usr/share/man/man8/kgr.8.gz path-exclude=/usr/share/locale/*

# $(call debian_rootfs_changed,PACKAGES,LIST): .FORCE when the packages
# or DEBIAN_DPKG_OPTS differ from those LIST says the tarball was made with
debian_rootfs_changed = $(if $(filter-out $(file <$(2)),$(1) $(DEBIAN_DPKG_OPTS))$(filter-out \
			$(1) $(DEBIAN_DPKG_OPTS),$(file <$(2))),.FORCE)

# $(call debian_rootfs,PACKAGES,LIST): the recipe of a Debian root
# filesystem tarball ($@) with PACKAGES, by mmdebstrap; LIST records them
define debian_rootfs
	@mkdir -p $(@D)
	mmdebstrap --mode=root --variant=minbase \
		--include='$(subst $(DEBIAN_SPACE),$(DEBIAN_COMMA),$(strip $(1)))' \
		$(foreach o,$(DEBIAN_DPKG_OPTS),--dpkgopt='$(o)') \
		$(DEBIAN_SUITE) $@.tmp.tar
	mv $@.tmp.tar $@
	@echo '$(strip $(1) $(DEBIAN_DPKG_OPTS))' > $(2)
endef

$(DEBIAN_ROOTFS): $(call debian_rootfs_changed,$(DEBIAN_GUEST_PACKAGES),$(DEBIAN_PKGLIST))
	$(call debian_rootfs,$(DEBIAN_GUEST_PACKAGES),$(DEBIAN_PKGLIST))

debian-rootfs: $(DEBIAN_ROOTFS)

debian-image: debian-kernel $(DEBIAN_ROOTFS)
	@MODULES='$(DEBIAN_MODULES)' DEBS='$(DEBIAN_DEBS)' UNSIGNED='$(DEBIAN_UNSIGNED)' IMAGE_SIZE=$(DEBIAN_IMAGE_SIZE) \
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

# An administrator's day (initramfs/tests/admin/): one image booted four
# times, each boot running the test of its name.  The first boots the
# build's bzImage and installs the kernel package ("make deb"), whose
# hooks make an initrd in the image's /boot; the next three boot that
# kernel and initrd, taken out of the image (debugfs), the third with
# kgr.enable=0, the fourth with lockdown=integrity.  Each log is judged
# as check-debian's is; the first failure ends the day.
DEBIAN_ADMIN_BOOTS = 1-install 2-reboot 3-disabled:kgr.enable=0 4-lockdown:lockdown=integrity
DEBIAN_ADMIN_BOOT  = $(DEBIAN_BUILD)/admin-boot

check-debian-admin: deb debian-image
	@rm -rf $(DEBIAN_ADMIN_BOOT) && mkdir -p $(DEBIAN_ADMIN_BOOT)
	@rc=0; run="$(DEBIAN_QEMU_RUN)"; rel=$$(cat $(DEBIAN_KSRC)/include/config/kernel.release); \
	for b in $(DEBIAN_ADMIN_BOOTS); do \
		name=$${b%%:*}; extra=; case $$b in *:*) extra=$${b#*:} ;; esac; \
		log=$(LOGDIR)/debian-admin-$$name.log; \
		echo "check-debian-admin: boot $$name $$extra"; \
		$$run --timeout 900 --log $$log --append "$(DEBIAN_KAPPEND) \
			kgr.testsdir=/tests/admin kgr.tests=test-admin-$$name.sh $$extra" || rc=$$?; \
		$(CURDIR)/scripts/check-log.sh --systemd $$log || rc=1; \
		[ $$rc = 0 ] || break; \
		[ "$$name" = 1-install ] || continue; \
		for f in vmlinuz initrd.img; do \
			debugfs -R "dump /boot/$$f-$$rel $(DEBIAN_ADMIN_BOOT)/$$f" \
				$(DEBIAN_IMAGE) 2>/dev/null; \
			[ -s $(DEBIAN_ADMIN_BOOT)/$$f ] || { echo "check-debian-admin: no /boot/$$f-$$rel in the image"; rc=1; }; \
		done; \
		[ $$rc = 0 ] || break; \
		run="$(CURDIR)/scripts/qemu-run.sh --kernel $(DEBIAN_ADMIN_BOOT)/vmlinuz \
			--initrd $(DEBIAN_ADMIN_BOOT)/initrd.img $(DEBIAN_QEMU_ARGS)"; \
	done; exit $$rc

debian-shell: debian-image
	@$(DEBIAN_QEMU_RUN) --interactive --timeout 0 --log $(LOGDIR)/debian-shell.log \
		--append '$(DEBIAN_KAPPEND) kgr.shell=1'
