/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Replaying a trace's records: trace_replay() picks the reader, the per-CPU one
 * (trace_percpu.c) or libtracecmd's merged iteration (trace_replay.c).
 */
#ifndef VMSTAT_AUDIT_TRACE_REPLAY_H
#define VMSTAT_AUDIT_TRACE_REPLAY_H

#include "trace_input.h"

/* How trace_replay() reads the events. */
enum trace_reader {
	READER_AUTO,		/* per CPU when the file allows it, else merged */
	READER_PERCPU,		/* each CPU's pages directly, one thread per CPU (trace_percpu.c) */
	READER_MERGED,		/* libtracecmd's iteration merged by timestamp */
};

/*
 * trace_replay - replays every record into r, modulo the counters' width (the file's long
 * size), and names the reader used in t->reader_used; 0, or -1 with a reason in err (a
 * malformed record, a CPU whose time goes backwards, or READER_PERCPU on a file that cannot be
 * read that way). threads: 0 for one per online core.
 */
int trace_replay(struct trace_input *t, struct replay *r, enum trace_reader reader, int threads,
		 bool progress, char *err, size_t errlen);
/*
 * trace_replay_percpu - the per-CPU reader (trace_percpu.c): 0; -1 with the reason in err
 * (bad input: a corrupt page, time going backwards on a CPU); 1 when the file cannot be mapped
 * (the merged reader can still read it).
 */
int trace_replay_percpu(struct trace_input *t, struct replay *r, int threads, bool progress,
			char *err, size_t errlen);

#endif
