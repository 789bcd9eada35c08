// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "audit.h"

static const char *name_of(const struct audit *a, int i)
{
	return a->t.item_names[i] ? a->t.item_names[i] : "(unnamed)";
}

static u64 vmstat_delta(const struct audit *a, int i, bool *ok)
{
	long i0, i1;

	*ok = false;
	if (!a->have_vm[0] || !a->have_vm[1] || !a->t.item_names[i])
		return 0;
	i0 = vmstat_find(&a->vm[0], a->t.item_names[i]);
	i1 = vmstat_find(&a->vm[1], a->t.item_names[i]);
	if (i0 < 0 || i1 < 0)
		return 0;
	*ok = true;
	return a->vm[1].values[i1] - a->vm[0].values[i0];
}

static bool item_active(const struct audit *a, int i)
{
	bool ok;

	for (int c = 0; c < a->r.ncpus; c++)
		if (counter_delta(a, c, i) || replay_delta(a, c, i) || a->r.cpu[c].under[i] ||
		    a->r.cpu[c].over[i])
			return true;
	return vmstat_delta(a, i, &ok) != 0;
}

static const char *item_status(const struct audit *a, int i)
{
	for (int c = 0; c < a->r.ncpus; c++)
		if (a->r.cpu[c].under[i] || a->r.cpu[c].over[i])
			return "DIVERGED";
	for (int k = 0; k < 2; k++) {
		if (!a->vm_status[k])
			continue;
		if (a->vm_status[k][i] == VM_BELOW || a->vm_status[k][i] == VM_ABOVE)
			return "VMSTAT-OUT";
		if (a->vm_status[k][i] == VM_MISSING)
			return "VMSTAT-MISSING";
	}
	return "ok";
}

/*
 * Item by CPU: each cell is how far that CPU's counter moved between the
 * snapshots; where the events say otherwise it shows "events/counter".
 */
/* comm[pid] of a task, from the file's saved command lines. */
static const char *task_name(const struct audit *a, int pid, char *buf, size_t len)
{
	const char *comm = a->t.tep ? tep_data_comm_from_pid(a->t.tep, pid) : NULL;

	snprintf(buf, len, "%s[%d]", pid == 0 ? "<idle>" : comm ? comm : "<...>", pid);
	return buf;
}

/* Items by their traced total between the snapshots, busiest first (n of them at most). */
static int busiest_items(const struct audit *a, int *out, int n)
{
	const struct replay *r = &a->r;
	int k = 0;

	while (k < n) {
		int best = -1;
		u64 best_total = 0;

		for (int i = 0; i < a->t.nitems; i++) {
			u64 tot = 0;
			bool taken = false;

			for (int j = 0; j < k; j++)
				taken |= out[j] == i;
			if (taken)
				continue;
			for (int c = 0; c < r->ncpus; c++)
				tot = sat_add(tot, mod_negative(r->cpu[c].traced[i]) ? 0 : r->cpu[c].traced[i]);
			if (tot > best_total) {
				best = i;
				best_total = tot;
			}
		}
		if (best < 0)
			break;
		out[k++] = best;
	}
	return k;
}

/* "comm[pid] count (share%), ..." of the top tasks of one item, into buf. */
static void top_tasks(const struct audit *a, int item, int top, char *buf, size_t len)
{
	size_t n = 0, used = 0;
	struct task_count *tc = task_sorted(&a->r.tasks, item, &n);
	u64 total = 0;

	buf[0] = '\0';
	for (size_t k = 0; k < n; k++)
		total = sat_add(total, mod_negative(tc[k].sum) ? 0 : tc[k].sum);
	for (size_t k = 0; k < n && (int)k < top && used + 1 < len; k++) {
		char name[64];
		int w = snprintf(buf + used, len - used, "%s%s %llu (%.1f%%)", k ? ", " : "",
				 task_name(a, tc[k].pid, name, sizeof(name)), tc[k].sum,
				 total ? 100.0 * (double)tc[k].sum / (double)total : 0.0);

		if (w < 0 || (size_t)w >= len - used)
			break;
		used += (size_t)w;
	}
	if (n > (size_t)top && used + 1 < len)
		snprintf(buf + used, len - used, ", and %zu more", n - (size_t)top);
	free(tc);
}

