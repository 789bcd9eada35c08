/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-CPU replay: start each CPU from its tag-1 snapshot, apply every
 * vm_event_count recorded on it and every fold into or out of it, in ring
 * buffer order, and compare with its tag-2 snapshot item by item. Memory is
 * O(CPUs x items) whatever the length of the trace.
 */
#ifndef VMSTAT_AUDIT_REPLAY_H
#define VMSTAT_AUDIT_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "tasks.h"

/*
 * Counter arithmetic is modulo 2^64, as the kernel's unsigned long counters: a
 * move is read as signed (negative when past 2^63). Sums saturate at 2^64-1.
 */
static inline bool mod_negative(u64 v) { return v > 0x7fffffffffffffffULL; }
static inline u64 sat_add(u64 a, u64 b) { u64 s; return __builtin_add_overflow(a, b, &s) ? ~0ULL : s; }
/* Formats a modulo-2^64 move as a signed decimal, without signed arithmetic. */
static inline const char *fmt_move(char buf[24], u64 v, bool plus)
{
	if (mod_negative(v))
		snprintf(buf, 24, "-%llu", 0 - v);
	else
		snprintf(buf, 24, "%s%llu", plus && v ? "+" : "", v);
	return buf;
}

enum phase { BEFORE_SNAP1, BETWEEN_SNAPS, AFTER_SNAP2 };

/* Where a (cpu, item) pair first diverged. */
enum divergence_site { DIV_NONE, DIV_FOLD, DIV_SNAP2, DIV_BREAK };

/*
 * A break in the per-event continuity of one CPU's counter of one item: between the points
 * at from and to (the tag-1 snapshot, an event or fold of this item on this CPU, the tag-2
 * snapshot), the counter moved by moved (modulo 2^64; negative: an event's update did not
 * happen) more than the events between them say.
 */
struct cont_break {
	int cpu, item;
	u64 from, to, moved;
	u64 accounted;			/* part of the move a later vm_event_untraced explained */
};

#define MAX_LISTED_BREAKS 4096

