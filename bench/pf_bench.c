// SPDX-License-Identifier: GPL-2.0
/*
 * pf_bench: page_fault1 of will-it-scale, single task: map 128 MB anonymous,
 * touch every page, unmap; repeat. Prints faults per second for each pass:
 *   pf_bench: rep=R faults=N seconds=S faults_per_sec=F
 * pf_bench --marked REPS: the same on CPU 0, each touch bracketed by the marker instructions
 * that bench/insn_window_plugin.c counts between (x86 only; long NOPs without the plugin).
 * pf_bench --calibrate: windows of known length for the plugin's test, CALIBRATE_WINDOWS of
 * each kind in this order: empty, 64 NOPs, one rep stosb over 4096 bytes (x86 only).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* nopl 0x50565301(%rax) and nopl 0x50565302(%rax): see bench/insn_window_plugin.c */
#if defined(__x86_64__) || defined(__i386__)
#define OPEN ".byte 0x0f, 0x1f, 0x80; .long 0x50565301\n\t"
#define CLOSE ".byte 0x0f, 0x1f, 0x80; .long 0x50565302\n\t"
#define MARK_OPEN() __asm__ __volatile__(OPEN ::: "memory")
#define MARK_CLOSE() __asm__ __volatile__(CLOSE ::: "memory")
#define CALIBRATE_WINDOWS 1000

static int calibrate(void)
{
	static char buf[4096];
	int i;

	memset(buf, 1, sizeof(buf));	/* faulted in before any window */
	for (i = 0; i < CALIBRATE_WINDOWS; i++)
		__asm__ __volatile__(OPEN CLOSE ::: "memory");
	for (i = 0; i < CALIBRATE_WINDOWS; i++)
		__asm__ __volatile__(OPEN ".rept 64\n\tnop\n\t.endr\n\t" CLOSE ::: "memory");
	for (i = 0; i < CALIBRATE_WINDOWS; i++) {
		void *dst = buf;
		unsigned long n = sizeof(buf);

		__asm__ __volatile__(OPEN "rep stosb\n\t" CLOSE
				     : "+D"(dst), "+c"(n) : "a"(0) : "memory");
	}
	printf("pf_bench: calibrate windows=%d\n", 3 * CALIBRATE_WINDOWS);
	return 0;
}
#else
static int calibrate(void)
{
	fprintf(stderr, "pf_bench: --calibrate: the markers are x86 instructions\n");
	return 2;
}
#define MARK_OPEN() do { } while (0)
#define MARK_CLOSE() do { } while (0)
#endif

int main(int argc, char **argv)
{
	int calibrating = argc == 2 && !strcmp(argv[1], "--calibrate");
	int marked = calibrating || (argc > 1 && !strcmp(argv[1], "--marked"));
	int reps = calibrating ? 1 : argc > 1 + marked ? atoi(argv[1 + marked]) : 5;
	long page = sysconf(_SC_PAGESIZE);

	if (reps <= 0 || reps > 1000 || (!calibrating && argc > 2 + marked)) {
		fprintf(stderr, "usage: pf_bench [--marked] [REPS 1..1000] | --calibrate\n");
		return 2;
	}
	if (marked) {
		cpu_set_t cpus;

		/* A window is counted on the vCPU that opened it: stay on one. */
		CPU_ZERO(&cpus);
		CPU_SET(0, &cpus);
		if (sched_setaffinity(0, sizeof(cpus), &cpus)) {
			perror("pf_bench: sched_setaffinity");
			return 1;
		}
	}
	if (calibrating)
		return calibrate();
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
		for (unsigned long off = 0; off < MAP_BYTES; off += page, faults++) {
			if (marked) {
				MARK_OPEN();
				((volatile char *)p)[off] = 1;
				MARK_CLOSE();
			} else {
				p[off] = 1;
			}
		}
		munmap(p, MAP_BYTES);
		t = now() - t0;
		printf("pf_bench: rep=%d faults=%lu seconds=%.6f faults_per_sec=%.0f\n", r, faults, t,
		       faults / t);
	}
	return 0;
}
