/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parsers for the text files a run directory holds besides trace.dat: the
 * /proc/vmstat copies and the tables <debugfs>/vmstat/snapshot prints.
 * They take a buffer (not a path) so the fuzzer can drive them directly.
 */
#ifndef VMSTAT_AUDIT_TEXT_INPUTS_H
#define VMSTAT_AUDIT_TEXT_INPUTS_H

#include <stddef.h>

struct vmstat_file {
	size_t n;
	char **names;
	unsigned long long *values;
};

struct snapshot_table {
	unsigned int tag;
	size_t ncpus, nitems;
	int *cpus;			/* ncpus CPU numbers, in the file's order */
	char **names;			/* nitems item names */
	size_t *lines;			/* nitems line numbers (1-based), for messages */
	unsigned long long *values;	/* nitems x ncpus, row by row */
};

/*
 * parse_vmstat - a /proc/vmstat copy; parse_snapshot_table - a per-CPU snapshot table. Both
 * return 0, or -1 with a one-line reason in err (line numbers are 1-based).
 * free_vmstat - frees what parse_vmstat() filled in; free_snapshot_table - likewise.
 */
int parse_vmstat(const char *buf, size_t len, struct vmstat_file *out, char *err, size_t errlen);
int parse_snapshot_table(const char *buf, size_t len, struct snapshot_table *out,
			 char *err, size_t errlen);
void free_vmstat(struct vmstat_file *v);
void free_snapshot_table(struct snapshot_table *t);

/* vmstat_find - looks a name up; returns its index or -1. */
long vmstat_find(const struct vmstat_file *v, const char *name);

/*
 * set_err - writes a one-line reason into err and returns -1: every parser's and loader's
 * failure.
 */
int set_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/*
 * open_regular - opens a regular file for reading (never waits on a FIFO); -1 with
 * "path: reason" in err.
 */
int open_regular(const char *path, char *err, size_t errlen);
/* file_kind - "a directory", "a FIFO", ...: what a non-regular file is, for messages. */
const char *file_kind(unsigned int mode);

/*
 * read_whole_file - reads a whole regular file; 0, or -1 with "path: reason" in err. The
 * buffer is NUL-terminated.
 */
int read_whole_file(const char *path, char **buf, size_t *len, char *err, size_t errlen);

#endif
