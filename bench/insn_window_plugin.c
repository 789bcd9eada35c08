// SPDX-License-Identifier: GPL-2.0
/*
 * insn_window_plugin: a QEMU TCG plugin that counts, per vCPU, the guest instructions executed
 * between two marker instructions, and writes one line per window when QEMU exits. make bench
 * brackets each page fault of bench/pf_bench --marked with the markers, so a window is one
 * fault's instructions: exception entry, the kernel's handler, exit, and the few user
 * instructions around the touch. Instruction counts do not depend on the host's load, so two
 * kernels compare to the instruction, where wall-clock timings under TCG vary by percents.
 *
 * The markers are x86 long NOPs that no compiler emits: nopl 0x50565301(%rax) opens a window,
 * nopl 0x50565302(%rax) closes it (7 bytes: 0f 1f 80 and the displacement); a window counts
 * the instructions strictly between them. Counting is per translation block, cheap enough to
 * leave on for a whole boot: a block's instruction count is added when it starts, and a marker
 * subtracts the instructions of its block that follow it. TCG delivers interrupts only between
 * blocks, so a block runs whole unless one of its instructions faults: the rest of the
 * faulting block (the touching store and the user instructions after it up to the block's
 * end, a handful) is counted, then counted again when the store is retried. That is the same
 * on every kernel, so differences between kernels are exact. QEMU runs a rep-prefixed string
 * instruction one iteration per block; an iteration that continues the previous one is not an
 * instruction of its own (the hardware retires a rep string instruction once), so it is
 * counted apart, as rep_iterations. tests/ (scripts/tests/65-insn-plugin) checks the counts
 * against windows of known length.
 *
 * Arguments: out=FILE (required; opened at load, so that a bad path stops QEMU at once).
 * Output: a header line "# insn_window: ..." with the totals, then "VCPU INSNS REP_ITERATIONS"
 * per window in the order each vCPU closed them. QEMU 7.2's plugin API, version 1.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define MARKER_LEN 7
#define MARKER_OPEN 0x50565301u
#define MARKER_CLOSE 0x50565302u
#define NO_REP UINT64_MAX

struct window {
	uint64_t insns;
	uint64_t rep_iterations;
};

/* One vCPU's state: written by that vCPU's thread only, read at exit. */
struct vcpu {
	uint64_t insns;			/* instructions so far, rep continuations excluded */
	uint64_t rep_iterations;	/* rep string iterations that continued the previous one */
	uint64_t last_rep;		/* vaddr of the rep instruction the last block ran, or NO_REP */
	bool open;
	struct window start;
	struct window *windows;
	size_t n_windows, cap_windows;
	uint64_t unpaired;		/* a close without an open, or an open while one was open */
	bool out_of_memory;
};

static struct vcpu *vcpus;
static unsigned int n_vcpus;
static FILE *out;
static char *out_path;
static bool x86;

/* A block's callback data: its instruction count, shifted, and whether it is a lone rep string
 * instruction (the block QEMU starts at the instruction for each later iteration). */
#define TB_REP_ONLY 1u

static void tb_exec(unsigned int cpu, void *udata)
{
	struct vcpu *v = &vcpus[cpu];
	uintptr_t d = (uintptr_t)udata;

	v->insns += d >> 1;
	if (!(d & TB_REP_ONLY))
		v->last_rep = NO_REP;
}

/* On every rep string instruction: a continuation when the block just run was the same
 * instruction's, which the block callback already counted as one more instruction. */
static void rep_exec(unsigned int cpu, void *udata)
{
	struct vcpu *v = &vcpus[cpu];
	uint64_t vaddr = (uint64_t)(uintptr_t)udata;

	if (v->last_rep == vaddr) {
		v->insns--;
		v->rep_iterations++;
	}
	v->last_rep = vaddr;
}

/* A marker's callback data: how many instructions of its block, itself included, follow it. */
static void marker_open(unsigned int cpu, void *udata)
{
	struct vcpu *v = &vcpus[cpu];

	if (v->open)
		v->unpaired++;
	v->open = true;
	v->start.insns = v->insns - (uintptr_t)udata + 1;
	v->start.rep_iterations = v->rep_iterations;
}

static void marker_close(unsigned int cpu, void *udata)
{
	struct vcpu *v = &vcpus[cpu];
	uint64_t end = v->insns - (uintptr_t)udata;

	if (!v->open) {
		v->unpaired++;
		return;
	}
	v->open = false;
	if (v->n_windows == v->cap_windows) {
		size_t cap = v->cap_windows ? v->cap_windows * 2 : 4096;
		struct window *w;

		if (cap > SIZE_MAX / sizeof(*w) || !(w = realloc(v->windows, cap * sizeof(*w)))) {
			v->out_of_memory = true;
			return;
		}
		v->windows = w;
		v->cap_windows = cap;
	}
	v->windows[v->n_windows++] = (struct window){
		.insns = end - v->start.insns,
		.rep_iterations = v->rep_iterations - v->start.rep_iterations,
	};
}

