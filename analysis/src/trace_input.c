// SPDX-License-Identifier: GPL-2.0
#include "trace_input.h"
#include "text_inputs.h"
#include "ring_page.h"

#include <errno.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <trace-cmd.h>

/*
 * The public headers of libtracecmd 1.3 give the CPU count (tep_get_cpus())
 * but neither the trace clock nor the CPUSTAT text: check_layout() reads
 * those from the file's options itself, bounds-checked.
 */
struct layout_info {
	char *clock;		/* TRACECLOCK's [selected] clock, or the top BUFFER's clock */
	char *cpustats;		/* the CPUSTAT options' text, concatenated */
	size_t cpustats_len;
	/* The top instance's data, for reading each CPU's pages directly (trace_percpu.c). */
	bool have_top;
	u64 fly_off;		/* its BUFFER FLYRECORD section */
	unsigned int page_size;
	int nsections;
	struct cpu_section *sections;
	int ts_option;		/* an option by which libtracecmd shifts timestamps, or 0 */
	unsigned int header_page_size;	/* the file header's, which libtracecmd reads pages by */
};

static void layout_info_free(struct layout_info *li)
{
	free(li->clock);
	free(li->cpustats);
	free(li->sections);
	memset(li, 0, sizeof(*li));
}

/* "local [global] counter ...": the bracketed name. */
static char *selected_clock(const unsigned char *o, u64 n)
{
	const unsigned char *lb = memchr(o, '[', n), *rb;

	if (!lb)
		return NULL;
	rb = memchr(lb, ']', n - (u64)(lb - o));
	if (!rb || rb == lb + 1)
		return NULL;
	return strndup((const char *)lb + 1, (size_t)(rb - lb - 1));
}

static void add_cpustats(struct layout_info *li, const unsigned char *o, u64 n)
{
	const unsigned char *z = memchr(o, '\0', n);
	size_t len = z ? (size_t)(z - o) : (size_t)n;
	char *nb;

	if (!li || len > (1 << 20))
		return;
	nb = realloc(li->cpustats, li->cpustats_len + len + 2);
	if (!nb)
		return;
	memcpy(nb + li->cpustats_len, o, len);
	li->cpustats_len += len;
	nb[li->cpustats_len++] = '\n';
	nb[li->cpustats_len] = '\0';
	li->cpustats = nb;
}

static struct trace_where private_where;
struct trace_where *trace_where = &private_where;

void lib_enter(const char *call)
{
	if (trace_where->call[0] != call[0] || strcmp(trace_where->call, call))
		snprintf(trace_where->call, sizeof(trace_where->call), "%s", call);
	trace_where->inside = 1;
}

void lib_leave(void)
{
	trace_where->inside = 0;
}

/* Clocks that read one timeline on every CPU; "local" and "perf" are per-CPU. */
bool clock_orders_cpus(const char *clock)
{
	static const char *const ordered[] = { "global", "mono", "mono_raw", "boot", "tai", "counter" };

	if (!clock)
		return false;
	for (size_t i = 0; i < sizeof(ordered) / sizeof(ordered[0]); i++)
		if (!strcmp(clock, ordered[i]))
			return true;
	return false;
}

static struct tep_print_arg *find_symbolic(struct tep_print_arg *arg)
{
	for (; arg; arg = arg->next) {
		struct tep_print_arg *found = NULL;

		switch (arg->type) {
		case TEP_PRINT_SYMBOL:
			return arg;
		case TEP_PRINT_TYPE:
			found = find_symbolic(arg->typecast.item);
			break;
		case TEP_PRINT_OP:
			found = find_symbolic(arg->op.left);
			if (!found)
				found = find_symbolic(arg->op.right);
			break;
		default:
			break;
		}
		if (found)
			return found;
	}
	return NULL;
}

