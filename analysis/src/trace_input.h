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
	bool present;			/* the top instance's CPUSTAT has a block for this CPU */
	bool complete;			/* ... with its overrun, commit overrun and dropped lines */
	u64 overrun, commit_overrun, dropped;
};

/* One CPU's pages in the file, as its BUFFER option names them. */
struct cpu_section {
	int cpu;
	u64 offset, size;
};

struct trace_input {
	struct tracecmd_input *handle;
	struct tep_handle *tep;
	const char *path;
	int ncpus, nitems;
	char **item_names;		/* nitems; NULL where the table has a gap */
	char *clock;
	struct cpu_stats *stats;	/* ncpus */
	bool have_cpustats;		/* the file has a CPUSTAT option (each CPU: stats[c]) */
	int cpustat_stray;		/* blocks of the top instance naming a CPU the file lacks */
	long long cpustat_stray_cpu;	/* the first of them */
	int long_size;
	/* event ids and fields, looked up by name */
	int id_count, id_fold, id_snap, id_print, id_untraced;
	unsigned char *known_type;	/* 65536 bits: the event ids the file has formats for */
	struct tep_format_field *f_item, *f_delta, *f_fcpu, *f_fitem, *f_fvalue, *f_tag, *f_events,
		*f_buf;
	/* The counter's value after the update or fold: NULL on kernels before the field. */
	struct tep_format_field *f_counter, *f_fcounter;
	/* vm_event_untraced (cpu, item, delta), on kernels that have it. */
	struct tep_format_field *f_ucpu, *f_uitem, *f_udelta;
	/* common_type and common_pid, read without libtraceevent by the per-CPU reader */
	struct tep_format_field *f_type, *f_pid;
	/*
	 * For reading each CPU's pages directly (trace_percpu.c): the top instance's sections,
	 * or why that is not possible (the merged libtracecmd iteration is used then).
	 */
	struct cpu_section *sections;
	int nsections;
	unsigned int page_size;
	int page_long_size;
	bool big_endian, native;	/* the file's byte order; whether it is this host's */
	const char *no_direct;		/* NULL: the sections can be read directly */
	char fallback[256];		/* why the per-CPU reader gave way to the merged one */
	char reader_used[400];		/* which reader read the events, and why */
	const char *loss_unseen;	/* why some lost events cannot be seen, or NULL */
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
	/* Set by the child as its last act: an exit without it was not the audit's own. */
	volatile int done, result;
};
extern struct trace_where *trace_where;

/*
 * lib_enter - marks the start of a libtracecmd/libtraceevent call named CALL in trace_where;
 * lib_leave - its end (our own code runs again).
 */
void lib_enter(const char *call);
void lib_leave(void);

/* read_at - N bytes at file offset OFF of FD: 0, or -1 (short read, error, offset too big). */
int read_at(int fd, u64 off, void *buf, size_t n);

/*
 * trace_open - opens PATH with libtracecmd and looks up the events, fields, item table,
 * clock and CPUSTAT: 0, or -1 with a one-line reason in err (bad input: the caller exits 2).
 * trace_close - frees what trace_open() set up.
 */
int trace_open(struct trace_input *t, const char *path, char *err, size_t errlen);
void trace_close(struct trace_input *t);

/*
 * check_layout - 0 when a version 7 file's sections all fit in it (or it is not walkable); -1
 * with a reason.
 */
int check_layout(const char *path, char *err, size_t errlen);

/* clock_orders_cpus - whether the trace clock orders events recorded on different CPUs. */
bool clock_orders_cpus(const char *clock);



/*
 * parse_cpustats - the top instance's per-CPU statistics from the CPUSTAT options' text.
 * Blocks after a "Buffer: NAME" line are another instance's (trace-cmd record -B) and are
 * skipped. A block counts for its CPU (present) and is complete only with each of its
 * overrun, commit overrun and dropped events lines read exactly once. Blocks naming a CPU
 * outside 0..ncpus-1 are counted in *stray (the first in *stray_cpu). Returns 0, or -1 with
 * the reason in err when the top instance has two blocks for one CPU (bad input).
 */
int parse_cpustats(const char *text, struct cpu_stats *stats, int ncpus, int *stray,
		   long long *stray_cpu, char *err, size_t errlen);

#endif
