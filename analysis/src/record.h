/* SPDX-License-Identifier: GPL-2.0 */
/* Decoding one vmstat record, bounds-checked: shared by both readers (record.c). */
#ifndef VMSTAT_AUDIT_RECORD_H
#define VMSTAT_AUDIT_RECORD_H

#include "trace_input.h"

/*
 * What a vmstat record says, decoded with every field bounds-checked. Shared by both readers.
 * For a snapshot, values points into the decoder's buffer of nitems counters.
 */
enum record_kind { REC_OTHER, REC_COUNT, REC_FOLD, REC_UNTRACED, REC_SNAPSHOT, REC_MARKER };
struct vm_record {
	enum record_kind kind;
	int cpu2;			/* fold: the dead CPU; untraced: the CPU it moved on */
	int item;
	long long delta;		/* count, untraced */
	u64 value;			/* fold */
	u64 counter;			/* count, fold: the counter field */
	bool has_counter;
	unsigned int tag;		/* snapshot */
	const u64 *values;		/* snapshot: nitems counters */
	int marker;			/* marker: 0..3 */
	int pid;			/* common_pid */
};
/*
 * decode_record - what the record at DATA (SIZE bytes, CPU's, at file offset WHERE) says, in *v:
 * 0, or -1 with "file: malformed WHAT record on CPU c at ..." in err. values: room for nitems
 * counters, which a snapshot's v->values points into.
 */
int decode_record(struct trace_input *t, const unsigned char *data, unsigned int size, int cpu,
		  u64 where, u64 *values, struct vm_record *v, char *err, size_t errlen);

/*
 * record_bad_item - the bad-input message for a WHAT record on CPU at file offset WHERE that
 * names ITEM outside the trace's item table: -1, with the reason in err.
 */
int record_bad_item(const struct trace_input *t, int cpu, u64 where, const char *what,
		    long long item, char *err, size_t errlen);

#endif
