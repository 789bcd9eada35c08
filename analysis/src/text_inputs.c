// SPDX-License-Identifier: GPL-2.0
#include "text_inputs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* The next line of buf as [*start, *end), skipping nothing; returns 0 at the end. */
static int next_line(const char *buf, size_t len, size_t *pos, const char **start, size_t *n)
{
	const char *nl;

	if (*pos >= len)
		return 0;
	*start = buf + *pos;
	nl = memchr(*start, '\n', len - *pos);
	*n = nl ? (size_t)(nl - *start) : len - *pos;
	*pos += *n + (nl ? 1 : 0);
	return 1;
}

/* Splits a line into whitespace-separated words; returns the count, words point into tmp. */
static size_t split_words(char *tmp, char ***words, size_t *cap)
{
	size_t n = 0;
	char *save = NULL, *w;

	for (w = strtok_r(tmp, " \t\r", &save); w; w = strtok_r(NULL, " \t\r", &save)) {
		if (n == *cap) {
			size_t ncap = *cap ? *cap * 2 : 16;
			char **nw = realloc(*words, ncap * sizeof(*nw));

			if (!nw)
				return (size_t)-1;
			*words = nw;
			*cap = ncap;
		}
		(*words)[n++] = w;
	}
	return n;
}

static int parse_u64(const char *s, unsigned long long *v)
{
	char *end;

	if (!*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return (errno || *end) ? -1 : 0;
}

static char *dup_line(const char *start, size_t n)
{
	char *s = malloc(n + 1);

	if (s) {
		memcpy(s, start, n);
		s[n] = '\0';
	}
	return s;
}

int parse_vmstat(const char *buf, size_t len, struct vmstat_file *out, char *err, size_t errlen)
{
	size_t pos = 0, n, lineno = 0, cap = 0, wcap = 0, nw;
	const char *start;
	char **words = NULL;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	while (next_line(buf, len, &pos, &start, &n)) {
		char *tmp;
		unsigned long long v;

		lineno++;
		tmp = dup_line(start, n);
		if (!tmp) {
			rc = set_err(err, errlen, "out of memory");
			break;
		}
		nw = split_words(tmp, &words, &wcap);
		if (nw == 0) {
			free(tmp);
			continue;
		}
		if (nw != 2 || parse_u64(words[1], &v)) {
			rc = set_err(err, errlen, "line %zu is not 'name value'", lineno);
			free(tmp);
			break;
		}
		if (vmstat_find(out, words[0]) >= 0) {
			rc = set_err(err, errlen, "line %zu repeats '%.64s'", lineno, words[0]);
			free(tmp);
			break;
		}
		if (out->n == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			char **nn = realloc(out->names, ncap * sizeof(*nn));
			unsigned long long *nv;

			if (!nn) {
				free(tmp);
				rc = set_err(err, errlen, "out of memory");
				break;
			}
			out->names = nn;
			nv = realloc(out->values, ncap * sizeof(*nv));
			if (!nv) {
				free(tmp);
				rc = set_err(err, errlen, "out of memory");
				break;
			}
			out->values = nv;
			cap = ncap;
		}
		out->names[out->n] = strdup(words[0]);
		if (!out->names[out->n]) {
			free(tmp);
			rc = set_err(err, errlen, "out of memory");
			break;
		}
		out->values[out->n++] = v;
		free(tmp);
	}
	free(words);
	if (rc == 0 && out->n == 0)
		rc = set_err(err, errlen, "no 'name value' lines");
	if (rc)
		free_vmstat(out);
	return rc;
}

long vmstat_find(const struct vmstat_file *v, const char *name)
{
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->names[i], name))
			return (long)i;
	return -1;
}

void free_vmstat(struct vmstat_file *v)
{
	for (size_t i = 0; i < v->n; i++)
		free(v->names[i]);
	free(v->names);
	free(v->values);
	memset(v, 0, sizeof(*v));
}

/*
 * Room for element n of an array of elements of size sz: returns the array,
 * reallocated (doubling *cap) when full, or NULL when out of memory (the old
 * array is then still valid). The caller assigns it back to its typed pointer.
 */
static void *grow(void *arr, size_t *cap, size_t n, size_t sz)
{
	size_t ncap, bytes;
	void *na;

	if (n < *cap)
		return arr;
	ncap = *cap ? *cap * 2 : 128;
	if (__builtin_mul_overflow(ncap, sz, &bytes))
		return NULL;
	na = realloc(arr, bytes);
	if (na)
		*cap = ncap;
	return na;
}