struct cpu_replay {
	enum phase phase;
	bool seen;			/* any record at all on this CPU */
	bool snap1_dup, snap2_dup;
	u64 snap1_ts, snap2_ts;
	u64 events, events_in_window, folds_in, folds_out;
	u64 folds_out_in_window;	/* folds of this CPU between its snapshots */
	u64 missed;			/* events lost, summed saturating; lost_unknown: unknown */
	bool lost_unknown;
	u64 *snap1, *snap2, *cur;	/* counters: tag 1, tag 2, replayed */
	u64 *traced;			/* sum of vm_event_count deltas in the window */
	u64 *fold_net;			/* folded in minus folded out in the window, modulo 2^64 */
	u64 *under, *over;		/* replay above / below the counter, summed (saturating) */
	u64 *div_ts;			/* first divergence */
	unsigned char *div_site;
	/*
	 * reset: a break of this item where the counter fell below its value at the previous
	 * point (only a fold out of this CPU takes counts away): with no vm_event_fold format
	 * in the file, such a break is not proven.
	 */
	unsigned char *reset;
	u64 *last_ts;			/* the last point each item's counter was known at */
	u64 *breaks;			/* continuity breaks per item in the window */
	u64 *brk_from, *brk_to;		/* the first one's window */
	/*
	 * vm_event_untraced: counts that moved while this CPU was not online, reported
	 * exactly. accounted: the part that explained a break; credit: reported but not yet
	 * seen as a break (it is consumed by the next one).
	 */
	u64 *accounted, *credit;
	/*
	 * over_open: the part of over found while this CPU was folded (from a fold out of it to
	 * its next snapshot), the only part a vm_event_untraced report may explain after the
	 * fact; fold_ts: the time of its last fold out.
	 */
	u64 *over_open, fold_ts;
	/*
	 * Whether a report fell where this CPU was outside cpu_online_mask: from its death (no
	 * record of it between the report and the fold of its counts) to its next snapshot (the
	 * kernel reports bring-up counts there). folded: a fold of this CPU since its last
	 * snapshot. pending: reports made while it was not known to be offline, placed by the
	 * next fold of it (confirmed) or by its next record (refuted: it was online).
	 */
	bool folded;
	/*
	 * untraced_zero: reports while every counter of this CPU was 0 and no fold of it was
	 * seen: it may have died with nothing to fold (a kernel folds only counted items, so
	 * its death left no event), or been online; neither placed nor refuted.
	 */
	u64 untraced_zero;
	u64 untraced_pending, pending_ts;
	int pending_item;
	u64 untraced_refuted, refuted_ts, refuted_by;	/* the first refuted: its time, the record's */
	int refuted_item;
	/*
	 * After the tag-2 snapshot the replay goes on for /proc/vmstat copy 2, and the counter
	 * chain is checked there too. tail[0] the breaks where the counter went up past the
	 * replay, tail[1] those where it went down (a fold out of this CPU recorded among another
	 * CPU's lost events would explain those): how many, the first one's item, window and move.
	 * tail_unsure: rises after a fold of this CPU (counts that moved while it was outside
	 * cpu_online_mask, which no snapshot after tag 2 can report).
	 */
	struct tail_breaks {
		u64 n, from, to, moved;
		int item;
	} tail[2];
	u64 tail_unsure;
	struct cont_break *brk;		/* this CPU's first MAX_LISTED_BREAKS breaks, in its order */
	size_t nbrk;
	unsigned int *bins;		/* activity histogram: MAX_BINS per item; NULL until this
					 * CPU has an event between its snapshots, and for CPUs
					 * from SVG_CPUS on */
	u64 bin_ns;			/* this CPU's bin width until replay_finish_bins() */
	int nbins;
	u64 bin_lo, bin_hi;		/* the time range of the bin last added to */
	unsigned int bin_cur;
	/*
	 * Who counted: consecutive events of one task on a CPU are summed here (run_sum, the
	 * items touched listed in touched), and flushed into the task table when another task's
	 * event comes, so that the table sees a few updates per context switch, not per event.
	 */
	int run_pid;
	u64 *run_sum;
	unsigned char *run_mark;
	int *touched, ntouched;
};

struct marker_totals {
	bool seen;
	unsigned int count;		/* how many times the marker is in the trace */
	u64 ts;
	u64 *total;			/* replayed global total per item at the marker */
	bool complete;			/* every CPU with data was between its snapshots */
};

#define MAX_BINS 256
#define SVG_CPUS 8			/* CPUs the SVG draws, and that keep a histogram */
#define BIN_NS (50ULL * 1000 * 1000)	/* the narrowest bin, widened as the trace grows */

struct replay {
	int ncpus, nitems;
	struct cpu_replay *cpu;
	/* markers: [0] vmstat-1 begin, [1] vmstat-1 end, [2] vmstat-2 begin, [3] vmstat-2 end */
	struct marker_totals marker[4];
	u64 first_ts;
	u64 bin_ns;			/* the histograms' bin width, set by replay_finish_bins() */
	int nbins;
	u64 records, unknown_items;
	bool bins_lost;			/* out of memory for some CPU's histogram (SVG only) */
	/*
	 * The kernel's counters are unsigned long: 2^64 - 1 (a 64-bit kernel) or 2^32 - 1 (a
	 * 32-bit one, the file header's long size 4) is where they wrap. replay_init() sets
	 * 2^64 - 1; trace_replay() the file's.
	 */
	u64 mask;
	/* Per-event continuity: only when the events carry the counter's value. */
	bool have_counter;
	u64 events_checked;		/* events and folds whose counter field was checked */
	u64 nbreaks;			/* all breaks; the first MAX_LISTED_BREAKS are listed */
	u64 untraced_reports;		/* vm_event_untraced events between the snapshots */
	struct cont_break *brk;		/* replay_sort_breaks(): the listed breaks of every CPU */
	size_t nlisted;
	bool brk_list_lost;		/* out of memory for the list (the counts stay exact) */
	struct task_table tasks;	/* deltas between the snapshots per (pid, item) */
};

