// SPDX-License-Identifier: GPL-2.0
/* kgr_test_shadow_stack: a patch of kgr_test_shadow.c stacked on it */
#define KGR_TEST_SHADOW_STACKED 1
#include "kgr_test_shadow.c"
