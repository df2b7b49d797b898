// SPDX-License-Identifier: GPL-2.0
/* kgr_test_perfn: kgr_test_patch_54 that settles for function-level consistency */
#define KGR_TEST_FN		54
#define KGR_TEST_PER_FUNCTION	true
#include "kgr_test_patch.c"
