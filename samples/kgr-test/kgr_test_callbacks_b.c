// SPDX-License-Identifier: GPL-2.0
/*
 * kgr_test_callbacks_b -- a cumulative patch of kgr_test_fn_callbacks()
 * (it returns 3) with the callbacks and the state of kgr_test_callbacks,
 * whose state it takes over when it replaces it.
 */
#define KGR_TEST_CB_RET		3
#define KGR_TEST_CB_REPLACE_ALL
#include "kgr_test_callbacks.c"
