// SPDX-License-Identifier: GPL-2.0
/*
 * The per-CPU reader: each CPU's pages are read straight from the file (pread()), one thread
 * per CPU up to the number of cores, instead of libtracecmd's iteration that merges every CPU
 * by timestamp and allocates a record per event.
 *
 * The replay of one CPU needs only its own records in ring-buffer order, except at three kinds
 * of points that other CPUs record: the trace markers (the global totals at a marker are every
 * CPU's replay at that moment), the folds of a dead CPU (recorded on the CPU that receives its
 * counts) and vm_event_untraced reports (recorded on the CPU that reports). So:
 *   phase 1: each CPU is replayed alone, its rare points collected (and the earliest
 *            timestamp), with checkpoints of its replay every READ_CHUNK or so;
 *   when every rare point is a trace marker (no fold, no untraced report: no CPU hotplug),
 *            markers only read the replays: replay_until() places each from a checkpoint,
 *            and that is the result. Otherwise (once one is found, phase 1 stops replaying and
 *            only collects, as it did alone before) the replay starts again:
 *   phase 2: each CPU is replayed with the rare points that concern it merged in, in the order
 *            libtracecmd's merge gives: by timestamp, then by CPU, then by position on the CPU.
 * Each thread replays into a shallow copy of the replay whose global tallies (records, breaks,
 * ...) are its own, and touches no other CPU's state; the tallies are summed at the end. The
 * result is the merged reader's, which the tests check on every fixture (`--reader merged`).
 */
#include "trace_replay.h"
#include "record.h"
#include "ring_page.h"
#include "text_inputs.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <event-parse.h>

/* A record that another CPU's replay needs, with its place in the merged order. */
struct rare {
	u64 ts, ord;
	int cpu;
	struct vm_record v;		/* REC_FOLD (the dead CPU's half), REC_UNTRACED, REC_MARKER */
};

/*
 * Phase 1: the replay's state of a CPU where a checkpointed READ_CHUNK of its pages
 * starts, so that a trace marker another CPU recorded can be placed afterwards by replaying
 * from there (replay_until()). cur is nitems counters in cpu_job.ck_cur.
 */
struct checkpoint {
	u64 page, ord;			/* the chunk's first page (index on the CPU), records before it */
	bool any;			/* a record before it, at last_ts */
	u64 last_ts;
	enum phase phase;
	bool seen;
};

/* Checkpoints of all CPUs (each CPU's share at most 256): then every other one goes. */
#define MAX_CHECKPOINTS 4096

struct cpu_job {
	const struct cpu_section *sec;
	/* phase 1 */
	struct checkpoint *ck;
	u64 *ck_cur;
	size_t nck;
	u64 ck_every;			/* READ_CHUNKs between checkpoints */
	struct rare *rare;
	size_t nrare, cap;
	u64 min_ts, last_ts;
	bool any;
	u64 backwards_at;		/* file offset of a record earlier than the one before, or 0 */
	/* the first error on this CPU, if any */
	char err[512];
	bool failed;
};

/*
 * vm_event_count's layout for the inline decoder, which reads most records: it applies when
 * the file is in this host's byte order and every field read has a plain integer size.
 * Anything else goes through decode_record() like every other event.
 */
struct count_layout {
	bool ok;
	int type_off, item_off, item_size, delta_off, delta_size, counter_off, counter_size, pid_off;
	unsigned int min_size;		/* a record shorter than this is decoded the slow way */
	bool series;			/* int item, long delta, unsigned long counter (64-bit) */
	/*
	 * fixed_tl: the series' records as the ring buffer stores them on a little-endian
	 * machine (type_len = data bytes / 4), read by ring_run_next(); 0: never.
	 */
	unsigned int fixed_tl;
	unsigned short id;		/* vm_event_count's id, when fixed_tl */
	/*
	 * std: fixed_tl with the series' layout on a 64-bit kernel, common_type at 0, common_pid
	 * at 4, item at 8, delta at 16, counter at 24 (6.1 and 6.12): read with constant offsets.
	 */
	bool std;
};

enum { STD_TL = 8, STD_PID = 4, STD_ITEM = 8, STD_DELTA = 16, STD_COUNTER = 24 };

struct percpu;

/* Bytes of pages read at a time by each thread: small enough to stay in its core's cache. */
#define READ_CHUNK (256u << 10)

struct thread_out {
	struct percpu *pc;
	unsigned char *buf;		/* the pages being read: READ_CHUNK bytes, or one page */
	size_t buf_len;
	struct replay r;		/* shallow copy: own tallies, shared per-CPU state */
	u64 *marker_total[4];
	bool marker_incomplete[4];
	u64 *values;
	char err[512];
	bool failed;
};

struct percpu {
	struct trace_input *t;
	struct replay *r;
	int fd;
	struct cpu_job *jobs;
	int njobs;
	atomic_int next_job;
	atomic_bool stop;
	/* phase 1 found a fold or an untraced report: phase 2 will replay, phase 1 only collects */
	atomic_bool two_pass;
	int phase;
	u64 per_read;			/* pages in a READ_CHUNK */
	size_t max_ck;			/* checkpoints per CPU */
	/* phase 2: the rare points of every CPU, in merged order */
	struct rare *ext;
	struct count_layout count;
};

