/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KGR_TEST_MANY(X) expands X(n) for n = 0 ... 63: the functions of
 * kgr_test_many, and what kgr_test_many_patch makes of them.
 */
#ifndef KGR_TEST_MANY_H
#define KGR_TEST_MANY_H

#define KGR_TEST_MANY_NR	64

#define KGR_TEST_MANY8(X, h)						\
	X(h ## 0) X(h ## 1) X(h ## 2) X(h ## 3)				\
	X(h ## 4) X(h ## 5) X(h ## 6) X(h ## 7)
/* octal-looking names, decimal values: n is 8 * h + l, written "hl" */
#define KGR_TEST_MANY(X)						\
	KGR_TEST_MANY8(X, 0) KGR_TEST_MANY8(X, 1) KGR_TEST_MANY8(X, 2)	\
	KGR_TEST_MANY8(X, 3) KGR_TEST_MANY8(X, 4) KGR_TEST_MANY8(X, 5)	\
	KGR_TEST_MANY8(X, 6) KGR_TEST_MANY8(X, 7)

#endif /* KGR_TEST_MANY_H */
