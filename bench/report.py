#!/usr/bin/env python3
"""Turns the raw results of bench/run-bench into the three tables (text and JSON).

Usage: bench/report.py RESULTS_DIR PATCHED_VMLINUX UNPATCHED_VMLINUX
       bench/report.py --throughput RESULTS_DIR   (table 3 alone: throughput.txt, .json)
"""
import glob
import json
import os
import platform
import re
import statistics
import subprocess
import sys

SITES = ["handle_mm_fault", "do_swap_page", "filemap_fault", "free_unref_page_commit"]


def micro(out):
    rows = {}
    # Each load of the module is one run of every case; busybox insmod may load it twice.
    for line in open(os.path.join(out, "micro", "micro.txt"), encoding="utf-8"):
        m = re.search(r"case=(\S+) rep=(\d+) ns_per_op=([\d.]+)", line)
        if m:
            rows.setdefault(m.group(1), []).append(float(m.group(3)))
    base = statistics.median(rows["this_cpu_inc"])
    table = []
    for name, v in rows.items():
        table.append({"case": name, "reps": len(v), "min_ns": min(v), "median_ns": statistics.median(v),
                      "max_ns": max(v), "ratio_to_this_cpu_inc": statistics.median(v) / base})
    return table


def faults(out, kind):
    """Median faults/s of each boot (passes 2 and 3; the first warms up)."""
    per_boot = []
    for d in sorted(p for p in glob.glob(os.path.join(out, f"pf-{kind}-*")) if os.path.isdir(p)):
        text = open(os.path.join(d, "pf.txt"), encoding="utf-8").read()
        vals = [float(f) for r, f in re.findall(r"rep=(\d+) .*faults_per_sec=([\d.]+)", text) if int(r) > 0]
        if vals:
            per_boot.append(statistics.median(vals))
    return per_boot


