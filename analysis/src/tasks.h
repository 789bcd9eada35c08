/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Who counted: the vm_event_count deltas between the snapshots summed per (task, item), the
 * task being the event's common_pid. Like DTrace's `@[execname] = sum(arg0)` over vminfo.
 * The table is a hash map whose size is the number of distinct (pid, item) pairs, whatever
 * the trace's length; each replay thread keeps its own, merged at the end.
 */
#ifndef VMSTAT_AUDIT_TASKS_H
#define VMSTAT_AUDIT_TASKS_H

#include <stdbool.h>
#include <stddef.h>

#include "types.h"

struct task_count {
	int pid, item;		/* item -1: an empty slot */
	u64 sum;		/* modulo 2^64, as the counters */
};

struct task_table {
	struct task_count *slot;
	size_t cap, n;
	bool lost;		/* out of memory: the table is incomplete */
};

/*
 * task_add - adds delta to the (pid, item) pair's sum (t->lost when out of memory);
 * task_merge - adds every pair of from into into; task_free - frees the table.
 */
void task_add(struct task_table *t, int pid, int item, u64 delta);
void task_merge(struct task_table *into, const struct task_table *from);
void task_free(struct task_table *t);
/*
 * task_sorted - the pairs of one item (or every pair: item -1), largest sum first; NULL when
 * empty or out of memory.
 */
struct task_count *task_sorted(const struct task_table *t, int item, size_t *n);

#endif
