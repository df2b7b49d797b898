// SPDX-License-Identifier: GPL-2.0
/* kgr_test_shadow_b: the cumulative patch of kgr_test_shadow.c */
#define KGR_TEST_SHADOW_CUMULATIVE 1
#include "kgr_test_shadow.c"
