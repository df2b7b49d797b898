// SPDX-License-Identifier: GPL-2.0
/*
 * kgr_test_stack -- a second patch of kgr_test_fn_stack(), stacked on
 * kgr_test_patch_stack: its version returns 3, the first patch's 2, the
 * function's own 1.
 */
#define KGR_TEST_SCN stack
#define KGR_TEST_RET 3
#include "kgr_test_patch.c"
