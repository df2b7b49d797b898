// SPDX-License-Identifier: GPL-2.0
/* kgr_test_dup_pos with a position that does not exist (see there) */
#define KGR_TEST_DUP_POS	3
#include "kgr_test_dup_pos.c"