/* replay_wrap - v modulo the counters' width (r->mask), read as signed: a 64-bit move. */
static inline u64 replay_wrap(const struct replay *r, u64 v)
{
	v &= r->mask;
	return r->mask != ~0ULL && v > r->mask >> 1 ? v | ~r->mask : v;
}

/*
 * replay_init - an empty replay of ncpus CPUs and nitems items: 0, or -1 out of memory.
 * replay_free - frees what replay_init() and the replay allocated.
 */
int replay_init(struct replay *r, int ncpus, int nitems);
void replay_free(struct replay *r);
/*
 * replay_count - one vm_event_count of CPU. counter: the event's counter field (the value
 * after the update), or NULL without one. A record of CPU also refutes its pending
 * vm_event_untraced reports (it was online).
 */
void replay_count(struct replay *r, int cpu, int item, long long delta, const u64 *counter, u64 ts,
		  int pid);
/*
 * replay_count() for the one case that nearly every event is, inline, for a reader that hands
 * one CPU's counts over in a run: a known item, between the snapshots, with a counter field
 * that continues the replay, of the task whose run is being summed and has counted this item
 * already, within the histogram bin of the previous event (or on a CPU without histogram).
 * The cursor holds the CPU's state in locals and its per-event tallies until count_cursor_put;
 * anything else goes to replay_count() (after the cursor hands its state back), so the result
 * is replay_count()'s by construction, which tests/run-tests checks against the merged reader.
 */
struct count_cursor {
	struct replay *r;
	struct cpu_replay *s;
	int cpu;
	bool fast;			/* between the snapshots: the fast case is possible */
	int run_pid;
	u64 nitems, n;			/* n: counts taken since the last count_cursor_put() */
	u64 *cur, *last_ts, *traced, *run_sum;
	unsigned char *run_mark;
	unsigned int *bin;		/* the current bin of item 0 (bins + bin_cur), or NULL */
	u64 bin_lo, bin_hi;
};

static inline void count_cursor_get(struct count_cursor *c, struct replay *r, int cpu)
{
	struct cpu_replay *s = &r->cpu[cpu];

	c->r = r;
	c->s = s;
	c->cpu = cpu;
	c->n = 0;
	c->nitems = (u64)r->nitems;
	c->fast = s->phase == BETWEEN_SNAPS && (s->bins || cpu >= SVG_CPUS) && !s->untraced_pending;
	c->run_pid = s->run_pid;
	c->cur = s->cur;
	c->last_ts = s->last_ts;
	c->traced = s->traced;
	c->run_sum = s->run_sum;
	c->run_mark = s->run_mark;
	c->bin = s->bins ? s->bins + s->bin_cur : NULL;
	c->bin_lo = s->bins ? s->bin_lo : 0;
	c->bin_hi = s->bins ? s->bin_hi : ~0ULL;
}

static inline void count_cursor_put(struct count_cursor *c)
{
	c->s->events += c->n;
	c->s->events_in_window += c->n;
	c->r->events_checked += c->n;
	c->n = 0;
}

/*
 * count_cursor_until - for counts whose times are ts or later (and each at least the one
 * before): the time below which they fall in the cursor's current histogram bin, the one
 * condition of the fast case that depends on the time; 0 when the fast case is not possible.
 */
static inline u64 count_cursor_until(const struct count_cursor *c, u64 ts)
{
	return c->fast && ts >= c->bin_lo ? c->bin_hi : 0;
}

/*
 * count_cursor_take - the fast case for a count whose time lies before count_cursor_until():
 * true when it took the count, false (nothing changed) when replay_count() must take it. The
 * caller adds the counts taken to c->n.
 */
static inline bool count_cursor_take(struct count_cursor *c, u64 item, u64 delta, u64 counter,
				     u64 ts, int pid)
{
	if (item >= c->nitems || pid != c->run_pid || !c->run_mark[item] ||
	    c->cur[item] + delta != counter || delta > 0xffffffffu)
		return false;
	c->cur[item] = counter;
	c->last_ts[item] = ts;
	c->traced[item] += delta;
	c->run_sum[item] += delta;
	if (c->bin)
		c->bin[item * MAX_BINS] += (unsigned int)delta;
	return true;
}

