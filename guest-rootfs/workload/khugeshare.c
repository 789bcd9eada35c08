// SPDX-License-Identifier: GPL-2.0
/*
 * khugeshare: give khugepaged a range whose pages are shared with a fork child.
 *
 * A 2 MB-aligned range is faulted in 4 KiB pages (MADV_NOHUGEPAGE), a child is
 * forked and sleeps (every page is now mapped twice, copy-on-write), then the
 * parent marks the range MADV_HUGEPAGE, which registers the mm with khugepaged.
 * khugepaged's scan of the range (hpage_collapse_scan_pmd() in
 * mm/khugepaged.c) meets shared PTEs: with
 * /sys/kernel/mm/transparent_hugepage/khugepaged/max_ptes_shared at 0 it gives
 * up on the range and counts thp_scan_exceed_share_pte. The parent waits for
 * the counter to move (or --seconds) and ends the child.
 *
 * With --swap, no child: the first 4 KiB page of each range is swapped out
 * with MADV_PAGEOUT instead, so the scan meets a swap PTE and, with
 * max_ptes_swap at 0, counts thp_scan_exceed_swap_pte. That item no longer
 * waits for memory pressure to swap out the right page.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "procfs.h"

#define HPAGE (2UL << 20)
#define RANGES 4

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif


int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seconds", required_argument, NULL, 's' },
		{ "swap", no_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *item = "thp_scan_exceed_share_pte";
	long long before, now;
	int seconds = 10, c, waited = 0, swap = 0;
	char *raw, *p, *end;
	pid_t child = 0;

	while ((c = getopt_long(argc, argv, "s:wh", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			errno = 0;
			seconds = (int)strtol(optarg, &end, 10);
			if (errno || *end || seconds < 1 || seconds > 3600) {
				fprintf(stderr, "khugeshare: --seconds %s: give a number from 1 to 3600\n",
					optarg);
				return 2;
			}
			break;
		case 'w':
			swap = 1;
			item = "thp_scan_exceed_swap_pte";
			break;
		case 'h':
			printf("usage: khugeshare [--seconds N] [--swap]\n"
			       "Offers khugepaged ranges whose 4 KiB pages a fork child shares, and waits "
			       "up to N seconds (default 10) for thp_scan_exceed_share_pte to move.\n"
			       "--swap: ranges whose first page is swapped out instead "
			       "(thp_scan_exceed_swap_pte).\n");
			return 0;
		default:
			fprintf(stderr, "usage: khugeshare [--seconds N] [--swap] (--help)\n");
			return 2;
		}
	}
	before = now = vmstat(item);
	raw = mmap(NULL, (RANGES + 1) * HPAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED) {
		fprintf(stderr, "khugeshare: mmap: %s\n", strerror(errno));
		return 1;
	}
	p = (char *)(((unsigned long)raw + HPAGE - 1) & ~(HPAGE - 1));
	if (madvise(p, RANGES * HPAGE, MADV_NOHUGEPAGE))
		fprintf(stderr, "khugeshare: MADV_NOHUGEPAGE: %s\n", strerror(errno));
	memset(p, 0x5a, RANGES * HPAGE);
	if (swap) {
		for (int r = 0; r < RANGES; r++)
			if (madvise(p + r * HPAGE, 4096, MADV_PAGEOUT)) {
				fprintf(stderr, "khugeshare: MADV_PAGEOUT: %s (swap on?)\n",
					strerror(errno));
				return 1;
			}
	} else {
		child = fork();
		if (child < 0) {
			fprintf(stderr, "khugeshare: fork: %s\n", strerror(errno));
			return 1;
		}
		if (child == 0) {
			pause();	/* holds the shared pages until the parent ends it */
			_exit(0);
		}
	}
	if (madvise(p, RANGES * HPAGE, MADV_HUGEPAGE))
		fprintf(stderr, "khugeshare: MADV_HUGEPAGE: %s\n", strerror(errno));
	while (waited < 10 * seconds && (now = vmstat(item)) == before) {
		usleep(100 * 1000);
		waited++;
	}
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	printf("khugeshare: /proc/vmstat %s +%lld after %.1f s\n", item, now - before,
	       waited / 10.0);
	return 0;
}