static int key_cmp(u64 ts1, int cpu1, u64 ord1, u64 ts2, int cpu2, u64 ord2)
{
	if (ts1 != ts2)
		return ts1 < ts2 ? -1 : 1;
	if (cpu1 != cpu2)
		return cpu1 < cpu2 ? -1 : 1;
	return ord1 < ord2 ? -1 : ord1 > ord2;
}

static int rare_order(const void *a, const void *b)
{
	const struct rare *x = a, *y = b;

	return key_cmp(x->ts, x->cpu, x->ord, y->ts, y->cpu, y->ord);
}

static int job_fail(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int job_fail(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return -1;
}

static int keep_rare(struct cpu_job *j, u64 ts, u64 ord, int cpu, const struct vm_record *v)
{
	if (j->nrare == j->cap) {
		size_t cap = j->cap ? 2 * j->cap : 64;
		struct rare *n = realloc(j->rare, cap * sizeof(*n));

		if (!n)
			return -1;
		j->rare = n;
		j->cap = cap;
	}
	j->rare[j->nrare++] = (struct rare){ .ts = ts, .ord = ord, .cpu = cpu, .v = *v };
	return 0;
}

/* Whether the rare point x concerns CPU cpu's replay. */
static bool concerns(const struct rare *x, int cpu)
{
	return x->v.kind == REC_MARKER || x->v.cpu2 == cpu;
}

static void apply_rare(struct thread_out *o, const struct rare *x, int cpu)
{
	struct cpu_replay *s = &o->r.cpu[cpu];

	switch (x->v.kind) {
	case REC_MARKER:
		if (s->phase != BEFORE_SNAP1) {
			for (int i = 0; i < o->r.nitems; i++)
				o->marker_total[x->v.marker][i] += s->cur[i];
		} else if (s->seen) {
			o->marker_incomplete[x->v.marker] = true;
		}
		break;
	case REC_FOLD:
		replay_fold_out(&o->r, cpu, x->v.item, x->v.value, x->ts);
		break;
	case REC_UNTRACED:
		replay_untraced(&o->r, cpu, x->v.item, x->v.delta, x->ts);
		break;
	default:
		break;
	}
}

/* A native-order field load of 1, 2, 4 or 8 bytes (the sizes fast_count_layout() admits). */
static inline u64 load_field(const unsigned char *p, int size)
{
	u64 v8;
	unsigned int v4;
	unsigned short v2;

	switch (size) {
	case 8:
		memcpy(&v8, p, 8);
		return v8;
	case 4:
		memcpy(&v4, p, 4);
		return v4;
	case 2:
		memcpy(&v2, p, 2);
		return v2;
	default:
		return p[0];
	}
}

static bool plain(const struct tep_format_field *f)
{
	return f && f->offset >= 0 && f->offset < 65536 &&
	       (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8);
}

static void fast_count_layout(const struct trace_input *t, struct count_layout *l)
{
	const struct tep_format_field *fs[5] = { t->f_type, t->f_item, t->f_delta, t->f_counter, t->f_pid };

	memset(l, 0, sizeof(*l));
	if (!t->native || t->f_type->size != 2 || t->f_pid->size != 4 || !plain(t->f_pid) ||
	    !plain(t->f_type) || !plain(t->f_item) ||
	    !plain(t->f_delta) || (t->f_counter && !plain(t->f_counter)))
		return;
	for (int i = 0; i < 5; i++)
		if (fs[i] && (unsigned int)(fs[i]->offset + fs[i]->size) > l->min_size)
			l->min_size = (unsigned int)(fs[i]->offset + fs[i]->size);
	l->type_off = t->f_type->offset;
	l->pid_off = t->f_pid->offset;
	l->item_off = t->f_item->offset;
	l->item_size = t->f_item->size;
	l->delta_off = t->f_delta->offset;
	l->delta_size = t->f_delta->size;
	l->counter_off = t->f_counter ? t->f_counter->offset : -1;
	l->counter_size = t->f_counter ? t->f_counter->size : 0;
	l->series = l->item_size == 4 && l->delta_size == 8 && l->counter_size == 8;
	l->ok = true;
	if (l->series && !t->big_endian && !ring_host_big_endian() && t->id_count >= 0 &&
	    t->id_count <= 65535 && l->min_size <= 28 * 4 && l->type_off + 2 <= (int)l->min_size)
		l->fixed_tl = (l->min_size + 3) / 4;
	l->id = l->fixed_tl ? (unsigned short)t->id_count : 0;
	l->std = l->fixed_tl == STD_TL && l->type_off == 0 && l->pid_off == STD_PID &&
		 l->item_off == STD_ITEM && l->delta_off == STD_DELTA && l->counter_off == STD_COUNTER;
}

/*
 * The next rare point from ext on that concerns cpu: its index, and in *have whether there is
 * one (any time, 2^64-1 included, is a rare point's time: no time can stand for "none").
 */
static size_t next_concerning(const struct percpu *pc, size_t ext, int cpu, bool *have)
{
	while (pc->ext && pc->ext[ext].v.kind != REC_OTHER && !concerns(&pc->ext[ext], cpu))
		ext++;
	*have = pc->ext && pc->ext[ext].v.kind != REC_OTHER;
	return ext;
}

/*
 * The runs of counts (struct ring_run), each phase's loop in a function of its own so that
 * its few values stay in registers, and instantiated twice: with the layout's offsets as
 * constants for the series' layout on a 64-bit kernel (count_layout.std), and as variables.
 */
static inline __attribute__((always_inline)) u64
skip_run(struct ring_run *run, unsigned int tl, unsigned int type_off, unsigned short id,
	 const unsigned char **first, u64 *first_ts)
{
	struct ring_run r = *run;	/* a local: nothing stored below can alias it */
	const unsigned char *d = ring_run_next(&r, tl, type_off, id);
	u64 n = 0;

	if (d) {
		*first = d;
		*first_ts = r.ts;
		for (n = 1; ring_run_next(&r, tl, type_off, id); n++)
			;
	}
	*run = r;
	return n;
}

/* Phase 1: skips the run of counts at run; their number, the first's data and time. */
static __attribute__((noinline)) u64 skip_counts(struct ring_run *run, const struct count_layout *cl,
						 const unsigned char **first, u64 *first_ts)
{
	if (cl->std)
		return skip_run(run, STD_TL, 0, cl->id, first, first_ts);
	return skip_run(run, cl->fixed_tl, (unsigned int)cl->type_off, cl->id, first, first_ts);
}

static inline __attribute__((always_inline)) u64
replay_run(struct ring_run *run, struct replay *r, int cpu, unsigned int tl,
	   unsigned int type_off, unsigned int item_off, unsigned int delta_off,
	   unsigned int counter_off, unsigned int pid_off, unsigned short id)
{
	struct ring_run rr = *run;	/* locals: nothing stored below can alias them */
	struct count_cursor c;
	const unsigned char *d, *start = rr.e;
	unsigned int dt;
	u64 n;

	count_cursor_get(&c, r, cpu);
	/* Every count of the run is at rr.ts or later: up to this limit, each is in the bin. */
	ring_run_limit(&rr, count_cursor_until(&c, rr.ts));
	/* A count the fast case does not take ends the run: the general path reads it. */
	while ((d = ring_run_peek(&rr, tl, type_off, id, &dt))) {
		u64 item, delta, counter;
		int pid;
		unsigned int i4;

		memcpy(&i4, d + item_off, 4);
		item = i4;
		memcpy(&delta, d + delta_off, 8);
		memcpy(&counter, d + counter_off, 8);
		memcpy(&pid, d + pid_off, 4);
		if (!count_cursor_take(&c, item, delta, counter, rr.ts + dt, pid))
			break;
		ring_run_take(&rr, tl, dt);
	}
	n = (u64)(rr.e - start) / (4 + tl * 4);
	c.n += n;
	count_cursor_put(&c);
	*run = rr;
	return n;
}

/* Phase 2: replays the run of counts at run; their number. */
static __attribute__((noinline)) u64 replay_counts(struct ring_run *run, const struct count_layout *cl,
						   struct replay *r, int cpu)
{
	if (cl->std)
		return replay_run(run, r, cpu, STD_TL, 0, STD_ITEM, STD_DELTA, STD_COUNTER,
				  STD_PID, cl->id);
	return replay_run(run, r, cpu, cl->fixed_tl, (unsigned int)cl->type_off,
			  (unsigned int)cl->item_off, (unsigned int)cl->delta_off,
			  (unsigned int)cl->counter_off, (unsigned int)cl->pid_off, cl->id);
}

/* len bytes at offset off into buf: 0, or -1 with errno (0: the file ends before them). */
static int read_at_fully(int fd, unsigned char *buf, size_t len, u64 off)
{
	while (len) {
		ssize_t n = pread(fd, buf, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!n)
				errno = 0;
			return -1;
		}
		buf += n;
		len -= (size_t)n;
		off += (u64)n;
	}
	return 0;
}

