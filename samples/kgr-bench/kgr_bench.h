/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KGR_BENCH_H
#define KGR_BENCH_H

/*
 * kgr_bench_target provides KGR_BENCH_NFN + 1 identical functions
 * kgr_bench_fn_0() ... kgr_bench_fn_KGR_BENCH_NFN(), each counting its
 * calls and returning KGR_BENCH_OLD. Function 0 is never patched (the
 * baseline). kgr_bench_kgr_N (kGraft) and kgr_bench_klp_N (livepatch)
 * make function N return KGR_BENCH_NEW; each transition of the benchmark
 * patches a function of its own, because neither a kGraft patch nor a
 * livepatch on a function that kGraft patched can be undone.
 *
 * Functions 1 .. KGR_BENCH_NFN / 2 are kGraft's, the others livepatch's.
 */
#define KGR_BENCH_NFN	26

#define KGR_BENCH_OLD	1
#define KGR_BENCH_NEW	2

/* the wait in kgr_bench_gate(); the livepatch of the gate calls it too */
void kgr_bench_gate_wait(void);
void kgr_bench_gate(void);

#endif /* KGR_BENCH_H */
