/* SPDX-License-Identifier: GPL-2.0 */
/* The audit's inputs, its findings, and the three ways it reports them. */
#ifndef VMSTAT_AUDIT_AUDIT_H
#define VMSTAT_AUDIT_AUDIT_H

#include <stdbool.h>
#include <stdio.h>

#include "replay.h"
#include "text_inputs.h"
#include "trace_input.h"
#include "trace_replay.h"

enum verdict { CONSISTENT = 0, INCONSISTENT = 1, BAD_INPUT = 2, INCONCLUSIVE = 3, INTERNAL_ERROR = 4 };

struct strlist {
	size_t n, cap;
	char **s;
};

/* The /proc/vmstat check of one item in one copy. */
enum vm_status { VM_OK, VM_BELOW, VM_ABOVE, VM_MISSING, VM_UNCHECKED };

struct audit {
	struct trace_input t;
	struct replay r;
	struct vmstat_file vm[2];
	bool have_vm[2];
	struct snapshot_table st[2];
	bool have_st[2];
	const char *vm_path[2], *st_path[2];
	unsigned char *vm_status[2];	/* nitems each */
	struct strlist inconclusive, inconsistent, notes;
	struct strlist lost;		/* located breaks on CPUs whose ring buffer lost events */
	int pairs_with_breaks;		/* (CPU, item) pairs with a continuity break */
	u64 shortfall;			/* updates counted by events but missing from counters */
	u64 excess;			/* the other way round (both saturate at 2^64-1) */
	int covered;			/* items with a nonzero traced delta */
	bool proven;			/* a finding that holds whatever else is doubtful */
	bool doubtful;			/* something may be missing */
	bool any_loss;			/* some CPU may have lost events */
	int loss_cpus;			/* how many */
	char unsure_totals[160];	/* why the replayed global totals may lack counts, or "" */
	enum verdict verdict;
	bool by_task;			/* --by task: a table of the top tasks of every item */
	FILE *report_copy;		/* main.c: the standard output report, made beforehand */
};

/*
 * strlist_add - appends a formatted message: 0, or -1 out of memory (the process is then marked
 * out of memory, see alloc.h, and no verdict is given).
 */
int strlist_add(struct strlist *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* strlist_free - frees every message of l and empties it. */
void strlist_free(struct strlist *l);

/*
 * audit_check_inputs - input faults found by comparing the text inputs with the trace's own
 * tables and the replay (a table or copy that lacks items or CPUs, or names unknown ones; a
 * counter that went down in a file without the fold event, or whose CPU's folds all fall
 * outside its window): 0, or -1 with "file: line: reason" in err (bad input, exit 2).
 */
int audit_check_inputs(struct audit *a, char *err, size_t errlen);

/*
 * audit_evaluate - decides the verdict from a finished replay and the text inputs, from facts:
 * INCONSISTENT when a finding is proven whatever else is doubtful, else INCONCLUSIVE when
 * something may be missing, else CONSISTENT.
 */
void audit_evaluate(struct audit *a);

/* verdict_name - CONSISTENT, INCONSISTENT or INCONCLUSIVE. */
const char *verdict_name(enum verdict v);
/*
 * counter_delta - how far a CPU's counter moved between its snapshots, modulo the counters'
 * width and read as signed (replay_wrap(); print with fmt_move()). replay_delta - the same
 * as the events and folds say.
 */
u64 counter_delta(const struct audit *a, int cpu, int item);
u64 replay_delta(const struct audit *a, int cpu, int item);
/*
 * fmt_difference - the counter less the events of one CPU and item, over every check, from
 * its shortfall (under) and excess (over), formatted with its sign into buf.
 */
const char *fmt_difference(char buf[24], u64 under, u64 over);
/* cpu_has_window - whether CPU has both its tag-1 and tag-2 snapshots. */
bool cpu_has_window(const struct audit *a, int cpu);
/*
 * cpu_lost_events - whether the ring buffer lost events of CPU (a page's missed-events flag,
 * an overrun or drop in the file's statistics, or statistics that lack the CPU), or may have
 * (a file whose page headers cannot be read: t.loss_unseen).
 */
bool cpu_lost_events(const struct audit *a, int cpu);
bool other_cpu_lost_events(const struct audit *a, int cpu);

/*
 * report_text - the verdict, its reasons and the per-item table, as text;
 * report_json - the same as one JSON object (--json); report_svg - each CPU's activity over
 * time with the breaks marked (--svg). Every byte that is not valid UTF-8 is escaped.
 */
void report_text(const struct audit *a, FILE *out);
void report_json(const struct audit *a, FILE *out);
void report_svg(const struct audit *a, FILE *out);

#endif
