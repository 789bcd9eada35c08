// SPDX-License-Identifier: GPL-2.0
/*
 * thpsplit: split a transparent huge page to failure, then to success.
 *
 * MADV_COLD on part of a PMD-mapped huge page makes
 * madvise_cold_or_pageout_pte_range() split it first (mm/madvise.c), with
 * split_huge_page() and no can_split_folio() check beforehand, unlike the
 * debugfs split_huge_pages interface, which skips a page it cannot split
 * without counting anything. A split fails when the folio holds references
 * beyond its mappings: here, vmsplice() of its first 4 KiB into a pipe, whose
 * buffer keeps a reference to the page until it is read or closed. So each
 * round counts
 *   thp_split_page_failed  MADV_COLD of 4 KiB while the pipe holds the page,
 *   thp_split_page         the same once the pipe is closed.
 * A round whose region did not get a huge page (no free 2 MB block) counts
 * neither, and is reported as such.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "procfs.h"

#define HPAGE (2UL << 20)


/* Whether the page at p is mapped by a huge page (AnonHugePages of its smaps entry). */
static int is_huge(const void *p)
{
	char line[256];
	unsigned long lo, hi, addr = (unsigned long)p;
	int in = 0, huge = 0;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2)	/* a mapping's first line */
			in = addr >= lo && addr < hi;
		else if (in && !strncmp(line, "AnonHugePages:", 14))
			huge = atol(line + 14) > 0;
	}
	fclose(f);
	return huge;
}

static int round_once(int k)
{
	char *raw, *p;
	int fds[2];
	struct iovec iov;

	raw = mmap(NULL, 2 * HPAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED) {
		fprintf(stderr, "thpsplit: mmap: %s\n", strerror(errno));
		return -1;
	}
	p = (char *)(((unsigned long)raw + HPAGE - 1) & ~(HPAGE - 1));
	if (madvise(p, HPAGE, MADV_HUGEPAGE))
		fprintf(stderr, "thpsplit: MADV_HUGEPAGE: %s (THP not built in?)\n", strerror(errno));
	memset(p, 0x5a, HPAGE);
	if (!is_huge(p)) {
		printf("thpsplit: round %d: no huge page (no free 2 MB block): nothing to split\n", k);
		munmap(raw, 2 * HPAGE);
		return 0;
	}
	if (pipe(fds)) {
		fprintf(stderr, "thpsplit: pipe: %s\n", strerror(errno));
		return -1;
	}
	iov.iov_base = p;
	iov.iov_len = 4096;
	if (vmsplice(fds[1], &iov, 1, 0) != 4096) {
		fprintf(stderr, "thpsplit: vmsplice: %s\n", strerror(errno));
		return -1;
	}
	/* The pipe holds a reference to the huge page: the split fails. */
	if (madvise(p, 4096, MADV_COLD))
		fprintf(stderr, "thpsplit: MADV_COLD: %s\n", strerror(errno));
	printf("thpsplit: round %d: pinned by a pipe, after MADV_COLD of 4 KiB: %s\n", k,
	       is_huge(p) ? "still huge (split failed)" : "split");
	close(fds[0]);
	close(fds[1]);
	if (madvise(p, 4096, MADV_COLD))
		fprintf(stderr, "thpsplit: MADV_COLD: %s\n", strerror(errno));
	printf("thpsplit: round %d: pipe closed, after MADV_COLD of 4 KiB: %s\n", k,
	       is_huge(p) ? "still huge" : "split");
	munmap(raw, 2 * HPAGE);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "rounds", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long long failed0 = vmstat("thp_split_page_failed"), split0 = vmstat("thp_split_page");
	int rounds = 3, c;
	char *end;

	while ((c = getopt_long(argc, argv, "r:h", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			errno = 0;
			rounds = (int)strtol(optarg, &end, 10);
			if (errno || *end || rounds < 1 || rounds > 1000) {
				fprintf(stderr, "thpsplit: --rounds %s: give a number from 1 to 1000\n",
					optarg);
				return 2;
			}
			break;
		case 'h':
			printf("usage: thpsplit [--rounds N]\n"
			       "Splits a huge page while a pipe holds a reference to it (fails: "
			       "thp_split_page_failed), then after closing the pipe (thp_split_page), "
			       "N times (default 3).\n");
			return 0;
		default:
			fprintf(stderr, "usage: thpsplit [--rounds N] (--help)\n");
			return 2;
		}
	}
	for (int k = 1; k <= rounds; k++)
		if (round_once(k))
			return 1;
	printf("thpsplit: /proc/vmstat thp_split_page_failed +%lld, thp_split_page +%lld\n",
	       vmstat("thp_split_page_failed") - failed0, vmstat("thp_split_page") - split0);
	return 0;
}