static int parse_cpu_word(const char *w, int *cpu)
{
	unsigned long long v;

	if (strncmp(w, "cpu", 3) || parse_u64(w + 3, &v) || v > 4096)
		return -1;
	*cpu = (int)v;
	return 0;
}

/*
 * The layout of the kernel since the series' per-line snapshot file: after
 * "tag N", one line per CPU and item, CPU by CPU, each CPU listing the same
 * items in the same order:
 *   cpu0 pgpgin 12
 *   cpu0 pgpgout 0
 *   ...
 *   cpu1 pgpgin 34
 * Called with the first such line in [start, start + n), at line lineno.
 */
static int parse_snapshot_lines(const char *buf, size_t len, size_t pos, const char *start,
				size_t n, size_t lineno, struct snapshot_table *out, char *err,
				size_t errlen)
{
	size_t wcap = 0, nw, ccap = 0, icap = 0, lcap = 0, fcap = 0, nflat = 0, idx = 0, bytes;
	size_t first_line_of_cpu = lineno;
	unsigned long long *flat = NULL, v;
	char **words = NULL, *tmp = NULL;
	void *p;
	int rc = 0, cpu;

	do {
		tmp = dup_line(start, n);
		if (!tmp) {
			rc = set_err(err, errlen, "out of memory");
			goto out;
		}
		nw = split_words(tmp, &words, &wcap);
		if (nw == (size_t)-1) {
			rc = set_err(err, errlen, "out of memory");
			goto out;
		}
		if (nw == 0)
			goto next;
		if (nw != 3 || parse_cpu_word(words[0], &cpu) || parse_u64(words[2], &v)) {
			rc = set_err(err, errlen, "line %zu is not 'cpuN item count'", lineno);
			goto out;
		}
		if (out->ncpus == 0 || cpu != out->cpus[out->ncpus - 1]) {
			/* A new CPU's lines: the previous one must have listed every item. */
			if (out->ncpus > 1 && idx != out->nitems) {
				rc = set_err(err, errlen, "line %zu: cpu%d lists %zu of the %zu items cpu%d lists "
					     "(its lines start at line %zu)", lineno, out->cpus[out->ncpus - 1],
					     idx, out->nitems, out->cpus[0], first_line_of_cpu);
				goto out;
			}
			for (size_t c = 0; c < out->ncpus; c++) {
				if (out->cpus[c] == cpu) {
					rc = set_err(err, errlen, "line %zu: cpu%d again, after other CPUs' lines",
						     lineno, cpu);
					goto out;
				}
			}
			if (!(p = grow(out->cpus, &ccap, out->ncpus, sizeof(*out->cpus)))) {
				rc = set_err(err, errlen, "out of memory");
				goto out;
			}
			out->cpus = p;
			out->cpus[out->ncpus++] = cpu;
			idx = 0;
			first_line_of_cpu = lineno;
		}
		if (out->ncpus == 1) {
			/* The first CPU's lines name the items. */
			for (size_t j = 0; j < out->nitems; j++) {
				if (!strcmp(out->names[j], words[1])) {
					rc = set_err(err, errlen, "line %zu repeats '%.64s' (line %zu)", lineno,
						     words[1], out->lines[j]);
					goto out;
				}
			}
			if (!(p = grow(out->names, &icap, out->nitems, sizeof(*out->names)))) {
				rc = set_err(err, errlen, "out of memory");
				goto out;
			}
			out->names = p;
			if (!(p = grow(out->lines, &lcap, out->nitems, sizeof(*out->lines)))) {
				rc = set_err(err, errlen, "out of memory");
				goto out;
			}
			out->lines = p;
			out->names[out->nitems] = strdup(words[1]);
			if (!out->names[out->nitems]) {
				rc = set_err(err, errlen, "out of memory");
				goto out;
			}
			out->lines[out->nitems++] = lineno;
		} else if (idx >= out->nitems || strcmp(out->names[idx], words[1])) {
			rc = set_err(err, errlen, "line %zu: cpu%d has '%.64s' where cpu%d has %s%.64s%s",
				     lineno, cpu, words[1], out->cpus[0], idx < out->nitems ? "'" : "",
				     idx < out->nitems ? out->names[idx] : "no more items",
				     idx < out->nitems ? "'" : "");
			goto out;
		}
		if (!(p = grow(flat, &fcap, nflat, sizeof(*flat)))) {
			rc = set_err(err, errlen, "out of memory");
			goto out;
		}
		flat = p;
		flat[nflat++] = v;
		idx++;
next:
		free(tmp);
		tmp = NULL;
		lineno++;
	} while (next_line(buf, len, &pos, &start, &n));
	if (out->ncpus > 1 && idx != out->nitems) {
		rc = set_err(err, errlen, "the end: cpu%d lists %zu of the %zu items cpu%d lists "
			     "(its lines start at line %zu)", out->cpus[out->ncpus - 1], idx,
			     out->nitems, out->cpus[0], first_line_of_cpu);
		goto out;
	}
	if (out->nitems == 0) {
		rc = set_err(err, errlen, "no 'cpuN item count' lines");
		goto out;
	}
	/* Block by block (CPU-major) into the table's item-major layout. */
	if (__builtin_mul_overflow(out->nitems, out->ncpus, &bytes) ||
	    __builtin_mul_overflow(bytes, sizeof(*out->values), &bytes)) {
		rc = set_err(err, errlen, "table too large");
		goto out;
	}
	out->values = malloc(bytes);
	if (!out->values) {
		rc = set_err(err, errlen, "out of memory");
		goto out;
	}
	for (size_t c = 0; c < out->ncpus; c++)
		for (size_t j = 0; j < out->nitems; j++)
			out->values[j * out->ncpus + c] = flat[c * out->nitems + j];
out:
	free(tmp);
	free(words);
	free(flat);
	return rc;
}

