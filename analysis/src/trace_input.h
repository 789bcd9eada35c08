/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading a trace.dat with libtracecmd/libtraceevent: events and fields are
 * looked up by name, item names come from the vm_event_count format's own
 * symbolic table, and every field read is bounds-checked against the record.
 */
#ifndef VMSTAT_AUDIT_TRACE_INPUT_H
#define VMSTAT_AUDIT_TRACE_INPUT_H

#include <stdbool.h>
#include <stddef.h>

#include "replay.h"

struct cpu_stats {
	bool present;
	u64 overrun, commit_overrun, dropped;
};

struct trace_input {
	struct tracecmd_input *handle;
	struct tep_handle *tep;
	const char *path;
	int ncpus, nitems;
	char **item_names;		/* nitems; NULL where the table has a gap */
	char *clock;
	struct cpu_stats *stats;	/* ncpus */
	bool have_cpustats;
	int long_size;
	/* event ids and fields, looked up by name */
	int id_count, id_fold, id_snap, id_print, id_untraced;
	struct tep_format_field *f_item, *f_delta, *f_fcpu, *f_fitem, *f_fvalue, *f_tag, *f_events,
		*f_buf;
	/* The counter's value after the update or fold: NULL on kernels before the field. */
	struct tep_format_field *f_counter, *f_fcounter;
	/* vm_event_untraced (cpu, item, delta), on kernels that have it. */
	struct tep_format_field *f_ucpu, *f_uitem, *f_udelta;
};

/*
 * Where the process is, for the parent to tell a crash in libtracecmd/libtraceevent (a
 * corrupt file) from one in our own code (a bug): `inside` is nonzero, and `call` names the
 * library call, while a library call runs. trace_where points into memory shared with the
 * parent (main.c); by default into a private copy.
 */
struct trace_where {
	volatile int inside;
	char call[48];
};
extern struct trace_where *trace_where;

/* 0, or -1 with a one-line reason in err (bad input: the caller exits 2). */
int trace_open(struct trace_input *t, const char *path, char *err, size_t errlen);
void trace_close(struct trace_input *t);

/* 0 when a version 7 file's sections all fit in it (or it is not walkable); -1 with a reason. */
int check_layout(const char *path, char *err, size_t errlen);

/* Whether the trace clock orders events recorded on different CPUs. */
bool clock_orders_cpus(const char *clock);

/* Replays every record into r; 0, or -1 with a reason in err (malformed record). */
int trace_replay(struct trace_input *t, struct replay *r, bool progress, char *err, size_t errlen);

/* Parses the text of the CPUSTAT option into per-CPU overrun counts. Returns CPUs seen. */
int parse_cpustats(const char *text, struct cpu_stats *stats, int ncpus);

#endif