/*
 * Replays one record of CPU cpu that is not in a run of counts (the general path, and
 * replay_until()) into r's CPU rcpu: a count, a snapshot, or the receiving half of a fold;
 * markers and untraced reports are rare points, applied where they fall in the merged order.
 * *v is the decoded record when it is not a count. 0, or -1 with the reason in err (a corrupt
 * record).
 */
static int replay_record(struct percpu *pc, struct replay *r, int rcpu, int cpu,
			 const struct ring_event *ev, bool is_count, u64 where, u64 *values,
			 struct vm_record *v, char *err, size_t errlen)
{
	const struct trace_input *t = pc->t;
	const struct count_layout *cl = &pc->count;

	if (is_count) {
		u64 item, delta, counter = 0;

		if (cl->series) {	/* the series' layout: constant sizes, inlined */
			unsigned int i4;

			memcpy(&i4, ev->data + cl->item_off, 4);
			item = i4;
			memcpy(&delta, ev->data + cl->delta_off, 8);
			memcpy(&counter, ev->data + cl->counter_off, 8);
		} else {
			item = load_field(ev->data + cl->item_off, cl->item_size);
			delta = load_field(ev->data + cl->delta_off, cl->delta_size);
			if (cl->counter_off >= 0)
				counter = load_field(ev->data + cl->counter_off, cl->counter_size);
			if (cl->delta_size == 4)
				delta = (u64)(long long)(int)(unsigned int)delta;
		}
		if (item >= (u64)t->nitems)
			return record_bad_item(t, cpu, where, "vm_event_count", item <= 0xffffffffULL ?
					       (long long)(int)(unsigned int)item : (long long)item, err,
					       errlen);
		replay_count(r, rcpu, item > 65535 ? -1 : (int)item, (long long)delta,
			     cl->counter_off >= 0 ? &counter : NULL, ev->ts,
			     (int)(unsigned int)load_field(ev->data + cl->pid_off, 4));
		return 0;
	}
	if (decode_record(pc->t, ev->data, ev->size, cpu, where, values, v, err, errlen))
		return -1;
	switch (v->kind) {
	case REC_COUNT:
		replay_count(r, rcpu, v->item, v->delta, v->has_counter ? &v->counter : NULL, ev->ts, v->pid);
		break;
	case REC_SNAPSHOT:
		replay_snapshot(r, rcpu, v->tag, v->values, (size_t)t->nitems, ev->ts);
		break;
	case REC_FOLD:
		if (v->item < 0 || v->item >= t->nitems || v->cpu2 < 0 || v->cpu2 >= t->ncpus)
			r->unknown_items++;
		else
			replay_fold_in(r, rcpu, v->item, v->value, v->has_counter ? &v->counter : NULL,
				       ev->ts);
		break;
	default:	/* markers and untraced reports are rare points */
		break;
	}
	return 0;
}

