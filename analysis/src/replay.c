// SPDX-License-Identifier: GPL-2.0
#include "replay.h"

#include <stdlib.h>
#include <string.h>

int replay_init(struct replay *r, int ncpus, int nitems)
{
	memset(r, 0, sizeof(*r));
	r->ncpus = ncpus;
	r->nitems = nitems;
	r->bin_ns = BIN_NS;
	r->mask = ~0ULL;
	r->cpu = calloc((size_t)ncpus, sizeof(*r->cpu));
	if (!r->cpu)
		return -1;
	for (int c = 0; c < ncpus; c++) {
		struct cpu_replay *s = &r->cpu[c];
		size_t n = (size_t)nitems;

		s->snap1 = calloc(n, sizeof(u64));
		s->snap2 = calloc(n, sizeof(u64));
		s->cur = calloc(n, sizeof(u64));
		s->traced = calloc(n, sizeof(u64));
		s->fold_net = calloc(n, sizeof(u64));
		s->under = calloc(n, sizeof(u64));
		s->over = calloc(n, sizeof(u64));
		s->div_ts = calloc(n, sizeof(u64));
		s->div_site = calloc(n, 1);
		s->reset = calloc(n, 1);
		s->last_ts = calloc(n, sizeof(u64));
		s->breaks = calloc(n, sizeof(u64));
		s->brk_from = calloc(n, sizeof(u64));
		s->brk_to = calloc(n, sizeof(u64));
		s->accounted = calloc(n, sizeof(u64));
		s->credit = calloc(n, sizeof(u64));
		s->over_open = calloc(n, sizeof(u64));
		s->run_sum = calloc(n, sizeof(u64));
		s->run_mark = calloc(n, 1);
		s->touched = calloc(n, sizeof(int));
		if (!s->snap1 || !s->snap2 || !s->cur || !s->traced || !s->fold_net ||
		    !s->under || !s->over || !s->div_ts || !s->div_site || !s->reset || !s->last_ts ||
		    !s->breaks || !s->brk_from || !s->brk_to || !s->accounted || !s->credit || !s->over_open ||
		    !s->run_sum || !s->run_mark || !s->touched)
			return -1;
	}
	for (int m = 0; m < 4; m++) {
		r->marker[m].total = calloc((size_t)nitems, sizeof(u64));
		if (!r->marker[m].total)
			return -1;
	}
	return 0;
}

void replay_free(struct replay *r)
{
	if (r->cpu) {
		for (int c = 0; c < r->ncpus; c++) {
			struct cpu_replay *s = &r->cpu[c];

			free(s->snap1);
			free(s->snap2);
			free(s->cur);
			free(s->traced);
			free(s->fold_net);
			free(s->under);
			free(s->over);
			free(s->div_ts);
			free(s->div_site);
			free(s->reset);
			free(s->last_ts);
			free(s->breaks);
			free(s->brk_from);
			free(s->brk_to);
			free(s->accounted);
			free(s->credit);
			free(s->over_open);
			free(s->bins);
			free(s->brk);
			free(s->run_sum);
			free(s->run_mark);
			free(s->touched);
		}
	}
	free(r->cpu);
	free(r->brk);
	task_free(&r->tasks);
	for (int m = 0; m < 4; m++)
		free(r->marker[m].total);
	memset(r, 0, sizeof(*r));
}

static bool valid(const struct replay *r, int cpu, int item)
{
	return cpu >= 0 && cpu < r->ncpus && item >= 0 && item < r->nitems;
}

void replay_seen(struct replay *r, int cpu, u64 ts)
{
	if (cpu < 0 || cpu >= r->ncpus)
		return;
	r->cpu[cpu].seen = true;
	r->records++;
	if (!r->first_ts || ts < r->first_ts)
		r->first_ts = ts;
}

static void halve_bins(struct cpu_replay *s, int nitems)
{
	for (int i = 0; i < nitems; i++) {
		unsigned int *h = s->bins + (size_t)i * MAX_BINS;

		for (int k = 0; k < MAX_BINS / 2; k++) {
			u64 sum = (u64)h[2 * k] + h[2 * k + 1];

			h[k] = sum > 0xffffffffu ? 0xffffffffu : (unsigned int)sum;
		}
		memset(h + MAX_BINS / 2, 0, MAX_BINS / 2 * sizeof(*h));
	}
	s->bin_ns *= 2;
	s->nbins = (s->nbins + 1) / 2;
	s->bin_lo = s->bin_hi = 0;
}

