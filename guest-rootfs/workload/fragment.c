// SPDX-License-Identifier: GPL-2.0
/*
 * fragment: fill free memory with anonymous 4 KiB pages, free every other
 * one, and hold the rest until told to let go.
 *
 * What is allocated while it holds comes from those 4 KiB holes, spread
 * over most of the zone: the allocator serves order-0 requests from its
 * order-0 free lists first. The balloon scenario inflates virtio-balloon
 * then, so that its pages sit in every part of memory. Once this exits,
 * each pageblock holds balloon pages and free pages side by side, and
 * compaction has both what it migrates (the balloon pages the migration
 * scanner meets from the bottom) and where to (partly free pageblocks,
 * which the free scanner takes from the top; a wholly free one it leaves
 * alone). Without it the balloon takes one contiguous run of memory and
 * a full compaction may not reach a single balloon page.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "procfs.h"


static int parse_count(const char *opt, const char *arg, unsigned long max, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(arg, &end, 10);
	if (errno || *end || *out > max || arg[0] == '-') {
		fprintf(stderr, "fragment: %s '%s' is not a number from 0 to %lu\n", opt, arg, max);
		return -1;
	}
	return 0;
}

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: fragment [--leave-mb N] [--ready PATH] [--until PATH] [--timeout S]\n"
		"Maps MemFree minus N MB (default 48) of anonymous 4 KiB pages, frees every other\n"
		"page, creates PATH of --ready, then holds the rest until the file of --until\n"
		"exists (or S seconds, default 300, have passed: exit 1) and exits.\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "leave-mb", required_argument, NULL, 'l' },
		{ "ready", required_argument, NULL, 'r' },
		{ "until", required_argument, NULL, 'u' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long leave_mb = 48, timeout = 300, i, npages;
	const char *ready = NULL, *until = NULL;
	long page = sysconf(_SC_PAGESIZE);
	long long free_kb;
	size_t len;
	char *map;
	FILE *f;
	int c;

	while ((c = getopt_long(argc, argv, "l:r:u:t:h", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			if (parse_count("--leave-mb", optarg, 1UL << 20, &leave_mb))
				return 2;
			break;
		case 'r':
			ready = optarg;
			break;
		case 'u':
			until = optarg;
			break;
		case 't':
			if (parse_count("--timeout", optarg, 86400, &timeout))
				return 2;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return 2;
	}
	free_kb = meminfo_kb("MemFree");
	if (free_kb < 0) {
		fprintf(stderr, "fragment: no MemFree in /proc/meminfo\n");
		return 2;
	}
	if ((unsigned long long)free_kb <= leave_mb * 1024ULL) {
		fprintf(stderr, "fragment: MemFree is %lld kB, not more than --leave-mb %lu MB\n",
			free_kb, leave_mb);
		return 2;
	}
	len = (size_t)(free_kb - (long long)leave_mb * 1024) * 1024;
	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED) {
		fprintf(stderr, "fragment: mmap of %zu MB: %s\n", len >> 20, strerror(errno));
		return 2;
	}
	/* 4 KiB pages only: a huge page would leave no hole behind. */
	if (madvise(map, len, MADV_NOHUGEPAGE))
		fprintf(stderr, "fragment: MADV_NOHUGEPAGE: %s (continuing)\n", strerror(errno));
	npages = len / page;
	for (i = 0; i < npages; i++)
		map[i * page] = 1;
	for (i = 0; i < npages; i += 2)
		if (madvise(map + i * page, page, MADV_DONTNEED)) {
			fprintf(stderr, "fragment: MADV_DONTNEED: %s\n", strerror(errno));
			return 2;
		}
	printf("fragment: %zu MB mapped, every other 4 KiB page freed: %lu holes; MemFree now %lld kB\n",
	       len >> 20, (npages + 1) / 2, meminfo_kb("MemFree"));
	fflush(stdout);
	if (ready) {
		f = fopen(ready, "w");
		if (!f || fclose(f)) {
			fprintf(stderr, "fragment: cannot create %s: %s\n", ready, strerror(errno));
			return 2;
		}
	}
	if (until) {
		struct timespec tick = { 0, 200 * 1000 * 1000 };
		unsigned long waited;

		for (waited = 0; access(until, F_OK); waited++) {
			if (waited >= timeout * 5) {
				fprintf(stderr, "fragment: %s did not appear in %lu s\n", until, timeout);
				return 1;
			}
			nanosleep(&tick, NULL);
		}
	}
	munmap(map, len);
	return 0;
}
