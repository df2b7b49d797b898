/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KGR_TEST_H
#define KGR_TEST_H

/*
 * Each line NAME of scenarios.list is a test scenario with a function of
 * its own, so that a test never finds its function patched, or held, by
 * another one: kgr_test_target_NAME exports kgr_test_fn_NAME(), which
 * returns KGR_TEST_OLD, and kgr_test_patch_NAME replaces it with
 * kgr_test_fn_new_NAME(), which returns KGR_TEST_NEW. build.sh makes
 * their sources from kgr_test_fn.c and kgr_test_patch.c, with
 * KGR_TEST_SCN defined as NAME.
 */
#define KGR_TEST_OLD	1
#define KGR_TEST_NEW	2

/* the longest NAME: module names have room for 55 characters */
#define KGR_TEST_NAME_MAX	32

#define KGR_TEST_CAT_(a, b)	a ## b
#define KGR_TEST_CAT(a, b)	KGR_TEST_CAT_(a, b)
#define KGR_TEST_OLD_FN		KGR_TEST_CAT(kgr_test_fn_, KGR_TEST_SCN)
#define KGR_TEST_NEW_FN		KGR_TEST_CAT(kgr_test_fn_new_, KGR_TEST_SCN)

#endif /* KGR_TEST_H */