/*
 * Histogram of activity for the SVG, only for the first SVG_CPUS CPUs (the ones it draws), so
 * that memory does not grow with the CPU count. Each CPU halves its own resolution when the
 * trace outgrows MAX_BINS; replay_finish_bins() brings them to one resolution. Halving is
 * exact (bin k at 2w is bins 2k and 2k+1 at w), so the result does not depend on the order
 * the CPUs were read in.
 */
static void bin_add(struct replay *r, int cpu, int item, u64 ts, u64 n)
{
	struct cpu_replay *s = &r->cpu[cpu];
	u64 b;

	if (cpu >= SVG_CPUS || ts < r->first_ts)
		return;
	if (!s->bins) {
		s->bins = calloc((size_t)r->nitems * MAX_BINS, sizeof(unsigned int));
		if (!s->bins) {
			r->bins_lost = true;
			return;
		}
		s->bin_ns = BIN_NS;
	}
	/* Consecutive events mostly fall in one bin: divide only when ts leaves it. */
	if (ts >= s->bin_lo && ts < s->bin_hi) {
		b = s->bin_cur;
	} else {
		b = (ts - r->first_ts) / s->bin_ns;
		while (b >= MAX_BINS) {
			halve_bins(s, r->nitems);
			b = (ts - r->first_ts) / s->bin_ns;
		}
		if ((int)b + 1 > s->nbins)
			s->nbins = (int)b + 1;
		s->bin_cur = (unsigned int)b;
		s->bin_lo = r->first_ts + b * s->bin_ns;
		if (__builtin_add_overflow(s->bin_lo, s->bin_ns, &s->bin_hi))
			s->bin_hi = ~0ULL;
	}
	s->bins[(size_t)item * MAX_BINS + b] += (unsigned int)(n > 0xffffffffu ? 0xffffffffu : n);
}

void replay_finish_bins(struct replay *r)
{
	r->bin_ns = BIN_NS;
	r->nbins = 0;
	for (int c = 0; c < r->ncpus && c < SVG_CPUS; c++)
		if (r->cpu[c].bins && r->cpu[c].bin_ns > r->bin_ns)
			r->bin_ns = r->cpu[c].bin_ns;
	for (int c = 0; c < r->ncpus && c < SVG_CPUS; c++) {
		struct cpu_replay *s = &r->cpu[c];

		if (!s->bins)
			continue;
		while (s->bin_ns < r->bin_ns)
			halve_bins(s, r->nitems);
		if (s->nbins > r->nbins)
			r->nbins = s->nbins;
	}
}

/* The replay says REPLAYED where the counter says COUNTER (modulo 2^64). */
static void diverged(const struct replay *r, struct cpu_replay *s, int item, u64 replayed,
		     u64 counter, enum divergence_site site, u64 ts)
{
	u64 diff = replay_wrap(r, replayed - counter);

	if (!diff)
		return;
	if (mod_negative(diff)) {
		s->over[item] = sat_add(s->over[item], 0 - diff);
		if (s->folded)
			s->over_open[item] = sat_add(s->over_open[item], 0 - diff);
	}
	else
		s->under[item] = sat_add(s->under[item], diff);
	if (s->div_site[item] == DIV_NONE) {
		s->div_site[item] = (unsigned char)site;
		s->div_ts[item] = ts;
	}
}

/*
 * Between the last point this item's counter was known at and ts, the counter reached
 * counter where the events say replayed: a located break. The difference is added to the
 * CPU's under/over as any divergence, and the replay goes on from the counter, so that each
 * missing count is reported once, at its own break.
 */
static void cont_break(struct replay *r, int cpu, int item, u64 replayed, u64 counter, u64 ts)
{
	struct cpu_replay *s = &r->cpu[cpu];
	struct cont_break *b;
	u64 moved = replay_wrap(r, counter - replayed);

	/* Counts an earlier vm_event_untraced reported for this CPU and item explain it. */
	if (!mod_negative(moved) && s->credit[item]) {
		u64 use = moved < s->credit[item] ? moved : s->credit[item];

		s->credit[item] -= use;
		s->accounted[item] += use;
		replayed = (replayed + use) & r->mask;
		if (replayed == counter)
			return;
	}
	if (!s->breaks[item]++) {
		s->brk_from[item] = s->last_ts[item];
		s->brk_to[item] = ts;
	}

	r->nbreaks++;
	diverged(r, s, item, replayed, counter, DIV_BREAK, ts);
	if (s->nbrk >= MAX_LISTED_BREAKS)
		return;
	if (!s->brk) {
		s->brk = calloc(MAX_LISTED_BREAKS, sizeof(*s->brk));
		if (!s->brk) {
			r->brk_list_lost = true;
			return;
		}
	}
	b = &s->brk[s->nbrk++];
	b->cpu = cpu;
	b->item = item;
	b->from = s->last_ts[item];
	b->to = ts;
	b->moved = replay_wrap(r, counter - replayed);
}

