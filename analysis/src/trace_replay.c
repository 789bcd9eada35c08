// SPDX-License-Identifier: GPL-2.0
/*
 * trace_replay(): which reader replays the file, and the merged one, libtracecmd's
 * iteration of every CPU's records by timestamp: the fallback for files the per-CPU
 * reader (trace_percpu.c) cannot read, and the reference it is compared with.
 */
#include "trace_replay.h"
#include "record.h"
#include "ring_page.h"
#include "text_inputs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <trace-cmd.h>

struct replay_ctx {
	struct trace_input *t;
	struct replay *r;
	u64 *values;			/* one snapshot's worth */
	u64 *last_ts;			/* per CPU: the time of its last record */
	int error;
	char *err;
	size_t errlen;
	bool progress;
	time_t last_progress, started;
	u64 records;
};

/* Applies one decoded record of CPU cpu to the replay, in the merged order. */
static void apply_record(struct replay *r, const struct vm_record *v, int cpu, u64 ts)
{
	const u64 *counter = v->has_counter ? &v->counter : NULL;

	switch (v->kind) {
	case REC_COUNT:
		replay_count(r, cpu, v->item, v->delta, counter, ts, v->pid);
		break;
	case REC_FOLD:
		replay_fold(r, cpu, v->cpu2, v->item, v->value, counter, ts);
		break;
	case REC_UNTRACED:
		replay_untraced(r, v->cpu2, v->item, v->delta, ts);
		break;
	case REC_SNAPSHOT:
		replay_snapshot(r, cpu, v->tag, v->values, (size_t)r->nitems, ts);
		break;
	case REC_MARKER:
		replay_marker(r, v->marker, ts);
		break;
	case REC_OTHER:
		break;
	}
}

static void show_progress(struct replay_ctx *c)
{
	time_t now = time(NULL);

	if (!c->progress || now - c->last_progress < 2)
		return;
	c->last_progress = now;
	fprintf(stderr, "vmstat-audit: %llu records read (%.0f/s)\r", c->records,
		now > c->started ? (double)c->records / (double)(now - c->started) : 0.0);
}

static int on_missed(struct tracecmd_input *handle, struct tep_event *event,
		     struct tep_record *rec, int cpu, void *data)
{
	struct replay_ctx *c = data;

	(void)handle;
	(void)event;
	lib_leave();
	replay_missed(c->r, cpu, rec->missed_events);
	lib_enter("tracecmd_iterate_events");
	return 0;
}

/* Called from inside libtracecmd: our own code runs between lib_leave() and lib_enter(). */
static int on_record(struct tracecmd_input *handle, struct tep_record *rec, int cpu, void *data)
{
	struct replay_ctx *c = data;
	struct vm_record v;
	int ret = 0;

	(void)handle;
	lib_leave();
	c->records++;
	if ((c->records & 0xffff) == 0)
		show_progress(c);
	replay_seen(c->r, cpu, rec->ts);
	if (cpu < 0 || cpu >= c->t->ncpus) {
		set_err(c->err, c->errlen, "%s: a record of CPU %d at file offset %llu, but the file's "
			"CPU count is %d (a damaged file: record again)", c->t->path, cpu, rec->offset,
			c->t->ncpus);
		c->error = 1;
		ret = -1;
	} else if (rec->ts < c->last_ts[cpu]) {
		set_err(c->err, c->errlen, "%s: CPU %d's timestamps go backwards at file offset %llu: "
			"the order of its pages is damaged (a page duplicated or out of place, or a page "
			"header's time changed)", c->t->path, cpu, rec->offset);
		c->error = 1;
		ret = -1;
	} else if (rec->size < 0) {
		set_err(c->err, c->errlen, "%s: malformed negative-size record on CPU %d at file "
			"offset %llu", c->t->path, cpu, rec->offset);
		c->error = 1;
		ret = -1;
	} else if (decode_record(c->t, rec->data, (unsigned int)rec->size, cpu, rec->offset, c->values,
				 &v, c->err, c->errlen)) {
		c->error = 1;
		ret = -1;
	} else {
		apply_record(c->r, &v, cpu, rec->ts);
	}
	if (cpu >= 0 && cpu < c->t->ncpus)
		c->last_ts[cpu] = rec->ts;
	lib_enter("tracecmd_iterate_events");
	return ret;
}

/*
 * replay_missed() for every page of every CPU whose header says events were lost before it.
 * Each page is also walked event by event, as the per-CPU reader does: kbuffer reads on
 * through an event header whose length no longer fits the page, so a corrupt page is bad
 * input here too, naming the CPU and the page's file offset.
 */