/* Phase 1: the state of CPU s where page k starts, every ck_every READ_CHUNKs. 0, or -1: OOM. */
static int checkpoint(struct percpu *pc, struct cpu_job *j, const struct cpu_replay *s, u64 k, u64 ord)
{
	size_t nitems = (size_t)pc->t->nitems;
	u64 chunk = k / pc->per_read;

	if (!j->ck) {
		j->ck = calloc(pc->max_ck, sizeof(*j->ck));
		j->ck_cur = calloc(pc->max_ck * nitems, sizeof(u64));
		j->ck_every = 1;
		if (!j->ck || !j->ck_cur)
			return -1;
	}
	if (chunk % j->ck_every)
		return 0;
	if (j->nck == pc->max_ck) {	/* every other one goes: the step doubles */
		for (size_t i = 0; i < pc->max_ck / 2; i++) {
			j->ck[i] = j->ck[2 * i];
			memcpy(j->ck_cur + i * nitems, j->ck_cur + 2 * i * nitems, nitems * sizeof(u64));
		}
		j->nck = pc->max_ck / 2;
		j->ck_every *= 2;
		if (chunk % j->ck_every)
			return 0;
	}
	j->ck[j->nck] = (struct checkpoint){ .page = k, .ord = ord, .any = j->any, .last_ts = j->last_ts,
					     .phase = s->phase, .seen = s->seen };
	memcpy(j->ck_cur + j->nck * nitems, s->cur, nitems * sizeof(u64));
	j->nck++;
	return 0;
}

/*
 * Walks one CPU's pages and replays it into o: phase 1 alone, keeping its rare points and
 * checkpoints; phase 2 with the rare points of every CPU that concern it. Returns 0, or -1 with
 * the reason in the job (a corrupt page or record: bad input).
 */
