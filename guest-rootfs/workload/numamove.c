// SPDX-License-Identifier: GPL-2.0
/*
 * numamove: drive THP migration between two NUMA nodes, to success and to
 * failure, and node reclaim that fails.
 *
 * 1. A region of transparent huge pages is faulted in on node FROM and
 *    moved to node TO with mbind(MPOL_MF_MOVE): thp_migration_success.
 * 2. Node TO is filled with mlocked 4 KiB pages until its free pages fall
 *    below the zone's low watermark (read from /proc/zoneinfo), about two
 *    thirds of the way from min to low: the filler's own allocations never
 *    need direct reclaim or the OOM killer. Each allocation made there below
 *    low runs node_reclaim() when
 *    vm.zone_reclaim_mode is set. node_reclaim() only scans a node that holds
 *    unmapped page cache or reclaimable slab, so empty files are first made
 *    in a directory of the (RAM-backed) root filesystem from node TO's CPU:
 *    their dentries are reclaimable slab on that node, pinned by the file
 *    system, and nothing else there can be reclaimed without unmapping (the
 *    guest has no swap): zone_reclaim_failed. Pages are then allocated and
 *    freed there in a loop, each allocation below low another node_reclaim().
 * 3. A second THP region is moved from FROM to the full node TO. The first
 *    huge page may still be allocated there at the min watermark; the next
 *    cannot be (-ENOMEM): migrate_pages() splits it and counts it failed
 *    (thp_migration_split, thp_migration_fail), its 4 KiB pages then fail
 *    in direct reclaim (a "page allocation failure" report on the console,
 *    __GFP_RETRY_MAYFAIL: no OOM kill) and migrate_pages() stops there. So
 *    each run makes one fail and one split; the rest stays on FROM.
 *
 * Raw system calls: the guest has no libnuma. The process runs on a CPU of
 * node TO, since node_reclaim() only scans a node with CPUs from one of them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <fcntl.h>
#include <unistd.h>

#define MB (1024UL * 1024UL)
#define THP_SIZE (2 * MB)
#define MPOL_BIND 2
#define MPOL_MF_STRICT (1 << 0)
#define MPOL_MF_MOVE (1 << 1)

static long page_size;

static void die(const char *what)
{
	fprintf(stderr, "numamove: %s: %s\n", what, strerror(errno));
	exit(1);
}

static long mbind_node(void *addr, unsigned long len, int node, unsigned int flags)
{
	unsigned long mask = 1UL << node;

	return syscall(SYS_mbind, addr, len, MPOL_BIND, &mask, sizeof(mask) * 8 + 1, flags);
}

/* A 2 MiB-aligned region of LEN bytes of THP memory faulted in on NODE. */
static char *thp_region(unsigned long len, int node)
{
	char *raw = mmap(NULL, len + THP_SIZE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *p;

	if (raw == MAP_FAILED)
		die("mmap");
	p = (char *)(((unsigned long)raw + THP_SIZE - 1) & ~(THP_SIZE - 1));
	if (madvise(p, len, MADV_HUGEPAGE))
		die("madvise(MADV_HUGEPAGE)");
	if (mbind_node(p, len, node, 0))
		die("mbind to the source node");
	for (unsigned long off = 0; off < len; off += page_size)
		p[off] = 1;
	return p;
}

static unsigned long vmstat(const char *item)
{
	FILE *f = fopen("/proc/vmstat", "r");
	char name[64];
	unsigned long v, found = 0;

	if (!f)
		die("/proc/vmstat");
	while (fscanf(f, "%63s %lu", name, &v) == 2)
		if (!strcmp(name, item))
			found = v;
	fclose(f);
	return found;
}

struct zone_pages {
	long free, min, low, managed;
};

/* Free, min and low pages of NODE's largest zone, from /proc/zoneinfo. */
static int zone_pages(int node, long *free, long *min, long *low)
{
	FILE *f = fopen("/proc/zoneinfo", "r");
	struct zone_pages cur = { 0 }, best = { 0 };
	char line[256];
	int in_node = 0;

	if (!f)
		die("/proc/zoneinfo");
	for (;;) {
		int eof = !fgets(line, sizeof(line), f), n;
		long v;

		if (eof || sscanf(line, "Node %d, zone", &n) == 1) {
			if (in_node && cur.managed > best.managed)
				best = cur;
			if (eof)
				break;
			in_node = n == node;
			memset(&cur, 0, sizeof(cur));
		} else if (!in_node) {
			continue;
		} else if (sscanf(line, " pages free %ld", &v) == 1) {
			cur.free = v;
		} else if (sscanf(line, " min %ld", &v) == 1) {
			cur.min = v;
		} else if (sscanf(line, " low %ld", &v) == 1) {
			cur.low = v;
		} else if (sscanf(line, " managed %ld", &v) == 1) {
			cur.managed = v;
		}
	}
	fclose(f);
	*free = best.free;
	*min = best.min;
	*low = best.low;
	return best.managed > 0 ? 0 : -1;
}

#define PINNED_DENTRIES 4000

/* Empty files in DIR: their dentries are reclaimable slab that cannot be reclaimed. */
static void make_dentries(const char *dir, int remove)
{
	char path[128];

	if (!remove && mkdir(dir, 0700) && errno != EEXIST)
		die(dir);
	for (int i = 0; i < PINNED_DENTRIES; i++) {
		int fd;

		snprintf(path, sizeof(path), "%s/%d", dir, i);
		if (remove) {
			unlink(path);
			continue;
		}
		fd = open(path, O_CREAT | O_WRONLY, 0600);
		if (fd < 0)
			die(path);
		close(fd);
	}
	if (remove)
		rmdir(dir);
}

/* A field of /sys/devices/system/node/nodeN/meminfo, in kB (-1 if absent). */
static long node_meminfo(int node, const char *field)
{
	char path[64], line[256], name[64];
	long v = -1, kb;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", node);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Node %*d %63[^:]: %ld", name, &kb) == 2 && !strcmp(name, field))
			v = kb;
	fclose(f);
	return v;
}

