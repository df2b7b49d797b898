// SPDX-License-Identifier: GPL-2.0
/* the second kgr_test_dup_fn() of kgr_test_dup (see kgr_test_dup_a.c) */
#include <linux/compiler.h>

#include "kgr_test.h"

static unsigned long kgr_test_dup_calls_b;

static noinline int kgr_test_dup_fn(void)
{
	WRITE_ONCE(kgr_test_dup_calls_b, READ_ONCE(kgr_test_dup_calls_b) + 1);
	return KGR_TEST_OLD;
}

int kgr_test_dup_b_call(void);

/* called through a pointer: kgr_test_dup_fn() itself stays a call */
noinline int kgr_test_dup_b_call(void)
{
	return kgr_test_dup_fn();
}