/*
 * Counts that moved on CPU while it was not in cpu_online_mask, reported exactly after the
 * fact (on that CPU before its first traced update once online, in its next snapshot, or
 * before its fold). They explain the positive breaks already found for this CPU and item,
 * latest first; what remains is credit for the break still to come (the event, snapshot or
 * fold right after this report).
 */
static bool all_zero(const u64 *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (v[i])
			return false;
	return true;
}

void replay_untraced(struct replay *r, int cpu, int item, long long delta, u64 ts)
{
	struct cpu_replay *s;
	u64 d = (u64)delta, use;

	if (!valid(r, cpu, item)) {
		r->unknown_items++;
		return;
	}
	s = &r->cpu[cpu];
	if (s->phase != BETWEEN_SNAPS)
		return;		/* before tag 1 the snapshot holds it; after tag 2 nothing is checked */
	r->untraced_reports++;
	/* Not known to be offline: the next fold of this CPU or its next record decides. */
	if (!s->folded && all_zero(s->cur, (size_t)r->nitems))
		s->untraced_zero++;
	else if (!s->folded && !s->untraced_pending++) {
		s->pending_ts = ts;
		s->pending_item = item;
	}
	if (mod_negative(d)) {
		s->credit[item] += d;	/* never produced by the kernel: left for the checks */
		return;
	}
	/*
	 * Counts that moved while the CPU was offline show after a fold out of it: only a break
	 * found since then can be theirs (not one between two records of it while it was online).
	 */
	use = s->over_open[item] < d ? s->over_open[item] : d;
	s->over_open[item] -= use;
	s->over[item] -= use;
	s->accounted[item] += use;
	s->credit[item] += d - use;
	/* The listed breaks it explains, latest first. */
	for (size_t k = s->nbrk; use && k-- > 0;) {
		struct cont_break *b = &s->brk[k];
		u64 open;

		if (b->item != item || mod_negative(b->moved) || !s->folded || b->to < s->fold_ts)
			continue;
		open = b->moved - b->accounted;
		if (open > use)
			open = use;
		b->accounted += open;
		use -= open;
	}
}

/* A record on this CPU at ts: it was online, so the reports still pending were not. */
static void untraced_refute(struct cpu_replay *s, u64 ts)
{
	if (!s->untraced_refuted) {
		s->refuted_ts = s->pending_ts;
		s->refuted_item = s->pending_item;
		s->refuted_by = ts;
	}
	s->untraced_refuted = sat_add(s->untraced_refuted, s->untraced_pending);
	s->untraced_pending = 0;
}

/*
 * A break after the tag-2 snapshot (the replay /proc/vmstat copy 2 is judged by goes on from
 * the counter), kept in tail[0] when the counter is above the replay, tail[1] below. Above it
 * after a fold of this CPU: counts that moved while it was not
 * online, which no snapshot after tag 2 reports (not proven).
 */
static void tail_break(const struct replay *r, struct cpu_replay *s, int item, u64 replayed,
		       u64 counter, u64 ts)
{
	u64 moved = replay_wrap(r, counter - replayed);
	struct tail_breaks *t = &s->tail[mod_negative(moved)];

	if (s->folded && !mod_negative(moved)) {
		s->tail_unsure++;
		return;
	}
	if (!t->n++) {
		t->item = item;
		t->from = s->last_ts[item];
		t->to = ts;
		t->moved = moved;
	}
}

