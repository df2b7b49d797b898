/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KGR_TEST_H
#define KGR_TEST_H

/*
 * kgr_test_target provides KGR_TEST_NFN functions kgr_test_fn_N(), each
 * returning 1; kgr_test_patch_N replaces kgr_test_fn_N() with a version
 * returning 2. Each test scenario patches a function of its own, so that
 * a test never finds a function patched, or held, by another one.
 */
#define KGR_TEST_NFN	55

#define KGR_TEST_OLD	1
#define KGR_TEST_NEW	2

#endif /* KGR_TEST_H */
