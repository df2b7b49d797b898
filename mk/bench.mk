# SPDX-License-Identifier: GPL-2.0
#
# Benchmark: "make bench" measures kGraft against upstream livepatch on one
# kernel (CONFIG_KGR=y, CONFIG_LIVEPATCH=y) and prints one markdown table;
# "make benchmods" builds its modules.  "make help-bench" describes them.

# samples/kgr-bench/ has the target module and the patch modules for
# both; the guest side is initramfs/tests/test-kgr-bench.sh with its helper
# initramfs/src/kgr-bench.c.
# "make bench" boots the guest $(BENCH_ICOUNT_RUNS) times under
# "-icount shift=0,sleep=off" for the per-call figures (deterministic), once
# without for the transitions (wall time), and prints one markdown table;
# $(BENCH_DIR) gets the table, the samples and a PNG plot of the threads
# still in the old universe during a transition under load.  It prints
# figures and never fails because a machine is slow.  "make check" runs the
# same test as a short smoke run that asserts the figures make sense.

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
# patches of that many functions (kgr_test_many), each system in turn
BENCH_SIZES	?= 1,64,256,1024
# the per-call figures again next to that many patched functions
BENCH_MANY	?= 1024
# transitions, apply and revert, while that many threads sleep, run or
# both (a whole make bench with these sizes took 10 minutes, 2026-12-07)
BENCH_THREADS	?= 100,1000,10000
BENCH_THREAD_MODES ?= sleep,sleepfn,busy,mix
# the wall-time boot's memory: 10000 threads need more than the default
BENCH_WALL_MEM	?= 2G
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
		   kgr.bench.sleep_ms=$(BENCH_SLEEP_MS) kgr.bench.daemons=$(BENCH_DAEMONS) \
		   kgr.bench.sizes=$(BENCH_SIZES) kgr.bench.many=$(BENCH_MANY) \
		   kgr.bench.threads=$(BENCH_THREADS) kgr.bench.thread_modes=$(BENCH_THREAD_MODES)

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
	@echo '  BENCH_SIZES=$(BENCH_SIZES) (functions per patch for the rows of many functions)'
	@echo '  BENCH_MANY=$(BENCH_MANY) (patched functions next to the per-call rows of the last function)'
	@echo '  BENCH_THREADS=$(BENCH_THREADS) BENCH_THREAD_MODES=$(BENCH_THREAD_MODES) (transitions among threads)'
	@echo '  BENCH_WALL_MEM=$(BENCH_WALL_MEM) (the wall-time boot'"'"'s memory)'
	@echo '  BENCH_TIMEOUT=$(BENCH_TIMEOUT) (seconds per boot) BENCH_ICOUNT_SMP=$(BENCH_ICOUNT_SMP)'

benchmods: kernel
	$(CURDIR)/samples/kgr-bench/build.sh $(KSRC) $(BENCHMOD_DIR)

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
		--mem $(BENCH_WALL_MEM) --append '$(BENCH_KAPPEND) kgr.bench=full' > /dev/null || \
		echo "bench: wall-time boot: qemu-run exit status $$?"; \
	echo "bench: boots took $$(( $$(date +%s) - start )) s"; echo; \
	python3 $(CURDIR)/scripts/bench-report.py --out $(BENCH_DIR) \
		$(foreach i,$(shell seq 1 $(BENCH_ICOUNT_RUNS)),--icount $(LOGDIR)/bench-icount-$(i).log) \
		--wall $(LOGDIR)/bench-wall.log
