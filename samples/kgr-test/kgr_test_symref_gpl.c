// SPDX-License-Identifier: GPL-2.0
#define KGR_TEST_SYMREF_NAME	kgr_in_progress_lock
#define KGR_TEST_SYMREF_LICENSE	"GPL"
#include "kgr_test_symref.c"