def record_bytes(out, kind):
    """Bytes one vm_event_count takes in the ring buffer, from the format the guest saw: the
    payload (common fields included, up to the end of the last field) after a 4-byte header,
    rounded up to 4 bytes as the ring buffer stores it."""
    fmt = glob.glob(os.path.join(out, f"pf-{kind}-0", "format"))
    if not fmt:
        return None
    end = 0
    for off, size in re.findall(r"offset:(\d+);\s*size:(\d+);", open(fmt[0], encoding="utf-8").read()):
        end = max(end, int(off) + int(size))
    return {"payload": end, "record": 4 + (end + 3) // 4 * 4}


def insn_windows(out, kind):
    """Instructions per page fault from each boot of step 5: the plugin's windows (one per
    fault, bracketed by pf_bench --marked's markers), checked complete: the plugin's end line,
    no unpaired marker, every window on vCPU 0 (pf_bench pins itself there), as many windows as
    pf_bench counted faults. The median is the fault's common path, exact to the instruction
    whatever the host's load; the mean adds what a fault does now and then (LRU and allocator
    batches) and the interrupts that land in a window, whose number follows the wall clock."""
    runs = []
    for d in sorted(p for p in glob.glob(os.path.join(out, f"insn-{kind}-*")) if os.path.isdir(p)):
        path = os.path.join(d, "windows.txt")
        if not os.path.exists(path):
            sys.exit(f"bench/report.py: {path} is missing: the plugin wrote nothing (see {d}.boot.log)")
        lines = open(path, encoding="utf-8").read().splitlines()
        if not lines or lines[-1] != "# end" or not lines[0].startswith("# insn_window:"):
            sys.exit(f"bench/report.py: {path} was cut short (no '# end' line): QEMU did not exit normally")
        head = dict(kv.split("=") for kv in lines[0].split()[2:])
        if head["unpaired"] != "0" or head["out_of_memory"] != "0":
            sys.exit(f"bench/report.py: {path}: {lines[0]}: a marker without its pair, or the plugin ran out of memory")
        rows = [tuple(int(x) for x in l.split()) for l in lines[1:-1]]
        if any(r[0] != 0 for r in rows):
            sys.exit(f"bench/report.py: {path}: windows on another vCPU than 0: pf_bench was not pinned")
        faults = sum(int(n) for n in re.findall(r"faults=(\d+)", open(os.path.join(d, "pf.txt"), encoding="utf-8").read()))
        if faults == 0 or faults != len(rows):
            sys.exit(f"bench/report.py: {path}: {len(rows)} windows for {faults} faults")
        insns = sorted(r[1] for r in rows)
        median = statistics.median(insns)
        runs.append({"boot": os.path.basename(d), "faults": faults, "median": median,
                     "mode": statistics.mode(insns), "mean": statistics.mean(insns),
                     "p90": insns[len(insns) * 9 // 10],
                     "share_at_median": insns.count(median) / len(insns),
                     "rep_iterations_median": statistics.median(r[2] for r in rows)})
    if not runs:
        sys.exit(f"bench/report.py: no insn-{kind}-* results in {out}: run step 5 (BENCH_FROM_STEP=5)")
    return runs


def insn_table(out):
    kinds = {"unpatched": "unpatched", "off": "patched, tracing off", "on": "patched, vm_event_count on",
             "onnofield": "  same, event without counter"}
    res = {k: insn_windows(out, k) for k in kinds}
    med = {k: statistics.median(r["median"] for r in v) for k, v in res.items()}
    spread = max((max(r["median"] for r in v) - min(r["median"] for r in v)) / min(r["median"] for r in v)
                 for v in res.values())
    return {"kinds": kinds, "runs": res, "median": med,
            "off_minus_unpatched": med["off"] - med["unpatched"], "on_minus_off": med["on"] - med["off"],
            "counter_field": med["on"] - med["onnofield"], "runs_spread": spread,
            "runs_agree_within_1pct": spread <= 0.01}


def insn_lines(it, kernel):
    lines = ["", f"2b. Instructions per page fault on {kernel}, counted in the guest by a QEMU TCG plugin "
             "(bench/insn_window_plugin.c),", "    one window per fault of pf_bench --marked (32768 faults a boot); "
             "independent of the host's load", "",
             f"{'kernel':32} {'median per boot':>22} {'share':>6} {'mean':>8} {'p90':>7} {'rep iter':>8}"]
    for k, label in it["kinds"].items():
        runs = it["runs"][k]
        meds = " / ".join(f"{r['median']:.0f}" for r in runs)
        lines.append(f"{label:32} {meds:>22} "
                     f"{runs[0]['share_at_median'] * 100:5.0f}% {statistics.mean(r['mean'] for r in runs):8.0f} "
                     f"{runs[0]['p90']:7d} {runs[0]['rep_iterations_median']:8.0f}")
    ok = "met" if it["runs_agree_within_1pct"] else "NOT MET"
    lines += ["", f"per fault: tracing off costs {it['off_minus_unpatched']:+.0f} instructions against unpatched "
              f"({it['median']['off'] / it['median']['unpatched']:.4f}x); recording vm_event_count "
              f"{it['on_minus_off']:+.0f} ({it['median']['on'] / it['median']['off']:.3f}x); the counter field "
              f"{it['counter_field']:+.0f} with tracing on",
              f"boots agree: largest spread of a kernel's medians {it['runs_spread'] * 100:.2f}% (goal <= 1%: {ok}); "
              "share: faults whose count is the median exactly; mean: every fault, batches and interrupts included;",
              "rep iter: iterations of rep string instructions after their first (clear_page's rep stos), not counted "
              "as instructions"]
    return lines


def ratios(num, den):
    r = [a / b for a, b in zip(num, den)]
    return {"median": statistics.median(r), "min": min(r), "max": max(r), "pairs": len(r)}


def insn_count(vmlinux, fn):
    text = subprocess.run(["objdump", "-d", "--no-show-raw-insn", f"--disassemble={fn}", vmlinux],
                          capture_output=True, text=True, check=True).stdout
    insns = [l for l in text.splitlines() if re.match(r"^\s*[0-9a-f]+:\s", l)]
    site = [re.sub(r"^\s*[0-9a-f]+:\s+", "", l).split("#")[0].strip() for l in insns
            if "vm_event_states" in l]
    return len(insns), site


def times(out, name):
    """The rounds of one reader: [(seconds, peak RSS KB)], in round order."""
    rows = []
    for line in open(os.path.join(out, "throughput", f"{name}.times"), encoding="utf-8"):
        sec, kb = line.split()[:2]
        rows.append((float(sec), int(kb)))
    return rows


def paired(num, den):
    """Each round's ratio num / den (the two ran one after the other): median, min, max."""
    r = [a[0] / max(b[0], 1e-4) for a, b in zip(num, den)]
    return {"median": statistics.median(r), "min": min(r), "max": max(r), "rounds": len(r)}


def throughput(out):
    tp = os.path.join(out, "throughput")
    trace = os.path.join(out, "trace-run", "trace.dat")
    long_j = json.load(open(os.path.join(tp, "audit-long.json")))
    short_j = json.load(open(os.path.join(tp, "audit-short.json")))
    events_long = sum(c["events"] for c in long_j["per_cpu"])
    events_short = sum(c["events"] for c in short_j["per_cpu"])
    cat, audit, one, merged, pipe = (times(out, n) for n in
                                     ("cat", "audit-long", "audit-1thread", "audit-merged", "report-awk"))
    short = times(out, "audit-short")
    med = lambda rows: statistics.median(r[0] for r in rows)
    peak = lambda rows: max(r[1] for r in rows)
    a_s = med(audit)
    run_json = os.path.join(out, "trace-run", "run.json")
    kernel = json.load(open(run_json)).get("kernel_version") if os.path.exists(run_json) else None
    vs_cat, vs_pipe = paired(audit, cat), paired(pipe, audit)
    return {
        "trace": os.path.realpath(os.path.join(out, "trace-run")),
        "kernel_version": kernel,
        "events": events_long,
        "rounds": len(audit),
        "method": "whole processes, one round runs each reader once in turn; medians of the rounds' "
                  "times and of each round's ratios; file in the page cache",
        "vmstat_audit": {"seconds": a_s, "events_per_sec": events_long / a_s, "peak_rss_kb": peak(audit),
                         "peak_anon_kb": int(open(os.path.join(tp, "audit-long.anon")).read().split()[0])},
        "one_thread": {"seconds": med(one), "events_per_sec": events_long / med(one), "peak_rss_kb": peak(one)},
        "merged_reader": {"seconds": med(merged), "events_per_sec": events_long / med(merged),
                          "peak_rss_kb": peak(merged)},
        "report_awk": {"seconds": med(pipe), "events_per_sec": events_long / med(pipe), "peak_rss_kb": peak(pipe)},
        "cat": {"seconds": med(cat), "bytes": os.path.getsize(trace)},
        "audit_vs_cat": vs_cat,
        "report_awk_vs_audit": vs_pipe,
        "merged_vs_audit": paired(merged, audit),
        "one_thread_vs_audit": paired(one, audit),
        # The trace's bytes per recorded event (ring-buffer pages as saved, headers and padding
        # included): 36-byte records with the counter field, 28 without.
        "trace_bytes_per_event": os.path.getsize(trace) / events_long,
        "goals": {"events_per_sec_60M": events_long / a_s >= 60e6, "within_3x_cat": vs_cat["median"] <= 3,
                  "50x_report_awk": vs_pipe["median"] >= 50},
        "short_trace": {"events": events_short, "vmstat_audit_peak_rss_kb": peak(short),
                        "vmstat_audit_peak_anon_kb":
                            int(open(os.path.join(tp, "audit-short.anon")).read().split()[0]),
                        "seconds": med(short)},
    }


def throughput_lines(at, number="3."):
    ok = lambda b: "met" if b else "NOT MET"
    rng = lambda r: f"{r['median']:.1f}x (rounds {r['min']:.1f} to {r['max']:.1f})"
    return [f"{number} Audit throughput on {at['trace']} ({at['kernel_version'] or 'kernel unknown'}): "
            f"{at['events']} events, {at['cat']['bytes'] / 1e6:.0f} MB; medians of {at['rounds']} rounds, "
            "whole processes, file in the page cache", "",
            f"{'reader':34} {'seconds':>9} {'events/s':>12} {'peak RSS':>10}",
            f"{'vmstat-audit (per-CPU, threads)':34} {at['vmstat_audit']['seconds']:9.3f} "
            f"{at['vmstat_audit']['events_per_sec']:12.0f} {at['vmstat_audit']['peak_rss_kb']:8d}KB",
            f"{'vmstat-audit --threads 1':34} {at['one_thread']['seconds']:9.3f} "
            f"{at['one_thread']['events_per_sec']:12.0f} {at['one_thread']['peak_rss_kb']:8d}KB",
            f"{'vmstat-audit --reader merged':34} {at['merged_reader']['seconds']:9.3f} "
            f"{at['merged_reader']['events_per_sec']:12.0f} {at['merged_reader']['peak_rss_kb']:8d}KB",
            f"{'trace-cmd report | awk':34} {at['report_awk']['seconds']:9.3f} "
            f"{at['report_awk']['events_per_sec']:12.0f} {at['report_awk']['peak_rss_kb']:8d}KB",
            f"{'cat trace.dat > /dev/null':34} {at['cat']['seconds']:9.3f}",
            f"trace.dat: {at['trace_bytes_per_event']:.1f} bytes per vm_event_count (the record is 36 bytes "
            "with the counter field, 28 before it)",
            "",
            f"paired ratios: audit / cat {rng(at['audit_vs_cat'])} (goal <= 3x: {ok(at['goals']['within_3x_cat'])}); "
            f"report|awk / audit {rng(at['report_awk_vs_audit'])} (goal >= 50x: "
            f"{ok(at['goals']['50x_report_awk'])}); merged / per-CPU {rng(at['merged_vs_audit'])}; "
            f"1 thread / per-CPU {rng(at['one_thread_vs_audit'])}",
            f"{at['vmstat_audit']['events_per_sec'] / 1e6:.0f} M events/s (goal >= 60 M: "
            f"{ok(at['goals']['events_per_sec_60M'])})",
            f"vmstat-audit's peak anonymous memory: {at['vmstat_audit']['peak_anon_kb']} KB on "
            f"{at['events']} events, {at['short_trace']['vmstat_audit_peak_anon_kb']} KB on "
            f"{at['short_trace']['events']} (peak RSS {at['vmstat_audit']['peak_rss_kb']} and "
            f"{at['short_trace']['vmstat_audit_peak_rss_kb']} KB)",
            "load average at the end: " + " ".join(open("/proc/loadavg").read().split()[:3])
            + f" on {os.cpu_count()} cores (the ratios are paired: each round's runs shared its load)"]


def main():
    if sys.argv[1] == "--throughput":
        out = sys.argv[2]
        at = throughput(out)
        json.dump(at, open(os.path.join(out, "throughput.json"), "w"), indent=2)
        lines = throughput_lines(at, number="")
        lines[0] = lines[0].lstrip()
        open(os.path.join(out, "throughput.txt"), "w").write("\n".join(lines) + "\n")
        print("\n".join(lines))
        return
    out, patched, unpatched = sys.argv[1:4]
    kernel = os.environ.get("KERNEL", "?")
    res = {"machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.platform()}", "kernel": kernel,
           "caveat": "guest timings are under QEMU TCG: compare them only as ratios"}
    res["percpu_ops"] = micro(out)

    unp, off, on = faults(out, "unpatched"), faults(out, "off"), faults(out, "on")
    nof = faults(out, "onnofield")
    res["page_faults"] = {
        "faults_per_sec_median": {"unpatched": statistics.median(unp), "patched_off": statistics.median(off),
                                  "patched_on": statistics.median(on),
                                  "patched_on_without_counter_field": statistics.median(nof)},
        "patched_off_vs_unpatched": ratios(off, unp),
        "patched_on_vs_patched_off": ratios(on, off),
        "without_counter_field_on_vs_patched_off": ratios(nof, off),
        "patched_on_vs_without_counter_field_on": ratios(on, nof),
        "record_bytes": {"with_counter_field": record_bytes(out, "on"),
                         "without_counter_field": record_bytes(out, "onnofield")},
    }
    static = []
    for fn in SITES:
        n_p, site_p = insn_count(patched, fn)
        n_u, site_u = insn_count(unpatched, fn)
        static.append({"function": fn, "insns_patched": n_p, "insns_unpatched": n_u,
                       "update_patched": site_p, "update_unpatched": site_u})
    res["static"] = static
    res["instructions_per_fault"] = insn_table(out)

    res["audit_throughput"] = throughput(out)
    json.dump(res, open(os.path.join(out, "bench.json"), "w"), indent=2)

    lines = [f"Machine: {res['machine']}. {res['caveat']}.", "",
             "1. Per-CPU counter update, ns per operation in the guest (min / median / max over "
             f"{res['percpu_ops'][0]['reps']} repetitions)", "",
             f"{'case':32} {'min':>8} {'median':>8} {'max':>8} {'x this_cpu_inc':>15}"]
    for r in res["percpu_ops"]:
        lines.append(f"{r['case']:32} {r['min_ns']:8.2f} {r['median_ns']:8.2f} {r['max_ns']:8.2f} "
                     f"{r['ratio_to_this_cpu_inc']:15.2f}")
    pf = res["page_faults"]
    lines += ["", "2. Instrumentation cost: page_fault1 (128 MB, one task), faults/s, median of boots", "",
              f"unpatched {kernel + ':':18} {pf['faults_per_sec_median']['unpatched']:12.0f}",
              f"patched, tracing off:        {pf['faults_per_sec_median']['patched_off']:12.0f}   "
              f"ratio to unpatched {pf['patched_off_vs_unpatched']['median']:.3f} "
              f"(min {pf['patched_off_vs_unpatched']['min']:.3f}, max {pf['patched_off_vs_unpatched']['max']:.3f}, "
              f"{pf['patched_off_vs_unpatched']['pairs']} interleaved pairs)",
              f"patched, vm_event_count on:  {pf['faults_per_sec_median']['patched_on']:12.0f}   "
              f"ratio to tracing off {pf['patched_on_vs_patched_off']['median']:.3f} "
              f"(min {pf['patched_on_vs_patched_off']['min']:.3f}, max {pf['patched_on_vs_patched_off']['max']:.3f})",
              f"  same, event without counter: {pf['faults_per_sec_median']['patched_on_without_counter_field']:10.0f}   "
              f"ratio to tracing off {pf['without_counter_field_on_vs_patched_off']['median']:.3f} "
              f"(min {pf['without_counter_field_on_vs_patched_off']['min']:.3f}, "
              f"max {pf['without_counter_field_on_vs_patched_off']['max']:.3f})",
              f"the counter field: tracing-on fault rate with / without it "
              f"{pf['patched_on_vs_without_counter_field_on']['median']:.3f} "
              f"(min {pf['patched_on_vs_without_counter_field_on']['min']:.3f}, "
              f"max {pf['patched_on_vs_without_counter_field_on']['max']:.3f}); ring-buffer record "
              + " vs ".join(f"{r['record']} bytes ({r['payload']} payload)" if r else "?" for r in
                            (pf['record_bytes']['with_counter_field'], pf['record_bytes']['without_counter_field']))
              + " (with vs without)",
              "", f"{'function':26} {'insns patched':>14} {'unpatched':>10}  counter update (patched | unpatched)"]
    for s in static:
        lines.append(f"{s['function']:26} {s['insns_patched']:14} {s['insns_unpatched']:10}  "
                     f"{'; '.join(s['update_patched'])} | {'; '.join(s['update_unpatched'])}")
    lines += insn_lines(res["instructions_per_fault"], kernel)
    lines += [""] + throughput_lines(res["audit_throughput"])
    open(os.path.join(out, "bench.txt"), "w").write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