void report_text(const struct audit *a, FILE *out)
{
	const struct replay *r = &a->r;
	int shown = 0;

	fprintf(out, "vmstat-audit: %s, clock %s, %d CPUs, %d items\n\n", a->t.path, a->t.clock,
		r->ncpus, a->t.nitems);
	fprintf(out, "%-30s", "item (delta between snapshots)");
	for (int c = 0; c < r->ncpus; c++) {
		char h[16];

		snprintf(h, sizeof(h), "cpu%d", c);
		fprintf(out, " %12s", h);
	}
	fprintf(out, " %12s %17s  %s\n", "all cpus", "vmstat-read delta", "status");
	for (int i = 0; i < a->t.nitems; i++) {
		u64 total = 0, vd;
		char b1[24], b2[24];
		bool ok;

		if (!item_active(a, i))
			continue;
		shown++;
		fprintf(out, "%-30.30s", name_of(a, i));
		for (int c = 0; c < r->ncpus; c++) {
			u64 cd = counter_delta(a, c, i), rd = replay_delta(a, c, i);
			char cell[56];

			if (!cpu_has_window(a, c))
				snprintf(cell, sizeof(cell), "-");
			else if (cd == rd)
				snprintf(cell, sizeof(cell), "%s", fmt_move(b1, cd, false));
			else
				snprintf(cell, sizeof(cell), "%s/%s", fmt_move(b1, rd, false),
					 fmt_move(b2, cd, false));
			fprintf(out, " %12s", cell);
			total += cd;
		}
		vd = vmstat_delta(a, i, &ok);
		fprintf(out, " %12s", fmt_move(b1, total, false));
		if (ok)
			fprintf(out, " %17s", fmt_move(b2, vd, false));
		else
			fprintf(out, " %17s", "-");
		fprintf(out, "  %s\n", item_status(a, i));
	}
	if (!shown)
		fprintf(out, "(no item moved between the snapshots)\n");
	fprintf(out, "\n\"vmstat-read delta\" is vmstat-2.txt minus vmstat-1.txt: /proc/vmstat read at other\n"
		"moments than the snapshots, so it differs from \"all cpus\"; the status checks each copy\n"
		"against the replayed totals at the markers around its own read (see analysis/README.md).\n"
		"/proc/vmstat shows pgpgin/pgpgout in KiB: half the counter.\n\n");

	for (int c = 0; c < r->ncpus; c++) {
		const struct cpu_replay *s = &r->cpu[c];

		fprintf(out, "cpu%d: %llu vm_event_count events (%llu between the snapshots), "
			"%llu folds in, %llu out%s\n", c, s->events, s->events_in_window, s->folds_in,
			s->folds_out, s->lost_unknown || s->missed ? ", EVENTS LOST" : "");
	}
	fprintf(out, "item coverage: %d of %d items moved by traced events\n", a->covered, a->t.nitems);
	{
		int items[128], n = busiest_items(a, items, a->by_task ? 128 : 5);
		char line[1024];

		if (n)
			fprintf(out, "\nwho counted (events' tasks between the snapshots; %s):\n",
				a->by_task ? "every item, top 10 tasks" : "the 5 busiest items, top 3 tasks; "
				"--by task for every item");
		for (int k = 0; k < n; k++) {
			top_tasks(a, items[k], a->by_task ? 10 : 3, line, sizeof(line));
			fprintf(out, "  %-28s %s\n", name_of(a, items[k]), line);
		}
		if (a->r.tasks.lost)
			fprintf(out, "  (out of memory for the task table: incomplete)\n");
		fputc('\n', out);
	}
	if (a->shortfall || a->excess)
		fprintf(out, "shortfall: %llu counted by events but missing from the counters; "
			"excess: %llu\n", a->shortfall, a->excess);
	for (size_t k = 0; k < a->inconsistent.n && k < 40; k++)
		fprintf(out, "inconsistent: %s\n", a->inconsistent.s[k]);
	if (a->inconsistent.n > 40)
		fprintf(out, "inconsistent: ... and %zu more (see --json)\n", a->inconsistent.n - 40);
	for (size_t k = 0; k < a->lost.n && k < 40; k++)
		fprintf(out, "lost: %s\n", a->lost.s[k]);
	if (a->lost.n > 40)
		fprintf(out, "lost: ... and %zu more (see --json)\n", a->lost.n - 40);
	for (size_t k = 0; k < a->inconclusive.n; k++)
		fprintf(out, "inconclusive: %s\n", a->inconclusive.s[k]);
	for (size_t k = 0; k < a->notes.n; k++)
		fprintf(out, "note: %s\n", a->notes.s[k]);
	fprintf(out, "VERDICT: %s (%d items covered, shortfall %llu)\n", verdict_name(a->verdict),
		a->covered, a->shortfall);
}