static inline void count_cursor_count(struct count_cursor *c, u64 item, u64 delta, u64 counter,
				      u64 ts, int pid)
{
	if (c->fast && ts >= c->bin_lo && ts < c->bin_hi &&
	    count_cursor_take(c, item, delta, counter, ts, pid)) {
		c->n++;
		return;
	}
	count_cursor_put(c);
	replay_count(c->r, c->cpu, item > 65535 ? -1 : (int)item, (long long)delta, &counter, ts, pid);
	count_cursor_get(c, c->r, c->cpu);
}

/* replay_flush_tasks - moves CPU's pending per-task sums into r->tasks (after its last record). */
void replay_flush_tasks(struct replay *r, int cpu);
/*
 * replay_fold - a vm_event_fold recorded on CPU: DEAD's VALUE counts of ITEM moved into CPU's
 * counter (replay_fold_in() and replay_fold_out() below). An unknown CPU or item is counted in
 * r->unknown_items.
 */
void replay_fold(struct replay *r, int cpu, int dead, int item, u64 value, const u64 *counter, u64 ts);
/*
 * replay_fold_in - replay_fold()'s half on the receiving CPU (valid CPU and item): its
 * counter moves by value (modulo the counters' width).
 */
void replay_fold_in(struct replay *r, int cpu, int item, u64 value, const u64 *counter, u64 ts);
/*
 * replay_fold_out - replay_fold()'s half on the dead CPU (valid CPU and item): between its
 * snapshots its replay must hold value (a break otherwise), after its tag-2 snapshot nothing is
 * checked; it goes to zero. Its vm_event_untraced reports before this fold are confirmed.
 */
void replay_fold_out(struct replay *r, int dead, int item, u64 value, u64 ts);
/*
 * replay_untraced - vm_event_untraced: DELTA counts of ITEM moved on CPU while it was not
 * online. Accepted only where CPU was outside cpu_online_mask (see cpu_replay.folded); one
 * that is not is counted in untraced_refuted (or stays pending to the end: refuted too).
 */
void replay_untraced(struct replay *r, int cpu, int item, long long delta, u64 ts);
/*
 * replay_snapshot - a vm_event_snapshot of CPU: tag 1 starts its window, tag 2 ends it (every
 * item compared). Refutes CPU's pending vm_event_untraced reports, and ends the interval after
 * a fold in which they are valid. Returns -1 when the array does not have nitems entries.
 */
int replay_snapshot(struct replay *r, int cpu, unsigned int tag, const u64 *values, size_t n, u64 ts);
/*
 * replay_marker - a trace marker: which 0..3 for 'vmstat-1 begin', 'vmstat-1 end', 'vmstat-2
 * begin', 'vmstat-2 end'; the replayed global totals are taken there (once per marker).
 */
void replay_marker(struct replay *r, int which, u64 ts);
/*
 * replay_missed - events lost before a page of CPU: missed > 0 their count, < 0 unknown.
 * The counts of several pages are summed saturating at 2^64-1, never wrapped.
 */
void replay_missed(struct replay *r, int cpu, long long missed);
/* replay_seen - a record of CPU at TS: the CPU has data; the trace's first and last times. */
void replay_seen(struct replay *r, int cpu, u64 ts);
/*
 * replay_finish_bins - after the last record: one bin width for every CPU's histogram
 * (r->bin_ns, r->nbins).
 */
void replay_finish_bins(struct replay *r);
/*
 * replay_sort_breaks - after the last record: r->brk, the breaks of every CPU sorted by
 * (CPU, time, item), the first MAX_LISTED_BREAKS of them. Each CPU keeps its own first
 * MAX_LISTED_BREAKS in its own order, which no thread schedule changes, so the list is the same
 * whatever thread read which CPU, and with either reader.
 */
void replay_sort_breaks(struct replay *r);

#endif
