// SPDX-License-Identifier: GPL-2.0
/* kgr_test_twin_b: see kgr_test_twin.c */
#include "kgr_test_twin.c"
