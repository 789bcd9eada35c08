/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One sub-buffer ("page") of the kernel's ring buffer, as trace-cmd saves it
 * per CPU: an 8-byte timestamp, a long-sized commit word (bytes of data, and
 * bit 31 "events were lost before this page", bit 30 "their count is stored
 * after the data"), then events. Each event starts with a 32-bit word:
 * type_len in 5 bits and a 27-bit time delta (the layout of struct
 * ring_buffer_event in include/linux/ring_buffer.h):
 *   1..28  data of type_len * 4 bytes follows
 *   0      array[0] is the length, data follows it
 *   29     padding (array[0] bytes follow; 0 at the end of a page)
 *   30     time extend: array[0] << 27 | delta is added to the time
 *   31     absolute time stamp (the top 5 bits come from the current time)
 *
 * This reader is written for untrusted input: every length is checked against
 * the page before it is used and every step moves forward, so a corrupt page is
 * reported (-1) instead of read out of bounds, walked forever or skipped.
 * libtraceevent's kbuffer (1.7) trusts the commit word and the lengths: given a
 * padding event whose length reads as negative at the start of a page, it ends
 * the page there and the page's events are dropped without a word (the merged
 * reader then audits the rest: tests/run-tests has that page).
 */
#ifndef VMSTAT_AUDIT_RING_PAGE_H
#define VMSTAT_AUDIT_RING_PAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "types.h"

struct ring_page {
	const unsigned char *data;	/* the page's events */
	unsigned int size;		/* committed bytes of data */
	unsigned int pos;		/* next event, from data */
	u64 ts;				/* time of the last event read */
	long long missed;		/* 0, a count of lost events before this page, or -1: unknown */
	bool swap;			/* the file's byte order is not the host's */
};

/* The event just read: its data (after the ring buffer's header) and timestamp. */
struct ring_event {
	const unsigned char *hdr;	/* its header: where the record starts in the file */
	const unsigned char *data;
	unsigned int size;
	u64 ts;
};

/*
 * ring_page_load - loads the page of page_size bytes at page, from a kernel whose long is
 * long_size (4 or 8) bytes and whose byte order is big_endian. 0, or -1 with
 * the reason in *why when the commit word does not fit the page.
 */
int ring_page_load(struct ring_page *p, const unsigned char *page, unsigned int page_size,
		   int long_size, bool big_endian, const char **why);

/* 1 with the next event in *ev, 0 at the end of the page, -1 with *why: corrupt. Inline: it
 * runs once per event. */
enum { TYPE_PADDING = 29, TYPE_TIME_EXTEND = 30, TYPE_TIME_STAMP = 31 };
#define COMMIT_MASK	((1u << 27) - 1)
#define MISSED_EVENTS	(1ull << 31)
#define MISSED_STORED	(1ull << 30)
/* An absolute time stamp holds 59 bits: the top 5 are the current time's. */
#define TS_MSB		(0xf8ull << 56)

static inline unsigned int ring_rd4(const unsigned char *p, bool swap)
{
	unsigned int v;

	memcpy(&v, p, 4);
	return swap ? __builtin_bswap32(v) : v;
}

static inline u64 ring_rd8(const unsigned char *p, bool swap)
{
	u64 v;

	memcpy(&v, p, 8);
	return swap ? __builtin_bswap64(v) : v;
}

static inline bool ring_host_big_endian(void)
{
	return __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
}

