// SPDX-License-Identifier: GPL-2.0
/*
 * pf_bench: page_fault1 of will-it-scale, single task: map 128 MB anonymous,
 * touch every page, unmap; repeat. Prints faults per second for each pass:
 *   pf_bench: rep=R faults=N seconds=S faults_per_sec=F
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define MAP_BYTES (128UL << 20)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 5;
	long page = sysconf(_SC_PAGESIZE);

	if (reps <= 0 || reps > 1000) {
		fprintf(stderr, "usage: pf_bench [REPS 1..1000]\n");
		return 2;
	}
	for (int r = 0; r < reps; r++) {
		double t0 = now(), t;
		char *p = mmap(NULL, MAP_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		unsigned long faults = 0;

		if (p == MAP_FAILED) {
			perror("pf_bench: mmap");
			return 1;
		}
		/* No THP: one fault per base page, as page_fault1 counts them. */
		madvise(p, MAP_BYTES, MADV_NOHUGEPAGE);
		for (unsigned long off = 0; off < MAP_BYTES; off += page, faults++)
			p[off] = 1;
		munmap(p, MAP_BYTES);
		t = now() - t0;
		printf("pf_bench: rep=%d faults=%lu seconds=%.6f faults_per_sec=%.0f\n", r, faults, t,
		       faults / t);
	}
	return 0;
}