static bool is_marker(const uint8_t *b, size_t len, uint32_t which)
{
	uint32_t disp;

	if (len != MARKER_LEN || b[0] != 0x0f || b[1] != 0x1f || b[2] != 0x80)
		return false;
	disp = (uint32_t)b[3] | (uint32_t)b[4] << 8 | (uint32_t)b[5] << 16 | (uint32_t)b[6] << 24;
	return disp == which;
}

/* A rep- or repne-prefixed string instruction (ins, outs, movs, cmps, stos, lods, scas). */
static bool is_rep_string(const uint8_t *b, size_t len)
{
	bool rep = false;
	size_t i;

	for (i = 0; i < len; i++) {
		uint8_t c = b[i];

		if (c == 0xf3 || c == 0xf2)
			rep = true;
		else if (c == 0x66 || c == 0x67 || c == 0x2e || c == 0x3e || c == 0x26 ||
			 c == 0x36 || c == 0x64 || c == 0x65 || c == 0xf0 || (c >= 0x40 && c <= 0x4f))
			continue;
		else
			return rep && ((c >= 0x6c && c <= 0x6f) || (c >= 0xa4 && c <= 0xa7) ||
				       (c >= 0xaa && c <= 0xaf));
	}
	return false;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), i;
	bool rep_only = false;

	(void)id;
	for (i = 0; x86 && i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		const uint8_t *b = qemu_plugin_insn_data(insn);
		size_t len = qemu_plugin_insn_size(insn);

		if (is_rep_string(b, len)) {
			rep_only = n == 1;
			qemu_plugin_register_vcpu_insn_exec_cb(insn, rep_exec, QEMU_PLUGIN_CB_NO_REGS,
				(void *)(uintptr_t)qemu_plugin_insn_vaddr(insn));
		} else if (is_marker(b, len, MARKER_OPEN)) {
			qemu_plugin_register_vcpu_insn_exec_cb(insn, marker_open, QEMU_PLUGIN_CB_NO_REGS,
				(void *)(uintptr_t)(n - i));
		} else if (is_marker(b, len, MARKER_CLOSE)) {
			qemu_plugin_register_vcpu_insn_exec_cb(insn, marker_close, QEMU_PLUGIN_CB_NO_REGS,
				(void *)(uintptr_t)(n - i));
		}
	}
	qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec, QEMU_PLUGIN_CB_NO_REGS,
		(void *)(uintptr_t)((uintptr_t)n << 1 | (rep_only ? TB_REP_ONLY : 0)));
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
	uint64_t windows = 0, unpaired = 0, oom = 0;
	unsigned int c;
	size_t i;

	(void)id;
	(void)p;
	for (c = 0; c < n_vcpus; c++) {
		windows += vcpus[c].n_windows;
		unpaired += vcpus[c].unpaired + vcpus[c].open;
		oom += vcpus[c].out_of_memory;
	}
	fprintf(out, "# insn_window: windows=%" PRIu64 " unpaired=%" PRIu64 " out_of_memory=%" PRIu64
		" vcpus=%u\n", windows, unpaired, oom, n_vcpus);
	for (c = 0; c < n_vcpus; c++)
		for (i = 0; i < vcpus[c].n_windows; i++)
			fprintf(out, "%u %" PRIu64 " %" PRIu64 "\n", c, vcpus[c].windows[i].insns,
				vcpus[c].windows[i].rep_iterations);
	/* The host requires this last line: a file without it was cut short. */
	fprintf(out, "# end\n");
	if (fclose(out) != 0)
		fprintf(stderr, "insn_window_plugin: writing %s: %s\n", out_path, strerror(errno));
}

/* qemu_plugin_install - parse out=FILE, open it, and hook every translation */
QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	unsigned int c;
	int i;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4) && argv[i][4]) {
			out_path = argv[i] + 4;
		} else {
			fprintf(stderr, "insn_window_plugin: unknown argument '%s' (expected out=FILE)\n", argv[i]);
			return -1;
		}
	}
	if (!out_path) {
		fprintf(stderr, "insn_window_plugin: out=FILE is required\n");
		return -1;
	}
	if (!info->system_emulation) {
		fprintf(stderr, "insn_window_plugin: system emulation only\n");
		return -1;
	}
	x86 = !strcmp(info->target_name, "x86_64") || !strcmp(info->target_name, "i386");
	if (!x86) {
		fprintf(stderr, "insn_window_plugin: target %s: the markers are x86 instructions\n",
			info->target_name);
		return -1;
	}
	n_vcpus = (unsigned int)info->system.max_vcpus;
	vcpus = calloc(n_vcpus ? n_vcpus : 1, sizeof(*vcpus));
	if (!vcpus) {
		fprintf(stderr, "insn_window_plugin: out of memory\n");
		return -1;
	}
	for (c = 0; c < n_vcpus; c++)
		vcpus[c].last_rep = NO_REP;
	out = fopen(out_path, "w");
	if (!out) {
		fprintf(stderr, "insn_window_plugin: %s: %s\n", out_path, strerror(errno));
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
