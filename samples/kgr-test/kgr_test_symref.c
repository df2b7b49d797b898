// SPDX-License-Identifier: GPL-2.0
/*
 * kgr_test_symref_* -- modules that refer to a kernel symbol the way the
 * patch modules of tools/kgraft-e2e/kgr-fix.sh do: an undefined symbol
 * ".kgr.sym.vmlinux.NAME,0", which the module loader resolves from
 * kallsyms (kernel/module/kgraft.c). Each kgr_test_symref_*.c defines
 * KGR_TEST_SYMREF_NAME (the symbol: kgr_in_progress_lock, which nothing
 * exports, or kstrtoint, which is exported) and KGR_TEST_SYMREF_LICENSE
 * ("GPL", or a license that is not GPL-compatible), then includes this.
 */
#include <linux/module.h>

#define KGR_TEST_STR_(x)	#x
#define KGR_TEST_STR(x)		KGR_TEST_STR_(x)

/* quoted for the assembler: the name has a comma */
extern char kgr_test_symref_target[]
	__asm__("\".kgr.sym.vmlinux." KGR_TEST_STR(KGR_TEST_SYMREF_NAME) ",0\"");

/* a use the compiler keeps: the reference stays in the object */
static void *volatile kgr_test_symref_addr;

static int __init kgr_test_symref_init(void)
{
	kgr_test_symref_addr = kgr_test_symref_target;
	pr_info("%s: %s resolved\n", THIS_MODULE->name,
		KGR_TEST_STR(KGR_TEST_SYMREF_NAME));
	return 0;
}
module_init(kgr_test_symref_init);

static void __exit kgr_test_symref_exit(void)
{
}
module_exit(kgr_test_symref_exit);

MODULE_LICENSE(KGR_TEST_SYMREF_LICENSE);
MODULE_INFO(kgraft, "Y");
