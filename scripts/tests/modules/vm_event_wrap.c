// SPDX-License-Identifier: GPL-2.0
/*
 * vm_event_wrap - a fixture for recordings on 32-bit kernels: moves the
 * loading CPU's drop_slab counter past 2^32 inside the recording window.
 *
 * An unsigned long counter wraps at 2^32 there, and nothing a workload
 * does moves a counter that far in seconds: this module counts LONG_MAX
 * (2^31 - 1) @steps times on one CPU through count_vm_events(), the same
 * header inline every caller uses, so each update is traced as any other.
 * drop_slab is counted only by writes to /proc/sys/vm/drop_caches (the
 * stress writes some), one at a time.  Built outside the kernel tree by
 * scripts/tests/87-arch-runs; not part of any series.
 */
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/smp.h>
#include <linux/vmstat.h>

static unsigned int steps = 3;
module_param(steps, uint, 0444);
MODULE_PARM_DESC(steps, "how many times to count LONG_MAX drop_slab events");

static int __init vm_event_wrap_init(void)
{
	unsigned long before, prev, now;
	unsigned int i, wraps = 0;
	int cpu;

	preempt_disable();
	cpu = smp_processor_id();
	before = this_cpu_read(vm_event_states.event[DROP_SLAB]);
	prev = before;
	for (i = 0; i < steps; i++) {
		count_vm_events(DROP_SLAB, LONG_MAX);
		now = this_cpu_read(vm_event_states.event[DROP_SLAB]);
		/* A step adds less than ULONG_MAX: a smaller result wrapped. */
		wraps += now < prev;
		prev = now;
	}
	preempt_enable();
	pr_info("vm_event_wrap: cpu%d drop_slab %lu -> %lu (%u x %ld, %u wrap(s))\n",
		cpu, before, prev, steps, LONG_MAX, wraps);
	return 0;
}
module_init(vm_event_wrap_init);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Moves one CPU's drop_slab vm event counter past 2^32 (test fixture)");
