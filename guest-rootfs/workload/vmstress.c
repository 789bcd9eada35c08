// SPDX-License-Identifier: GPL-2.0
/*
 * vmstress: a memory workload for the guest that touches as many kinds of
 * vm events as it can. One worker per online CPU runs a mix of exercises
 * (anonymous, shmem and THP faults, COW after fork, madvise, mremap,
 * mlock) and hops between CPUs; a hog pushes past the guest's RAM so that
 * kswapd, direct reclaim, swap and compaction run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif
#ifndef MADV_COLD
#define MADV_COLD 20
#endif

#define MB (1024UL * 1024UL)
#define THP_SIZE (2 * MB)

struct options {
	double duration;
	int workers;
	unsigned long hog_mb;
	int verbose;
};

static long page_size;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "vmstress: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static void touch(char *p, size_t len, int write)
{
	volatile char sink;

	for (size_t off = 0; off < len; off += page_size) {
		if (write)
			p[off] = (char)off;
		else
			sink = p[off];
	}
	(void)sink;
}

static void *map_anon(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Rounds an anonymous mapping up to a THP boundary so huge faults are possible. */
static char *map_thp_aligned(size_t len, void **base, size_t *base_len)
{
	*base_len = len + THP_SIZE;
	*base = map_anon(*base_len);
	if (!*base)
		return NULL;
	return (char *)(((uintptr_t)*base + THP_SIZE - 1) & ~(uintptr_t)(THP_SIZE - 1));
}

static void hop_cpu(unsigned int *seed, int ncpus)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(rand_r(seed) % ncpus, &set);
	sched_setaffinity(0, sizeof(set), &set); /* a CPU may be offline: then stay */
}

static void ex_anon(void)
{
	size_t len = 4 * MB;
	char *p = map_anon(len);

	if (!p)
		return;
	touch(p, len, 1);
	madvise(p, len / 2, MADV_DONTNEED);
	touch(p, len / 2, 0);
	munmap(p, len);
}

static void ex_cow(void)
{
	size_t len = 2 * MB;
	char *p = map_anon(len);
	pid_t pid;

	if (!p)
		return;
	touch(p, len, 1);
	pid = fork();
	if (pid == 0) {
		touch(p, len, 1);
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
	touch(p, len, 1); /* the parent's copies are its own again: reuse */
	munmap(p, len);
}

static void ex_shmem(int id)
{
	char path[64];
	size_t len = 2 * MB;
	int fd;
	char *p;

	snprintf(path, sizeof(path), "/tmp/vmstress.%d.%d", getpid(), id);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return;
	unlink(path);
	if (ftruncate(fd, len) == 0) {
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (p != MAP_FAILED) {
			touch(p, len, 1);
			munmap(p, len);
			p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
			if (p != MAP_FAILED) {
				touch(p, len, 0);
				munmap(p, len);
			}
		}
	}
	close(fd);
}

static void ex_thp(void)
{
	void *base;
	size_t base_len, len = 4 * MB;
	char *p = map_thp_aligned(len, &base, &base_len);

	if (!p)
		return;
	madvise(p, len, MADV_HUGEPAGE);
	touch(p, len, 1);
	/* A 4K hole in a huge page splits its PMD. */
	mprotect(p + page_size, page_size, PROT_READ);
	madvise(p + THP_SIZE, page_size, MADV_DONTNEED);
	munmap(base, base_len);

	/* Read faults on a fresh huge region map the huge zero page. */
	p = map_thp_aligned(len, &base, &base_len);
	if (!p)
		return;
	madvise(p, len, MADV_HUGEPAGE);
	touch(p, len, 0);
	munmap(base, base_len);
}

static void ex_madvise(void)
{
	size_t len = 2 * MB;
	char *p = map_anon(len);

	if (!p)
		return;
	touch(p, len, 1);
	madvise(p, len / 2, MADV_FREE);
	madvise(p + len / 2, len / 4, MADV_COLD);
	madvise(p + len / 2, len / 2, MADV_PAGEOUT);
	touch(p, len, 0);
	munmap(p, len);
}

static void ex_mremap(void)
{
	size_t len = MB;
	char *p = map_anon(len), *q;

	if (!p)
		return;
	touch(p, len, 1);
	q = mremap(p, len, 4 * len, MREMAP_MAYMOVE);
	if (q == MAP_FAILED) {
		munmap(p, len);
		return;
	}
	touch(q, 4 * len, 1);
	munmap(q, 4 * len);
}

static void ex_mlock(void)
{
	size_t len = MB;
	char *p = map_anon(len);

	if (!p)
		return;
	if (mlock(p, len) == 0) {
		touch(p, len, 1);
		munlock(p, len);
	}
	munmap(p, len);
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n < 0 ? -1 : 0;
}

static void worker(int id, int ncpus, double deadline, int verbose)
{
	unsigned int seed = (unsigned int)(id * 2654435761u) ^ (unsigned int)getpid();
	unsigned long rounds = 0;
	char score[] = "1000";

	write_file("/proc/self/oom_score_adj", score);
	while (now() < deadline) {
		hop_cpu(&seed, ncpus);
		switch (rounds % 7) {
		case 0:
			ex_anon();
			break;
		case 1:
			ex_cow();
			break;
		case 2:
			ex_shmem(id);
			break;
		case 3:
			ex_thp();
			break;
		case 4:
			ex_madvise();
			break;
		case 5:
			ex_mremap();
			break;
		case 6:
			ex_mlock();
			break;
		}
		rounds++;
	}
	if (verbose)
		note("worker %d: %lu rounds", id, rounds);
	_exit(0);
}

/*
 * Pushes past RAM in waves: allocate and touch up to hog_mb, hold a moment,
 * release. Under swap this drives kswapd, direct reclaim, swap out and in;
 * in between, compaction and cache drops make their events too.
 */
static void hog(unsigned long hog_mb, double deadline, int verbose)
{
	char score[] = "1000";
	unsigned long waves = 0;

	write_file("/proc/self/oom_score_adj", score);
	while (now() < deadline) {
		size_t chunk = 8 * MB, n = hog_mb * MB / chunk;
		char **chunks = calloc(n, sizeof(*chunks));

		if (!chunks)
			break;
		for (size_t i = 0; i < n && now() < deadline; i++) {
			chunks[i] = map_anon(chunk);
			if (chunks[i])
				touch(chunks[i], chunk, 1);
		}
		for (size_t i = 0; i < n; i += 3)
			if (chunks[i])
				touch(chunks[i], chunk, 0); /* swap some back in */
		for (size_t i = 0; i < n; i++)
			if (chunks[i])
				munmap(chunks[i], chunk);
		free(chunks);
		write_file("/proc/sys/vm/compact_memory", "1");
		write_file("/proc/sys/vm/drop_caches", "3");
		waves++;
	}
	if (verbose)
		note("hog: %lu waves of %lu MB", waves, hog_mb);
	_exit(0);
}

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: vmstress [--duration SECONDS] [--workers N] [--hog-mb MB] [--verbose]\n"
		"Runs N workers (default: one per online CPU) that mix anonymous, shmem and THP\n"
		"faults, COW, madvise, mremap and mlock while hopping CPUs, plus one hog that\n"
		"allocates MB (default: 0, none) in waves to force reclaim, swap and compaction.\n");
}

