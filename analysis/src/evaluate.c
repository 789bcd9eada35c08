// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"

int strlist_add(struct strlist *l, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s)
		return -1;
	if (l->n == l->cap) {
		size_t ncap = l->cap ? l->cap * 2 : 8;
		char **ns = realloc(l->s, ncap * sizeof(*ns));

		if (!ns) {
			free(s);
			return -1;
		}
		l->s = ns;
		l->cap = ncap;
	}
	l->s[l->n++] = s;
	return 0;
}

void strlist_free(struct strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->s[i]);
	free(l->s);
	memset(l, 0, sizeof(*l));
}

/*
 * The verdict is made of facts, not of how many messages were collected: proven() records a
 * finding that holds whatever else is doubtful (it makes the verdict INCONSISTENT), doubt()
 * something that may be missing (INCONCLUSIVE, unless something is proven), each with its
 * message.
 */
static void proven(struct audit *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void doubt(struct audit *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add_va(struct strlist *l, const char *fmt, va_list ap)
{
	char *s = NULL;

	if (vasprintf(&s, fmt, ap) < 0)
		return;		/* marked out of memory: no verdict is given (alloc.h) */
	strlist_add(l, "%s", s);
	free(s);
}

static void proven(struct audit *a, const char *fmt, ...)
{
	va_list ap;

	a->proven = true;
	va_start(ap, fmt);
	add_va(&a->inconsistent, fmt, ap);
	va_end(ap);
}

static void doubt(struct audit *a, const char *fmt, ...)
{
	va_list ap;

	a->doubtful = true;
	va_start(ap, fmt);
	add_va(&a->inconclusive, fmt, ap);
	va_end(ap);
}

const char *verdict_name(enum verdict v)
{
	switch (v) {
	case CONSISTENT:
		return "CONSISTENT";
	case INCONSISTENT:
		return "INCONSISTENT";
	case INCONCLUSIVE:
		return "INCONCLUSIVE";
	default:
		return "BAD INPUT";
	}
}

bool cpu_has_window(const struct audit *a, int cpu)
{
	return a->r.cpu[cpu].phase == AFTER_SNAP2;
}

/* The ring buffer lost events of this CPU (the file's statistics or a record say so). */
bool cpu_lost_events(const struct audit *a, int cpu)
{
	const struct cpu_replay *s = &a->r.cpu[cpu];
	const struct cpu_stats *st = &a->t.stats[cpu];

	/* loss_unseen: the reader could not see every page's missed flag, so any CPU may have. */
	return s->lost_unknown || s->missed > 0 || st->overrun || st->commit_overrun || st->dropped ||
	       !st->present || !st->complete || a->t.loss_unseen;
}

/* other_cpu_lost_events - whether a CPU other than CPU lost events (see cpu_lost_events()). */
bool other_cpu_lost_events(const struct audit *a, int cpu)
{
	return a->loss_cpus > (cpu_lost_events(a, cpu) ? 1 : 0);
}

u64 counter_delta(const struct audit *a, int cpu, int item)
{
	const struct cpu_replay *s = &a->r.cpu[cpu];

	if (!cpu_has_window(a, cpu))
		return 0;
	return replay_wrap(&a->r, s->snap2[item] - s->snap1[item]);
}

u64 replay_delta(const struct audit *a, int cpu, int item)
{
	const struct cpu_replay *s = &a->r.cpu[cpu];

	return replay_wrap(&a->r, s->traced[item] + s->fold_net[item]);
}

const char *fmt_difference(char buf[24], u64 under, u64 over)
{
	if (over >= under)
		snprintf(buf, 24, "%s%llu", over > under ? "+" : "", over - under);
	else
		snprintf(buf, 24, "-%llu", under - over);
	return buf;
}

static const char *item_name(const struct audit *a, int i)
{
	return a->t.item_names[i] ? a->t.item_names[i] : "(unnamed)";
}

/* /proc/vmstat prints these in KiB, the counters hold sectors: see vmstat_start() in mm/vmstat.c. */
static bool halved_in_proc(const char *name)
{
	return !strcmp(name, "pgpgin") || !strcmp(name, "pgpgout");
}

static void check_vmstat_copy(struct audit *a, int k)
{
	const struct marker_totals *lo = &a->r.marker[2 * k], *hi = &a->r.marker[2 * k + 1];
	int bad = 0, missing = 0;

	a->vm_status[k] = calloc((size_t)a->t.nitems, 1);
	if (!a->vm_status[k]) {
		doubt(a, "out of memory checking /proc/vmstat copy %d", k + 1);
		return;
	}
	if (!a->have_vm[k]) {
		memset(a->vm_status[k], VM_UNCHECKED, (size_t)a->t.nitems);
		doubt(a, "no /proc/vmstat copy %d: it was not checked", k + 1);
		return;
	}
	if (!lo->seen || !hi->seen || !lo->complete || !hi->complete) {
		memset(a->vm_status[k], VM_UNCHECKED, (size_t)a->t.nitems);
		doubt(a,
			    "/proc/vmstat copy %d cannot be bracketed: marker 'vmstat-%d %s' %s", k + 1, k + 1,
			    !lo->seen || !lo->complete ? "begin" : "end",
			    (!lo->seen || !hi->seen) ? "is missing from the trace"
						     : "came before some CPU's tag-1 snapshot");
		return;
	}
	/* The replayed totals hold every count only when no CPU can have lost any. */
	if (a->unsure_totals[0]) {
		doubt(a, "/proc/vmstat copy %d is not checked against the replayed totals: %s", k + 1,
		      a->unsure_totals);
		memset(a->vm_status[k], VM_UNCHECKED, (size_t)a->t.nitems);
		return;
	}
	for (int i = 0; i < a->t.nitems; i++) {
		const char *name = a->t.item_names[i];
		long idx;
		u64 v, l = lo->total[i], h = hi->total[i];

		if (!name)
			continue;
		idx = vmstat_find(&a->vm[k], name);
		if (idx < 0) {
			a->vm_status[k][i] = VM_MISSING;
			missing++;
			continue;
		}
		v = a->vm[k].values[idx];
		if (halved_in_proc(name)) {
			l /= 2;
			h /= 2;
		}
		if (v < l) {
			a->vm_status[k][i] = VM_BELOW;
			proven(a,
				    "/proc/vmstat copy %d: %s = %llu, below the replayed total %llu at the "
				    "marker before the read", k + 1, name, v, l);
			bad++;
		} else if (v > h) {
			a->vm_status[k][i] = VM_ABOVE;
			proven(a,
				    "/proc/vmstat copy %d: %s = %llu, above the replayed total %llu at the "
				    "marker after the read", k + 1, name, v, h);
			bad++;
		}
	}
	if (missing)
		proven(a, "/proc/vmstat copy %d lacks %d item(s) the trace names",
			    k + 1, missing);
}

/* The debugfs table printed after each snapshot must hold the values its events hold. */
static void check_snapshot_text(struct audit *a, int k)
{
	const struct snapshot_table *st = &a->st[k];
	int bad = 0;

	if (!a->have_st[k]) {
		doubt(a, "no snapshot table %d (--snapshot-%s): the debugfs table "
			    "check was not made", k + 1, k == 0 ? "before" : "after");
		return;
	}
	for (size_t c = 0; c < st->ncpus; c++) {
		int cpu = st->cpus[c];

		if (cpu < 0 || cpu >= a->r.ncpus || a->r.cpu[cpu].phase == BEFORE_SNAP1 ||
		    (k == 1 && a->r.cpu[cpu].phase != AFTER_SNAP2)) {
			doubt(a, "snapshot table %d names cpu%d, which has no "
				    "tag-%d snapshot event", k + 1, cpu, k + 1);
			continue;
		}
		for (size_t j = 0; j < st->nitems; j++) {
			const u64 *ev = k == 0 ? a->r.cpu[cpu].snap1 : a->r.cpu[cpu].snap2;
			int i;

			for (i = 0; i < a->t.nitems; i++)
				if (a->t.item_names[i] && !strcmp(a->t.item_names[i], st->names[j]))
					break;
			if (i == a->t.nitems)
				continue;	/* refused as bad input by audit_check_inputs() */
			if (st->values[j * st->ncpus + c] != ev[i] && bad++ < 5)
				proven(a, "snapshot table %d: cpu%d %s = %llu, its event "
					    "says %llu", k + 1, cpu, st->names[j],
					    st->values[j * st->ncpus + c], ev[i]);
		}
	}
}

static int item_index(const struct audit *a, const char *name)
{
	for (int i = 0; i < a->t.nitems; i++)
		if (a->t.item_names[i] && !strcmp(a->t.item_names[i], name))
			return i;
	return -1;
}

/* Whether a counter went down: its move modulo 2^64 is past half the range. */
static bool went_down_r(const struct replay *r, u64 from, u64 to)
{
	return mod_negative(replay_wrap(r, to - from));
}
#define went_down(from, to) went_down_r(&a->r, from, to)

int audit_check_inputs(struct audit *a, char *err, size_t errlen)
{
	static const char *const marker_name[] = {
		"vmstat-1 begin", "vmstat-1 end", "vmstat-2 begin", "vmstat-2 end",
	};
	const struct replay *r = &a->r;
	int named = 0, prev = -1;

	/*
	 * The recorder writes each marker once, in this order, around its two reads of
	 * /proc/vmstat: a copy is judged between the totals at its two markers, so a marker
	 * written twice or out of order brackets the copy wrongly. With a clock that does not
	 * order CPUs the copies are not judged at all (see audit_evaluate()).
	 */
	for (int m = 0; m < 4; m++) {
		if (r->marker[m].count > 1)
			return set_err(err, errlen, "%s: the trace marker 'percpu-vmstat: %s' is in the "
				       "trace %u times; the recorder writes it once (a damaged or edited "
				       "file: record again)", a->t.path, marker_name[m], r->marker[m].count);
		if (!r->marker[m].seen || !clock_orders_cpus(a->t.clock))
			continue;
		if (prev >= 0 && r->marker[m].ts < r->marker[prev].ts)
			return set_err(err, errlen, "%s: the trace marker 'percpu-vmstat: %s' (%.6f s) comes "
				       "before '%s' (%.6f s); the recorder writes them in the order "
				       "vmstat-1 begin, end, vmstat-2 begin, end (a damaged or edited file: "
				       "record again)", a->t.path, marker_name[m],
				       (double)r->marker[m].ts / 1e9, marker_name[prev],
				       (double)r->marker[prev].ts / 1e9);
		prev = m;
	}

	for (int i = 0; i < a->t.nitems; i++)
		named += a->t.item_names[i] != NULL;
	for (int k = 0; k < 2; k++) {
		const struct snapshot_table *st = &a->st[k];
		int missing = 0, first = -1;

		if (!a->have_st[k])
			continue;
		for (size_t j = 0; j < st->nitems; j++)
			if (item_index(a, st->names[j]) < 0)
				return set_err(err, errlen, "%s: line %zu: item '%.64s' is not in the trace's item "
					       "table (a table from another kernel or run?)", a->st_path[k],
					       st->lines[j], st->names[j]);
		for (int i = 0; i < a->t.nitems; i++) {
			bool found = false;

			if (!a->t.item_names[i])
				continue;
			for (size_t j = 0; j < st->nitems && !found; j++)
				found = !strcmp(st->names[j], a->t.item_names[i]);
			if (!found && missing++ == 0)
				first = i;
		}
		if (missing)
			return set_err(err, errlen, "%s: lacks %d of the %d items the trace names (first: '%s'): "
				       "a table cut short, or from another kernel", a->st_path[k], missing, named,
				       a->t.item_names[first]);
		for (int c = 0; c < r->ncpus; c++) {
			bool has_snap = k == 0 ? r->cpu[c].phase != BEFORE_SNAP1 : r->cpu[c].phase == AFTER_SNAP2;
			bool found = false;

			for (size_t j = 0; j < st->ncpus && !found; j++)
				found = st->cpus[j] == c;
			if (has_snap && !found)
				return set_err(err, errlen, "%s: line 2: no column for cpu%d, which has a tag-%d "
					       "snapshot in the trace (a column dropped?)", a->st_path[k], c, k + 1);
		}
	}
	for (int k = 0; k < 2; k++) {
		if (!a->have_vm[k])
			continue;
		for (int i = 0; i < a->t.nitems; i++)
			if (a->t.item_names[i] && vmstat_find(&a->vm[k], a->t.item_names[i]) < 0)
				return set_err(err, errlen, "%s: lacks '%s', which the trace's item table names "
					       "(a copy cut short, or from another kernel)", a->vm_path[k],
					       a->t.item_names[i]);
	}
	/*
	 * The two /proc/vmstat copies: the sums of event counters only grow, except for a moment
	 * while a CPU going down is out of cpu_online_mask and not yet folded. So one item lower
	 * in the second copy can be real; every item that changed lower is the copies swapped.
	 */
	if (a->have_vm[0] && a->have_vm[1]) {
		int up = 0, down = 0, first = -1;

		for (int i = 0; i < a->t.nitems; i++) {
			long k0, k1;

			if (!a->t.item_names[i])
				continue;
			k0 = vmstat_find(&a->vm[0], a->t.item_names[i]);
			k1 = vmstat_find(&a->vm[1], a->t.item_names[i]);
			if (a->vm[0].values[k0] < a->vm[1].values[k1])
				up++;
			else if (a->vm[0].values[k0] > a->vm[1].values[k1] && down++ == 0)
				first = i;
		}
		if (down && !up)
			return set_err(err, errlen, "%s and %s: every item that changed is lower in the second "
				       "(%d items, e.g. '%s'): the two copies swapped?", a->vm_path[0],
				       a->vm_path[1], down, a->t.item_names[first]);
	}
	/*
	 * A per-CPU counter only goes down when a fold moves it away. Recorded without the fold
	 * event, that is missing input; with its format in the file, the replay judges the move
	 * (a break, or a fold lost with another CPU's events: see audit_evaluate()).
	 */
	for (int c = 0; c < r->ncpus; c++) {
		const struct cpu_replay *s = &r->cpu[c];

		if (s->phase != AFTER_SNAP2 || a->t.id_fold < 0 || s->folds_out_in_window || !s->folds_out)
			continue;
		/*
		 * Folds of this CPU are in the file, none between its snapshots, yet a counter went
		 * down there: the timestamps of this CPU and of the CPUs that recorded its folds
		 * disagree (one CPU's clock shifted), the file's order, not the kernel's counts.
		 */
		for (int i = 0; i < a->t.nitems; i++)
			if (went_down(s->snap1[i], s->snap2[i]))
				return set_err(err, errlen, "%s: cpu%d %s went down from %llu at its tag-1 "
					       "snapshot (%.6f s) to %llu at its tag-2 snapshot (%.6f s), and "
					       "the %llu vm_event_fold events of cpu%d in the file all fall outside "
					       "that window: the timestamps of cpu%d and of the CPUs that recorded its "
					       "folds disagree (a CPU's clock shifted?)", a->t.path, c,
					       item_name(a, i), s->snap1[i], (double)s->snap1_ts / 1e9,
					       s->snap2[i], (double)s->snap2_ts / 1e9, s->folds_out, c, c);
	}
	for (int c = 0; c < r->ncpus && a->t.id_fold < 0; c++) {
		const struct cpu_replay *s = &r->cpu[c];

		if (s->phase != AFTER_SNAP2)
			continue;
		for (int i = 0; i < a->t.nitems; i++) {
			if (!went_down(s->snap1[i], s->snap2[i]) || s->folds_out_in_window)
				continue;
			return set_err(err, errlen, "%s: cpu%d %s went down from %llu at its tag-1 snapshot to "
				       "%llu at its tag-2 snapshot, but no vm_event_fold out of cpu%d was traced%s",
				       a->t.path, c, item_name(a, i), s->snap1[i], s->snap2[i], c,
				       " (the file has no vmstat:vm_event_fold format: record with "
				       "-e vmstat:vm_event_fold)");
		}
	}
	return 0;
}

void audit_evaluate(struct audit *a)
{
	const struct replay *r = &a->r;
	bool any_snap[3] = { false, false, false };
	bool clock_ok = clock_orders_cpus(a->t.clock);

	/* What makes the replayed global totals unsure (the /proc/vmstat check): the first reason. */
	for (int c = 0; c < r->ncpus; c++) {
		const struct cpu_replay *s = &r->cpu[c];

		if (cpu_lost_events(a, c)) {
			a->any_loss = true;
			a->loss_cpus++;
			if (!a->unsure_totals[0])
				snprintf(a->unsure_totals, sizeof(a->unsure_totals), "cpu%d may have lost "
					 "events (see above), so the totals may lack counts", c);
		} else if (!a->unsure_totals[0] && (!s->seen || (s->seen && s->phase != AFTER_SNAP2))) {
			snprintf(a->unsure_totals, sizeof(a->unsure_totals), "cpu%d has %s, so the totals "
				 "lack its counts", c, s->seen ? "no tag-1 and tag-2 snapshot pair" : "no records");
		}
	}
	if (!clock_ok && !a->unsure_totals[0])
		snprintf(a->unsure_totals, sizeof(a->unsure_totals), "the trace clock '%s' does not "
			 "place the markers among other CPUs' events", a->t.clock);

	if (a->t.reader_used[0])
		strlist_add(&a->notes, "read with %s", a->t.reader_used);
	if (a->t.loss_unseen)
		doubt(a, "lost events may be unseen: %s", a->t.loss_unseen);
	if (!strncmp(a->t.clock, "unknown", 7))
		doubt(a, "the trace clock is not readable from the file's options "
			    "(read from version 7 files with uncompressed options only): the order of "
			    "events across CPUs is not known (record with --compression none)");
	else if (!clock_orders_cpus(a->t.clock))
		doubt(a, "trace clock '%s' does not order events across CPUs (record with -C global "
		      "or mono): the folds, the vm_event_untraced reports and the /proc/vmstat markers "
		      "cannot be placed among other CPUs' events; a break between a CPU's own events "
		      "is still proven", a->t.clock);
	/*
	 * A count that moves on a CPU outside cpu_online_mask (its bring-up, its teardown) has
	 * no vm_event_count: the kernel reports it with vm_event_untraced. A file whose events
	 * carry the counter field comes from a kernel that does; recorded without that event,
	 * such a count and a lost event look the same.
	 */
	if (r->have_counter && a->t.id_untraced < 0)
		doubt(a, "recorded without vmstat:vm_event_untraced (the file has no format for it): "
		      "counts that moved on a CPU outside cpu_online_mask (bring-up, teardown) reach "
		      "the trace only through that event, so a break cannot be told from one of them "
		      "(record all four vmstat events, as tracing/record.sh does)");
	/* Likewise the fold: a dead CPU's counts reach another CPU's counter through it alone. */
	if (r->have_counter && a->t.id_fold < 0)
		doubt(a, "recorded without vmstat:vm_event_fold (the file has no format for it): a CPU "
		      "that dies hands its counts to another CPU through that event alone, so a counter "
		      "that moved more than its events cannot be told from one that received a fold "
		      "(record all four vmstat events, as tracing/record.sh does)");
	if (!a->t.have_cpustats) {
		doubt(a, "the file has no per-CPU ring buffer statistics: "
			    "overruns cannot be ruled out");
	} else {
		if (a->t.cpustat_stray)
			doubt(a, "the file's ring buffer statistics (CPUSTAT) have "
				    "%d block(s) for CPUs the file does not have (the first: %s%lld): "
				    "they are no CPU's", a->t.cpustat_stray,
				    a->t.cpustat_stray_cpu < 0 ? "unreadable, " : "cpu",
				    a->t.cpustat_stray_cpu);
		for (int c = 0; c < r->ncpus; c++) {
			const struct cpu_stats *st = &a->t.stats[c];
			int e = c;

			if (st->present && st->complete)
				continue;
			while (e + 1 < r->ncpus && a->t.stats[e + 1].present == st->present &&
			       !a->t.stats[e + 1].complete)
				e++;
			if (!st->present)
				doubt(a, "%s %d%s%.0d has no block in the file's ring "
					    "buffer statistics (CPUSTAT) of the top instance: overruns "
					    "cannot be ruled out there", e > c ? "CPUs" : "CPU", c,
					    e > c ? "-" : "", e > c ? e : 0);
			else
				doubt(a, "%s %d%s%.0d: the block in the file's ring "
					    "buffer statistics (CPUSTAT) lacks a readable 'overrun: N', "
					    "'commit overrun: N' or 'dropped events: N' line: overruns "
					    "cannot be ruled out there", e > c ? "CPUs" : "CPU", c,
					    e > c ? "-" : "", e > c ? e : 0);
			c = e;
		}
	}
	if (r->bins_lost)
		strlist_add(&a->notes, "out of memory for some CPUs' activity histograms: the --svg chart "
			    "lacks them (the verdict does not use them)");
	if (r->unknown_items)
		doubt(a, "%llu events name an item or CPU outside the trace's "
			    "own tables", r->unknown_items);

	for (int c = 0; c < r->ncpus; c++) {
		const struct cpu_replay *s = &r->cpu[c];
		const struct cpu_stats *st = &a->t.stats[c];

		if (s->phase != BEFORE_SNAP1)
			any_snap[1] = true;
		if (s->phase == AFTER_SNAP2)
			any_snap[2] = true;
		if (cpu_lost_events(a, c)) {
			/* Which of its (CPU, item) pairs that affects. */
			int pairs = 0;

			for (int i = 0; i < a->t.nitems; i++)
				pairs += s->under[i] || s->over[i];
			if (s->lost_unknown)
				doubt(a, "CPU %d lost events in the ring buffer (count unknown%s)", c,
				      s->missed ? ", more than the pages' stored counts" : "");
			else if (s->missed > 0)
				doubt(a, "CPU %d lost events in the ring buffer (missed events reported: "
				      "%llu%s)", c, s->missed, s->missed == ~0ULL ? " or more" : "");
			if (!r->have_counter)
				doubt(a, "cpu%d: with events lost and no counter field, none of its %d "
				      "item(s) is proven: %d differ between its snapshots", c, a->t.nitems, pairs);
			else
				doubt(a, "cpu%d: events lost affect %d of its (CPU, item) pairs, listed as "
				      "lost:; each of its other pairs replayed exactly, event by event", c, pairs);
		}
		if (st->overrun || st->commit_overrun || st->dropped)
			doubt(a, "CPU %d ring buffer overran: %llu overwritten, "
				    "%llu commit overruns, %llu dropped", c, st->overrun,
				    st->commit_overrun, st->dropped);
		if (s->untraced_zero)
			doubt(a, "cpu%d: %llu vm_event_untraced report(s) of it while all its counters "
			      "were 0 and no fold of it was seen: it may have died with nothing to fold "
			      "(a kernel folds only the items a CPU counted), or been online; not proven "
			      "either way", c, s->untraced_zero);
		if ((s->untraced_refuted || s->untraced_pending) && (!clock_ok || a->any_loss))
			doubt(a, "cpu%d: %llu vm_event_untraced report(s) of it not placed between its "
			      "death and its next snapshot, not proven: %s", c,
			      s->untraced_refuted + s->untraced_pending,
			      !clock_ok ? "the trace clock does not order CPUs" :
					  "a CPU lost events, a fold of it may be among them");
		else if (s->untraced_refuted)
			proven(a, "cpu%d %s: vm_event_untraced at %.6f s reports counts "
				    "that moved while cpu%d was outside cpu_online_mask, but it was online: "
				    "it recorded at %.6f s with no fold of it between (%llu such report(s); "
				    "a report is valid only from a CPU's death to its next snapshot)",
				    c, item_name(a, s->refuted_item), (double)s->refuted_ts / 1e9, c,
				    (double)s->refuted_by / 1e9, s->untraced_refuted);
		else if (s->untraced_pending)
			proven(a, "cpu%d %s: vm_event_untraced at %.6f s reports counts "
				    "that moved while cpu%d was outside cpu_online_mask, but no fold of it "
				    "follows (%llu such report(s); a report is valid only from a CPU's "
				    "death to its next snapshot)", c, item_name(a, s->pending_item),
				    (double)s->pending_ts / 1e9, c, s->untraced_pending);
		if (s->snap1_dup || s->snap2_dup)
			doubt(a, "CPU %d has more than one snapshot with the same tag", c);
		if (s->seen && s->phase == BEFORE_SNAP1)
			doubt(a, "CPU %d has events but no tag-1 snapshot", c);
		else if (s->phase == BETWEEN_SNAPS)
			doubt(a, "CPU %d has a tag-1 snapshot but no tag-2 snapshot", c);
	}
	/* A CPU the file names but without a single record: its counters cannot be replayed. */
	for (int c = 0; c < r->ncpus; c++) {
		int e = c;

		if (r->cpu[c].seen)
			continue;
		while (e + 1 < r->ncpus && !r->cpu[e + 1].seen)
			e++;
		if (e == c)
			doubt(a, "CPU %d is in the file but has no records (no snapshot, "
				    "no event): its counters cannot be replayed (its ring buffer data is "
				    "missing or empty)", c);
		else
			doubt(a, "CPUs %d-%d are in the file but have no records (no "
				    "snapshot, no event): their counters cannot be replayed", c, e);
		c = e;
	}
	if (!any_snap[1])
		doubt(a, "no tag-1 snapshot in the trace");
	else if (!any_snap[2])
		doubt(a, "no tag-2 snapshot in the trace");

	for (int c = 0; c < r->ncpus; c++) {
		const struct cpu_replay *s = &r->cpu[c];

		for (int i = 0; i < a->t.nitems; i++) {
			char b1[24], b2[24], b3[24];

			bool report_may_explain = false;

			if (s->breaks[i])
				a->pairs_with_breaks++;
			if (s->credit[i] && cpu_has_window(a, c) && a->any_loss) {
				/*
				 * A report explains counts found after a fold out of its CPU; that fold
				 * may be among the lost events, and then so may the counts it explains.
				 */
				doubt(a, "cpu%d %s: vm_event_untraced reported %llu counts moved while the "
				      "CPU was not online that no break after a fold out of it shows; a CPU "
				      "lost events, and such a fold may be among them: not proven", c,
				      item_name(a, i), s->credit[i]);
				/* The break it may explain (counts without events): not proven either. */
				report_may_explain = s->over[i] && !s->under[i];
			} else if (s->credit[i] && cpu_has_window(a, c))
				proven(a,
					    "cpu%d %s: vm_event_untraced reported %llu counts moved while the "
					    "CPU was not online, but its counter does not show them",
					    c, item_name(a, i), s->credit[i]);
			if (!s->under[i] && !s->over[i])
				continue;
			a->shortfall = sat_add(a->shortfall, s->under[i]);
			a->excess = sat_add(a->excess, s->over[i]);
			if (cpu_lost_events(a, c)) {
				/*
				 * Its own lost events only hide counts: the counter ends above the
				 * replay (over). Events that say more than the counter moved (under)
				 * need an update that did not happen, or a fold out of it among
				 * another CPU's lost events.
				 */
				u64 over = s->over[i];

				if (s->under[i] && !other_cpu_lost_events(a, c))
					proven(a, "cpu%d %s: events say %llu count(s) more than its counter "
					       "moved (%s), which its own lost events cannot explain (they "
					       "only hide counts) and no other CPU lost events", c,
					       item_name(a, i), s->under[i], s->breaks[i] ?
					       "breaks in the per-event continuity" : "at its snapshots");
				else
					over = sat_add(over, s->under[i]);
				if (!over)
					continue;
				/* Where the ring buffer lost events: what they held, and when. */
				a->doubtful = true;
				if (s->breaks[i])
					strlist_add(&a->lost,
						    "cpu%d %s: %s counts moved without a recorded event, in "
						    "%llu window(s), the first from %.6f s to %.6f s",
						    c, item_name(a, i),
						    fmt_difference(b3, over - s->over[i], s->over[i]),
						    s->breaks[i], (double)s->brk_from[i] / 1e9,
						    (double)s->brk_to[i] / 1e9);
				else
					strlist_add(&a->lost,
						    "cpu%d %s: %s counts moved without a recorded event between "
						    "its snapshots (no counter field to place them)", c,
						    item_name(a, i),
						    fmt_difference(b3, over - s->over[i], s->over[i]));
				continue;
			}
			if (report_may_explain)
				continue;
			if (a->any_loss && !s->folds_out_in_window && cpu_has_window(a, c) &&
			    went_down(s->snap1[i], s->snap2[i])) {
				/* Only a fold takes counts away: its event may be among those lost. */
				doubt(a, "cpu%d %s went down from %llu to %llu between its snapshots with no "
				      "fold out of it traced, not proven: a CPU lost events, and the fold "
				      "may be among them", c, item_name(a, i), s->snap1[i], s->snap2[i]);
				continue;
			}
						if (!clock_ok && s->folds_out_in_window) {
				/* Where its folds fall among its own events depends on the clock. */
				doubt(a, "cpu%d %s: counter moved %s, events say %s (difference %s), not "
				      "proven: the trace clock '%s' does not place the folds of cpu%d among "
				      "its own events", c, item_name(a, i),
				      fmt_move(b1, counter_delta(a, c, i), false),
				      fmt_move(b2, replay_delta(a, c, i), false),
				      fmt_difference(b3, s->under[i], s->over[i]), a->t.clock, c);
				continue;
			}
			if (r->have_counter && a->t.id_fold < 0 &&
			    (s->reset[i] || (s->over[i] && !s->under[i]))) {
				/* A fold out of the CPU resets its counter to 0, a fold into it raises it. */
				doubt(a, "cpu%d %s: counter moved %s, events say %s (difference %s), not "
				      "proven: without vm_event_fold in the file, %s", c, item_name(a, i),
				      fmt_move(b1, counter_delta(a, c, i), false),
				      fmt_move(b2, replay_delta(a, c, i), false),
				      fmt_difference(b3, s->under[i], s->over[i]), s->reset[i] ?
				      "it fell below an earlier value of it, as only a fold out of this CPU "
				      "makes it" : "a fold into this CPU looks the same");
				continue;
			}
			if (s->breaks[i]) {
				proven(a,
					    "cpu%d %s: counter moved %s, events say %s (difference %s): %llu "
					    "break(s) in the per-event continuity, the first between %.6f s "
					    "and %.6f s",
					    c, item_name(a, i), fmt_move(b1, counter_delta(a, c, i), false),
					    fmt_move(b2, replay_delta(a, c, i), false),
					    fmt_difference(b3, s->under[i], s->over[i]), s->breaks[i],
					    (double)s->brk_from[i] / 1e9, (double)s->brk_to[i] / 1e9);
				continue;
			}
			proven(a,
				    "cpu%d %s: counter moved %s, events say %s (difference %s), "
				    "first diverged at %s, %.6f s",
				    c, item_name(a, i), fmt_move(b1, counter_delta(a, c, i), false),
				    fmt_move(b2, replay_delta(a, c, i), false),
				    fmt_difference(b3, s->under[i], s->over[i]),
				    s->div_site[i] == DIV_FOLD ? "the fold of this CPU" : "the tag-2 snapshot",
				    (double)s->div_ts[i] / 1e9);
		}
	}
	/* After tag 2: the replay /proc/vmstat copy 2 is judged by goes on event by event. */
	for (int c = 0; c < r->ncpus; c++) {
		const struct cpu_replay *s = &r->cpu[c];
		char b1[24];

		for (int down = 0; down < 2; down++) {
			const struct tail_breaks *t = &s->tail[down];

			if (!t->n)
				continue;
			if (cpu_lost_events(a, c)) {
				a->doubtful = true;
				strlist_add(&a->lost, "cpu%d %s: %s counts moved without a recorded event "
					    "after its tag-2 snapshot, in %llu window(s), the first from %.6f s "
					    "to %.6f s", c, item_name(a, t->item), fmt_move(b1, t->moved, true),
					    t->n, (double)t->from / 1e9, (double)t->to / 1e9);
			} else if (down && a->any_loss) {
				/* Only a fold takes counts away: its event may be among those lost. */
				doubt(a, "cpu%d %s: counter %s below the replay after its tag-2 snapshot, "
				      "in %llu window(s), the first from %.6f s to %.6f s, not proven: a CPU "
				      "lost events, and a fold out of cpu%d may be among them", c,
				      item_name(a, t->item), fmt_move(b1, t->moved, true), t->n,
				      (double)t->from / 1e9, (double)t->to / 1e9, c);
			} else {
				proven(a, "cpu%d %s: %llu break(s) in the per-event continuity after its "
				       "tag-2 snapshot (the replay /proc/vmstat copy 2 is judged by), the "
				       "first between %.6f s and %.6f s, where %s counts moved without a "
				       "recorded event", c, item_name(a, t->item), t->n,
				       (double)t->from / 1e9, (double)t->to / 1e9,
				       fmt_move(b1, t->moved, true));
			}
		}
		if (s->tail_unsure)
			doubt(a, "cpu%d: %llu counter(s) moved more than their events after a fold of it "
			      "past its tag-2 snapshot (counts while it was not online, which no snapshot "
			      "reports there): not proven", c, s->tail_unsure);
	}
	for (int i = 0; i < a->t.nitems; i++) {
		for (int c = 0; c < r->ncpus; c++) {
			if (r->cpu[c].traced[i]) {
				a->covered++;
				break;
			}
		}
	}
	if (r->untraced_reports) {
		u64 acc = 0;

		for (int c = 0; c < r->ncpus; c++)
			for (int i = 0; i < a->t.nitems; i++)
				acc = sat_add(acc, r->cpu[c].accounted[i]);
		strlist_add(&a->notes, "%llu counts moved on CPUs outside cpu_online_mask (no event "
			    "possible there); %llu vm_event_untraced reports accounted for them exactly",
			    acc, r->untraced_reports);
	}
	if (!r->have_counter)
		strlist_add(&a->notes, "per-event continuity not available: the trace's vm_event_count "
			    "has no counter field (a kernel before it); only each CPU's whole window "
			    "between the snapshots was checked");
	else if (a->lost.n)
		strlist_add(&a->notes, "per-event continuity: %llu events and folds checked; the "
			    "counts lost with the ring buffer's events are located above (lost:), and "
			    "every other (CPU, item) pair %s", r->events_checked, a->proven ?
			    "replayed exactly, event by event, except those listed as inconsistent:" :
			    "replayed exactly, event by event");
	else if (!a->proven && (!r->nbreaks || !(a->shortfall || a->excess)))
		strlist_add(&a->notes, "per-event continuity: %llu events and folds checked, each "
			    "counter value equal to the previous one plus its delta", r->events_checked);
	check_vmstat_copy(a, 0);
	check_vmstat_copy(a, 1);
	check_snapshot_text(a, 0);
	check_snapshot_text(a, 1);

	/* From the facts: a proven break stands whatever else is doubtful. */
	if (a->proven)
		a->verdict = INCONSISTENT;
	else if (a->doubtful)
		a->verdict = INCONCLUSIVE;
	else
		a->verdict = CONSISTENT;
}
