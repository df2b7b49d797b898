// SPDX-License-Identifier: GPL-2.0
/*
 * kgr_test_callbacks_c -- a cumulative patch of kgr_test_fn_callbacks()
 * without the state of kgr_test_callbacks: kGraft must refuse it while
 * a patch with that state is applied, before any callback runs.
 */
#define KGR_TEST_CB_RET		4
#define KGR_TEST_CB_REPLACE_ALL
#define KGR_TEST_CB_NOSTATE
#include "kgr_test_callbacks.c"