/* Checks an event's counter field against the replay, then moves the replay to it. */
static inline __attribute__((always_inline)) void cont_check(struct replay *r, int cpu, int item,
							  u64 replayed, const u64 *counter, u64 ts)
{
	struct cpu_replay *s = &r->cpu[cpu];
	u64 prev = s->cur[item];

	s->cur[item] = replayed;
	if (counter && s->phase == AFTER_SNAP2 && *counter != replayed) {
		tail_break(r, s, item, replayed, *counter, ts);
		s->cur[item] = *counter;
	}
	if (counter && s->phase == AFTER_SNAP2)
		s->last_ts[item] = ts;
	if (!counter || s->phase != BETWEEN_SNAPS)
		return;
	r->events_checked++;
	if (*counter != replayed) {
		/* Below where it was at the last point: only a fold out of this CPU does that. */
		if (mod_negative(replay_wrap(r, *counter - prev)))
			s->reset[item] = 1;
		cont_break(r, cpu, item, replayed, *counter, ts);
		s->cur[item] = *counter;
	}
	s->last_ts[item] = ts;
}

void replay_flush_tasks(struct replay *r, int cpu)
{
	struct cpu_replay *s;

	if (cpu < 0 || cpu >= r->ncpus)
		return;
	s = &r->cpu[cpu];
	for (int k = 0; k < s->ntouched; k++) {
		int i = s->touched[k];

		task_add(&r->tasks, s->run_pid, i, s->run_sum[i]);
		s->run_sum[i] = 0;
		s->run_mark[i] = 0;
	}
	s->ntouched = 0;
}

void replay_count(struct replay *r, int cpu, int item, long long delta, const u64 *counter, u64 ts,
		  int pid)
{
	struct cpu_replay *s;

	if (!valid(r, cpu, item)) {
		r->unknown_items++;
		return;
	}
	s = &r->cpu[cpu];
	s->events++;
	if (s->untraced_pending)
		untraced_refute(s, ts);
	if (s->phase == BEFORE_SNAP1)
		return;
	/* After tag 2 the replay goes on, for the /proc/vmstat copy read after it. */
	cont_check(r, cpu, item, (s->cur[item] + (u64)delta) & r->mask, counter, ts);
	if (s->phase != BETWEEN_SNAPS)
		return;
	s->events_in_window++;
	s->traced[item] += (u64)delta;
	if (pid != s->run_pid) {
		replay_flush_tasks(r, cpu);
		s->run_pid = pid;
	}
	s->run_sum[item] += (u64)delta;
	if (!s->run_mark[item]) {
		s->run_mark[item] = 1;
		s->touched[s->ntouched++] = item;
	}
	bin_add(r, cpu, item, ts, delta < 0 ? 0 : (u64)delta);
}

/*
 * Recorded on the receiving CPU once the dead CPU is gone: its counts move
 * here. The dead CPU's replay must hold exactly the folded value, and is
 * zero afterwards, as the kernel's counter is. The two halves touch one CPU
 * each, so that a per-CPU reader can apply each on its own CPU's thread.
 */
void replay_fold(struct replay *r, int cpu, int dead, int item, u64 value, const u64 *counter, u64 ts)
{
	if (!valid(r, cpu, item) || dead < 0 || dead >= r->ncpus) {
		r->unknown_items++;
		return;
	}
	replay_fold_in(r, cpu, item, value, counter, ts);
	replay_fold_out(r, dead, item, value, ts);
}

void replay_fold_in(struct replay *r, int cpu, int item, u64 value, const u64 *counter, u64 ts)
{
	struct cpu_replay *to = &r->cpu[cpu];

	to->folds_in++;
	if (to->untraced_pending)
		untraced_refute(to, ts);
	if (to->phase != BEFORE_SNAP1)
		cont_check(r, cpu, item, (to->cur[item] + value) & r->mask, counter, ts);
	if (to->phase == BETWEEN_SNAPS)
		to->fold_net[item] += value;
}

void replay_fold_out(struct replay *r, int dead, int item, u64 value, u64 ts)
{
	struct cpu_replay *from = &r->cpu[dead];

	from->folds_out++;
	/* It is dead: the reports before this fold fell while it was offline, and so do those
	 * up to its next snapshot. */
	from->untraced_pending = 0;
	from->folded = true;
	from->fold_ts = ts;
	if (from->phase == BETWEEN_SNAPS) {
		/* With counter fields, a fold that finds other than the replay is a located break. */
		if (r->have_counter && from->cur[item] != value)
			cont_break(r, dead, item, from->cur[item], value, ts);
		else
			diverged(r, from, item, from->cur[item], value, DIV_FOLD, ts);
	}
	if (from->phase != BEFORE_SNAP1) {
		/* After its tag-2 snapshot nothing is checked: the replay only goes on (to zero). */
		from->cur[item] = 0;
		from->last_ts[item] = ts;
	}
	if (from->phase == BETWEEN_SNAPS) {
		from->fold_net[item] -= value;
		from->folds_out_in_window++;
	}
}

