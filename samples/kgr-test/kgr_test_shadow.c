// SPDX-License-Identifier: GPL-2.0
/*
 * kgr_test_shadow -- a patch of kgr_test_shadow_fn() of
 * kgr_test_shadow_target whose new version counts its calls in a shadow
 * variable of init_task (created at the first call, starting at 100) and
 * returns the count. kgr_test_shadow_b (this file with
 * KGR_TEST_SHADOW_CUMULATIVE) is a cumulative patch of the same function
 * that finds the same variable and returns the count plus 1000; it frees
 * every variable of the id in its exit, as the last patch that uses it.
 * kgr_test_shadow_stack (KGR_TEST_SHADOW_STACKED) is a patch stacked on
 * this one, which finds the variable too and returns the count plus 2000.
 *
 * At load, kgr_test_shadow checks that a second kgr_shadow_alloc() of one
 * object and id is refused ('dup_refused' reads Y). Writing Y to
 * 'free_all' before its rmmod makes its exit free the variables too.
 * Each freed variable is counted in the log line "freed N".
 */
#include <linux/atomic.h>
#include <linux/kgr.h>
#include <linux/module.h>
#include <linux/sched/task.h>

#define KGR_TEST_SHADOW_ID	0x6b677231	/* the count of calls */
#define KGR_TEST_SHADOW_DUP_ID	0x6b677232	/* the refusal check */

#if IS_ENABLED(KGR_TEST_SHADOW_CUMULATIVE)
#define KGR_TEST_SHADOW_ADD	1000
#elif IS_ENABLED(KGR_TEST_SHADOW_STACKED)
#define KGR_TEST_SHADOW_ADD	2000
#else
#define KGR_TEST_SHADOW_ADD	0
#endif
/* the first patch, the others' base: it checks the refusal of a dup */
#define KGR_TEST_SHADOW_FIRST	(!IS_ENABLED(KGR_TEST_SHADOW_CUMULATIVE) && \
				 !IS_ENABLED(KGR_TEST_SHADOW_STACKED))

static int kgr_test_shadow_ctor(void *obj, void *data, void *start)
{
	atomic_set(data, *(int *)start);
	return 0;
}

static atomic_t kgr_test_shadow_freed = ATOMIC_INIT(0);

static void kgr_test_shadow_dtor(void *obj, void *data)
{
	atomic_inc(&kgr_test_shadow_freed);
}

static noinline int kgr_test_shadow_fn_new(void)
{
	int start = 100;
	atomic_t *calls;

	calls = kgr_shadow_get_or_alloc(&init_task, KGR_TEST_SHADOW_ID,
					sizeof(*calls), GFP_KERNEL,
					kgr_test_shadow_ctor, &start);
	if (!calls)
		return -1;
	return atomic_inc_return(calls) + KGR_TEST_SHADOW_ADD;
}

static struct kgr_patch patch = {
	.replace_all = IS_ENABLED(KGR_TEST_SHADOW_CUMULATIVE),
	.patches = {
		KGR_PATCH_OBJ(kgr_test_shadow_fn, kgr_test_shadow_fn_new,
			      "kgr_test_shadow_target"),
		KGR_PATCH_END
	}
};

static bool dup_refused;
module_param(dup_refused, bool, 0444);
MODULE_PARM_DESC(dup_refused, "a second kgr_shadow_alloc() of one object and id returned NULL");

static bool free_all = IS_ENABLED(KGR_TEST_SHADOW_CUMULATIVE);
module_param(free_all, bool, 0644);
MODULE_PARM_DESC(free_all, "free every shadow variable of the id in the exit");

static int __init kgr_test_shadow_init(void)
{
	void *first, *second;

	if (KGR_TEST_SHADOW_FIRST) {
		first = kgr_shadow_alloc(&init_task, KGR_TEST_SHADOW_DUP_ID, 8,
					 GFP_KERNEL, NULL, NULL);
		second = kgr_shadow_alloc(&init_task, KGR_TEST_SHADOW_DUP_ID, 8,
					  GFP_KERNEL, NULL, NULL);
		dup_refused = first && !second &&
			kgr_shadow_get(&init_task, KGR_TEST_SHADOW_DUP_ID) == first;
		kgr_shadow_free(&init_task, KGR_TEST_SHADOW_DUP_ID, NULL);
		if (kgr_shadow_get(&init_task, KGR_TEST_SHADOW_DUP_ID))
			dup_refused = false;
	}
	return kgr_patch_kernel(&patch);
}

static void __exit kgr_test_shadow_exit(void)
{
	kgr_patch_remove(&patch);
	if (free_all) {
		kgr_shadow_free_all(KGR_TEST_SHADOW_ID, kgr_test_shadow_dtor);
		pr_info("%s: freed %d\n", KBUILD_MODNAME,
			atomic_read(&kgr_test_shadow_freed));
	}
}

module_init(kgr_test_shadow_init);
module_exit(kgr_test_shadow_exit);
MODULE_LICENSE("GPL");
