// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the per-event continuity check in src/replay.c, on synthetic event
 * sequences: what a trace with the counter field can say that a whole-window difference
 * cannot (where, and how much). Built with ASan/UBSan by tests/run-tests; values near 2^64
 * must wrap as the kernel's unsigned long does, without undefined behaviour.
 * Prints "pass NAME" or "fail NAME: why" per case; exits 1 if any failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"

static int failures;

#define CHECK(name, cond, ...) do {						\
	if (cond)								\
		printf("pass replay: %s\n", name);				\
	else {									\
		printf("fail replay: %s: ", name);				\
		printf(__VA_ARGS__);						\
		printf("\n");							\
		failures++;							\
	}									\
} while (0)

enum { NCPUS = 2, NITEMS = 3 };

static void start(struct replay *r, const u64 *snap1_cpu0, bool counters)
{
	u64 zero[NITEMS] = { 0 };

	if (replay_init(r, NCPUS, NITEMS)) {
		fprintf(stderr, "replay-test: out of memory\n");
		exit(2);
	}
	r->have_counter = counters;
	replay_snapshot(r, 0, 1, snap1_cpu0, NITEMS, 100);
	replay_snapshot(r, 1, 1, zero, NITEMS, 101);
}

static void finish(struct replay *r, const u64 *snap2_cpu0, const u64 *snap2_cpu1)
{
	u64 zero[NITEMS] = { 0 };

	replay_snapshot(r, 0, 2, snap2_cpu0, NITEMS, 1000);
	replay_snapshot(r, 1, 2, snap2_cpu1 ? snap2_cpu1 : zero, NITEMS, 1001);
	replay_sort_breaks(r);
}

static void count(struct replay *r, int cpu, int item, long long delta, u64 counter, u64 ts)
{
	replay_count(r, cpu, item, delta, &counter, ts, 1);
}