static int first_cpu_of(int node)
{
	char path[64];
	int cpu = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist", node);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &cpu) != 1)
		cpu = -1;
	fclose(f);
	return cpu;
}

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: numamove [--from NODE] [--to NODE] [--mb N]\n"
		"Moves N MiB (default 32) of THP memory from node FROM (0) to node TO (1), fills\n"
		"TO below its low watermark with mlocked pages, and moves N MiB more there.\n"
		"Needs a guest with two NUMA nodes. For node reclaim set vm.zone_reclaim_mode=1,\n"
		"vm.min_unmapped_ratio=0 and vm.min_slab_ratio=0.\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "from", required_argument, NULL, 'f' },
		{ "to", required_argument, NULL, 't' },
		{ "mb", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int from = 0, to = 1, c, cpu;
	unsigned long len = 32 * MB, filled = 0;
	long free, min, low;
	cpu_set_t set;
	char *a, *b, dir[64];

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'f': from = atoi(optarg); break;
		case 't': to = atoi(optarg); break;
		case 'm': {
			char *end;
			unsigned long mb = strtoul(optarg, &end, 10);

			if (*end || optarg[0] == '-' || mb == 0 || mb > 4096) {
				fprintf(stderr, "numamove: --mb wants 1 to 4096, not '%s'\n", optarg);
				return 2;
			}
			len = mb * MB;
			break;
		}
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (from < 0 || to < 0 || from > 63 || to > 63 || from == to || !len) {
		usage(stderr);
		return 2;
	}
	page_size = sysconf(_SC_PAGESIZE);
	cpu = first_cpu_of(to);
	if (cpu < 0 || zone_pages(to, &free, &min, &low)) {
		fprintf(stderr, "numamove: node %d has no CPU or no memory: boot with two NUMA nodes\n", to);
		return 2;
	}
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");

	snprintf(dir, sizeof(dir), "/tmp/numamove.%d", (int)getpid());
	make_dentries(dir, 0);
	printf("numamove: %d empty files made from CPU %d: node %d reclaimable slab %ld kB, file pages %ld kB\n",
	       PINNED_DENTRIES, cpu, to, node_meminfo(to, "SReclaimable"), node_meminfo(to, "FilePages"));

	a = thp_region(len, from);
	if (mbind_node(a, len, to, MPOL_MF_MOVE | MPOL_MF_STRICT))
		printf("numamove: the first move was partial (%s)\n", strerror(errno));
	printf("numamove: moved %lu MiB to node %d: thp_migration_success %lu\n",
	       len / MB, to, vmstat("thp_migration_success"));

	b = thp_region(len, from);
	for (;;) {
		char *p;

		if (zone_pages(to, &free, &min, &low))
			break;
		if (free < low - (low - min) / 3)
			break;
		/* Big steps while far from low, single pages near it. */
		unsigned long step = free - low > 1024 ? 1 * MB : (unsigned long)page_size;

		p = mmap(NULL, step, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			die("mmap");
		if (madvise(p, step, MADV_NOHUGEPAGE) || mbind_node(p, step, to, 0))
			die("madvise/mbind of the filler");
		if (mlock(p, step))
			die("mlock of the filler");
		filled += step;
	}
	for (int i = 0; i < 2000; i++) {
		char *p = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			die("mmap");
		if (mbind_node(p, page_size, to, 0))
			die("mbind of a page");
		p[0] = 1;
		munmap(p, page_size);
	}
	printf("numamove: node %d filled with %lu KiB: free %ld pages, low %ld, min %ld; zone_reclaim_failed %lu\n",
	       to, filled / 1024, free, low, min, vmstat("zone_reclaim_failed"));
	if (mbind_node(b, len, to, MPOL_MF_MOVE | MPOL_MF_STRICT) == 0)
		printf("numamove: the second move succeeded in full\n");
	else
		printf("numamove: the second move was partial (%s)\n", strerror(errno));
	printf("numamove: thp_migration_success %lu fail %lu split %lu\n",
	       vmstat("thp_migration_success"), vmstat("thp_migration_fail"),
	       vmstat("thp_migration_split"));
	make_dentries(dir, 1);
	return 0;
}
