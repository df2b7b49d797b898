// SPDX-License-Identifier: GPL-2.0
/*
 * kgr_test_modpatch2 -- a second patch of kgr_test_mod_fn(), stacked on
 * kgr_test_modpatch: its version returns 3.
 */
#define KGR_TEST_MODRET	3
#include "kgr_test_modpatch.c"
