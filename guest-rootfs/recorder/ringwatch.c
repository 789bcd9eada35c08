// SPDX-License-Identifier: GPL-2.0
/*
 * ringwatch: how close did each CPU's trace ring buffer come to overrunning?
 *
 * The recorder (trace-cmd) drains per_cpu/cpuN/trace_pipe_raw; the ring buffer holds what it
 * has not read yet, which tracefs reports as "bytes:" in per_cpu/cpuN/stats. Sampling that
 * value at a fixed interval gives the reader's largest lag as a fraction of the buffer: the
 * margin of a lossless recording. ringwatch runs at real-time priority (if allowed) so that a
 * starved reader cannot also starve the sampler, and writes one line per CPU when it gets
 * SIGTERM or SIGINT:
 *
 *   cpu=0 buffer_bytes=8388608 peak_bytes=1234 peak_fill=0.000147 peak_at_s=3.2 samples=1500
 *   entries=0 overrun=0 commit_overrun=0 dropped=0 read=123456
 *
 * The counters after "samples" are the stats file's values at the moment ringwatch stops.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_CPUS 64

struct cpu_watch {
	int stats_fd;			/* per_cpu/cpuN/stats, re-read with pread() */
	unsigned long long buffer_bytes;
	unsigned long long peak_bytes;
	double peak_at_s;
	unsigned long long samples;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The value after "NAME: " in a stats text, or -1 when absent. */
static long long stat_field(const char *text, const char *name)
{
	size_t len = strlen(name);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, name, len) && p[len] == ':')
			return strtoll(p + len + 1, NULL, 10);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

static int read_stats(int fd, char *buf, size_t size)
{
	ssize_t n = pread(fd, buf, size - 1, 0);

	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

static unsigned long long read_ull(const char *path)
{
	char buf[64];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return strtoull(buf, NULL, 10);
}

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: ringwatch [--interval-ms N] [--tracing DIR] [--series FILE] OUT\n"
		"Samples per_cpu/cpuN/stats of every CPU until SIGTERM/SIGINT, then writes each\n"
		"CPU's peak unread bytes (the reader's largest lag) and final counters to OUT.\n"
		"  --interval-ms N  sampling interval (default 20)\n"
		"  --tracing DIR    tracefs mount (default /sys/kernel/tracing)\n"
		"  --series FILE    also write every sample: seconds, then unread bytes per CPU\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "interval-ms", required_argument, NULL, 'i' },
		{ "tracing", required_argument, NULL, 't' },
		{ "series", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct cpu_watch cpus[MAX_CPUS];
	const char *tracing = "/sys/kernel/tracing";
	long interval_ms = 20;
	char path[512], text[1024];
	struct sched_param sp = { .sched_priority = 2 };
	struct timespec tick;
	double start;
	FILE *out, *series = NULL;
	int c, n = 0;

	while ((c = getopt_long(argc, argv, "i:t:s:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			interval_ms = strtol(optarg, NULL, 10);
			if (interval_ms < 1 || interval_ms > 10000) {
				fprintf(stderr, "ringwatch: --interval-ms must be 1..10000\n");
				return 2;
			}
			break;
		case 't':
			tracing = optarg;
			break;
		case 's':
			series = fopen(optarg, "w");
			if (!series) {
				fprintf(stderr, "ringwatch: cannot write %s: %s\n", optarg, strerror(errno));
				return 1;
			}
			/* Held in memory until the end: no 9p write while the recording runs. */
			setvbuf(series, NULL, _IOFBF, 4 << 20);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	/* Possible CPUs, not only online ones: a CPU taken offline keeps its buffer. */
	for (n = 0; n < MAX_CPUS; n++) {
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/stats", tracing, n);
		cpus[n].stats_fd = open(path, O_RDONLY);
		if (cpus[n].stats_fd < 0)
			break;
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/buffer_size_kb", tracing, n);
		cpus[n].buffer_bytes = read_ull(path) * 1024;
	}
	if (n == 0) {
		fprintf(stderr, "ringwatch: no %s/per_cpu/cpu0/stats: %s\n", tracing, strerror(errno));
		return 1;
	}
	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		fprintf(stderr, "ringwatch: no real-time priority (%s); sampling may lag\n",
			strerror(errno));
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);

	tick.tv_sec = interval_ms / 1000;
	tick.tv_nsec = (interval_ms % 1000) * 1000000L;
	start = now_s();
	while (!stop) {
		if (series)
			fprintf(series, "%.3f", now_s() - start);
		for (c = 0; c < n; c++) {
			long long bytes;

			if (read_stats(cpus[c].stats_fd, text, sizeof(text)))
				continue;
			bytes = stat_field(text, "bytes");
			if (series)
				fprintf(series, " %lld", bytes);
			cpus[c].samples++;
			if (bytes > 0 && (unsigned long long)bytes > cpus[c].peak_bytes) {
				cpus[c].peak_bytes = bytes;
				cpus[c].peak_at_s = now_s() - start;
			}
		}
		if (series)
			fputc('\n', series);
		nanosleep(&tick, NULL);
	}
	if (series && fclose(series))
		fprintf(stderr, "ringwatch: writing the series failed: %s\n", strerror(errno));

	out = fopen(argv[optind], "w");
	if (!out) {
		fprintf(stderr, "ringwatch: cannot write %s: %s\n", argv[optind], strerror(errno));
		return 1;
	}
	for (c = 0; c < n; c++) {
		double fill = cpus[c].buffer_bytes ?
			(double)cpus[c].peak_bytes / cpus[c].buffer_bytes : 0;

		if (read_stats(cpus[c].stats_fd, text, sizeof(text)))
			text[0] = '\0';
		fprintf(out, "cpu=%d buffer_bytes=%llu peak_bytes=%llu peak_fill=%.6f peak_at_s=%.1f "
			"samples=%llu entries=%lld overrun=%lld commit_overrun=%lld dropped=%lld "
			"read=%lld\n",
			c, cpus[c].buffer_bytes, cpus[c].peak_bytes, fill, cpus[c].peak_at_s,
			cpus[c].samples, stat_field(text, "entries"), stat_field(text, "overrun"),
			stat_field(text, "commit overrun"), stat_field(text, "dropped events"),
			stat_field(text, "read events"));
	}
	if (fclose(out)) {
		fprintf(stderr, "ringwatch: writing %s failed: %s\n", argv[optind], strerror(errno));
		return 1;
	}
	return 0;
}
