// SPDX-License-Identifier: GPL-2.0
/*
 * kgr_bench_kgr_N -- a kGraft patch making kgr_bench_fn_N() of
 * kgr_bench_target return KGR_BENCH_NEW. build.sh generates one source
 * per N: "#define KGR_BENCH_FN N" and an #include of this file.
 *
 * The new function does what the old one does (count, return), so that
 * the benchmark measures the redirection and nothing else. After
 * kgr_start_patching() the module logs the size of the ftrace trampoline
 * that ftrace made for the function (memory per function): the
 * ftrace_ops is kGraft's, one per patched function.
 */
#include <linux/kgr.h>
#include <linux/module.h>

#include "kgr_bench.h"

#ifndef KGR_BENCH_FN
#error "KGR_BENCH_FN must name the function number to patch"
#endif

#define KGR_BENCH_CAT_(a, b)	a ## b
#define KGR_BENCH_CAT(a, b)	KGR_BENCH_CAT_(a, b)
#define KGR_BENCH_OLD_FN	KGR_BENCH_CAT(kgr_bench_fn_, KGR_BENCH_FN)
#define KGR_BENCH_NEW_FN	KGR_BENCH_CAT(kgr_bench_kgr_fn_, KGR_BENCH_FN)

/* indirections, so that the macros' # and ## see the expanded names */
#define KGR_BENCH_PATCHED(patch, old, new)	KGR_PATCHED_FUNCTION(patch, old, new)
#define KGR_BENCH_PATCH(old)			KGR_PATCH(old)

static unsigned long kgr_bench_new_calls;

static __attribute__((__noipa__)) int KGR_BENCH_NEW_FN(void)
{
	WRITE_ONCE(kgr_bench_new_calls, READ_ONCE(kgr_bench_new_calls) + 1);
	return KGR_BENCH_NEW;
}

KGR_BENCH_PATCHED(patch, KGR_BENCH_OLD_FN, KGR_BENCH_NEW_FN);

static struct kgr_patch patch = {
	.patches = {
		KGR_BENCH_PATCH(KGR_BENCH_OLD_FN),
		KGR_PATCH_END
	}
};

static int __init kgr_bench_kgr_init(void)
{
	int ret = kgr_start_patching(&patch);

	if (!ret)
		pr_info("kgr-bench: %s: ftrace trampoline %lu bytes\n",
			THIS_MODULE->name,
			kgr_trampoline_size(KGR_BENCH_PATCH(KGR_BENCH_OLD_FN)));
	return ret;
}
module_init(kgr_bench_kgr_init);
MODULE_DESCRIPTION("kGraft patch for the kGraft/livepatch benchmark");
MODULE_LICENSE("GPL");
