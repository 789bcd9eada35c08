// SPDX-License-Identifier: GPL-2.0
/*
 * Decoding one vmstat record (vm_event_count, vm_event_fold, vm_event_untraced,
 * vm_event_snapshot, or a print marker) from its raw bytes, every field bounds-checked
 * against the record. Both readers sit above this file: trace_percpu.c on the pages it
 * reads itself, trace_replay.c on the records libtracecmd hands it.
 */
#include "record.h"
#include "text_inputs.h"

#include <string.h>
#include <event-parse.h>

static bool field_fits(const struct tep_format_field *f, unsigned int size)
{
	return f->offset >= 0 && f->size > 0 && (long long)f->offset + f->size <= (long long)size;
}

static int read_num(struct trace_input *t, const struct tep_format_field *f,
		    const unsigned char *data, unsigned int size, unsigned long long *v)
{
	const unsigned char *p = data + f->offset;

	if (!field_fits(f, size) || f->size > 8)
		return -1;
	/* The common case, a file of this host's byte order: load directly. */
	if (t->native && (f->size == 8 || f->size == 4)) {
		if (f->size == 8) {
			memcpy(v, p, 8);
		} else {
			unsigned int w;

			memcpy(&w, p, 4);
			*v = w;
		}
		return 0;
	}
	*v = 0;
	for (int i = 0; i < f->size; i++)
		*v = t->big_endian ? *v << 8 | p[i] : *v | (unsigned long long)p[i] << (8 * i);
	return 0;
}

/* A dynamic field's payload, bounds-checked: returns a pointer and its length. */
static const unsigned char *dynamic_payload(struct trace_input *t, const struct tep_format_field *f,
					    const unsigned char *data, unsigned int size, size_t *len)
{
	unsigned long long loc;
	size_t off;

	if (f->size != 4 || read_num(t, f, data, size, &loc))
		return NULL;
	off = loc & 0xffff;
	*len = (size_t)(loc >> 16) & 0xffff;
	if (f->flags & TEP_FIELD_IS_RELATIVE)
		off += (size_t)f->offset + (size_t)f->size;
	if (off + *len > (size_t)size)
		return NULL;
	return data + off;
}

/* An array field's payload, fixed (__array) or dynamic, bounds-checked. */
static const unsigned char *static_or_dynamic_payload(struct trace_input *t,
						      const struct tep_format_field *f,
						      const unsigned char *data, unsigned int size,
						      size_t *len)
{
	if (f->flags & TEP_FIELD_IS_DYNAMIC)
		return dynamic_payload(t, f, data, size, len);
	if (f->offset < 0 || f->size < 0 || (size_t)f->offset + (size_t)f->size > (size_t)size)
		return NULL;
	*len = (size_t)f->size;
	return data + f->offset;
}

static int bad_record(struct trace_input *t, int cpu, u64 where, const char *what, char *err,
		      size_t errlen)
{
	return set_err(err, errlen, "%s: malformed %s record on CPU %d at file offset %llu", t->path,
		       what, cpu, where);
}

static long long sign_extend(unsigned long long v, int size)
{
	return size == 4 ? (long long)(int)(unsigned int)v : (long long)v;
}

static int marker_index(const unsigned char *buf, size_t len)
{
	static const char *const names[] = {
		"percpu-vmstat: vmstat-1 begin", "percpu-vmstat: vmstat-1 end",
		"percpu-vmstat: vmstat-2 begin", "percpu-vmstat: vmstat-2 end",
	};

	for (int i = 0; i < 4; i++) {
		size_t n = strlen(names[i]);

		if (len >= n && !memcmp(buf, names[i], n) &&
		    (len == n || buf[n] == '\n' || buf[n] == '\0'))
			return i;
	}
	return -1;
}

/* decode_record - see record.h. */
/*
 * Whether a decoded count, fold or untraced report names an item outside the item table, or
 * (fold, untraced: cpu_raw) a CPU the file does not have. item_raw and cpu_raw as read.
 */
static bool out_of_tables(const struct trace_input *t, const struct vm_record *v,
			  unsigned long long item_raw, unsigned long long cpu_raw)
{
	if (item_raw >= (unsigned long long)t->nitems)
		return true;
	return v->kind != REC_COUNT && cpu_raw >= (unsigned long long)t->ncpus;
}

/* record_bad_item - see record.h. */
int record_bad_item(const struct trace_input *t, int cpu, u64 where, const char *what,
		    long long item, char *err, size_t errlen)
{
	return set_err(err, errlen, "%s: the %s record on CPU %d at file offset %llu names item "
		       "%lld, outside the trace's item table (0 to %d): a damaged file (record again)",
		       t->path, what, cpu, where, item, t->nitems - 1);
}

static int outside(const struct trace_input *t, int cpu, u64 where, const char *what,
		   const struct vm_record *v, long long item_raw, char *err, size_t errlen)
{
	if (item_raw < 0 || item_raw >= t->nitems)
		return record_bad_item(t, cpu, where, what, item_raw, err, errlen);
	return set_err(err, errlen, "%s: the %s record on CPU %d at file offset %llu names cpu%d, "
		       "which the file does not have (0 to %d): a damaged file (record again)", t->path,
		       what, cpu, where, v->cpu2, t->ncpus - 1);
}