static int missed_from_pages(struct trace_input *t, struct replay *r, char *err, size_t errlen)
{
	unsigned char *page = malloc(t->page_size);
	int fd = open(t->path, O_RDONLY | O_CLOEXEC);
	int ret = 0;

	if (!page || fd < 0) {
		free(page);
		if (fd >= 0)
			close(fd);
		return set_err(err, errlen, "%s: %s", t->path, page ? strerror(errno) : "out of memory");
	}
	for (int k = 0; k < t->nsections && !ret; k++) {
		const struct cpu_section *cs = &t->sections[k];

		for (u64 off = 0; off + t->page_size <= cs->size && !ret; off += t->page_size) {
			struct ring_page pg;
			struct ring_event ev;
			const char *why = NULL;
			int more;

			errno = 0;
			if (read_at(fd, cs->offset + off, page, t->page_size)) {
				ret = set_err(err, errlen, "%s: CPU %d's page at file offset %llu cannot be "
					      "read: %s", t->path, cs->cpu, cs->offset + off,
					      errno ? strerror(errno) : "the file is shorter");
				break;
			}
			if (ring_page_load(&pg, page, t->page_size, t->page_long_size, t->big_endian, &why)) {
				ret = set_err(err, errlen, "%s: CPU %d's page at file offset %llu is corrupt: "
					      "%s", t->path, cs->cpu, cs->offset + off, why);
				break;
			}
			while ((more = ring_page_next(&pg, &ev, &why)) > 0)
				;
			if (more < 0) {
				ret = set_err(err, errlen, "%s: CPU %d's page at file offset %llu is corrupt: "
					      "%s", t->path, cs->cpu, cs->offset + off, why);
				break;
			}
			if (pg.missed)
				replay_missed(r, cs->cpu, pg.missed);
		}
	}
	free(page);
	close(fd);
	return ret;
}

static int trace_replay_merged(struct trace_input *t, struct replay *r, bool progress, char *err,
			       size_t errlen)
{
	struct replay_ctx c = {
		.t = t, .r = r, .err = err, .errlen = errlen, .progress = progress,
		.started = time(NULL),
	};
	int ret;

	c.values = calloc((size_t)t->nitems, sizeof(u64));
	c.last_ts = calloc((size_t)t->ncpus, sizeof(u64));
	if (!c.values || !c.last_ts) {
		free(c.values);
		free(c.last_ts);
		return set_err(err, errlen, "out of memory");
	}
	c.last_progress = c.started;
	/*
	 * Lost events: libtracecmd reports them on a page's first record only when that is a
	 * data event (kbuffer's rule), so a loss before a page that starts with a time extend
	 * (the kernel writes one after a gap of 2^27 ns) goes unseen. When the file's pages can
	 * be read, every page header is read instead, as the per-CPU reader does.
	 */
	if (t->sections) {
		if (missed_from_pages(t, r, err, errlen)) {
			free(c.values);
			free(c.last_ts);
			return -1;
		}
	} else {
		tracecmd_follow_missed_events(t->handle, on_missed, &c);
		t->loss_unseen = "the pages cannot be read from the file (compressed data, or no "
				 "version 7 BUFFER option), so events lost before a page that starts "
				 "with a time extend are not seen (libtracecmd reports a loss on a page's "
				 "first data event only): record with --compression none";
	}
	lib_enter("tracecmd_iterate_events");
	ret = tracecmd_iterate_events(t->handle, NULL, 0, on_record, &c);
	lib_leave();
	if (progress && c.records > 0xffff)
		fprintf(stderr, "vmstat-audit: %llu records read%20s\n", c.records, "");
	free(c.values);
	free(c.last_ts);
	if (c.error)
		return -1;
	if (ret < 0)
		return set_err(err, errlen, "%s: reading the events failed", t->path);
	return 0;
}

int trace_replay(struct trace_input *t, struct replay *r, enum trace_reader reader, int threads,
		 bool progress, char *err, size_t errlen)
{
	int ret;

	r->have_counter = t->f_counter != NULL;
	r->mask = t->long_size == 4 ? 0xffffffffULL : ~0ULL;
	if (reader == READER_MERGED)
		snprintf(t->reader_used, sizeof(t->reader_used), "libtracecmd's merged iteration "
			 "(--reader merged)");
	else if (t->no_direct)
		snprintf(t->reader_used, sizeof(t->reader_used), "libtracecmd's merged iteration: the "
			 "per-CPU reader cannot read this file: %s", t->no_direct);
	else
		snprintf(t->reader_used, sizeof(t->reader_used), "the per-CPU reader, from the file's "
			 "pages");
	if (reader == READER_PERCPU && t->no_direct)
		return set_err(err, errlen, "%s: --reader percpu: %s", t->path, t->no_direct);
	if (reader != READER_MERGED && !t->no_direct) {
		ret = trace_replay_percpu(t, r, threads, progress, err, errlen);
		if (ret > 0 && reader == READER_PERCPU) {
			snprintf(t->fallback, sizeof(t->fallback), "%s", err);
			return set_err(err, errlen, "%s: --reader percpu: %s (use --reader merged)",
				       t->path, t->fallback);
		}
		if (ret > 0) {
			/* Not readable per CPU after all: start again with the merged iteration. */
			snprintf(t->fallback, sizeof(t->fallback), "%s", err);
			snprintf(t->reader_used, sizeof(t->reader_used), "libtracecmd's merged iteration, "
				 "not per CPU: %s", t->fallback);
			replay_free(r);
			if (replay_init(r, t->ncpus, t->nitems))
				return set_err(err, errlen, "out of memory");
			r->have_counter = t->f_counter != NULL;
			r->mask = t->long_size == 4 ? 0xffffffffULL : ~0ULL;
			ret = trace_replay_merged(t, r, progress, err, errlen);
		}
	} else {
		ret = trace_replay_merged(t, r, progress, err, errlen);
	}
	if (ret)
		return ret;
	for (int c = 0; c < r->ncpus; c++)
		replay_flush_tasks(r, c);
	replay_finish_bins(r);
	replay_sort_breaks(r);
	return 0;
}
