// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target over the per-CPU reader (trace_percpu.c): the first byte picks the
 * kernel's long size, byte order, page size and the snapshot's array layout (the series'
 * __array or the earlier __dynamic_array), the rest is one ring-buffer page. Every event
 * the page reader returns must lie inside the page's committed data and each step must move
 * forward; every event is then decoded as the audit decodes it (vm_event_count,
 * vm_event_fold, vm_event_untraced, vm_event_snapshot and ftrace:print with the field layout
 * of the series' formats), so ASan/UBSan see every byte the audit would read.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "ring_page.h"
#include "trace_input.h"
#include "record.h"

#define F(n, o, s, fl) { .name = (char *)(n), .offset = (o), .size = (s), .flags = (fl) }

static struct tep_format_field f_type = F("common_type", 0, 2, 0);
static struct tep_format_field f_pid = F("common_pid", 4, 4, TEP_FIELD_IS_SIGNED);
static struct tep_format_field f_item = F("item", 8, 4, TEP_FIELD_IS_SIGNED);
static struct tep_format_field f_delta = F("delta", 16, 8, TEP_FIELD_IS_SIGNED);
static struct tep_format_field f_counter = F("counter", 24, 8, 0);
static struct tep_format_field f_fcpu = F("cpu", 8, 4, 0);
static struct tep_format_field f_fitem = F("item", 12, 4, 0);
static struct tep_format_field f_fvalue = F("value", 16, 8, 0);
static struct tep_format_field f_fcounter = F("counter", 24, 8, 0);
static struct tep_format_field f_tag = F("tag", 8, 4, 0);
static struct tep_format_field f_events = F("events", 12, 4, TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_ARRAY);
static struct tep_format_field f_buf = F("buf", 16, 0, TEP_FIELD_IS_ARRAY);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned int page_sizes[4] = { 4096, 64, 256, 8192 };
	static char *names[93];
	/* Event ids 0-15 have formats (1-5 the vmstat ones and print), the rest do not. */
	static unsigned char known_type[65536 / 8] = { 0xff, 0xff };
	struct trace_input t = {
		.path = "fuzz", .ncpus = 4, .nitems = 93, .item_names = names, .long_size = 8,
		.id_count = 1, .id_fold = 2, .id_snap = 3, .id_print = 5, .id_untraced = 4,
		.f_item = &f_item, .f_delta = &f_delta, .f_fcpu = &f_fcpu, .f_fitem = &f_fitem,
		.f_fvalue = &f_fvalue, .f_tag = &f_tag, .f_events = &f_events, .f_buf = &f_buf,
		.f_counter = &f_counter, .f_fcounter = &f_fcounter, .f_ucpu = &f_fcpu,
		.f_uitem = &f_fitem, .f_udelta = &f_fvalue, .f_type = &f_type, .f_pid = &f_pid,
		.known_type = known_type,
	};
	u64 values[93];
	unsigned int page_size, steps = 0, last_pos = 0;
	int long_size;
	bool big;
	unsigned char *page;
	struct ring_page pg;
	struct ring_event ev;
	const char *why = NULL;
	char err[256];
	int more;

	if (size < 1)
		return 0;
	long_size = data[0] & 1 ? 4 : 8;
	/* The snapshot's counters: fixed, right after the tag, or a dynamic array's locator. */
	struct tep_format_field f_events_fixed = F("events", long_size == 8 ? 16 : 12, 93 * long_size,
						   TEP_FIELD_IS_ARRAY);

	if (data[0] & 16)
		t.f_events = &f_events_fixed;
	big = data[0] & 2;
	page_size = page_sizes[(data[0] >> 2) & 3];
	t.big_endian = big;
	t.native = big == (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	/* Exactly one page, so that ASan sees any read past it. */
	page = calloc(1, page_size);
	if (!page)
		return 0;
	memcpy(page, data + 1, size - 1 < page_size ? size - 1 : page_size);
	if (ring_page_load(&pg, page, page_size, long_size, big, &why) == 0) {
		while ((more = ring_page_next(&pg, &ev, &why)) > 0) {
			struct vm_record v;
			unsigned int at = (unsigned int)(ev.data - pg.data);

			if (ev.data < pg.data || at + (u64)ev.size > pg.size || (steps && at <= last_pos))
				__builtin_trap();	/* outside the committed data, or not forward */
			if (++steps > page_size / 4)
				__builtin_trap();
			last_pos = at;
			decode_record(&t, ev.data, ev.size, 0, at, values, &v, err, sizeof(err));
		}
		if (more < 0 && !why)
			__builtin_trap();	/* every refusal says why */
	} else if (!why) {
		__builtin_trap();
	}
	free(page);
	return 0;
}