static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "workers", required_argument, NULL, 'w' },
		{ "hog-mb", required_argument, NULL, 'm' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "d:w:m:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			o->duration = strtod(optarg, &end);
			if (*end || o->duration <= 0) {
				fprintf(stderr, "vmstress: --duration needs a positive number, not '%s'\n", optarg);
				return -1;
			}
			break;
		case 'w':
			o->workers = (int)strtol(optarg, &end, 10);
			if (*end || o->workers < 0 || o->workers > 256) {
				fprintf(stderr, "vmstress: --workers needs 0 (one per CPU) to 256, not '%s'\n", optarg);
				return -1;
			}
			break;
		case 'm':
			o->hog_mb = strtoul(optarg, &end, 10);
			if (*end) {
				fprintf(stderr, "vmstress: --hog-mb needs a number of MB, not '%s'\n", optarg);
				return -1;
			}
			break;
		case 'v':
			o->verbose = 1;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "vmstress: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct options o = { .duration = 10, .workers = 0, .hog_mb = 0 };
	int ncpus, failed = 0, status;
	double deadline;
	pid_t pid;

	page_size = sysconf(_SC_PAGESIZE);
	if (parse_options(argc, argv, &o))
		return 2;
	ncpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	if (o.workers == 0)
		o.workers = (int)sysconf(_SC_NPROCESSORS_ONLN);
	deadline = now() + o.duration;
	note("%d workers over %d CPUs for %.1fs, hog %lu MB", o.workers, ncpus, o.duration, o.hog_mb);

	for (int i = 0; i < o.workers; i++) {
		pid = fork();
		if (pid == 0)
			worker(i, ncpus, deadline, o.verbose);
		if (pid < 0) {
			note("fork failed: %s", strerror(errno));
			failed = 1;
		}
	}
	if (o.hog_mb) {
		pid = fork();
		if (pid == 0)
			hog(o.hog_mb, deadline, o.verbose);
	}
	while ((pid = wait(&status)) > 0) {
		/* The OOM killer may take a worker or the hog; that is an event, not a failure. */
		if (WIFSIGNALED(status) && WTERMSIG(status) != SIGKILL) {
			note("child %d died of signal %d", pid, WTERMSIG(status));
			failed = 1;
		}
	}
	note("done");
	return failed;
}