static int walk_cpu(struct percpu *pc, struct cpu_job *j, struct thread_out *o)
{
	struct trace_input *t = pc->t;
	const struct cpu_section *sec = j->sec;
	const struct count_layout *cl = &pc->count;
	struct cpu_replay *s = &o->r.cpu[sec->cpu];
	int cpu = sec->cpu, id_count = t->id_count;
	u64 ord = 0, npages = sec->size / t->page_size, records = 0;
	u64 per_read = pc->per_read, buf_off = 0;
	bool have_next = false, collect_only = false;
	size_t ext = 0;
	struct vm_record v;
/* The file offset of a byte in the buffer. */
#define FILE_OFF(ptr) (buf_off + (u64)((ptr) - o->buf))

	if (pc->phase == 2)
		ext = next_concerning(pc, 0, cpu, &have_next);
	for (u64 k = 0; k < npages && !atomic_load_explicit(&pc->stop, memory_order_relaxed); k++) {
		u64 page_off = sec->offset + k * t->page_size;
		const unsigned char *page;
		struct ring_page pg;
		struct ring_event ev;
		const char *why = NULL;
		int more;

		/*
		 * The pages are read into this thread's buffer, a few hundred KB at a time: memory
		 * stays bounded whatever the trace's length, and no page of the file is mapped
		 * (faulting in and dropping mapped pages cost more than the copy).
		 */
		if (k % per_read == 0) {
			size_t len = (size_t)((npages - k < per_read ? npages - k : per_read) * t->page_size);

			if (read_at_fully(pc->fd, o->buf, len, page_off))
				return job_fail(j->err, sizeof(j->err), "%s: CPU %d's pages at file offset "
						"%llu cannot be read: %s", t->path, cpu, page_off,
						errno ? strerror(errno) : "the file ends before them");
			buf_off = page_off;
			if (pc->phase == 1 && checkpoint(pc, j, s, k, ord))
				return job_fail(j->err, sizeof(j->err), "out of memory");
		}
		page = o->buf + (page_off - buf_off);
		if (ring_page_load(&pg, page, t->page_size, t->page_long_size, t->big_endian, &why))
			return job_fail(j->err, sizeof(j->err), "%s: CPU %d's page at file offset %llu "
					"is corrupt: %s", t->path, cpu, page_off, why);
		/* Once phase 2 is known to be needed, phase 1 only collects (its replay is dropped). */
		if (pc->phase == 1 && !collect_only &&
		    atomic_load_explicit(&pc->two_pass, memory_order_relaxed))
			collect_only = true;
		if (pg.missed && !collect_only)
			replay_missed(&o->r, cpu, pg.missed);
		for (;;) {
			if (cl->fixed_tl) {
				/*
				 * The run of counts up to the next record of any other kind or
				 * the next rare point (phase 2), without the general parser.
				 * Times only grow inside it (ring_run_next() ends it before a time
				 * that would wrap past 2^64): in phase 1 its first record is the
				 * only one that can be earlier than what came before.
				 */
				const unsigned char *first = NULL;
				u64 n, first_ts = 0;
				unsigned int dt;
				struct ring_run run;

				/* A record at the next rare point's time or later goes the general way. */
				ring_run_begin(&run, &pg, pc->phase == 2 && have_next ? pc->ext[ext].ts : ~0ULL);
				/*
				 * Phase 1: the run's first time, when it may be the CPU's least or earlier
				 * than the record before (times only grow inside the run).
				 */
				if (collect_only) {
					n = skip_counts(&run, cl, &first, &first_ts);
				} else {
					if (pc->phase == 1 && (!j->any || run.ts < j->last_ts) &&
					    (first = ring_run_peek(&run, cl->fixed_tl, (unsigned int)cl->type_off,
								   cl->id, &dt)))
						first_ts = run.ts + dt;
					n = replay_counts(&run, cl, &o->r, cpu);
				}
				if (n) {
					records += n;
					s->seen = true;
					if (pc->phase == 1) {
						if (first && (!j->any || first_ts < j->min_ts))
							j->min_ts = first_ts;
						if (first && j->any && first_ts < j->last_ts && !j->backwards_at)
							j->backwards_at = FILE_OFF(first - 4);	/* a run's events: 4-byte headers */
						j->last_ts = run.ts;
						j->any = true;
					}
				}
				ring_run_end(&run, &pg);
				ord += n;
			}
			if ((more = ring_page_next(&pg, &ev, &why)) <= 0)
				break;
			bool is_count = cl->ok && ev.size >= cl->min_size &&
					load_field(ev.data + cl->type_off, 2) == (u64)id_count;

			if (pc->phase == 1) {
				if (!j->any || ev.ts < j->min_ts)
					j->min_ts = ev.ts;
				if (j->any && ev.ts < j->last_ts && !j->backwards_at)
					j->backwards_at = FILE_OFF(ev.hdr);
				j->last_ts = ev.ts;
				j->any = true;
			}
			if (collect_only) {
				/* Of a count only the type is read. */
				if (!is_count) {
					if (decode_record(t, ev.data, ev.size, cpu, FILE_OFF(ev.hdr),
							  o->values, &v, j->err, sizeof(j->err)))
						return -1;
					if ((v.kind == REC_MARKER || v.kind == REC_FOLD ||
					     v.kind == REC_UNTRACED) && keep_rare(j, ev.ts, ord, cpu, &v))
						return job_fail(j->err, sizeof(j->err), "out of memory");
				}
				ord++;
				continue;
			}
			/* Phase 2: the rare points before this record, then the record. */
			while (have_next && ev.ts >= pc->ext[ext].ts &&
			       key_cmp(pc->ext[ext].ts, pc->ext[ext].cpu, pc->ext[ext].ord, ev.ts, cpu, ord) < 0) {
				apply_rare(o, &pc->ext[ext], cpu);
				ext = next_concerning(pc, ext + 1, cpu, &have_next);
			}
			records++;
			s->seen = true;
			if (replay_record(pc, &o->r, cpu, cpu, &ev, is_count, FILE_OFF(ev.hdr), o->values,
					  &v, j->err, sizeof(j->err)))
				return -1;
			if (pc->phase == 1 && !is_count &&
			    (v.kind == REC_MARKER || v.kind == REC_FOLD || v.kind == REC_UNTRACED)) {
				if (keep_rare(j, ev.ts, ord, cpu, &v))
					return job_fail(j->err, sizeof(j->err), "out of memory");
				if (v.kind != REC_MARKER)
					atomic_store_explicit(&pc->two_pass, true, memory_order_relaxed);
			}
			ord++;
		}
		if (more < 0)
			return job_fail(j->err, sizeof(j->err), "%s: CPU %d's page at file offset %llu "
					"is corrupt: %s", t->path, cpu, page_off, why);
	}
	{
		o->r.records += records;
		replay_flush_tasks(&o->r, cpu);
		for (; have_next; ext = next_concerning(pc, ext + 1, cpu, &have_next))
			apply_rare(o, &pc->ext[ext], cpu);
	}
	return 0;
#undef FILE_OFF
}

/*
 * After phase 1: CPU j's replay as it stood at the point (ts, mcpu, mord) of the merged order (a
 * trace marker), replayed into scratch's one CPU from the last checkpoint before it. The
 * records between are replayed as phase 2 replays them, so cur, phase and seen are phase 2's
 * at that point. 0, or -1 with the reason in the job.
 */
static int replay_until(struct percpu *pc, struct cpu_job *j, struct thread_out *o,
			struct replay *scratch, u64 ts, int mcpu, u64 mord)
{
	struct trace_input *t = pc->t;
	const struct count_layout *cl = &pc->count;
	int cpu = j->sec->cpu;
	struct cpu_replay *s = &scratch->cpu[0];
	size_t c = 0, nitems = (size_t)t->nitems;
	u64 npages = j->sec->size / t->page_size, ord, buf_off = 0;
	struct vm_record v;