/* A signed number as JSON writes it: no '+'. */
static const char *json_number(const char *s)
{
	return s[0] == '+' ? s + 1 : s;
}

/*
 * The length of the valid UTF-8 sequence at s (1 to 4), or 0 when its first byte does not start
 * one: no overlong form, no surrogate, nothing past U+10FFFF, no U+FFFE/U+FFFF (not XML).
 */
static int utf8_len(const unsigned char *s)
{
	unsigned int cp, min;
	int n;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f, min = 0x80;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f, min = 0x800;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07, min = 0x10000;
	else
		return 0;
	for (int k = 1; k < n; k++) {
		if ((s[k] & 0xc0) != 0x80)	/* the string's NUL ends here too */
			return 0;
		cp = cp << 6 | (s[k] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || cp == 0xfffe || cp == 0xffff)
		return 0;
	return n;
}

/* A JSON string: a byte that is not valid UTF-8 is written as \u00XX (its value). */
static void json_string(FILE *out, const char *s)
{
	fputc('"', out);
	while (s && *s) {
		unsigned char ch = (unsigned char)*s;
		int n = utf8_len((const unsigned char *)s);

		if (ch == '"' || ch == '\\')
			fprintf(out, "\\%c", ch);
		else if (ch < 0x20 || ch == 0x7f || !n)
			fprintf(out, "\\u%04x", ch);
		else
			fwrite(s, 1, (size_t)n, out);
		s += n ? n : 1;
	}
	fputc('"', out);
}

static void json_strlist(FILE *out, const char *key, const struct strlist *l)
{
	fprintf(out, "  \"%s\": [", key);
	for (size_t k = 0; k < l->n; k++) {
		fputs(k ? ", " : "", out);
		json_string(out, l->s[k]);
	}
	fputs("],\n", out);
}

/* The schema is documented in analysis/README.md. */
void report_json(const struct audit *a, FILE *out)
{
	const struct replay *r = &a->r;
	bool first = true;

	fprintf(out, "{\n  \"schema\": \"vmstat-audit/1\",\n  \"verdict\": \"%s\",\n  \"exit_code\": %d,\n",
		verdict_name(a->verdict), (int)a->verdict);
	fputs("  \"trace\": ", out);
	json_string(out, a->t.path);
	fputs(",\n  \"clock\": ", out);
	json_string(out, a->t.clock);
	fprintf(out, ",\n  \"cpus\": %d,\n  \"items\": %d,\n  \"coverage\": %d,\n", r->ncpus,
		a->t.nitems, a->covered);
	fprintf(out, "  \"shortfall\": %llu,\n  \"excess\": %llu,\n", a->shortfall, a->excess);
	json_strlist(out, "inconsistent", &a->inconsistent);
	json_strlist(out, "inconclusive", &a->inconclusive);
	json_strlist(out, "lost", &a->lost);
	fprintf(out, "  \"continuity\": {\"available\": %s, \"events_checked\": %llu, \"breaks\": %llu, "
		"\"pairs_with_breaks\": %d, \"list_complete\": %s, \"listed\": [",
		r->have_counter ? "true" : "false", r->events_checked, r->nbreaks, a->pairs_with_breaks,
		r->nlisted == r->nbreaks ? "true" : "false");
	for (size_t k = 0; k < r->nlisted; k++) {
		const struct cont_break *b = &r->brk[k];
		char bm[24];

		fprintf(out, "%s\n    {\"cpu\": %d, \"item\": ", k ? "," : "", b->cpu);
		json_string(out, name_of(a, b->item));
		fprintf(out, ", \"from_ns\": %llu, \"to_ns\": %llu, \"moved\": %s, \"ring_buffer_loss\": %s}",
			b->from, b->to, fmt_move(bm, b->moved, false),
			cpu_lost_events(a, b->cpu) ? "true" : "false");
	}
	fputs(r->nlisted ? "\n  ]},\n" : "]},\n", out);
	{
		size_t n = 0;
		struct task_count *tc = task_sorted(&r->tasks, -1, &n);
		char name[64];

		fprintf(out, "  \"tasks_complete\": %s,\n  \"tasks\": [", r->tasks.lost ? "false" : "true");
		for (size_t k = 0; k < n; k++) {
			const char *comm = a->t.tep ? tep_data_comm_from_pid(a->t.tep, tc[k].pid) : NULL;
			char bm[24];

			(void)name;
			fprintf(out, "%s\n    {\"pid\": %d, \"comm\": ", k ? "," : "", tc[k].pid);
			json_string(out, tc[k].pid == 0 ? "<idle>" : comm ? comm : "<...>");
			fputs(", \"item\": ", out);
			json_string(out, name_of(a, tc[k].item));
			fprintf(out, ", \"count\": %s}", fmt_move(bm, tc[k].sum, false));
		}
		fputs(n ? "\n  ],\n" : "],\n", out);
		free(tc);
	}
	fputs("  \"per_cpu\": [", out);
	for (int c = 0; c < r->ncpus; c++) {
		const struct cpu_replay *s = &r->cpu[c];

		fprintf(out, "%s\n    {\"cpu\": %d, \"events\": %llu, \"events_between_snapshots\": %llu, "
			"\"folds_in\": %llu, \"folds_out\": %llu, \"both_snapshots\": %s, "
			"\"events_lost\": %s, \"overrun\": %llu}", c ? "," : "", c, s->events,
			s->events_in_window, s->folds_in, s->folds_out,
			cpu_has_window(a, c) ? "true" : "false",
			s->lost_unknown || s->missed ? "true" : "false", a->t.stats[c].overrun);
	}
	fputs("\n  ],\n  \"per_item\": [", out);
	for (int i = 0; i < a->t.nitems; i++) {
		bool ok;
		u64 vd;
		char b1[24], b2[24], b3[24], b4[24];

		if (!a->t.item_names[i])
			continue;
		fprintf(out, "%s\n    {\"item\": ", first ? "" : ",");
		first = false;
		json_string(out, a->t.item_names[i]);
		fprintf(out, ", \"index\": %d, \"cpus\": [", i);
		for (int c = 0; c < r->ncpus; c++) {
			const struct cpu_replay *s = &r->cpu[c];

			fprintf(out, "%s{\"cpu\": %d, \"snapshot1\": %llu, \"snapshot2\": %llu, "
				"\"traced_delta\": %s, \"fold_net\": %s, \"counter_delta\": %s, "
				"\"difference\": %s}", c ? ", " : "", c, s->snap1[i], s->snap2[i],
				fmt_move(b1, s->traced[i], false), fmt_move(b2, s->fold_net[i], false),
				fmt_move(b3, counter_delta(a, c, i), false),
				json_number(fmt_difference(b4, s->under[i], s->over[i])));
		}
		vd = vmstat_delta(a, i, &ok);
		fputs("], \"proc_vmstat_delta\": ", out);
		if (ok)
			fputs(fmt_move(b1, vd, false), out);
		else
			fputs("null", out);
		fputs(", \"status\": ", out);
		json_string(out, item_status(a, i));
		fputc('}', out);
	}
	fputs("\n  ]\n}\n", out);
}

/* XML text: a byte that is not valid UTF-8 is written as &#xXX; (its value), controls dropped. */
static void xml_text(FILE *out, const char *s)
{
	while (*s) {
		unsigned char ch = (unsigned char)*s;
		int n = utf8_len((const unsigned char *)s);

		if (ch == '<')
			fputs("&lt;", out);
		else if (ch == '>')
			fputs("&gt;", out);
		else if (ch == '&')
			fputs("&amp;", out);
		else if (ch == '"')
			fputs("&quot;", out);
		else if (!n)
			fprintf(out, "&#x%02x;", ch);
		else if (ch >= 0x20)
			fwrite(s, 1, (size_t)n, out);
		s += n ? n : 1;
	}
}

static const char *const palette[] = {
	"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f",
};

/*
 * Events per second per CPU over time for the busiest items, one panel each;
 * an item whose replay diverged on some CPU is drawn in red and says where.
 */
void report_svg(const struct audit *a, FILE *out)
{
	const struct replay *r = &a->r;
	enum { PANELS = 6, W = 900, PH = 120, TOP = 70, LEFT = 70, PW = W - LEFT - 20 };
	int top[PANELS], npanels = 0, nbins = r->nbins > 0 ? r->nbins : 1;
	double secs = (double)r->bin_ns / 1e9;
	const char *vcolor = a->verdict == CONSISTENT ? "#2a7a2a" : "#b00020";

	/* The busiest items, and every diverged one first. */
	for (int pass = 0; pass < 2; pass++) {
		while (npanels < PANELS) {
			int best = -1;
			u64 best_total = 0;

			for (int i = 0; i < a->t.nitems; i++) {
				u64 tot = 0;
				bool div = false, taken = false;

				for (int k = 0; k < npanels; k++)
					taken |= top[k] == i;
				if (taken)
					continue;
				for (int c = 0; c < r->ncpus; c++) {
					tot += r->cpu[c].traced[i];
					div |= r->cpu[c].under[i] || r->cpu[c].over[i];
				}
				if (pass == 0 && !div)
					continue;
				if (best < 0 || tot > best_total) {
					best = i;
					best_total = tot;
				}
			}
			if (best < 0 || (pass == 1 && best_total == 0))
				break;
			top[npanels++] = best;
		}
	}

	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"font-family=\"sans-serif\" font-size=\"12\">\n", W, TOP + npanels * (PH + 30) + 20);
	fprintf(out, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	fprintf(out, "<text x=\"10\" y=\"22\" font-size=\"16\" fill=\"%s\">vmstat-audit: %s "
		"(%d items covered, shortfall %llu)</text>\n", vcolor, verdict_name(a->verdict),
		a->covered, a->shortfall);
	fprintf(out, "<text x=\"10\" y=\"42\">counts per second per CPU (vm_event_count deltas; the first "
		"%d CPUs), busiest items; bins of %.3f s</text>\n", SVG_CPUS, secs);
	for (int c = 0; c < r->ncpus && c < 8; c++)
		fprintf(out, "<text x=\"%d\" y=\"60\" fill=\"%s\">cpu%d</text>\n", LEFT + c * 60,
			palette[c], c);

	for (int k = 0; k < npanels; k++) {
		int i = top[k], y0 = TOP + k * (PH + 30) + 20;
		char tasks[512];
		double max = 1;
		bool div = false;
		char where[128] = "";

		for (int c = 0; c < r->ncpus; c++) {
			for (int b = 0; b < nbins && r->cpu[c].bins; b++) {
				double v = r->cpu[c].bins[(size_t)i * MAX_BINS + b] / secs;

				if (v > max)
					max = v;
			}
			if ((r->cpu[c].under[i] || r->cpu[c].over[i]) && !div) {
				char b[24];

				div = true;
				snprintf(where, sizeof(where), " DIVERGED on cpu%d (difference %s)", c,
					 fmt_difference(b, r->cpu[c].under[i], r->cpu[c].over[i]));
			}
		}
		fprintf(out, "<text x=\"%d\" y=\"%d\" fill=\"%s\">%s%s (peak %.0f/s)</text>\n", LEFT, y0 - 4,
			div ? "#b00020" : "black", name_of(a, i), where, max);
		fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
			"stroke=\"%s\" stroke-width=\"%d\"/>\n", LEFT, y0, PW, PH, div ? "#b00020" : "#999",
			div ? 2 : 1);
		for (int c = 0; c < r->ncpus; c++) {
			if (!r->cpu[c].bins)
				continue;	/* no event between its snapshots */
			fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"",
				palette[c % 8]);
			for (int b = 0; b < nbins; b++) {
				double v = r->cpu[c].bins[(size_t)i * MAX_BINS + b] / secs;

				fprintf(out, "%.1f,%.1f ", LEFT + (b + 0.5) * PW / nbins, y0 + PH - v / max * PH);
			}
			fputs("\"/>\n", out);
		}
		fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%.0f</text>\n", LEFT - 4, y0 + 10, max);
		fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">0</text>\n", LEFT - 4, y0 + PH);
		fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%.1f s</text>\n", LEFT + PW,
			y0 + PH + 14, nbins * secs);
		top_tasks(a, i, 2, tasks, sizeof(tasks));
		if (tasks[0]) {
			fprintf(out, "<text x=\"%d\" y=\"%d\" fill=\"#555\">top tasks: ", LEFT, y0 + PH + 14);
			xml_text(out, tasks);
			fputs("</text>\n", out);
		}
	}
	if (!npanels)
		fprintf(out, "<text x=\"10\" y=\"%d\">no item moved between the snapshots</text>\n", TOP + 20);
	fputs("</svg>\n", out);
}
