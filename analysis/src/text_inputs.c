// SPDX-License-Identifier: GPL-2.0
#include "text_inputs.h"

#include <errno.h>
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
 * The table the kernel prints:
 *   tag 1
 *   item        cpu0   cpu1
 *   pgpgin      12     34
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
	if (nw == (size_t)-1 || nw < 2 || strcmp(words[0], "item")) {
		rc = set_err(err, errlen, "line 2 is not the header 'item cpu0 ...'");
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

			if (!nn) {
				rc = set_err(err, errlen, "out of memory");
				goto out;
			}
			out->names = nn;
			nv = realloc(out->values, ncap * out->ncpus * sizeof(*nv));
			if (!nv) {
				rc = set_err(err, errlen, "out of memory");
				goto out;
			}
			out->values = nv;
			icap = ncap;
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
	free(t->values);
	free(t->cpus);
	memset(t, 0, sizeof(*t));
}

int read_whole_file(const char *path, char **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 65536, n = 0, got;
	char *b;

	if (!f)
		return -1;
	b = malloc(cap + 1);
	if (!b) {
		fclose(f);
		errno = ENOMEM;
		return -1;
	}
	while ((got = fread(b + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			char *nb = realloc(b, cap * 2 + 1);

			if (!nb) {
				free(b);
				fclose(f);
				errno = ENOMEM;
				return -1;
			}
			b = nb;
			cap *= 2;
		}
	}
	if (ferror(f)) {
		free(b);
		fclose(f);
		errno = EIO;
		return -1;
	}
	fclose(f);
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}
