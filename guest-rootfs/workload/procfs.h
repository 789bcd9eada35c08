/* SPDX-License-Identifier: GPL-2.0 */
/* Reading /proc/vmstat and /proc/meminfo: shared by the guest workload tools. */
#ifndef WORKLOAD_PROCFS_H
#define WORKLOAD_PROCFS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The value of "NAME<sep>value" in a /proc file, or -1 when it cannot be read. */
static inline long long proc_value(const char *path, const char *name, char sep)
{
	char line[256];
	long long v = -1;
	size_t n = strlen(name);
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, n) && line[n] == sep) {
			v = atoll(line + n + 1);
			break;
		}
	fclose(f);
	return v;
}

/* A /proc/vmstat counter, or -1. */
static inline long long vmstat(const char *name)
{
	return proc_value("/proc/vmstat", name, ' ');
}

/* A /proc/meminfo value in kB, or -1. */
static inline long long meminfo_kb(const char *name)
{
	return proc_value("/proc/meminfo", name, ':');
}

#endif
