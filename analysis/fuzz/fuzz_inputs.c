// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target over what vmstat-audit reads itself: the first byte picks
 * the /proc/vmstat parser, the snapshot table parser or the trace file's
 * layout check; the rest is the input. Iterating events is libtracecmd's
 * code, and libtraceevent 1.7 crashes on corrupt sub-buffers there (this
 * target found it when it drove that path), which is why vmstat-audit
 * reads traces in a child process; run-tests covers that path with
 * damaged files instead.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "text_inputs.h"
#include "trace_input.h"

static void fuzz_trace_layout(const uint8_t *data, size_t size)
{
	char path[] = "/tmp/vmstat-audit-fuzz-XXXXXX", err[256];
	int fd = mkstemp(path);

	if (fd < 0)
		return;
	if (write(fd, data, size) == (ssize_t)size)
		check_layout(path, err, sizeof(err));
	close(fd);
	unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256];

	if (size < 1)
		return 0;
	switch (data[0] % 3) {
	case 0: {
		struct vmstat_file v;

		if (parse_vmstat((const char *)data + 1, size - 1, &v, err, sizeof(err)) == 0)
			free_vmstat(&v);
		break;
	}
	case 1: {
		struct snapshot_table st;

		if (parse_snapshot_table((const char *)data + 1, size - 1, &st, err, sizeof(err)) == 0)
			free_snapshot_table(&st);
		break;
	}
	default:
		fuzz_trace_layout(data + 1, size - 1);
		break;
	}
	return 0;
}
