// SPDX-License-Identifier: GPL-2.0
/*
 * percpu_bench: the cost of one counter update done the ways the kernel has
 * done it, side by side on one kernel. Out of tree on purpose: it measures,
 * it does not belong in the series. Loading it runs every case and prints
 *   percpu_bench: case=NAME rep=R ns_per_op=X.XXX
 * then fails the load with -EAGAIN so nothing stays behind.
 */
#include <linux/atomic.h>
#include <linux/irqflags.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/smp.h>

static unsigned long iterations = 2000000;
module_param(iterations, ulong, 0444);
static unsigned int reps = 5;
module_param(reps, uint, 0444);

static DEFINE_PER_CPU(unsigned long, bench_counter);
static atomic_long_t bench_shared;

struct bench_case {
	const char *name;
	void (*run)(unsigned long n);
};

static noinline void run_get_cpu_var(unsigned long n)
{
	while (n--) {
		get_cpu_var(bench_counter)++;
		put_cpu_var(bench_counter);
	}
}

static noinline void run_this_cpu_inc(unsigned long n)
{
	while (n--)
		this_cpu_inc(bench_counter);
}

static noinline void run___this_cpu_inc(unsigned long n)
{
	preempt_disable();
	while (n--)
		__this_cpu_inc(bench_counter);
	preempt_enable();
}

static noinline void run_irqsave_inc(unsigned long n)
{
	unsigned long flags;

	while (n--) {
		local_irq_save(flags);
		__this_cpu_inc(bench_counter);
		local_irq_restore(flags);
	}
}

static noinline void run_atomic_inc(unsigned long n)
{
	while (n--)
		atomic_long_inc(&bench_shared);
}

static noinline void run_add_return(unsigned long n)
{
	unsigned long sink = 0;

	while (n--)
		sink += this_cpu_add_return(bench_counter, 1);
	OPTIMIZER_HIDE_VAR(sink);
}

static noinline void run_this_cpu_xor(unsigned long n)
{
	while (n--)
		this_cpu_xor(bench_counter, n);
}

static const struct bench_case cases[] = {
	{ "get_cpu_var_inc", run_get_cpu_var },
	{ "this_cpu_inc", run_this_cpu_inc },
	{ "__this_cpu_inc_preempt_off", run___this_cpu_inc },
	{ "irqsave___this_cpu_inc", run_irqsave_inc },
	{ "atomic_long_inc_one_cpu", run_atomic_inc },
	{ "this_cpu_add_return", run_add_return },
	{ "this_cpu_xor", run_this_cpu_xor },
};

/* Every online CPU increments the one shared counter at the same time. */
static void all_cpus_atomic(void *info)
{
	run_atomic_inc(*(unsigned long *)info);
}

static int __init percpu_bench_init(void)
{
	unsigned int r;
	size_t i;

	for (r = 0; r < reps; r++) {
		for (i = 0; i < ARRAY_SIZE(cases); i++) {
			u64 t0 = ktime_get_ns(), t;

			cases[i].run(iterations);
			t = ktime_get_ns() - t0;
			pr_info("percpu_bench: case=%s rep=%u ns_per_op=%llu.%03llu\n", cases[i].name, r,
				t / iterations, (t % iterations) * 1000 / iterations);
		}
		{
			u64 t0 = ktime_get_ns(), t;

			on_each_cpu(all_cpus_atomic, &iterations, 1);
			t = ktime_get_ns() - t0;
			pr_info("percpu_bench: case=atomic_long_inc_all_cpus rep=%u ns_per_op=%llu.%03llu\n",
				r, t / iterations, (t % iterations) * 1000 / iterations);
		}
	}
	return -EAGAIN;
}
module_init(percpu_bench_init);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Cost of per-CPU counter updates, old and new ways");
