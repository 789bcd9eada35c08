/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every allocation of vmstat-audit's own code goes through these wrappers: the Makefile
 * includes this header first in every source file, and the macros below route malloc(),
 * calloc(), realloc(), strdup(), strndup(), asprintf() and vasprintf() to them. A failure
 * marks the process out of memory, for good: main() then exits 4 "out of memory" and writes
 * no verdict, whatever the code that saw the NULL did with it (a message dropped, a table cut
 * short). The test build (make allocfail, -DVMSTAT_AUDIT_ALLOC_FAIL) fails the Nth allocation
 * (VMSTAT_AUDIT_FAIL_ALLOC=N) or every one from the Nth on (N+), and says so on stderr.
 */
#ifndef VMSTAT_AUDIT_ALLOC_H
#define VMSTAT_AUDIT_ALLOC_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * audit_malloc - malloc(); NULL marks the process out of memory. Likewise
 * audit_calloc - calloc(), audit_realloc - realloc(), audit_strdup - strdup(), audit_strndup - strndup(),
 * audit_vasprintf - vasprintf() and audit_asprintf - asprintf(), whose -1 marks it too.
 */
void *audit_malloc(size_t n);
void *audit_calloc(size_t n, size_t size);
void *audit_realloc(void *p, size_t n);
char *audit_strdup(const char *s);
char *audit_strndup(const char *s, size_t n);
int audit_vasprintf(char **out, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
int audit_asprintf(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* oom_note - marks the process out of memory (an allocation outside the wrappers failed). */
void oom_note(void);
/* oom_seen - whether any allocation failed: nothing may then be decided. */
bool oom_seen(void);

#undef strdup
#undef strndup
#define malloc(n) audit_malloc(n)
#define calloc(n, size) audit_calloc(n, size)
#define realloc(p, n) audit_realloc(p, n)
#define strdup(s) audit_strdup(s)
#define strndup(s, n) audit_strndup(s, n)
#define vasprintf(out, fmt, ap) audit_vasprintf(out, fmt, ap)
#define asprintf(out, ...) audit_asprintf(out, __VA_ARGS__)

#endif
