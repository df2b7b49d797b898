// SPDX-License-Identifier: GPL-2.0
/*
 * kgr_bench_klp_N -- a livepatch making kgr_bench_fn_N() of
 * kgr_bench_target return KGR_BENCH_NEW; the livepatch counterpart of
 * kgr_bench_kgr_N. build.sh generates one source per N: "#define
 * KGR_BENCH_FN N" and an #include of this file; with KGR_BENCH_GATE
 * defined the patch replaces kgr_bench_gate() too, so that a task asleep
 * in the gate holds the transition open (the per-call benchmark).
 */
#include <linux/kernel.h>
#include <linux/livepatch.h>
#include <linux/module.h>

#include "kgr_bench.h"

#ifndef KGR_BENCH_FN
#error "KGR_BENCH_FN must name the function number to patch"
#endif

#define KGR_BENCH_CAT_(a, b)	a ## b
#define KGR_BENCH_CAT(a, b)	KGR_BENCH_CAT_(a, b)
#define KGR_BENCH_STR_(a)	#a
#define KGR_BENCH_STR(a)	KGR_BENCH_STR_(a)
#define KGR_BENCH_NEW_FN	KGR_BENCH_CAT(kgr_bench_klp_fn_, KGR_BENCH_FN)

static unsigned long kgr_bench_new_calls;

static __attribute__((__noipa__)) int KGR_BENCH_NEW_FN(void)
{
	WRITE_ONCE(kgr_bench_new_calls, READ_ONCE(kgr_bench_new_calls) + 1);
	return KGR_BENCH_NEW;
}

#ifdef KGR_BENCH_GATE
static noinline void kgr_bench_klp_gate(void)
{
	kgr_bench_gate_wait();
	barrier();
}
#endif

static struct klp_func funcs[] = {
	{
		.old_name = "kgr_bench_fn_" KGR_BENCH_STR(KGR_BENCH_FN),
		.new_func = KGR_BENCH_NEW_FN,
	},
#ifdef KGR_BENCH_GATE
	{
		.old_name = "kgr_bench_gate",
		.new_func = kgr_bench_klp_gate,
	},
#endif
	{ }
};

static struct klp_object objs[] = {
	{
		.name = "kgr_bench_target",
		.funcs = funcs,
	},
	{ }
};

static struct klp_patch patch = {
	.mod = THIS_MODULE,
	.objs = objs,
};

static int __init kgr_bench_klp_init(void)
{
	return klp_enable_patch(&patch);
}

static void __exit kgr_bench_klp_exit(void)
{
}

module_init(kgr_bench_klp_init);
module_exit(kgr_bench_klp_exit);
MODULE_DESCRIPTION("livepatch for the kGraft/livepatch benchmark");
MODULE_LICENSE("GPL");
MODULE_INFO(livepatch, "Y");