/*
 * The two layouts the kernel has printed: after "tag N", either a table
 *   item        cpu0   cpu1
 *   pgpgin      12     34
 * (the series before its per-line file, and the committed fixtures), or one
 * line per CPU and item (parse_snapshot_lines()).
 */
int parse_snapshot_table(const char *buf, size_t len, struct snapshot_table *out,
			 char *err, size_t errlen)
{
	size_t pos = 0, n, lineno = 0, wcap = 0, nw, icap = 0;
	const char *start;
	char **words = NULL, *tmp = NULL;
	unsigned long long v;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	/* Line 1: tag */
	if (!next_line(buf, len, &pos, &start, &n))
		return set_err(err, errlen, "empty file");
	lineno = 1;
	tmp = dup_line(start, n);
	if (!tmp)
		return set_err(err, errlen, "out of memory");
	nw = split_words(tmp, &words, &wcap);
	if (nw != 2 || strcmp(words[0], "tag") || parse_u64(words[1], &v) || v > UINT_MAX) {
		rc = set_err(err, errlen, "line 1 is not 'tag N'");
		goto out;
	}
	out->tag = (unsigned int)v;
	free(tmp);
	tmp = NULL;

	/* Line 2: item cpuN... */
	if (!next_line(buf, len, &pos, &start, &n)) {
		rc = set_err(err, errlen, "no header line after the tag");
		goto out;
	}
	lineno = 2;
	tmp = dup_line(start, n);
	if (!tmp) {
		rc = set_err(err, errlen, "out of memory");
		goto out;
	}
	nw = split_words(tmp, &words, &wcap);
	if (nw != (size_t)-1 && nw >= 1 && !strncmp(words[0], "cpu", 3)) {
		rc = parse_snapshot_lines(buf, len, pos, start, n, 2, out, err, errlen);
		goto out;
	}
	if (nw == (size_t)-1 || nw < 2 || strcmp(words[0], "item")) {
		rc = set_err(err, errlen, "line 2 is neither the header 'item cpu0 ...' nor 'cpuN item count'");
		goto out;
	}
	out->ncpus = nw - 1;
	out->cpus = calloc(out->ncpus, sizeof(*out->cpus));
	if (!out->cpus) {
		rc = set_err(err, errlen, "out of memory");
		goto out;
	}
	for (size_t c = 0; c < out->ncpus; c++) {
		if (strncmp(words[c + 1], "cpu", 3) || parse_u64(words[c + 1] + 3, &v) || v > 4096) {
			rc = set_err(err, errlen, "line 2: '%.32s' is not cpuN", words[c + 1]);
			goto out;
		}
		out->cpus[c] = (int)v;
		for (size_t d = 0; d < c; d++) {
			if (out->cpus[d] == out->cpus[c]) {
				rc = set_err(err, errlen, "line 2: cpu%d appears twice in the header", out->cpus[c]);
				goto out;
			}
		}
	}
	free(tmp);
	tmp = NULL;

	while (next_line(buf, len, &pos, &start, &n)) {
		lineno++;
		tmp = dup_line(start, n);
		if (!tmp) {
			rc = set_err(err, errlen, "out of memory");
			goto out;
		}
		nw = split_words(tmp, &words, &wcap);
		if (nw == 0) {
			free(tmp);
			tmp = NULL;
			continue;
		}
		if (nw != out->ncpus + 1) {
			rc = set_err(err, errlen, "line %zu has %zu values, the header names %zu CPUs",
				  lineno, nw == (size_t)-1 ? 0 : nw - 1, out->ncpus);
			goto out;
		}
		if (out->nitems == icap) {
			size_t ncap = icap ? icap * 2 : 128;
			char **nn = realloc(out->names, ncap * sizeof(*nn));
			unsigned long long *nv;
			size_t *nl;

			if (!nn) {
				rc = set_err(err, errlen, "out of memory");
				goto out;
			}
			out->names = nn;
			size_t bytes;

			if (__builtin_mul_overflow(ncap, out->ncpus, &bytes) ||
			    __builtin_mul_overflow(bytes, sizeof(*nv), &bytes)) {
				rc = set_err(err, errlen, "line %zu: table too large", lineno);
				goto out;
			}
			nv = realloc(out->values, bytes);
			if (!nv) {
				rc = set_err(err, errlen, "out of memory");
				goto out;
			}
			out->values = nv;
			nl = realloc(out->lines, ncap * sizeof(*nl));
			if (!nl) {
				rc = set_err(err, errlen, "out of memory");
				goto out;
			}
			out->lines = nl;
			icap = ncap;
		}
		for (size_t j = 0; j < out->nitems; j++) {
			if (!strcmp(out->names[j], words[0])) {
				rc = set_err(err, errlen, "line %zu repeats '%.64s' (line %zu)", lineno, words[0],
					     out->lines[j]);
				goto out;
			}
		}
		for (size_t c = 0; c < out->ncpus; c++) {
			if (parse_u64(words[c + 1], &v)) {
				rc = set_err(err, errlen, "line %zu: '%.32s' is not a count", lineno, words[c + 1]);
				goto out;
			}
			out->values[out->nitems * out->ncpus + c] = v;
		}
		out->names[out->nitems] = strdup(words[0]);
		if (!out->names[out->nitems]) {
			rc = set_err(err, errlen, "out of memory");
			goto out;
		}
		out->lines[out->nitems] = lineno;
		out->nitems++;
		free(tmp);
		tmp = NULL;
	}
	if (out->nitems == 0)
		rc = set_err(err, errlen, "no item lines");
out:
	free(tmp);
	free(words);
	if (rc)
		free_snapshot_table(out);
	return rc;
}