	/* The last checkpoint whose records before it all precede the point. */
	while (c + 1 < j->nck && (!j->ck[c + 1].any ||
				  key_cmp(j->ck[c + 1].last_ts, cpu, j->ck[c + 1].ord - 1, ts, mcpu, mord) < 0))
		c++;
	s->phase = j->ck[c].phase;
	s->seen = j->ck[c].seen;
	memcpy(s->cur, j->ck_cur + c * nitems, nitems * sizeof(u64));
	ord = j->ck[c].ord;
	for (u64 k = j->ck[c].page; k < npages; k++) {
		u64 page_off = j->sec->offset + k * t->page_size;
		struct ring_page pg;
		struct ring_event ev;
		const char *why = NULL;
		int more;

		if (k == j->ck[c].page || k % pc->per_read == 0) {
			size_t len = (size_t)((npages - k < pc->per_read ? npages - k : pc->per_read) *
					      t->page_size);

			if (read_at_fully(pc->fd, o->buf, len, page_off))
				return job_fail(j->err, sizeof(j->err), "%s: CPU %d's pages at file offset "
						"%llu cannot be read: %s", t->path, cpu, page_off,
						errno ? strerror(errno) : "the file ends before them");
			buf_off = page_off;
		}
		if (ring_page_load(&pg, o->buf + (page_off - buf_off), t->page_size, t->page_long_size,
				   t->big_endian, &why))
			return job_fail(j->err, sizeof(j->err), "%s: CPU %d's page at file offset %llu "
					"is corrupt: %s", t->path, cpu, page_off, why);
		while ((more = ring_page_next(&pg, &ev, &why)) > 0) {
			bool is_count = cl->ok && ev.size >= cl->min_size &&
					load_field(ev.data + cl->type_off, 2) == (u64)t->id_count;

			if (key_cmp(ev.ts, cpu, ord, ts, mcpu, mord) >= 0)
				return 0;
			s->seen = true;
			if (replay_record(pc, scratch, 0, cpu, &ev, is_count,
					  buf_off + (u64)(ev.hdr - o->buf), o->values, &v, j->err,
					  sizeof(j->err)))
				return -1;
			ord++;
		}
		if (more < 0)
			return job_fail(j->err, sizeof(j->err), "%s: CPU %d's page at file offset %llu "
					"is corrupt: %s", t->path, cpu, page_off, why);
	}
	return 0;
}

/* A thread's copy of the replay, its tallies zero (and its buffers allocated). 0, or -1: OOM. */
static int reset_out(struct thread_out *o, struct percpu *pc, const struct replay *r)
{
	free(o->r.brk);
	task_free(&o->r.tasks);
	o->r = *r;
	o->pc = pc;
	o->r.records = o->r.unknown_items = o->r.events_checked = 0;
	o->r.nbreaks = o->r.untraced_reports = 0;
	o->r.brk = NULL;
	o->r.nlisted = 0;
	memset(&o->r.tasks, 0, sizeof(o->r.tasks));
	for (int m = 0; m < 4; m++) {
		if (!o->marker_total[m])
			o->marker_total[m] = calloc((size_t)r->nitems, sizeof(u64));
		if (!o->marker_total[m])
			return -1;
		memset(o->marker_total[m], 0, (size_t)r->nitems * sizeof(u64));
		o->marker_incomplete[m] = false;
	}
	return 0;
}

/*
 * The time of CPU j's first record, read from its first pages (the least of its times when
 * they never go back, which phase 1 checks): false when it has none or a page cannot be read
 * (phase 1 reports that).
 */
static bool first_record_ts(struct percpu *pc, const struct cpu_section *sec, unsigned char *buf, u64 *ts)
{
	const struct trace_input *t = pc->t;

	for (u64 k = 0; k < sec->size / t->page_size; k++) {
		struct ring_page pg;
		struct ring_event ev;
		const char *why;
		int more;

		if (read_at_fully(pc->fd, buf, t->page_size, sec->offset + k * t->page_size) ||
		    ring_page_load(&pg, buf, t->page_size, t->page_long_size, t->big_endian, &why))
			return false;
		if ((more = ring_page_next(&pg, &ev, &why)) > 0) {
			*ts = ev.ts;
			return true;
		}
		if (more < 0)
			return false;
	}
	return false;
}

static void *worker(void *arg)
{
	struct thread_out *o = arg;
	struct percpu *pc = o->pc;
	int k;

	while ((k = atomic_fetch_add(&pc->next_job, 1)) < pc->njobs) {
		struct cpu_job *j = &pc->jobs[k];

		if (walk_cpu(pc, j, o)) {
			j->failed = true;
			atomic_store(&pc->stop, true);
			break;
		}
	}
	return NULL;
}

static int run_phase(struct percpu *pc, struct thread_out *outs, int nthreads, int phase)
{
	pthread_t tid[nthreads];
	int started = 0;

	pc->phase = phase;
	atomic_store(&pc->next_job, 0);
	for (int i = 1; i < nthreads; i++) {
		if (pthread_create(&tid[i], NULL, worker, &outs[i]))
			break;
		started = i;
	}
	worker(&outs[0]);
	for (int i = 1; i <= started; i++)
		pthread_join(tid[i], NULL);
	for (int k = 0; k < pc->njobs; k++)
		if (pc->jobs[k].failed)
			return -1;
	return 0;
}