/* Item names from vm_event_count's __print_symbolic() table, indexed by item. */
static int load_item_names(struct trace_input *t, struct tep_event *ev, char *err, size_t errlen)
{
	struct tep_print_arg *sym = find_symbolic(ev->print_fmt.args);
	struct tep_print_flag_sym *s;
	long max = -1;

	if (!sym)
		return set_err(err, errlen, "%s: vmstat:vm_event_count has no symbolic item table in its format",
			    t->path);
	for (s = sym->symbol.symbols; s; s = s->next) {
		char *end;
		long v = strtol(s->value, &end, 0);

		if (*end || v < 0 || v > 65535)
			return set_err(err, errlen, "%s: item table entry '%s' is not a number (enum not exported?)",
				    t->path, s->value);
		if (v > max)
			max = v;
	}
	if (max < 0)
		return set_err(err, errlen, "%s: the item table of vmstat:vm_event_count is empty", t->path);
	t->nitems = (int)max + 1;
	t->item_names = calloc((size_t)t->nitems, sizeof(char *));
	if (!t->item_names)
		return set_err(err, errlen, "out of memory");
	for (s = sym->symbol.symbols; s; s = s->next) {
		long v = strtol(s->value, NULL, 0);

		if (t->item_names[v])
			return set_err(err, errlen, "%s: item %ld appears twice in the item table", t->path, v);
		t->item_names[v] = strdup(s->str);
		if (!t->item_names[v])
			return set_err(err, errlen, "out of memory");
	}
	return 0;
}

static struct tep_format_field *need_field(struct tep_event *ev, const char *name, bool *ok)
{
	struct tep_format_field *f = tep_find_field(ev, name);

	if (!f)
		*ok = false;
	return f;
}

/*
 * The CPUSTAT option text, as "trace-cmd report --stat" prints it:
 *   CPU: 0
 *   entries: 148522
 *   overrun: 0
 *   commit overrun: 0
 *   ...
 *   dropped events: 0
 */
int parse_cpustats(const char *text, struct cpu_stats *stats, int ncpus, int *stray,
		   long long *stray_cpu, char *err, size_t errlen)
{
	static const char *const fields[3] = { "overrun: ", "commit overrun: ", "dropped events: " };
	int cpu = -1;
	unsigned int got = 0, twice = 0;
	size_t lineno = 0;
	const char *p = text;

	*stray = 0;
	*stray_cpu = -1;
	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		const char *line = p;

		p = nl ? nl + 1 : NULL;
		lineno++;
		if (n >= 8 && !memcmp(line, "Buffer: ", 8)) {
			/* Another instance's statistics follow: none of them is the top buffer's. */
			break;
		}
		if (n > 5 && !memcmp(line, "CPU: ", 5)) {
			char *end;
			long long c;

			if (cpu >= 0)
				stats[cpu].complete = got == 7 && !twice;
			errno = 0;
			c = strtoll(line + 5, &end, 10);
			got = twice = 0;
			if (errno || end != line + n || c < 0 || c >= ncpus) {
				if ((*stray)++ == 0)
					*stray_cpu = errno || end != line + n ? -1 : c;
				cpu = -1;
				continue;
			}
			cpu = (int)c;
			if (stats[cpu].present)
				return set_err(err, errlen, "the CPUSTAT option has two blocks for cpu%d (line "
					       "%zu of its text): the file's ring buffer statistics are corrupt",
					       cpu, lineno);
			stats[cpu].present = true;
			continue;
		}
		if (cpu < 0)
			continue;
		for (int f = 0; f < 3; f++) {
			size_t k = strlen(fields[f]);
			unsigned long long v;
			char *end;

			if (n <= k || memcmp(line, fields[f], k) || line[k] < '0' || line[k] > '9')
				continue;
			errno = 0;
			v = strtoull(line + k, &end, 10);
			if (errno || end != line + n)
				continue;	/* not read: the block stays incomplete */
			if (got & 1u << f)
				twice |= 1u << f;
			got |= 1u << f;
			if (f == 0)
				stats[cpu].overrun = v;
			else if (f == 1)
				stats[cpu].commit_overrun = v;
			else
				stats[cpu].dropped = v;
		}
	}
	if (cpu >= 0)
		stats[cpu].complete = got == 7 && !twice;
	return 0;
}

int read_at(int fd, u64 off, void *buf, size_t n)
{
	if (off > (u64)INT64_MAX)
		return -1;
	return pread(fd, buf, n, (off_t)off) == (ssize_t)n ? 0 : -1;
}

