/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KGR_TEST_MANY(X) expands X(n) for n = 0 ... 1023: the functions of
 * kgr_test_many, and what kgr_test_many_patch makes of them.
 */
#ifndef KGR_TEST_MANY_H
#define KGR_TEST_MANY_H

#define KGR_TEST_MANY_NR	1024

/*
 * n is written with four octal digits, "0000" to "1777": the names are
 * kgr_test_many_fn_0000 ... kgr_test_many_fn_1777, and 0 ## n is n
 */
#define KGR_TEST_MANY8(X, h)						\
	X(h ## 0) X(h ## 1) X(h ## 2) X(h ## 3)				\
	X(h ## 4) X(h ## 5) X(h ## 6) X(h ## 7)
#define KGR_TEST_MANY64(X, h)						\
	KGR_TEST_MANY8(X, h ## 0) KGR_TEST_MANY8(X, h ## 1)		\
	KGR_TEST_MANY8(X, h ## 2) KGR_TEST_MANY8(X, h ## 3)		\
	KGR_TEST_MANY8(X, h ## 4) KGR_TEST_MANY8(X, h ## 5)		\
	KGR_TEST_MANY8(X, h ## 6) KGR_TEST_MANY8(X, h ## 7)
#define KGR_TEST_MANY512(X, h)						\
	KGR_TEST_MANY64(X, h ## 0) KGR_TEST_MANY64(X, h ## 1)		\
	KGR_TEST_MANY64(X, h ## 2) KGR_TEST_MANY64(X, h ## 3)		\
	KGR_TEST_MANY64(X, h ## 4) KGR_TEST_MANY64(X, h ## 5)		\
	KGR_TEST_MANY64(X, h ## 6) KGR_TEST_MANY64(X, h ## 7)
#define KGR_TEST_MANY(X)						\
	KGR_TEST_MANY512(X, 0) KGR_TEST_MANY512(X, 1)

/* a patch's new version of function n, which returns 2 */
#define KGR_TEST_MANY_NEW(n)						\
	static noinline int kgr_test_many_new_ ## n(void)		\
	{								\
		asm volatile("" : : "i" (0 ## n));			\
		return 2;						\
	}

/* the kgr_patch entry that replaces function n with it */
#define KGR_TEST_MANY_ENTRY(n)						\
	KGR_PATCH_OBJ(kgr_test_many_fn_ ## n, kgr_test_many_new_ ## n,	\
		      "kgr_test_many"),

#endif /* KGR_TEST_MANY_H */