static inline int ring_page_next(struct ring_page *p, struct ring_event *ev, const char **why)
{
	bool big = p->swap != ring_host_big_endian();

	while (p->pos < p->size) {
		u64 left = p->size - p->pos, len, span;
		const unsigned char *e = p->data + p->pos;
		unsigned int w, type_len, delta;

		if (left < 4) {
			*why = "an event header crosses the end of the page's data";
			return -1;
		}
		w = ring_rd4(e, p->swap);
		type_len = big ? w >> 27 : w & 31;
		delta = big ? w & ((1u << 27) - 1) : w >> 5;
		if (type_len == TYPE_PADDING && delta == 0) {
			/* The null event: the kernel writes it only where no event fits (< 8 bytes). */
			if (left >= 8) {
				*why = "a null event with room for more events after it";
				return -1;
			}
			return 0;
		}
		if (type_len >= TYPE_PADDING || type_len == 0) {
			if (left < 8) {
				*why = "an event's length word crosses the end of the page's data";
				return -1;
			}
			len = ring_rd4(e + 4, p->swap);
		} else {
			len = 0;
		}
		switch (type_len) {
		case TYPE_PADDING:	/* a discarded event, or the padding to the page's end */
			if (len > left - 4) {
				*why = "a padding event runs past the end of the page's data";
				return -1;
			}
			p->ts += delta;
			p->pos += (unsigned int)(4 + len);
			continue;
		case TYPE_TIME_EXTEND:
			p->ts += (len << 27) + delta;
			p->pos += 8;
			continue;
		case TYPE_TIME_STAMP:
			p->ts = ((len << 27) | delta) | (p->ts & TS_MSB);
			p->pos += 8;
			continue;
		case 0:			/* array[0] is the length, with itself */
			if (len < 4) {
				*why = "an event's length is shorter than its length word";
				return -1;
			}
			ev->data = e + 8;
			ev->size = (unsigned int)((len - 4 + 3) & ~3ull);
			span = 8 + (u64)ev->size;
			break;
		default:
			ev->data = e + 4;
			ev->size = type_len * 4;
			span = 4 + (u64)ev->size;
			break;
		}
		if (span > left) {
			*why = "an event runs past the end of the page's data";
			return -1;
		}
		p->ts += delta;
		ev->hdr = e;
		ev->ts = p->ts;
		p->pos += (unsigned int)span;
		return 1;
	}
	return 0;
}

/*
 * The common case at full speed, for a little-endian page read on a little-endian host: a run
 * of data events of type_len tl (1..28) whose 16-bit common_type, at type_off in their data,
 * is id, and whose time is below a limit. The run holds the page's position and time in
 * locals (nothing the caller stores can alias them) from ring_run_begin() to ring_run_end().
 * ring_run_next() takes the next event exactly as ring_page_next() would (its data returned,
 * the run's time moved to its time) when it is of that kind and its time is below the limit
 * (so it does not wrap past 2^64 either: the limit is at most 2^64-1); otherwise nothing moves
 * and NULL says "read it with ring_page_next()". Needs type_off + 2 <= tl * 4.
 */
struct ring_run {
	const unsigned char *e, *end;	/* the next event; the end of the page's data */
	u64 ts;				/* the time of the last event taken */
	u64 room;			/* limit - ts: how far the time may still move */
};

static inline void ring_run_begin(struct ring_run *run, const struct ring_page *p, u64 limit)
{
	run->e = p->data + p->pos;
	run->end = p->data + p->size;
	run->ts = p->ts;
	run->room = p->ts < limit ? limit - p->ts : 0;
}

static inline void ring_run_end(const struct ring_run *run, struct ring_page *p)
{
	p->pos = (unsigned int)(run->e - p->data);
	p->ts = run->ts;
}

/* Lowers the run's limit to limit (it never rises). */
static inline void ring_run_limit(struct ring_run *run, u64 limit)
{
	u64 room = run->ts < limit ? limit - run->ts : 0;

	if (room < run->room)
		run->room = room;
}

/*
 * ring_run_next() in two steps: ring_run_peek() returns the next event's data with its time
 * delta in *delta (the event's time is run->ts + *delta) and moves nothing; ring_run_take()
 * takes the event it returned.
 */
static inline const unsigned char *ring_run_peek(const struct ring_run *run, unsigned int tl,
						 unsigned int type_off, unsigned short id,
						 unsigned int *delta)
{
	const unsigned char *e = run->e;
	unsigned int w;
	unsigned short type;

	if ((size_t)(run->end - e) < 4 + tl * 4)
		return NULL;
	memcpy(&w, e, 4);
	memcpy(&type, e + 4 + type_off, 2);
	*delta = w >> 5;
	/* delta < limit - ts: the event's time is below the limit, and cannot wrap past 2^64. */
	if ((w & 31) != tl || type != id || *delta >= run->room)
		return NULL;
	return e + 4;
}

static inline void ring_run_take(struct ring_run *run, unsigned int tl, unsigned int delta)
{
	run->room -= delta;
	run->ts += delta;
	run->e += 4 + tl * 4;
}

static inline const unsigned char *ring_run_next(struct ring_run *run, unsigned int tl,
						 unsigned int type_off, unsigned short id)
{
	unsigned int delta;
	const unsigned char *d = ring_run_peek(run, tl, type_off, id, &delta);

	if (d)
		ring_run_take(run, tl, delta);
	return d;
}

#endif
