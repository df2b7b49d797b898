// SPDX-License-Identifier: GPL-2.0
/*
 * kgr_test_patch_NAME -- a kGraft patch making kgr_test_fn_NAME() of
 * kgr_test_target_NAME return KGR_TEST_NEW. build.sh generates one
 * source per line of scenarios.list: "#define KGR_TEST_SCN NAME"
 * followed by an #include of this file.
 *
 * Unlike the RFC's sample it fails to load when kgr_start_patching()
 * fails. It has a module_exit, so that it can be removed once its patch
 * is reverted; while the patch is applied kGraft holds the module and
 * rmmod fails.
 *
 * With KGR_TEST_WITH_MANY defined (build.sh's variants, installed as
 * kgr_test_patch_NAME.many.ko, which functions.sh's load_mod takes under
 * kgr.many=1), the patch also replaces the 1024 functions of
 * kgr_test_many, each with one that returns 2, and the scenario's
 * function comes last, the 1025th: a test's checks then hold for a
 * function of a large patch, beyond any bound a table of the first
 * functions could have.
 *
 * fail_nth=K (with CONFIG_FAULT_INJECTION): make the K-th fault-injection
 * point (failslab) that kgr_start_patching() reaches fail, the way
 * /proc/<pid>/fail-nth does for a whole system call; the module loader's
 * own allocations are left alone. The log says whether it was reached.
 */
#include <linux/kgr.h>
#include <linux/module.h>
#include <linux/stringify.h>

#include "kgr_test.h"

#ifndef KGR_TEST_SCN
#error "KGR_TEST_SCN must name the scenario whose function to patch"
#endif

/* indirections, so that the macros' # and ## see the expanded names */
#define KGR_TEST_PATCHED(patch, old, new)	KGR_PATCHED_FUNCTION(patch, old, new)
#define KGR_TEST_PATCH(old)			KGR_PATCH(old)

/* what the new function returns; kgr_test_stack returns 3 */
#ifndef KGR_TEST_RET
#define KGR_TEST_RET	KGR_TEST_NEW
#endif

static noinline int KGR_TEST_NEW_FN(void)
{
	return KGR_TEST_RET;
}
KGR_TEST_PATCHED(patch, KGR_TEST_OLD_FN, KGR_TEST_NEW_FN);

/* kgr_test_replace replaces every earlier patch */
#ifndef KGR_TEST_REPLACE_ALL
#define KGR_TEST_REPLACE_ALL	false
#endif

/* kgr_test_perfn settles for function-level consistency */
#ifndef KGR_TEST_PER_FUNCTION
#define KGR_TEST_PER_FUNCTION	false
#endif

#ifdef KGR_TEST_WITH_MANY
#include "kgr_test_many.h"

KGR_TEST_MANY(KGR_TEST_MANY_NEW)
#define KGR_TEST_MANY_ENTRIES	KGR_TEST_MANY(KGR_TEST_MANY_ENTRY)
#else
#define KGR_TEST_MANY_ENTRIES
#endif

static struct kgr_patch patch = {
	.replace_all = KGR_TEST_REPLACE_ALL,
	.per_function = KGR_TEST_PER_FUNCTION,
	.patches = {
		KGR_TEST_MANY_ENTRIES
		KGR_TEST_PATCH(KGR_TEST_OLD_FN),
		KGR_PATCH_END
	}
};

#ifdef CONFIG_FAULT_INJECTION
static unsigned int fail_nth;
module_param(fail_nth, uint, 0);
MODULE_PARM_DESC(fail_nth, "fail the N-th fault-injection point of kgr_start_patching()");

static int kgr_test_start_patching(void)
{
	int ret;

	/* fail-nth counts should_fail() calls of this task only */
	current->fail_nth = fail_nth;
	ret = kgr_start_patching(&patch);
	if (fail_nth)
		pr_info("%s: fail_nth=%u %s, kgr_start_patching() returned %d\n",
			THIS_MODULE->name, fail_nth,
			current->fail_nth ? "not reached" : "injected", ret);
	current->fail_nth = 0;
	return ret;
}
#else
static int kgr_test_start_patching(void)
{
	return kgr_start_patching(&patch);
}
#endif

static int __init kgr_test_patch_init(void)
{
	return kgr_test_start_patching();
}
module_init(kgr_test_patch_init);

/* only reached after the revert: the core holds the module until then */
static void __exit kgr_test_patch_exit(void)
{
}
module_exit(kgr_test_patch_exit);
MODULE_DESCRIPTION("kGraft test patch of kgr_test_fn_" __stringify(KGR_TEST_SCN) "()");
MODULE_LICENSE("GPL");