static unsigned long long le(const unsigned char *p, int n)
{
	unsigned long long v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/* Whether [off, off + len) lies in a file of fsize bytes, without overflow. */
static bool fits(u64 off, u64 len, u64 fsize)
{
	return off <= fsize && len <= fsize - off;
}

/*
 * A version 7 file is a chain of sections: the options sections name the
 * others (headers, formats, CPU data, ...) by offset and size, and the
 * strings section closes the file. libtracecmd reads a file cut short in
 * its last sections without a word (so does `trace-cmd dump -v`); this
 * walks the chain and requires every section, and the file, to end where
 * the chain says. Returns 0 when the layout is whole or cannot be checked
 * (another version, compressed options). All offsets and sizes are
 * unsigned and checked against the file size before any sum.
 */
static int read_layout(const char *path, struct layout_info *li, char *err, size_t errlen);

int check_layout(const char *path, char *err, size_t errlen)
{
	return read_layout(path, NULL, err, errlen);
}

static int read_layout(const char *path, struct layout_info *li, char *err, size_t errlen)
{
	unsigned char h[64], sec[16];
	u64 fsize, off, end = 0;
	struct stat st;
	size_t v;
	int fd, rc = 0, guard = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		rc = set_err(err, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}
	fsize = st.st_size < 0 ? 0 : (u64)st.st_size;
	if (fsize < sizeof(h) || read_at(fd, 0, h, sizeof(h)) || memcmp(h, "\x17\x08\x44tracing", 10))
		goto out;	/* libtracecmd has already accepted it; nothing more to say */
	for (v = 10; v < sizeof(h) && h[v]; v++)
		;
	if (v + 1 >= sizeof(h) || strcmp((char *)h + 10, "7") || h[v + 1] != 0)
		goto out;	/* version 6, or big-endian: not walked */
	if (li)
		li->header_page_size = (unsigned int)le(h + v + 3, 4);
	v += 7;		/* endian, long size, page size */
	while (v < sizeof(h) && h[v])	/* compression name */
		v++;
	v++;
	while (v < sizeof(h) && h[v])	/* compression version */
		v++;
	v++;
	if (v + 8 > sizeof(h))
		goto out;
	off = le(h + v, 8);

	while (off && guard++ < 64) {
		u64 size, q = 0, next = 0;
		unsigned char *data;

		if (!fits(off, 16, fsize) || read_at(fd, off, sec, 16))
			goto truncated;
		size = le(sec + 8, 8);
		if (!fits(off + 16, size, fsize))
			goto truncated;
		if (off + 16 + size > end)
			end = off + 16 + size;
		if (le(sec + 2, 2) & 1 || size > (1 << 24))
			goto out;	/* compressed options: not walked */
		data = malloc((size_t)size + 1);
		if (!data || read_at(fd, off + 16, data, (size_t)size)) {
			free(data);
			goto truncated;
		}
		while (q + 6 <= size) {
			unsigned int id = (unsigned int)le(data + q, 2);
			u64 osz = le(data + q + 2, 4), val;
			const unsigned char *o = data + q + 6;

			if (osz > size - q - 6)
				break;
			val = osz >= 8 ? le(o, 8) : 0;
			if (id == 0 && osz >= 8) {
				next = val;
			} else if (id == 4 && li && !li->clock) {	/* TRACECLOCK: the trace_clock file */
				li->clock = selected_clock(o, osz);
			} else if (li && !li->ts_option && (id == 1 || id == 7 || id == 12 || id == 13 ||
							    id == 14)) {
				li->ts_option = (int)id;	/* DATE OFFSET TIME_SHIFT GUEST TSC2NSEC */
			} else if (id == 2 && li) {	/* CPUSTAT: one CPU's stats text */
				add_cpustats(li, o, osz);
			} else if (id == 3 && osz >= 8) {	/* BUFFER: name, clock, page, cpus, (id, off, size)... */
				u64 p = 8, ncpu, name_end, clock_start;

				while (p < osz && o[p])
					p++;
				name_end = p;
				p++;
				clock_start = p;
				while (p < osz && o[p])
					p++;
				/* The top instance (empty name) names the clock when TRACECLOCK is absent. */
				if (li && !li->clock && name_end == 8 && p < osz && p > clock_start)
					li->clock = strndup((const char *)o + clock_start, (size_t)(p - clock_start));
				p++;
				if (li && name_end == 8 && !li->have_top && p + 8 <= osz) {
					li->have_top = true;
					li->fly_off = val;
					li->page_size = (unsigned int)le(o + p, 4);
				}
				p += 4;
				ncpu = p + 4 <= osz ? le(o + p, 4) : 0;
				p += 4;
				if (li && name_end == 8 && !li->sections && li->fly_off == val && ncpu <= 4096 &&
				    p + 20 * ncpu <= osz) {
					li->sections = calloc((size_t)ncpu + 1, sizeof(*li->sections));
					li->nsections = li->sections ? (int)ncpu : 0;
				}
				for (u64 c = 0; c < ncpu && p + 20 <= osz; c++, p += 20) {
					u64 doff = le(o + p + 4, 8), dsz = le(o + p + 12, 8);

					if (!fits(doff, dsz, fsize)) {
						free(data);
						goto truncated;
					}
					if (doff + dsz > end)
						end = doff + dsz;
					if (li && name_end == 8 && li->sections && (int)c < li->nsections) {
						li->sections[c].cpu = (int)le(o + p, 4);
						li->sections[c].offset = doff;
						li->sections[c].size = dsz;
					}
				}
			} else if (osz == 8 && val > 0 && fits(val, 16, fsize) &&
				   !read_at(fd, val, sec, 16) && le(sec, 2) == id) {
				u64 ssz = le(sec + 8, 8);

				if (!fits(val + 16, ssz, fsize)) {
					free(data);
					goto truncated;
				}
				if (val + 16 + ssz > end)
					end = val + 16 + ssz;
			}
			q += 6 + osz;
		}
		free(data);
		off = next;
	}
	/* What follows the last named section (the strings) must end exactly at the end. */
	for (guard = 0; end < fsize && guard < 16; guard++) {
		u64 ssz;

		if (!fits(end, 16, fsize) || read_at(fd, end, sec, 16))
			goto truncated;
		ssz = le(sec + 8, 8);
		if (!fits(end + 16, ssz, fsize))
			goto truncated;
		end += 16 + ssz;
	}
	if (end != fsize)
		goto truncated;
	goto out;
truncated:
	rc = set_err(err, errlen, "%s: its sections do not fit in its %llu bytes: truncated or corrupt",
		  path, fsize);
out:
	if (fd >= 0)
		close(fd);
	return rc;
}

/*
 * libtraceevent 1.7 can crash on a damaged event format (a print format
 * naming a field the format lacks). Open the file once in a child first, so
 * that such a file is reported as bad input instead of taking us down.
 */
static int probe_open(const char *path, char *err, size_t errlen)
{
	int status, devnull;
	pid_t pid = fork();

	if (pid < 0)
		return 0;	/* cannot probe: the real open follows anyway */
	if (pid == 0) {
		struct tracecmd_input *h;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		devnull = open("/dev/null", O_WRONLY);
		if (devnull >= 0)
			dup2(devnull, STDERR_FILENO);
		h = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS | TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS);
		if (h)
			tracecmd_close(h);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid)
		return 0;
	if (WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) != 0))
		return set_err(err, errlen, "%s: its event formats crash libtraceevent: corrupt file", path);
	return 0;
}

