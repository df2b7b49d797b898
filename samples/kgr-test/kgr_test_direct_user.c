// SPDX-License-Identifier: GPL-2.0
/*
 * kgr_test_direct_user -- another user of ftrace's direct calls, as a BPF
 * trampoline is one, without BPF: at load it attaches a direct call to
 * the function named by 'fn' (kgr_test_fn_direct_share unless set) with
 * register_ftrace_direct_multi(), and takes it off at unload. Its
 * trampoline counts the calls ('calls') and returns to the address on
 * top of its stack: the function's body, or the code that a handler
 * sharing the function chose (kGraft's, or livepatch's). Like BPF's, its
 * ops_func accepts to share the function with such a handler.
 *
 * A load that ftrace refuses fails with ftrace's error (EBUSY: another
 * direct call is there).
 */
#include <linux/ftrace.h>
#include <linux/module.h>
#include <linux/string.h>
#include <asm/asm.h>
#include <asm/linkage.h>

static char *fn = "kgr_test_fn_direct_share";
module_param(fn, charp, 0400);
MODULE_PARM_DESC(fn, "the function to attach a direct call to");

static atomic_t calls = ATOMIC_INIT(0);
module_param_named(calls, calls.counter, int, 0400);
MODULE_PARM_DESC(calls, "calls seen by the direct call");

void kgr_test_du_count(void);
void kgr_test_du_count(void)
{
	atomic_inc(&calls);
}

void kgr_test_du_tramp(void);

/*
 * Entered with the return address into the function (or the handler's
 * choice) on top of the stack, and the function's arguments in their
 * registers, which survive the C call. 16-byte aligned: bit 0 of a direct
 * call's address would mean that the fentry site jumps to it.
 */
asm(
"	.pushsection	.text, \"ax\", @progbits\n"
"	.balign		16\n"
"	.type		kgr_test_du_tramp, @function\n"
"	.globl		kgr_test_du_tramp\n"
"kgr_test_du_tramp:\n"
	ASM_ENDBR
"	pushq	%rbp\n"
"	movq	%rsp, %rbp\n"
"	pushq	%rdi\n"
"	pushq	%rsi\n"
"	pushq	%rdx\n"
"	pushq	%rcx\n"
"	pushq	%r8\n"
"	pushq	%r9\n"
"	pushq	%rax\n"
"	call	kgr_test_du_count\n"
"	popq	%rax\n"
"	popq	%r9\n"
"	popq	%r8\n"
"	popq	%rcx\n"
"	popq	%rdx\n"
"	popq	%rsi\n"
"	popq	%rdi\n"
"	leave\n"
	ASM_RET
"	.size		kgr_test_du_tramp, .-kgr_test_du_tramp\n"
"	.popsection\n"
);

/* a handler that modifies the instruction pointer may join, or be there */
static int kgr_test_du_ops_func(struct ftrace_ops *op, enum ftrace_ops_cmd cmd)
{
	return 0;
}

static struct ftrace_ops kgr_test_du_ops = {
	.ops_func = kgr_test_du_ops_func,
};

static int __init kgr_test_du_init(void)
{
	char *name;
	int err;

	/* ftrace_set_filter() takes a writable buffer */
	name = kstrdup(fn, GFP_KERNEL);
	if (!name)
		return -ENOMEM;
	err = ftrace_set_filter(&kgr_test_du_ops, name, strlen(name), 0);
	kfree(name);
	if (err) {
		pr_err("kgr_test_direct_user: no function %s (%d)\n", fn, err);
		return err;
	}
	err = register_ftrace_direct_multi(&kgr_test_du_ops,
					   (unsigned long)kgr_test_du_tramp);
	if (err) {
		pr_err("kgr_test_direct_user: no direct call on %s (%d)\n",
		       fn, err);
		ftrace_free_filter(&kgr_test_du_ops);
		return err;
	}
	pr_info("kgr_test_direct_user: %s is called through kgr_test_du_tramp\n",
		fn);
	return 0;
}

static void __exit kgr_test_du_exit(void)
{
	unregister_ftrace_direct_multi(&kgr_test_du_ops,
				       (unsigned long)kgr_test_du_tramp);
	ftrace_free_filter(&kgr_test_du_ops);
}

module_init(kgr_test_du_init);
module_exit(kgr_test_du_exit);
MODULE_DESCRIPTION("another user of ftrace's direct calls, for the kGraft tests");
MODULE_LICENSE("GPL");
