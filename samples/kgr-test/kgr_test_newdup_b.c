// SPDX-License-Identifier: GPL-2.0
/* the replacement of kgr_test_newdup (see kgr_test_newdup_a.c) */
#include <linux/kgr.h>

#include "kgr_test.h"

int kgr_test_newdup_start(void);

static noinline int kgr_test_newdup_new(void)
{
	return KGR_TEST_NEW;
}
KGR_PATCHED_FUNCTION(patch, kgr_test_fn_symbols, kgr_test_newdup_new);

static struct kgr_patch patch = {
	.patches = {
		KGR_PATCH(kgr_test_fn_symbols),
		KGR_PATCH_END
	}
};

int kgr_test_newdup_start(void)
{
	return kgr_start_patching(&patch);
}