int main(void)
{
	struct replay r;

	/* 1. A continuous stream: no break, every event checked. */
	{
		u64 s1[NITEMS] = { 10, 0, 5 }, s2[NITEMS] = { 13, 0, 5 };

		start(&r, s1, true);
		count(&r, 0, 0, 1, 11, 200);
		count(&r, 0, 0, 2, 13, 300);
		finish(&r, s2, NULL);
		CHECK("continuous stream: no break, 2 events checked",
		      r.nbreaks == 0 && r.events_checked == 2 && !r.cpu[0].under[0] && !r.cpu[0].over[0],
		      "breaks %llu, checked %llu", r.nbreaks, r.events_checked);
		replay_free(&r);
	}
	/* 2. Counts moved without an event between two events: located, exact. */
	{
		u64 s1[NITEMS] = { 10, 0, 5 }, s2[NITEMS] = { 20, 0, 5 };

		start(&r, s1, true);
		count(&r, 0, 0, 1, 11, 200);
		count(&r, 0, 0, 1, 19, 300);	/* 7 counts moved with no event */
		count(&r, 0, 0, 1, 20, 400);
		finish(&r, s2, NULL);
		CHECK("a gap between two events: one break, window 200..300, moved +7",
		      r.nbreaks == 1 && r.nlisted == 1 && r.brk[0].cpu == 0 && r.brk[0].item == 0 &&
		      r.brk[0].from == 200 && r.brk[0].to == 300 && r.brk[0].moved == 7 &&
		      r.cpu[0].breaks[0] == 1 && r.cpu[0].over[0] == 7 && !r.cpu[0].under[0],
		      "breaks %llu, listed %zu, from %llu to %llu moved %llu, over %llu under %llu",
		      r.nbreaks, r.nlisted, r.nlisted ? r.brk[0].from : 0, r.nlisted ? r.brk[0].to : 0,
		      r.nlisted ? r.brk[0].moved : 0, r.cpu[0].over[0], r.cpu[0].under[0]);
		replay_free(&r);
	}
	/* 3. An event whose update did not happen (injected loss): moved -delta at that event. */
	{
		u64 s1[NITEMS] = { 10, 0, 5 }, s2[NITEMS] = { 11, 0, 5 };

		start(&r, s1, true);
		count(&r, 0, 0, 1, 11, 200);
		count(&r, 0, 0, 3, 11, 300);	/* counter unmoved */
		finish(&r, s2, NULL);
		CHECK("an update that did not happen: break at its event, moved -3, shortfall 3",
		      r.nbreaks == 1 && r.brk[0].from == 200 && r.brk[0].to == 300 &&
		      r.brk[0].moved == 0 - 3ULL && r.cpu[0].under[0] == 3 && !r.cpu[0].over[0],
		      "breaks %llu, moved %llu, under %llu over %llu", r.nbreaks,
		      r.nlisted ? r.brk[0].moved : 0, r.cpu[0].under[0], r.cpu[0].over[0]);
		replay_free(&r);
	}
	/* 4. Counts moved after the last event: the break ends at the tag-2 snapshot. */
	{
		u64 s1[NITEMS] = { 10, 0, 5 }, s2[NITEMS] = { 10, 0, 9 };

		start(&r, s1, true);
		count(&r, 0, 2, 1, 6, 500);
		finish(&r, s2, NULL);
		CHECK("counts after the last event: break from 500 to the snapshot at 1000, +3",
		      r.nbreaks == 1 && r.brk[0].item == 2 && r.brk[0].from == 500 &&
		      r.brk[0].to == 1000 && r.brk[0].moved == 3,
		      "breaks %llu, from %llu to %llu moved %llu", r.nbreaks,
		      r.nlisted ? r.brk[0].from : 0, r.nlisted ? r.brk[0].to : 0,
		      r.nlisted ? r.brk[0].moved : 0);
		replay_free(&r);
	}
	/* 5. Wrapping at 2^64 is continuity, not a break; a value going backwards is one. */
	{
		u64 s1[NITEMS] = { ~0ULL - 1, 0, 0 }, s2[NITEMS] = { 1, 0, 0 };

		start(&r, s1, true);
		count(&r, 0, 0, 2, 0, 200);	/* 2^64 - 2 + 2 wraps to 0 */
		count(&r, 0, 0, 1, 1, 300);
		finish(&r, s2, NULL);
		CHECK("wrapping past 2^64 is continuous", r.nbreaks == 0, "breaks %llu", r.nbreaks);
		replay_free(&r);

		u64 t1[NITEMS] = { 100, 0, 0 }, t2[NITEMS] = { 51, 0, 0 };

		start(&r, t1, true);
		count(&r, 0, 0, 1, 50, 200);	/* backwards by 51 */
		count(&r, 0, 0, 1, 51, 300);
		finish(&r, t2, NULL);
		CHECK("a value going backwards: one break of -51",
		      r.nbreaks == 1 && r.brk[0].moved == 0 - 51ULL && r.cpu[0].under[0] == 51,
		      "breaks %llu, moved %llu", r.nbreaks, r.nlisted ? r.brk[0].moved : 0);
		replay_free(&r);
	}
	/* 6. A fold: the dead CPU's replay must hold what it hands over; the receiver's counter. */
	{
		u64 s1[NITEMS] = { 10, 0, 0 }, s2[NITEMS] = { 10, 0, 0 }, s2c1[NITEMS] = { 0, 0, 0 };
		u64 fold_counter = 10 + 4;

		start(&r, s1, true);
		count(&r, 1, 0, 4, 4, 200);
		replay_fold(&r, 0, 1, 0, 4, &fold_counter, 300);
		s2[0] = 14;
		finish(&r, s2, s2c1);
		CHECK("a fold that matches both sides: no break",
		      r.nbreaks == 0 && r.events_checked == 2, "breaks %llu, checked %llu",
		      r.nbreaks, r.events_checked);
		replay_free(&r);

		fold_counter = 10 + 6;
		start(&r, s1, true);
		count(&r, 1, 0, 4, 4, 200);
		replay_fold(&r, 0, 1, 0, 6, &fold_counter, 300);	/* cpu1 held 2 more untraced */
		s2[0] = 16;
		finish(&r, s2, s2c1);
		CHECK("a fold handing over 2 untraced counts: a break on the dead CPU, 200..300, +2",
		      r.nbreaks == 1 && r.brk[0].cpu == 1 && r.brk[0].from == 200 &&
		      r.brk[0].to == 300 && r.brk[0].moved == 2,
		      "breaks %llu, cpu %d from %llu to %llu moved %llu", r.nbreaks,
		      r.nlisted ? r.brk[0].cpu : -1, r.nlisted ? r.brk[0].from : 0,
		      r.nlisted ? r.brk[0].to : 0, r.nlisted ? r.brk[0].moved : 0);
		replay_free(&r);
	}
	/* 7. Without the counter field: the old whole-window check, nothing located. */
	{
		u64 s1[NITEMS] = { 10, 0, 5 }, s2[NITEMS] = { 20, 0, 5 };

		start(&r, s1, false);
		replay_count(&r, 0, 0, 1, NULL, 200, 1);
		finish(&r, s2, NULL);
		CHECK("no counter field: no continuity, the window difference (+9) still found",
		      r.nbreaks == 0 && r.events_checked == 0 && r.cpu[0].over[0] == 9 &&
		      r.cpu[0].div_site[0] == DIV_SNAP2, "breaks %llu, over %llu", r.nbreaks,
		      r.cpu[0].over[0]);
		replay_free(&r);
	}
	/* 8. Many breaks: the list is bounded, the counts stay exact. */
	{
		u64 s1[NITEMS] = { 0, 0, 0 }, s2[NITEMS] = { 0, 0, 0 };
		u64 v = 0;

		start(&r, s1, true);
		for (u64 k = 0; k < MAX_LISTED_BREAKS + 10; k++) {
			v += 2;	/* each event says +1, the counter moved +2 */
			count(&r, 0, 1, 1, v, 200 + k);
		}
		s2[1] = v;
		finish(&r, s2, NULL);
		CHECK("more breaks than the list holds: all counted, the list bounded",
		      r.nbreaks == MAX_LISTED_BREAKS + 10 && r.nlisted == MAX_LISTED_BREAKS &&
		      r.cpu[0].over[1] == MAX_LISTED_BREAKS + 10,
		      "breaks %llu, listed %zu, over %llu", r.nbreaks, r.nlisted, r.cpu[0].over[1]);
		replay_free(&r);
	}
	/* 8b. After a CPU's tag-2 snapshot nothing is checked: a fold of it then is not judged. */
	{
		u64 s1[NITEMS] = { 10, 0, 0 }, s2[NITEMS] = { 10, 0, 0 }, s2b[NITEMS] = { 4, 0, 0 };
		u64 fold_counter = 10 + 9;

		start(&r, s1, true);
		count(&r, 1, 0, 4, 4, 200);
		finish(&r, s2, s2b);
		replay_fold(&r, 0, 1, 0, 9, &fold_counter, 1100);	/* 5 more counted after tag 2 */
		CHECK("a fold of a CPU after its tag-2 snapshot: not checked against the replay",
		      !r.nbreaks && !r.cpu[1].under[0] && !r.cpu[1].over[0] &&
		      r.cpu[1].div_site[0] == DIV_NONE, "breaks %llu under %llu over %llu site %d",
		      r.nbreaks, r.cpu[1].under[0], r.cpu[1].over[0], r.cpu[1].div_site[0]);
		replay_free(&r);
	}
	/* 8c. A 32-bit kernel (the file's long size 4): its counters wrap at 2^32, so does the replay. */
	{
		u64 s1[NITEMS] = { 0xfffffff0ULL, 0, 0 }, s2[NITEMS] = { 0x12, 0, 0 };

		start(&r, s1, true);
		r.mask = 0xffffffffULL;
		count(&r, 0, 0, 0x20, 0x10, 200);	/* wraps past 2^32 */
		count(&r, 0, 0, 1, 0x12, 300);		/* a real break of +1 */
		finish(&r, s2, NULL);
		CHECK("32-bit counters: a wrap at 2^32 is no break, a break of +1 is +1",
		      r.nbreaks == 1 && r.nlisted == 1 && r.brk[0].moved == 1 && r.brk[0].to == 300 &&
		      r.cpu[0].over[0] == 1 && !r.cpu[0].under[0], "breaks %llu moved %llu over %llu under %llu",
		      r.nbreaks, r.nlisted ? r.brk[0].moved : 0, r.cpu[0].over[0], r.cpu[0].under[0]);
		replay_free(&r);
	}
	/* 9. vm_event_untraced: counts moved while the CPU was not online, reported after. */
	{
		u64 s1[NITEMS] = { 10, 0, 0 }, s2[NITEMS] = { 15, 0, 0 };

		/*
		 * A break between two points where the CPU was online (no fold out of it before),
		 * then a report: counts outside cpu_online_mask cannot be in that break, so the report
		 * explains nothing after the fact; it stays as credit.
		 */
		start(&r, s1, true);
		count(&r, 0, 0, 2, 15, 300);	/* replay says 12: 3 moved without an event */
		replay_untraced(&r, 0, 0, 3, 999);
		finish(&r, s2, NULL);
		CHECK("untraced counts reported after a break while the CPU was online: not explained",
		      r.cpu[0].over[0] == 3 && !r.cpu[0].under[0] && !r.cpu[0].accounted[0] &&
		      r.cpu[0].credit[0] == 3 && r.nlisted == 1 && !r.brk[0].accounted,
		      "over %llu under %llu accounted %llu credit %llu", r.cpu[0].over[0],
		      r.cpu[0].under[0], r.cpu[0].accounted[0], r.cpu[0].credit[0]);
		CHECK("an untraced report on a CPU never folded (never offline): refuted by its next "
		      "snapshot", r.cpu[0].untraced_refuted == 1 && r.cpu[0].refuted_by == 1000,
		      "refuted %llu by %llu", r.cpu[0].untraced_refuted, r.cpu[0].refuted_by);
		replay_free(&r);

		/* Teardown: reported before the fold that hands the counts over. */
		u64 z[NITEMS] = { 0, 0, 0 }, fold_counter = 10 + 7;

		start(&r, s1, true);
		count(&r, 1, 0, 4, 4, 200);
		replay_untraced(&r, 1, 0, 3, 250);
		replay_fold(&r, 0, 1, 0, 7, &fold_counter, 300);
		s2[0] = 17;
		finish(&r, s2, z);
		CHECK("untraced counts reported before the fold: credit consumed, no break",
		      r.nbreaks == 0 && !r.cpu[1].over[0] && r.cpu[1].accounted[0] == 3 &&
		      !r.cpu[1].credit[0], "breaks %llu over %llu accounted %llu credit %llu",
		      r.nbreaks, r.cpu[1].over[0], r.cpu[1].accounted[0], r.cpu[1].credit[0]);
		CHECK("an untraced report followed by its CPU's fold, no record between: valid",
		      !r.cpu[1].untraced_refuted && !r.cpu[1].untraced_pending, "refuted %llu pending %llu",
		      r.cpu[1].untraced_refuted, r.cpu[1].untraced_pending);
		replay_free(&r);

		/* Bring-up after a death: the report at the next snapshot on that CPU is valid. */
		u64 s2b[NITEMS] = { 3, 0, 0 };

		start(&r, s1, true);
		count(&r, 1, 0, 4, 4, 200);
		fold_counter = 10 + 4;
		replay_fold(&r, 0, 1, 0, 4, &fold_counter, 300);
		count(&r, 1, 0, 1, 3, 400);	/* back online: 2 counted before it was */
		replay_untraced(&r, 1, 0, 2, 990);
		s2[0] = 14;
		finish(&r, s2, s2b);
		CHECK("an untraced report after its CPU's fold, before its next snapshot: valid",
		      !r.cpu[1].untraced_refuted && !r.cpu[1].untraced_pending &&
		      r.cpu[1].accounted[0] == 2 && !r.cpu[1].over[0] && !r.cpu[1].under[0],
		      "refuted %llu pending %llu accounted %llu over %llu under %llu",
		      r.cpu[1].untraced_refuted, r.cpu[1].untraced_pending, r.cpu[1].accounted[0],
		      r.cpu[1].over[0], r.cpu[1].under[0]);
		replay_free(&r);
		s2[0] = 17;

		/*
		 * A CPU with every counter at 0 reports bring-up counts with no fold of it seen: it
		 * may have died with nothing to fold (no event), so the report is neither placed nor
		 * refuted by the record that follows; its counts still explain that record's break.
		 */
		u64 s2z[NITEMS] = { 3, 0, 0 };

		start(&r, s1, true);
		replay_untraced(&r, 1, 0, 2, 150);
		count(&r, 1, 0, 1, 3, 200);
		s2[0] = 10;
		finish(&r, s2, s2z);
		CHECK("an untraced report on a CPU whose counters were all 0: unplaced, not refuted",
		      r.cpu[1].untraced_zero == 1 && !r.cpu[1].untraced_refuted &&
		      !r.cpu[1].untraced_pending && r.cpu[1].accounted[0] == 2 && !r.cpu[1].over[0],
		      "zero %llu refuted %llu pending %llu accounted %llu over %llu",
		      r.cpu[1].untraced_zero, r.cpu[1].untraced_refuted, r.cpu[1].untraced_pending,
		      r.cpu[1].accounted[0], r.cpu[1].over[0]);
		replay_free(&r);

		/* A report that no counter movement matches stays as credit. */
		s2[0] = 10;
		start(&r, s1, true);
		replay_untraced(&r, 0, 0, 2, 500);
		finish(&r, s2, NULL);
		CHECK("an untraced report the counter does not show: left as credit",
		      r.cpu[0].credit[0] == 2 && !r.cpu[0].accounted[0], "credit %llu accounted %llu",
		      r.cpu[0].credit[0], r.cpu[0].accounted[0]);
		replay_free(&r);
	}
	return failures ? 1 : 0;
}
