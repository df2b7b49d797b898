// SPDX-License-Identifier: GPL-2.0
/* kgr_test_patch_eqs2 -- kgr_test_patch_eqs again, to stack on it */
#include "kgr_test_patch_eqs.c"
