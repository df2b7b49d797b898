// SPDX-License-Identifier: GPL-2.0
/*
 * kgr_test_replace -- a cumulative patch (replace_all): its
 * kgr_test_fn_replace() returns 3; it replaces every patch applied before
 * it, so that kgr_test_fn_replace_back(), which it does not carry,
 * returns 1 again.
 */
#define KGR_TEST_SCN replace
#define KGR_TEST_RET 3
#define KGR_TEST_REPLACE_ALL true
#include "kgr_test_patch.c"
