// SPDX-License-Identifier: GPL-2.0
/*
 * kgr_test_callbacks -- a patch of kgr_test_fn_callbacks() (it returns
 * KGR_TEST_CB_RET) with callbacks for itself ("patch") and for the
 * module kgr_test_target_callbacks_late ("late"), each of which says in
 * the log that it ran: "<module>: <callback> <patch|late>".
 *
 * Its state KGR_TEST_CB_STATE carries a counter, allocated by the first
 * patch that has the state and freed by the post_revert of the last:
 * kgr_test_callbacks_b, a cumulative patch that includes this file,
 * takes it over from the patch it replaces in its post_patch and logs
 * "took over state generation N". kgr_test_callbacks_c, a cumulative
 * patch without the state, must be refused while this one is applied.
 *
 * fail=patch|late: that pre_patch callback fails with -EBUSY. The
 * parameter is writable, so that a later load of
 * kgr_test_target_callbacks_late can be refused.
 */
#include <linux/kgr.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "kgr_test.h"

#define KGR_TEST_CB_STATE	0x6b6772UL

#ifndef KGR_TEST_CB_RET
#define KGR_TEST_CB_RET		KGR_TEST_NEW
#endif

static char *fail = "";
module_param(fail, charp, 0600);
MODULE_PARM_DESC(fail, "patch|late: make that pre_patch callback fail");

struct kgr_test_cb_data {
	unsigned int generation;
};

static struct kgr_patch patch;

static void kgr_test_cb_log(const char *callback, const char *obj)
{
	pr_info("%s: %s %s\n", KBUILD_MODNAME, callback, obj);
}

static int kgr_test_cb_pre_patch(const char *obj)
{
	kgr_test_cb_log("pre_patch", obj);
	if (strcmp(fail, obj))
		return 0;
	pr_info("%s: pre_patch %s fails\n", KBUILD_MODNAME, obj);
	return -EBUSY;
}

#ifndef KGR_TEST_CB_NOSTATE
/* the counter: the replaced patch's if there is one, else a new one */
static int kgr_test_cb_take_state(void)
{
	struct kgr_state *s = kgr_get_state(&patch, KGR_TEST_CB_STATE);
	struct kgr_state *prev = kgr_get_prev_state(KGR_TEST_CB_STATE);
	struct kgr_test_cb_data *d;

	if (prev && prev->data) {
		d = prev->data;
		prev->data = NULL;
	} else {
		d = kzalloc(sizeof(*d), GFP_KERNEL);
		if (!d)
			return -ENOMEM;
	}
	d->generation++;
	s->data = d;
	pr_info("%s: took over state generation %u\n", KBUILD_MODNAME,
		d->generation);
	return 0;
}

static void kgr_test_cb_free_state(void)
{
	struct kgr_state *s = kgr_get_state(&patch, KGR_TEST_CB_STATE);
	struct kgr_test_cb_data *d = s->data;

	pr_info("%s: freed state generation %u\n", KBUILD_MODNAME,
		d ? d->generation : 0);
	kfree(d);
	s->data = NULL;
}
#else
static int kgr_test_cb_take_state(void)
{
	return 0;
}

static void kgr_test_cb_free_state(void)
{
}
#endif

static int kgr_test_pre_patch(struct kgr_patch *p)
{
	return kgr_test_cb_pre_patch("patch");
}

/*
 * The state is taken over once the transition finalized: a patch that
 * fails to start must leave the applied patch's state as it was.
 */
static void kgr_test_post_patch(struct kgr_patch *p)
{
	kgr_test_cb_log("post_patch", "patch");
	if (kgr_test_cb_take_state())
		pr_err("%s: no memory for the state\n", KBUILD_MODNAME);
}

static void kgr_test_pre_revert(struct kgr_patch *p)
{
	kgr_test_cb_log("pre_revert", "patch");
}

static void kgr_test_post_revert(struct kgr_patch *p)
{
	kgr_test_cb_log("post_revert", "patch");
	kgr_test_cb_free_state();
}

static int kgr_test_late_pre_patch(struct kgr_patch *p)
{
	return kgr_test_cb_pre_patch("late");
}

static void kgr_test_late_post_patch(struct kgr_patch *p)
{
	kgr_test_cb_log("post_patch", "late");
}

static void kgr_test_late_pre_revert(struct kgr_patch *p)
{
	kgr_test_cb_log("pre_revert", "late");
}

static void kgr_test_late_post_revert(struct kgr_patch *p)
{
	kgr_test_cb_log("post_revert", "late");
}

static noinline int kgr_test_fn_new_callbacks(void)
{
	return KGR_TEST_CB_RET;
}

static struct kgr_callbacks kgr_test_obj_callbacks[] = {
	{
		.objname = "kgr_test_target_callbacks_late",
		.pre_patch = kgr_test_late_pre_patch,
		.post_patch = kgr_test_late_post_patch,
		.pre_revert = kgr_test_late_pre_revert,
		.post_revert = kgr_test_late_post_revert,
	},
	{ }
};

#ifndef KGR_TEST_CB_NOSTATE
static struct kgr_state kgr_test_states[] = {
	{ .id = KGR_TEST_CB_STATE, .version = 1 },
	{ }
};
#endif

/* SUSE's form of the entries: a whole KGR_PATCH(name, new) each */
static struct kgr_patch patch = {
	.name = KBUILD_MODNAME,
	.owner = THIS_MODULE,
#ifdef KGR_TEST_CB_REPLACE_ALL
	.replace_all = true,
#endif
	.callbacks = {
		.pre_patch = kgr_test_pre_patch,
		.post_patch = kgr_test_post_patch,
		.pre_revert = kgr_test_pre_revert,
		.post_revert = kgr_test_post_revert,
	},
	.obj_callbacks = kgr_test_obj_callbacks,
#ifndef KGR_TEST_CB_NOSTATE
	.states = kgr_test_states,
#endif
	.patches = {
		KGR_PATCH(kgr_test_fn_callbacks, kgr_test_fn_new_callbacks),
		KGR_PATCH_END
	}
};

static int __init kgr_test_callbacks_init(void)
{
	return kgr_patch_kernel(&patch);
}
module_init(kgr_test_callbacks_init);

static void __exit kgr_test_callbacks_exit(void)
{
	kgr_patch_remove(&patch);
}
module_exit(kgr_test_callbacks_exit);
MODULE_DESCRIPTION("kGraft test patch with callbacks and a state");
MODULE_LICENSE("GPL");