void free_snapshot_table(struct snapshot_table *t)
{
	for (size_t i = 0; i < t->nitems; i++)
		free(t->names[i]);
	free(t->names);
	free(t->lines);
	free(t->values);
	free(t->cpus);
	memset(t, 0, sizeof(*t));
}

const char *file_kind(unsigned int mode)
{
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISSOCK(mode))
		return "a socket";
	return "not a plain file";
}

int open_regular(const char *path, char *err, size_t errlen)
{
	struct stat st;
	int fd, e;

	/* O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below. */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		char target[256];
		ssize_t n;

		e = errno;
		if (e == ENOENT && (n = readlink(path, target, sizeof(target) - 1)) >= 0) {
			target[n] = '\0';
			set_err(err, errlen, "%s: a dangling symlink (to '%s', which does not exist)", path,
				target);
		} else {
			set_err(err, errlen, "%s: %s", path, strerror(e));
		}
		return -1;
	}
	if (fstat(fd, &st)) {
		set_err(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		set_err(err, errlen, "%s: not a regular file (%s): give the file itself", path,
			file_kind(st.st_mode));
		close(fd);
		return -1;
	}
	if (fcntl(fd, F_SETFL, 0) < 0) {
		set_err(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

int read_whole_file(const char *path, char **buf, size_t *len, char *err, size_t errlen)
{
	size_t cap = 65536, n = 0;
	ssize_t got;
	char *b;
	int fd = open_regular(path, err, errlen);

	if (fd < 0)
		return -1;
	b = malloc(cap + 1);
	if (!b) {
		close(fd);
		return set_err(err, errlen, "%s: out of memory reading it", path);
	}
	for (;;) {
		got = read(fd, b + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			set_err(err, errlen, "%s: %s", path, strerror(errno));
			free(b);
			close(fd);
			return -1;
		}
		if (got == 0)
			break;
		n += (size_t)got;
		if (n == cap) {
			char *nb = cap > SIZE_MAX / 4 ? NULL : realloc(b, cap * 2 + 1);

			if (!nb) {
				free(b);
				close(fd);
				return set_err(err, errlen, "%s: out of memory reading it", path);
			}
			b = nb;
			cap *= 2;
		}
	}
	close(fd);
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}
