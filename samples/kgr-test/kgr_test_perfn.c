// SPDX-License-Identifier: GPL-2.0
/* kgr_test_perfn: kgr_test_patch_perfn that settles for function-level consistency */
#define KGR_TEST_SCN		perfn
#define KGR_TEST_PER_FUNCTION	true
#include "kgr_test_patch.c"