/*
 * Whether each CPU's pages can be read straight from the file (trace_percpu.c): a version 7
 * file whose top instance's data is not compressed and whose timestamps libtracecmd would not
 * shift (DATE, OFFSET, TIME_SHIFT, GUEST and TSC2NSEC options do). Otherwise t->no_direct says
 * why, and the merged libtracecmd iteration reads the file.
 */
static void direct_sections(struct trace_input *t, struct layout_info *li)
{
	unsigned char sec[16];
	int fd;

	if (!li->have_top || !li->sections) {
		t->no_direct = "it has no version 7 BUFFER option for its top instance";
		return;
	}
	if (li->page_size < 64 || li->page_size > (1u << 24) || li->page_size & (li->page_size - 1)) {
		t->no_direct = "its page size is not a power of two from 64 bytes to 16 MB";
		return;
	}
	fd = open(t->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || read_at(fd, li->fly_off, sec, sizeof(sec)) || le(sec, 2) != 3 || le(sec + 2, 2) & 1)
		t->no_direct = "its trace data is compressed (or its BUFFER section is unreadable)";
	if (fd >= 0)
		close(fd);
	if (!t->no_direct && li->page_size != li->header_page_size)
		t->no_direct = "its BUFFER option's page size is not the file header's";
	for (int k = 0; !t->no_direct && k < li->nsections; k++) {
		const struct cpu_section *cs = &li->sections[k];

		if (cs->cpu < 0 || cs->cpu >= t->ncpus)
			t->no_direct = "its BUFFER option names a CPU beyond the file's CPU count";
		else if (cs->size % li->page_size || cs->offset % 8)
			t->no_direct = "a CPU's data is not whole pages";
		for (int m = 0; !t->no_direct && m < k; m++)
			if (li->sections[m].cpu == cs->cpu)
				t->no_direct = "its BUFFER option names a CPU twice";
	}
	if (t->no_direct)
		return;
	/* Readable pages: the merged reader takes the lost events from their headers too. */
	t->sections = li->sections;
	t->nsections = li->nsections;
	t->page_size = li->page_size;
	li->sections = NULL;
	if (li->ts_option)
		t->no_direct = "it has an option by which libtracecmd shifts timestamps";
}

