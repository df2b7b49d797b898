// SPDX-License-Identifier: GPL-2.0
/*
 * kgr_test_reverse_cum -- a cumulative patch of kgr_test_fn_reverse_cum()
 * alone (it returns 3): while its transition runs, every other patched
 * function is taken back by a nop; test-kgr-reverse.sh reverts it before
 * it is finalized.
 */
#define KGR_TEST_SCN reverse_cum
#define KGR_TEST_RET 3
#define KGR_TEST_REPLACE_ALL true
#include "kgr_test_patch.c"