int replay_snapshot(struct replay *r, int cpu, unsigned int tag, const u64 *values, size_t n, u64 ts)
{
	struct cpu_replay *s;

	if (cpu < 0 || cpu >= r->ncpus)
		return 0;
	if (n != (size_t)r->nitems)
		return -1;
	s = &r->cpu[cpu];
	if (s->untraced_pending)
		untraced_refute(s, ts);
	s->folded = false;
	memset(s->over_open, 0, n * sizeof(u64));
	if (tag == 1) {
		if (s->phase != BEFORE_SNAP1) {
			s->snap1_dup = true;
			return 0;
		}
		memcpy(s->snap1, values, n * sizeof(u64));
		memcpy(s->cur, values, n * sizeof(u64));
		for (size_t i = 0; i < n; i++)
			s->last_ts[i] = ts;
		s->snap1_ts = ts;
		s->phase = BETWEEN_SNAPS;
	} else if (tag == 2) {
		if (s->phase == AFTER_SNAP2) {
			s->snap2_dup = true;
			return 0;
		}
		if (s->phase == BEFORE_SNAP1)
			return 0;	/* no start point: reported as a missing snapshot */
		memcpy(s->snap2, values, n * sizeof(u64));
		s->snap2_ts = ts;
		for (int i = 0; i < r->nitems; i++) {
			if (s->cur[i] == values[i])
				continue;
			if (r->have_counter)
				cont_break(r, cpu, i, s->cur[i], values[i], ts);
			else
				diverged(r, s, i, s->cur[i], values[i], DIV_SNAP2, ts);
		}
		s->phase = AFTER_SNAP2;
		/* Go on from the counters, so a loss is reported once, here. */
		memcpy(s->cur, values, n * sizeof(u64));
		for (size_t i = 0; i < n; i++)
			s->last_ts[i] = ts;
	}
	return 0;
}

void replay_marker(struct replay *r, int which, u64 ts)
{
	struct marker_totals *m;

	if (which < 0 || which > 3)
		return;
	m = &r->marker[which];
	m->count++;
	if (m->seen)
		return;
	m->seen = true;
	m->ts = ts;
	m->complete = true;
	memset(m->total, 0, (size_t)r->nitems * sizeof(u64));
	for (int c = 0; c < r->ncpus; c++) {
		const struct cpu_replay *s = &r->cpu[c];
		const u64 *v;

		if (s->phase != BEFORE_SNAP1)
			v = s->cur;
		else {
			if (s->seen)
				m->complete = false;
			continue;
		}
		for (int i = 0; i < r->nitems; i++)
			m->total[i] += v[i];
	}
}

void replay_missed(struct replay *r, int cpu, long long missed)
{
	if (cpu < 0 || cpu >= r->ncpus)
		return;
	if (missed < 0)
		r->cpu[cpu].lost_unknown = true;
	else
		r->cpu[cpu].missed = sat_add(r->cpu[cpu].missed, (u64)missed);
}

static int break_order(const void *a, const void *b)
{
	const struct cont_break *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	if (x->item != y->item)
		return x->item < y->item ? -1 : 1;
	return x->from < y->from ? -1 : x->from > y->from;
}

void replay_sort_breaks(struct replay *r)
{
	size_t total = 0;

	free(r->brk);
	r->brk = NULL;
	r->nlisted = 0;
	/* CPU by CPU: the list is every CPU's breaks in CPU order, cut at MAX_LISTED_BREAKS. */
	for (int c = 0; c < r->ncpus && total < MAX_LISTED_BREAKS; c++)
		total += r->cpu[c].nbrk;
	if (!total)
		return;
	r->brk = calloc(total, sizeof(*r->brk));
	if (!r->brk) {
		r->brk_list_lost = true;
		return;
	}
	for (int c = 0; c < r->ncpus && r->nlisted < total; c++) {
		if (!r->cpu[c].nbrk)
			continue;
		memcpy(r->brk + r->nlisted, r->cpu[c].brk, r->cpu[c].nbrk * sizeof(*r->brk));
		r->nlisted += r->cpu[c].nbrk;
	}
	qsort(r->brk, r->nlisted, sizeof(*r->brk), break_order);
	if (r->nlisted > MAX_LISTED_BREAKS)
		r->nlisted = MAX_LISTED_BREAKS;
}
