// SPDX-License-Identifier: GPL-2.0
#include "tasks.h"

#include <stdint.h>
#include <stdlib.h>

static size_t slot_of(int pid, int item, size_t cap)
{
	uint64_t h = ((uint64_t)(uint32_t)pid << 16 ^ (uint64_t)(uint32_t)item) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 32) & (cap - 1);
}

static bool grow(struct task_table *t)
{
	size_t cap = t->cap ? 2 * t->cap : 1024;
	struct task_count *s = malloc(cap * sizeof(*s));

	if (!s)
		return false;
	for (size_t i = 0; i < cap; i++)
		s[i].item = -1;
	for (size_t i = 0; i < t->cap; i++) {
		size_t k;

		if (t->slot[i].item < 0)
			continue;
		for (k = slot_of(t->slot[i].pid, t->slot[i].item, cap); s[k].item >= 0; k = (k + 1) & (cap - 1))
			;
		s[k] = t->slot[i];
	}
	free(t->slot);
	t->slot = s;
	t->cap = cap;
	return true;
}

void task_add(struct task_table *t, int pid, int item, u64 delta)
{
	size_t k;

	if (item < 0)
		return;
	if ((t->n + 1) * 2 > t->cap && !grow(t)) {
		t->lost = true;
		return;
	}
	for (k = slot_of(pid, item, t->cap); t->slot[k].item >= 0; k = (k + 1) & (t->cap - 1))
		if (t->slot[k].pid == pid && t->slot[k].item == item) {
			t->slot[k].sum += delta;
			return;
		}
	t->slot[k] = (struct task_count){ .pid = pid, .item = item, .sum = delta };
	t->n++;
}

void task_merge(struct task_table *into, const struct task_table *from)
{
	for (size_t i = 0; i < from->cap; i++)
		if (from->slot[i].item >= 0)
			task_add(into, from->slot[i].pid, from->slot[i].item, from->slot[i].sum);
	into->lost |= from->lost;
}

void task_free(struct task_table *t)
{
	free(t->slot);
	t->slot = NULL;
	t->cap = t->n = 0;
}

static int by_sum(const void *a, const void *b)
{
	const struct task_count *x = a, *y = b;
	/* Largest first, read as signed moves; then by pid for a stable order. */
	long long sx = (long long)x->sum, sy = (long long)y->sum;

	if (sx != sy)
		return sx > sy ? -1 : 1;
	if (x->item != y->item)
		return x->item < y->item ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

struct task_count *task_sorted(const struct task_table *t, int item, size_t *n)
{
	struct task_count *out;
	size_t m = 0;

	*n = 0;
	if (!t->n)
		return NULL;
	out = malloc(t->n * sizeof(*out));
	if (!out)
		return NULL;
	for (size_t i = 0; i < t->cap; i++)
		if (t->slot[i].item >= 0 && (item < 0 || t->slot[i].item == item))
			out[m++] = t->slot[i];
	qsort(out, m, sizeof(*out), by_sum);
	*n = m;
	return out;
}
