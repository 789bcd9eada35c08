// SPDX-License-Identifier: GPL-2.0
#include "ring_page.h"

#include <string.h>

int ring_page_load(struct ring_page *p, const unsigned char *page, unsigned int page_size,
		   int long_size, bool big_endian, const char **why)
{
	unsigned int hdr = 8 + (unsigned int)long_size;
	u64 commit;

	memset(p, 0, sizeof(*p));
	/* Words are read in the file's byte order; the event header's bit layout follows it too. */
	p->swap = big_endian != ring_host_big_endian();
	if ((long_size != 4 && long_size != 8) || page_size < hdr) {
		*why = "the page is smaller than its header";
		return -1;
	}
	p->ts = ring_rd8(page, p->swap);
	commit = long_size == 8 ? ring_rd8(page + 8, p->swap) : ring_rd4(page + 8, p->swap);
	p->data = page + hdr;
	p->size = (unsigned int)(commit & COMMIT_MASK);
	if (p->size > page_size - hdr) {
		*why = "its commit word says more data than the page holds";
		return -1;
	}
	if (commit & MISSED_EVENTS) {
		p->missed = -1;
		if (commit & MISSED_STORED) {
			u64 n;

			if ((u64)p->size + (u64)long_size > page_size - hdr) {
				*why = "the count of lost events lies past the page";
				return -1;
			}
			n = long_size == 8 ? ring_rd8(p->data + p->size, p->swap) :
					     ring_rd4(p->data + p->size, p->swap);
			p->missed = n > 0 && n <= (u64)0x7fffffffffffffffull ? (long long)n : -1;
		}
	}
	return 0;
}