int decode_record(struct trace_input *t, const unsigned char *data, unsigned int size, int cpu,
		  u64 where, u64 *values, struct vm_record *v, char *err, size_t errlen)
{
	unsigned long long type, a, b, c, d = 0;

	v->kind = REC_OTHER;
	v->has_counter = false;
	if (size < 4 || read_num(t, t->f_type, data, size, &type))
		return bad_record(t, cpu, where, "short", err, errlen);
	if ((long long)type == t->id_count) {
		if (read_num(t, t->f_item, data, size, &a) || read_num(t, t->f_delta, data, size, &b) ||
		    (t->f_counter && read_num(t, t->f_counter, data, size, &d)))
			return bad_record(t, cpu, where, "vm_event_count", err, errlen);
		v->kind = REC_COUNT;
		v->item = a > 65535 ? -1 : (int)a;
		v->delta = sign_extend(b, t->f_delta->size);
		if (out_of_tables(t, v, a, 0))
			return outside(t, cpu, where, "vm_event_count", v, (long long)sign_extend(a, t->f_item->size), err, errlen);
	} else if ((long long)type == t->id_fold) {
		if (read_num(t, t->f_fcpu, data, size, &a) || read_num(t, t->f_fitem, data, size, &b) ||
		    read_num(t, t->f_fvalue, data, size, &c) ||
		    (t->f_counter && read_num(t, t->f_fcounter, data, size, &d)))
			return bad_record(t, cpu, where, "vm_event_fold", err, errlen);
		v->kind = REC_FOLD;
		v->cpu2 = a > 65535 ? -1 : (int)a;
		v->item = b > 65535 ? -1 : (int)b;
		v->value = c;
		if (out_of_tables(t, v, b, a))
			return outside(t, cpu, where, "vm_event_fold", v, (long long)sign_extend(b, t->f_fitem->size), err, errlen);
		/* The dead CPU's counters are folded by another CPU, after it died. */
		if (v->cpu2 == cpu)
			return set_err(err, errlen, "%s: the vm_event_fold record on CPU %d at file offset "
				       "%llu names cpu%d itself as the dead CPU; a CPU's counters are folded "
				       "by another CPU after it died: a damaged file (record again)",
				       t->path, cpu, where, cpu);
	} else if ((long long)type == t->id_untraced) {
		if (read_num(t, t->f_ucpu, data, size, &a) || read_num(t, t->f_uitem, data, size, &b) ||
		    read_num(t, t->f_udelta, data, size, &c))
			return bad_record(t, cpu, where, "vm_event_untraced", err, errlen);
		v->kind = REC_UNTRACED;
		v->cpu2 = a > 65535 ? -1 : (int)a;
		v->item = b > 65535 ? -1 : (int)b;
		v->delta = sign_extend(c, t->f_udelta->size);
		if (out_of_tables(t, v, b, a))
			return outside(t, cpu, where, "vm_event_untraced", v, (long long)sign_extend(b, t->f_uitem->size), err, errlen);
	} else if ((long long)type == t->id_snap) {
		const unsigned char *p;
		size_t len, n;

		p = static_or_dynamic_payload(t, t->f_events, data, size, &len);
		if (read_num(t, t->f_tag, data, size, &a) || !p || len % (size_t)t->long_size)
			return bad_record(t, cpu, where, "vm_event_snapshot", err, errlen);
		n = len / (size_t)t->long_size;
		if (n != (size_t)t->nitems)
			return set_err(err, errlen, "%s: a snapshot holds %zu counters but the item table "
				       "names %d", t->path, n, t->nitems);
		for (size_t i = 0; i < n; i++) {
			struct tep_format_field w = { .offset = (int)(i * (size_t)t->long_size),
						      .size = t->long_size };

			read_num(t, &w, p, (unsigned int)len, &values[i]);
		}
		v->kind = REC_SNAPSHOT;
		v->tag = a > 0xffffffffu ? 0xffffffffu : (unsigned int)a;
		v->values = values;
	} else if ((long long)type == t->id_print && t->f_buf) {
		const unsigned char *p = NULL;
		size_t len = 0;

		if (t->f_buf->flags & TEP_FIELD_IS_DYNAMIC) {
			p = dynamic_payload(t, t->f_buf, data, size, &len);
		} else if (t->f_buf->offset >= 0 && (unsigned int)t->f_buf->offset <= size) {
			/* char buf[]: a flexible array up to the end of the record */
			p = data + t->f_buf->offset;
			len = (size_t)size - (size_t)t->f_buf->offset;
		}
		if (!p)
			return bad_record(t, cpu, where, "print", err, errlen);
		v->marker = marker_index(p, len);
		if (v->marker >= 0)
			v->kind = REC_MARKER;
	} else if (type > 65535 || !(t->known_type[type / 8] & (1u << (type % 8)))) {
		return set_err(err, errlen, "%s: a record on CPU %d at file offset %llu has event type "
			       "%llu, which the file's event formats do not have (a damaged file: record "
			       "again)", t->path, cpu, where, type);
	} else {
		return 0;
	}
	if (read_num(t, t->f_pid, data, size, &a))
		return bad_record(t, cpu, where, "short", err, errlen);
	v->pid = (int)(unsigned int)a;
	v->has_counter = t->f_counter != NULL;
	v->counter = d;
	return 0;
}
