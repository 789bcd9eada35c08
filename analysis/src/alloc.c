// SPDX-License-Identifier: GPL-2.0
#include "alloc.h"

/* The Makefile includes alloc.h first everywhere: here the names are the C library's again. */
#undef malloc
#undef calloc
#undef realloc
#undef strdup
#undef strndup
#undef vasprintf
#undef asprintf

#include <errno.h>
#include <stdatomic.h>

static atomic_bool out_of_memory;

void oom_note(void)
{
	atomic_store(&out_of_memory, true);
}

bool oom_seen(void)
{
	return atomic_load(&out_of_memory);
}

#ifdef VMSTAT_AUDIT_ALLOC_FAIL
/*
 * The test hook: whether this allocation is the one (or one of those) to fail. N!: instead of
 * failing, the Nth asks the allocator for an impossible size (under ASan with
 * allocator_may_return_null=0, a sanitizer report that ends the process).
 */
static _Thread_local bool huge;

static bool inject(void)
{
	static atomic_ullong calls;
	static atomic_int parsed;
	static unsigned long long fail_at;
	static char mode;
	unsigned long long n;

	if (!atomic_load(&parsed)) {
		const char *e = getenv("VMSTAT_AUDIT_FAIL_ALLOC");
		char *end = NULL;

		fail_at = e ? strtoull(e, &end, 10) : 0;
		mode = end ? *end : 0;
		atomic_store(&parsed, 1);
	}
	n = atomic_fetch_add(&calls, 1) + 1;
	if (!fail_at || (n != fail_at && !(mode == '+' && n > fail_at)))
		return false;
	fprintf(stderr, "alloc-fail: allocation %llu %s (VMSTAT_AUDIT_FAIL_ALLOC)\n", n,
		mode == '!' ? "asks for SIZE_MAX/2 bytes" : "failed");
	if (mode == '!') {
		huge = true;
		return false;
	}
	errno = ENOMEM;
	return true;
}

/* The size to ask for: n, or an impossible one when the hook says so. */
static size_t size_of(size_t n)
{
	if (!huge)
		return n;
	huge = false;
	return (size_t)-1 / 2;
}
#else
static inline bool inject(void)
{
	return false;
}

static inline size_t size_of(size_t n)
{
	return n;
}
#endif

static void *checked(void *p, bool want)
{
	if (!p && want)
		oom_note();
	return p;
}

void *audit_malloc(size_t n)
{
	return checked(n && inject() ? NULL : malloc(size_of(n)), n != 0);
}

void *audit_calloc(size_t n, size_t size)
{
	return checked(n && size && inject() ? NULL : calloc(size_of(n), size), n && size);
}

void *audit_realloc(void *p, size_t n)
{
	return checked(n && inject() ? NULL : realloc(p, size_of(n)), n != 0);
}

char *audit_strdup(const char *s)
{
	return checked(inject() ? NULL : strdup(s), true);
}

char *audit_strndup(const char *s, size_t n)
{
	return checked(inject() ? NULL : strndup(s, n), true);
}

int audit_vasprintf(char **out, const char *fmt, va_list ap)
{
	int rc;

	if (inject()) {
		*out = NULL;
		oom_note();
		return -1;
	}
	rc = vasprintf(out, fmt, ap);
	if (rc < 0) {
		*out = NULL;
		oom_note();
	}
	return rc;
}

int audit_asprintf(char **out, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = audit_vasprintf(out, fmt, ap);
	va_end(ap);
	return rc;
}
