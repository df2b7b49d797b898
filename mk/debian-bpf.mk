# SPDX-License-Identifier: GPL-2.0
#
# BPF on patched functions: "make check-debian-bpf" runs the BPF tests of
# the suite in the Debian guest, on a Debian-config kernel with BTF.

# Not part of check-debian: its kernel carries DWARF and BTF, which makes
# its build take about twice as long.  The Debian-config kernel with BTF
# (configs/bpf.config after configs/debian.config) in $(BPF_BUILD), and
# the Debian guest with bpftrace from Debian's packages, which runs
# test-kgr-bpf.sh (bpftrace's kfunc and kretfunc probes on a function
# kGraft calls directly) and test-kgr-direct-share.sh.

# its own folder (check-debian runs there with DEBIAN_BUILD=$(BPF_BUILD))
BPF_BUILD	?= $(BUILD)/debian-bpf
BPF_TESTS	?= test-kgr-bpf.sh,test-kgr-direct-share.sh
BPF_LOG		 = $(LOGDIR)/debian-bpf.log

# pahole, which makes the BTF
DEB_PACKAGES	+= dwarves

.PHONY: check-debian-bpf deb-dbg

check-debian-bpf:
	$(MAKE) check-debian DEBIAN_BUILD=$(BPF_BUILD) \
		CONFIG_FRAGMENTS=$(CURDIR)/configs/bpf.config \
		DEBIAN_GUEST_PACKAGES='$(DEBIAN_GUEST_PACKAGES) bpftrace' \
		DEBIAN_IMAGE_SIZE=3G DEBIAN_LOG=$(BPF_LOG) \
		KAPPEND='kgr.tests=$(BPF_TESTS) $(KAPPEND)'

# The kernel packages of "make deb" with linux-image-RELEASE-dbg too (the
# vmlinux with its debug info under /usr/lib/debug, for crash, perf and
# gdb), which the kernel's packaging makes when CONFIG_DEBUG_INFO is set:
# built from this kernel with DWARF and BTF, in $(BPF_BUILD)/debs.  Not in
# CI, for the build time.
deb-dbg:
	$(MAKE) deb DEBIAN_BUILD=$(BPF_BUILD) \
		CONFIG_FRAGMENTS=$(CURDIR)/configs/bpf.config