int trace_open(struct trace_input *t, const char *path, char *err, size_t errlen)
{
	struct tep_event *count, *fold, *snap, *print, *untraced;
	struct layout_info li = { 0 };
	bool ok = true;

	memset(t, 0, sizeof(*t));
	t->path = path;
	tracecmd_set_loglevel(TEP_LOG_NONE);
	/*
	 * A parent that watches this process (main.c) already reports a crash inside
	 * tracecmd_open() as a corrupt file; only an unwatched process probes first, which
	 * costs a second open (about 12 ms on the default run's trace, most of it kallsyms).
	 */
	if (trace_where == &private_where && probe_open(path, err, errlen))
		return -1;
	lib_enter("tracecmd_open");
	t->handle = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS | TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS);
	lib_leave();
	if (!t->handle)
		return set_err(err, errlen, "%s: libtracecmd cannot open it: not a trace-cmd file, or its "
			       "headers are truncated or corrupt", path);
	t->tep = tracecmd_get_tep(t->handle);
	t->ncpus = t->tep ? tep_get_cpus(t->tep) : 0;
	if (!t->tep || t->ncpus <= 0 || t->ncpus > 4096)
		return set_err(err, errlen, "%s: the file names %d CPUs (1 to 4096 expected): corrupt",
			       path, t->ncpus);
	if (read_layout(path, &li, err, errlen)) {
		layout_info_free(&li);
		return -1;
	}
	t->clock = li.clock ? li.clock : strdup("unknown (not a version 7 file with plain options)");
	li.clock = NULL;
	direct_sections(t, &li);
	t->stats = calloc((size_t)t->ncpus, sizeof(*t->stats));
	if (t->clock && t->stats && li.cpustats) {
		t->have_cpustats = true;
		if (parse_cpustats(li.cpustats, t->stats, t->ncpus, &t->cpustat_stray,
				   &t->cpustat_stray_cpu, err, errlen)) {
			char why[256];

			snprintf(why, sizeof(why), "%s", err);
			layout_info_free(&li);
			return set_err(err, errlen, "%s: %s", path, why);
		}
	}
	layout_info_free(&li);
	if (!t->clock || !t->stats)
		return set_err(err, errlen, "out of memory");
	t->long_size = tep_get_long_size(t->tep);
	if (t->long_size != 4 && t->long_size != 8)
		t->long_size = 8;

	count = tep_find_event_by_name(t->tep, "vmstat", "vm_event_count");
	fold = tep_find_event_by_name(t->tep, "vmstat", "vm_event_fold");
	untraced = tep_find_event_by_name(t->tep, "vmstat", "vm_event_untraced");
	snap = tep_find_event_by_name(t->tep, "vmstat", "vm_event_snapshot");
	print = tep_find_event_by_name(t->tep, "ftrace", "print");
	if (!count || !snap)
		return set_err(err, errlen, "%s: no vmstat:vm_event_count/vm_event_snapshot formats: "
			    "recorded without those events, or on a kernel without the series", path);
	t->id_count = count->id;
	t->known_type = calloc(65536 / 8, 1);
	if (!t->known_type)
		return set_err(err, errlen, "out of memory");
	for (int k = 0; k < tep_get_events_count(t->tep); k++) {
		struct tep_event *e = tep_get_event(t->tep, k);

		if (e && e->id >= 0 && e->id < 65536)
			t->known_type[e->id / 8] |= (unsigned char)(1u << (e->id % 8));
	}
	t->id_snap = snap->id;
	t->id_fold = fold ? fold->id : -1;
	t->id_print = print ? print->id : -1;
	t->id_untraced = untraced ? untraced->id : -1;
	if (untraced) {
		t->f_ucpu = need_field(untraced, "cpu", &ok);
		t->f_uitem = need_field(untraced, "item", &ok);
		t->f_udelta = need_field(untraced, "delta", &ok);
	}
	t->f_item = need_field(count, "item", &ok);
	t->f_delta = need_field(count, "delta", &ok);
	t->f_tag = need_field(snap, "tag", &ok);
	t->f_events = need_field(snap, "events", &ok);
	if (fold) {
		t->f_fcpu = need_field(fold, "cpu", &ok);
		t->f_fitem = need_field(fold, "item", &ok);
		t->f_fvalue = need_field(fold, "value", &ok);
	}
	if (print)
		t->f_buf = need_field(print, "buf", &ok);
	t->f_type = tep_find_common_field(count, "common_type");
	t->f_pid = tep_find_common_field(count, "common_pid");
	ok = ok && t->f_type && t->f_pid;
	t->big_endian = tep_is_file_bigendian(t->tep);
	t->native = t->big_endian == tep_is_local_bigendian(t->tep);
	t->page_long_size = tep_get_header_page_size(t->tep);
	if (!t->no_direct && t->page_long_size != 4 && t->page_long_size != 8)
		t->no_direct = "its header_page format names no 4- or 8-byte commit word";
	if (!t->no_direct && tep_is_old_format(t->tep))
		t->no_direct = "it is in the ring buffer format before Linux 2.6.31";
	/* Optional: per-event continuity is checked only when both events carry it. */
	t->f_counter = tep_find_field(count, "counter");
	t->f_fcounter = fold ? tep_find_field(fold, "counter") : NULL;
	/* No kernel writes a counter into one of the two and not the other: a damaged file. */
	if (fold && !t->f_fcounter != !t->f_counter)
		return set_err(err, errlen, "%s: %s has a counter field and %s has none: no "
			       "kernel writes that pair of formats (a damaged or edited file)", path,
			       t->f_counter ? "vm_event_count" : "vm_event_fold",
			       t->f_counter ? "vm_event_fold" : "vm_event_count");
	if (fold && !t->f_fcounter)
		t->f_counter = NULL;
	if (!ok)
		return set_err(err, errlen, "%s: a vmstat event lacks a field this tool reads "
			    "(item, delta, cpu, value, tag, events, buf, common_type, common_pid)", path);
	/* __array() since the series made the snapshot's size fixed; __dynamic_array() before. */
	if (!(t->f_events->flags & (TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_ARRAY)))
		return set_err(err, errlen, "%s: vm_event_snapshot.events is not an array", path);
	if (load_item_names(t, count, err, errlen))
		return -1;

	return 0;
}

void trace_close(struct trace_input *t)
{
	if (t->item_names)
		for (int i = 0; i < t->nitems; i++)
			free(t->item_names[i]);
	free(t->item_names);
	free(t->clock);
	free(t->stats);
	free(t->sections);
	free(t->known_type);
	if (t->handle) {
		lib_enter("tracecmd_close");
		tracecmd_close(t->handle);
		lib_leave();
	}
	memset(t, 0, sizeof(*t));
}