static void merge_tallies(struct replay *r, struct thread_out *o)
{
	r->records += o->r.records;
	r->unknown_items += o->r.unknown_items;
	r->events_checked += o->r.events_checked;
	r->nbreaks += o->r.nbreaks;
	r->untraced_reports += o->r.untraced_reports;
	r->bins_lost |= o->r.bins_lost;
	r->brk_list_lost |= o->r.brk_list_lost;
	task_merge(&r->tasks, &o->r.tasks);
	for (int m = 0; m < 4; m++) {
		for (int i = 0; i < r->nitems; i++)
			r->marker[m].total[i] += o->marker_total[m][i];
		if (o->marker_incomplete[m])
			r->marker[m].complete = false;
	}
}

int trace_replay_percpu(struct trace_input *t, struct replay *r, int threads, bool progress,
			char *err, size_t errlen)
{
	struct percpu pc = { .t = t, .r = r };
	struct thread_out *outs = NULL;
	struct stat st;
	size_t file_len = 0, nrare = 0, w = 0;
	struct cpu_section *empty = NULL;
	int ret = -1, nthreads;
	bool one_pass = true;
	u64 spec_first_ts;
	size_t buf_len;

	pc.fd = open(t->path, O_RDONLY | O_CLOEXEC);
	if (pc.fd < 0 || fstat(pc.fd, &st)) {
		int e = errno;

		if (pc.fd >= 0)
			close(pc.fd);
		return set_err(err, errlen, "%s: %s", t->path, strerror(e));
	}
	file_len = (size_t)st.st_size;
	for (int k = 0; k < t->nsections; k++)
		if (t->sections[k].offset > file_len || t->sections[k].size > file_len - t->sections[k].offset) {
			set_err(err, errlen, "%s: CPU %d's data lies past the end of the file",
				t->path, t->sections[k].cpu);
			goto out;
		}
	posix_fadvise(pc.fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	/* Whole pages (at most 16 MB each, direct_sections() says), READ_CHUNK bytes at a time. */
	buf_len = t->page_size >= READ_CHUNK ? t->page_size : READ_CHUNK / t->page_size * t->page_size;
	fast_count_layout(t, &pc.count);

	/* A job for every CPU the file names: one without data still receives folds and markers. */
	pc.njobs = t->ncpus;
	pc.jobs = calloc((size_t)pc.njobs + 1, sizeof(*pc.jobs));
	empty = calloc((size_t)pc.njobs + 1, sizeof(*empty));
	nthreads = threads > 0 ? threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (nthreads > pc.njobs)
		nthreads = pc.njobs;
	if (nthreads < 1)
		nthreads = 1;
	outs = calloc((size_t)nthreads, sizeof(*outs));
	if (!pc.jobs || !outs || !empty)
		goto oom;
	for (int c = 0; c < pc.njobs; c++) {
		empty[c].cpu = c;
		pc.jobs[c].sec = &empty[c];
	}
	for (int k = 0; k < t->nsections; k++)
		pc.jobs[t->sections[k].cpu].sec = &t->sections[k];
	for (int i = 0; i < nthreads; i++) {
		outs[i].values = calloc((size_t)t->nitems, sizeof(u64));
		outs[i].buf = malloc(buf_len);
		outs[i].buf_len = buf_len;
		if (!outs[i].values || !outs[i].buf || reset_out(&outs[i], &pc, r))
			goto oom;
	}
	pc.per_read = buf_len / t->page_size;
	pc.max_ck = MAX_CHECKPOINTS / (size_t)pc.njobs;
	pc.max_ck = pc.max_ck > 256 ? 256 : pc.max_ck < 8 ? 8 : pc.max_ck;

	/*
	 * Phase 1 reads each CPU once: it replays it as phase 2 would if no rare point of another
	 * CPU concerned it, collects the rare points, and keeps checkpoints of the replay. When
	 * every rare point is a trace marker (no fold, no untraced report: a trace without CPU
	 * hotplug), markers only read the replays, and replay_until() places each one from a
	 * checkpoint: phase 2 is not needed. Otherwise the replay starts again, in phase 2. The
	 * histogram needs the earliest time first: each CPU's first record's (phase 1 checks that
	 * it is the earliest, else phase 2 replays with the right one).
	 */
	for (int k = 0; k < pc.njobs; k++) {
		u64 ts;

		if (first_record_ts(&pc, pc.jobs[k].sec, outs[0].buf, &ts) && (!r->first_ts || ts < r->first_ts))
			r->first_ts = ts;
	}
	for (int i = 0; i < nthreads; i++)
		outs[i].r.first_ts = r->first_ts;
	spec_first_ts = r->first_ts;
	if (progress)
		fprintf(stderr, "vmstat-audit: reading %d CPUs' pages in %d threads\n", pc.njobs, nthreads);
	if (run_phase(&pc, outs, nthreads, 1))
		goto job_error;

	/*
	 * A CPU's ring buffer records its events in time order: time going back inside one CPU is
	 * damage to the file's own order (a page duplicated, pages swapped, a page header's time
	 * changed), bad input, as the merged reader says too.
	 */
	for (int k = 0; k < pc.njobs; k++)
		if (pc.jobs[k].backwards_at) {
			set_err(err, errlen, "%s: CPU %d's timestamps go backwards at file offset %llu: "
				"the order of its pages is damaged (a page duplicated or out of place, or a "
				"page header's time changed)", t->path, pc.jobs[k].sec->cpu,
				pc.jobs[k].backwards_at);
			goto out;
		}
	/* The rare points of all CPUs in merged order; the earliest timestamp for the histogram. */
	r->first_ts = 0;
	for (int k = 0; k < pc.njobs; k++) {
		nrare += pc.jobs[k].nrare;
		if (pc.jobs[k].any && (!r->first_ts || pc.jobs[k].min_ts < r->first_ts))
			r->first_ts = pc.jobs[k].min_ts;
		for (size_t i = 0; i < pc.jobs[k].nrare; i++)
			if (pc.jobs[k].rare[i].v.kind != REC_MARKER)
				one_pass = false;
	}
	if (!one_pass || r->first_ts != spec_first_ts) {
		/* Phase 1's replay is not the answer: it starts again, and phase 2 replays. */
		one_pass = false;
		replay_free(r);
		if (replay_init(r, t->ncpus, t->nitems))
			goto oom;
		r->have_counter = t->f_counter != NULL;
		for (int k = 0; k < pc.njobs; k++)
			if (pc.jobs[k].any && (!r->first_ts || pc.jobs[k].min_ts < r->first_ts))
				r->first_ts = pc.jobs[k].min_ts;
		for (int i = 0; i < nthreads; i++)
			if (reset_out(&outs[i], &pc, r))
				goto oom;
	}
	pc.ext = calloc(nrare + 1, sizeof(*pc.ext));	/* ends with a REC_OTHER */
	if (!pc.ext)
		goto oom;
	nrare = 0;
	for (int k = 0; k < pc.njobs; k++) {
		for (size_t i = 0; i < pc.jobs[k].nrare; i++) {
			struct rare *x = &pc.jobs[k].rare[i];

			/* Invalid targets: counted once, as the merged reader does, and dropped. */
			if (x->v.kind == REC_UNTRACED && (x->v.cpu2 < 0 || x->v.cpu2 >= t->ncpus ||
							 x->v.item < 0 || x->v.item >= t->nitems)) {
				r->unknown_items++;
				continue;
			}
			if (x->v.kind == REC_FOLD && (x->v.cpu2 < 0 || x->v.cpu2 >= t->ncpus ||
						      x->v.item < 0 || x->v.item >= t->nitems))
				continue;	/* its receiving half counts it */
			pc.ext[nrare++] = *x;
		}
		free(pc.jobs[k].rare);
		pc.jobs[k].rare = NULL;
	}
	qsort(pc.ext, nrare, sizeof(*pc.ext), rare_order);
	/* Only the first of each marker counts, as replay_marker() does. */
	for (size_t i = 0; i < nrare; i++) {
		struct rare *x = &pc.ext[i];

		if (x->v.kind == REC_MARKER) {
			struct marker_totals *m = &r->marker[x->v.marker];

			m->count++;
			if (m->seen)
				continue;
			m->seen = true;
			m->ts = x->ts;
			m->complete = true;
			memset(m->total, 0, (size_t)r->nitems * sizeof(u64));
		}
		pc.ext[w++] = *x;
	}
	pc.ext[w].v.kind = REC_OTHER;
	for (int i = 0; i < nthreads; i++)
		outs[i].r.first_ts = r->first_ts;

	if (one_pass) {
		/* Each marker on every CPU, as phase 2's apply_rare() would add it. */
		struct replay scratch;

		if (replay_init(&scratch, 1, t->nitems))	/* one CPU's, replayed again */
			goto oom;
		scratch.have_counter = r->have_counter;
		for (size_t i = 0; i < w; i++) {
			const struct rare *x = &pc.ext[i];

			for (int k = 0; k < pc.njobs; k++) {
				struct cpu_job *j = &pc.jobs[k];
				int cpu = j->sec->cpu;
				const struct cpu_replay *s = &r->cpu[cpu];	/* no pages: never touched */

				if (j->nck) {
					if (replay_until(&pc, j, &outs[0], &scratch, x->ts, x->cpu, x->ord)) {
						j->failed = true;
						replay_free(&scratch);
						goto job_error;
					}
					s = &scratch.cpu[0];
				}
				if (s->phase != BEFORE_SNAP1) {
					for (int it = 0; it < r->nitems; it++)
						outs[0].marker_total[x->v.marker][it] += s->cur[it];
				} else if (s->seen) {
					outs[0].marker_incomplete[x->v.marker] = true;
				}
			}
		}
		replay_free(&scratch);
	} else if (run_phase(&pc, outs, nthreads, 2)) {
		goto job_error;
	}
	for (int i = 0; i < nthreads; i++)
		merge_tallies(r, &outs[i]);
	ret = 0;
	goto out;

job_error:
	for (int k = 0; k < pc.njobs; k++)
		if (pc.jobs[k].failed) {
			set_err(err, errlen, "%s", pc.jobs[k].err);
			break;
		}
	goto out;
oom:
	set_err(err, errlen, "out of memory");
out:
	if (outs)
		for (int i = 0; i < nthreads; i++) {
			free(outs[i].values);
			free(outs[i].buf);
			free(outs[i].r.brk);
			task_free(&outs[i].r.tasks);
			for (int m = 0; m < 4; m++)
				free(outs[i].marker_total[m]);
		}
	free(outs);
	if (pc.jobs)
		for (int k = 0; k < pc.njobs; k++) {
			free(pc.jobs[k].rare);
			free(pc.jobs[k].ck);
			free(pc.jobs[k].ck_cur);
		}
	free(pc.jobs);
	free(empty);
	free(pc.ext);
	close(pc.fd);
	return ret;
}
