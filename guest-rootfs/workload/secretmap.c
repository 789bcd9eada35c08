// SPDX-License-Identifier: GPL-2.0
/*
 * secretmap: take pages out of the kernel's direct map with memfd_secret()
 * until a 1 GB direct-map page has been split.
 *
 * Each page of a memfd_secret() mapping is removed from the direct map when
 * it is faulted in (set_direct_map_invalid_noflush(), mm/secretmem.c); on
 * x86 a page mapped by a 1 GB or 2 MB direct-map page splits that page first
 * (split_large_page(), arch/x86/mm/pat/set_memory.c), counting
 * direct_map_level3_splits or direct_map_level2_splits. Which page the
 * allocator hands out is its choice, so this faults in pages in chunks and
 * stops once direct_map_level3_splits has moved (or at --max-mb): a region
 * still mapped by 1 GB pages is met sooner or later, the allocator's order
 * only decides when.
 *
 * Needs CONFIG_SECRETMEM and, on 6.1, secretmem.enable=1 on the kernel
 * command line, and the right to raise RLIMIT_MEMLOCK (root). Exit 0 when a
 * level-3 split was seen, 1 when not, 2 on a usage or system error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "procfs.h"

#ifndef SYS_memfd_secret
#define SYS_memfd_secret 447	/* x86_64, arm64 and riscv64 alike */
#endif

#define CHUNK (16UL << 20)


static void print_direct_map(const char *when)
{
	char line[256];
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return;
	printf("secretmap: %s:", when);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "DirectMap", 9)) {
			line[strcspn(line, "\n")] = '\0';
			printf(" %s;", line);
		}
	printf("\n");
	fclose(f);
}

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: secretmap [--max-mb N]\n"
		"Faults in memfd_secret() pages, %lu MB at a time, until the kernel's\n"
		"direct_map_level3_splits moves or N MB (default 1024) are mapped; holds\n"
		"them until then, so each chunk comes from memory not yet taken.\n",
		CHUNK >> 20);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "max-mb", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long max_mb = 1024, done;
	long long l2_before, l3_before, l3 = -1;
	char *end, *map;
	long page = sysconf(_SC_PAGESIZE);
	int c, fd;

	while ((c = getopt_long(argc, argv, "m:h", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			errno = 0;
			max_mb = strtoul(optarg, &end, 10);
			if (errno || *end || !max_mb || max_mb > (1UL << 20)) {
				fprintf(stderr, "secretmap: --max-mb '%s' is not a number of MB from 1 to 1048576\n",
					optarg);
				return 2;
			}
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
	l2_before = vmstat("direct_map_level2_splits");
	l3_before = vmstat("direct_map_level3_splits");
	if (l2_before < 0 || l3_before < 0) {
		fprintf(stderr, "secretmap: no direct_map_level*_splits in /proc/vmstat "
			"(needs x86 with CONFIG_X86_64 or PAE)\n");
		return 2;
	}
	/*
	 * Secret memory is charged to RLIMIT_MEMLOCK page by page at fault
	 * time (secretmem_account_folio()), capability or not: a fault past
	 * the limit (8 MB by default) is a SIGBUS.
	 */
	struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };

	if (setrlimit(RLIMIT_MEMLOCK, &unlimited)) {
		fprintf(stderr, "secretmap: raising RLIMIT_MEMLOCK: %s "
			"(secret memory counts against it; run as root)\n", strerror(errno));
		return 2;
	}
	fd = syscall(SYS_memfd_secret, 0);
	if (fd < 0) {
		fprintf(stderr, "secretmap: memfd_secret: %s (needs CONFIG_SECRETMEM and "
			"secretmem.enable=1 on the kernel command line)\n", strerror(errno));
		return 2;
	}
	if (ftruncate(fd, (off_t)max_mb << 20)) {
		fprintf(stderr, "secretmap: ftruncate to %lu MB: %s\n", max_mb, strerror(errno));
		return 2;
	}
	map = mmap(NULL, max_mb << 20, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		fprintf(stderr, "secretmap: mmap of %lu MB: %s\n", max_mb, strerror(errno));
		return 2;
	}
	print_direct_map("before");
	for (done = 0; done < max_mb << 20; ) {
		unsigned long stop = done + CHUNK < max_mb << 20 ? done + CHUNK : max_mb << 20;

		/* The chunk bounds how far past the first split this goes. */
		for (; done < stop; done += page)
			map[done] = 1;
		l3 = vmstat("direct_map_level3_splits");
		if (l3 > l3_before)
			break;
	}
	print_direct_map("after");
	printf("secretmap: %lu MB of secret memory mapped: direct_map_level3_splits +%lld, "
	       "direct_map_level2_splits +%lld\n",
	       done >> 20, l3 - l3_before, vmstat("direct_map_level2_splits") - l2_before);
	munmap(map, max_mb << 20);
	close(fd);
	return l3 > l3_before ? 0 : 1;
}
