#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""What a tracing object costs, from cost_trace's rows (bench/cost/trace/trace.sh).

  trace_report.py measure OUT_DIR OBJECT SAMPLES.tsv [CPUS.tsv] [lines:DIR]
      the programs' and the workloads' tables, the CPU curve, OUT_DIR/cost.bmf.json and
      OUT_DIR/cost.html (bench/cost/trace/trace_html.py)
  trace_report.py compare OUT_DIR SAMPLES.tsv [CONFIRM.tsv] [lines:DIR]
      base against candidate with the regression gate's statistics and verdict
      (bench/gate/gate.py), OUT_DIR/cost-compare.bmf.json, OUT_DIR/cost.html, and one
      closing line

SAMPLES rows: "ARM<TAB>BENCH<TAB>MEASURE<TAB>VALUE", one per round (cost/prog/NAME: latency,
ns per run, and runs, per workload call, from bpf_stats; the static figures;
cost/workload/TRIGGER: latency, ns per call with the programs attached, /bare without,
/stats with bpf_stats on; cost/workload/TRIGGER/prog/NAME: runs; cost/cpus/N/...: the same
on N CPUs at once), and "#" lines (bench/cost/trace/cost_trace.c).

compare's exit status: 0 no regression; 1 a regression in an exact measure (the verifier's
instructions, the JIT's bytes) or a timing one confirmed by CONFIRM.tsv; 3 a timing
regression that needs that second run.
"""
import os
import statistics
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(HERE, "..", "..", "gate"))
from report import bmf_entry, print_table, write_bmf  # noqa: E402
from measured_on import machine  # noqa: E402
import gate  # noqa: E402
import cost_lines  # noqa: E402
from cost_report import CLIMB, FLOOR, OVERLAP_MIN, STATIC  # noqa: E402


def load(paths):
    """(samples by arm, #-lines by kind: lists of their fields)."""
    samples = gate.load_samples(paths)
    meta = defaultdict(list)
    for path in paths:
        with open(path) as f:
            for line in f:
                if line.startswith("#"):
                    fields = line.rstrip("\n").split("\t")
                    meta[fields[0][1:]].append(fields[1:])
    return samples, meta


def med(values):
    return statistics.median(values) if values else None


def spread(values):
    return f"{min(values):.1f}-{max(values):.1f}" if values else ""


def ns(value):
    return "" if value is None else f"{value:,.1f}"


def workloads(meta):
    return [(w[0], w[1]) for w in meta["workload"]]


def clock(meta, name):
    """"cpu": the calling thread's CPU time per call; "wall": wall time (cost_trace.c)."""
    return next((w[2] for w in meta["workload"] if w[0] == name and len(w) > 2), "wall")


def progs(meta, arm):
    """[(name, hook kind, target, trigger)] of ARM's programs."""
    return [(p[1], p[2], p[3], p[4]) for p in meta["prog"] if p[0] == arm]


def added(arm_samples, name):
    """The workload's added ns per call, round by round: attached minus bare."""
    att = arm_samples.get((f"cost/workload/{name}", "latency"), [])
    bare = arm_samples.get((f"cost/workload/{name}/bare", "latency"), [])
    return [a - b for a, b in zip(att, bare)]


def prog_rows(samples, meta, arm):
    rows = []
    for name, kind, target, trigger in progs(meta, arm):
        s = samples[arm]
        lat = s.get((f"cost/prog/{name}", "latency"), [])
        runs = s.get((f"cost/prog/{name}", "runs"), [])
        hook = f"{kind}/{target}" if target != "-" else kind
        static = [s.get((f"cost/prog/{name}", m), [None])[0] for m in STATIC]
        if not lat:
            rows.append([name, hook, trigger, "did not run", "", ""] +
                        ["" if v is None else f"{v:.0f}" for v in static])
            continue
        rows.append([name, hook, trigger, f"{med(runs):.2f}", ns(med(lat)), spread(lat)] +
                    ["" if v is None else f"{v:.0f}" for v in static])
    return rows


def workload_rows(samples, meta, arm):
    rows = []
    s = samples[arm]
    for name, does in workloads(meta):
        bare = s.get((f"cost/workload/{name}/bare", "latency"), [])
        att = s.get((f"cost/workload/{name}", "latency"), [])
        if not bare or not att:
            continue
        add = med(added(s, name))
        rows.append([name, clock(meta, name), ns(med(bare)), ns(med(att)), f"{add:+,.1f}",
                     f"{add / med(bare) * 100:+.1f}%", spread(att),
                     ns(med(s.get((f"cost/workload/{name}/stats", "latency"), [])))])
    return rows


def events_notes(meta, arm):
    notes = []
    for e in meta["events"]:
        if e[0] != arm:
            continue
        notes.append(f"  {e[1]}: {int(e[2]):,} events read, {int(e[3]):,} lost, from "
                     + ", ".join(e[4:]))
    return notes


def perf_notes(samples, meta, arm):
    notes = []
    hz = meta["perf-hz"][0][0] if meta["perf-hz"] else "?"
    for name, kind, _, _ in progs(meta, arm):
        if kind != "perf_event":
            continue
        s = samples[arm]
        lat = med(s.get((f"cost/prog/{name}", "latency"), []))
        rate = med(s.get((f"cost/prog/{name}", "samples-per-s"), []))
        cpu = med(s.get((f"cost/prog/{name}", "cpu-percent"), []))
        if lat is None:
            continue
        notes.append(f"  {name}: {lat:,.1f} ns a sample, {rate:,.1f} samples a second on each "
                     f"CPU (cpu-clock at {hz} Hz): {cpu:.4f}% of each CPU it samples")
    return notes


def curve(samples, arm):
    """{prog: {n: [ns per run by round]}} from the cost/cpus/N/prog/NAME rows."""
    out = defaultdict(dict)
    for (bench, measure), values in samples[arm].items():
        parts = bench.split("/")
        if measure == "latency" and len(parts) == 5 and parts[1] == "cpus" and parts[3] == "prog":
            out[parts[4]][int(parts[2])] = values
    return out


def oncpu(samples, arm, n):
    """The median over rounds of the least any thread ran of its phases on N CPUs, in %."""
    values = [v for (bench, measure), vs in samples[arm].items()
              if measure == "oncpu-percent" and bench.startswith(f"cost/cpus/{n}/")
              for v in vs]
    return med(values)


def curve_section(samples, arm, bmf):
    c = curve(samples, arm)
    if not c:
        return
    print("\nOn N CPUs at once (each CPU calls its program's workload; bpf_stats, ns per run):")
    rows, reading = [], []
    for name, by_n in sorted(c.items()):
        one = med(by_n.get(1, []))
        for n in sorted(by_n):
            m = med(by_n[n])
            ratio = m / one if one else 0
            rows.append([name, n, ns(m), f"{ratio:.2f}"])
            bmf[f"cost/cpus/{n}/prog/{name}"] = {"latency": bmf_entry(by_n[n])}
        worst = max(sorted(by_n)[1:], key=lambda n: med(by_n[n]), default=None)
        if worst and one and med(by_n[worst]) / one >= CLIMB:
            reading.append(f"{name} climbs: {med(by_n[worst]) / one:.2f}x its 1-CPU cost on "
                           f"{worst} CPUs (over {CLIMB}x): a map value, lock or buffer the "
                           f"CPUs share")
        elif worst and (oncpu(samples, arm, worst) or 100) < OVERLAP_MIN:
            reading.append(f"{name}: {med(by_n[worst]) / one:.2f}x its 1-CPU cost on {worst} "
                           f"CPUs, not read as flat: its threads ran only "
                           f"{oncpu(samples, arm, worst):.0f}% of the time")
        elif worst:
            reading.append(f"{name} stays flat: at most {med(by_n[worst]) / one:.2f}x its "
                           f"1-CPU cost")
    print_table(["program", "CPUs", "ns per run", "x 1 CPU"], rows)
    for line in reading:
        print("  " + line)
    counts = sorted({n for by_n in c.values() for n in by_n})
    low = [(n, oncpu(samples, arm, n)) for n in counts[1:]]
    low = [(n, p) for n, p in low if p is not None and p < OVERLAP_MIN]
    if low:
        print("  the threads ran only " + ", ".join(f"{p:.0f}% of the time on {n} CPUs"
                                               for n, p in low) +
              f" (under {OVERLAP_MIN:.0f}%): other work took their CPUs (the host's, or the "
              "tool's own event reader on the last CPU), so they met less and a shared "
              "value's contention reads low")
    for n in counts:
        p = oncpu(samples, arm, n)
        if p is not None:
            bmf.setdefault(f"cost/cpus/{n}", {})["oncpu-percent"] = {"value": p}


def measure(out_dir, obj, paths, lines):
    samples, meta = load(paths)
    arm = "prog"
    cpus = meta["cpus"][0][0] if meta["cpus"] else "?"
    print(f"cost of {obj}: tracing programs, {machine()}, kernel {os.uname().release}")
    print("\nPrograms (bpf_stats, the median of the rounds, with bpf_stats on):")
    print_table(["program", "hook", "trigger", "runs/call", "ns per run", "spread",
                 "verified", "translated", "JIT bytes"], prog_rows(samples, meta, arm))
    print("\nWorkloads (ns per call on CPU 0, bare and attached, bpf_stats off; clock: cpu, "
          "the thread's own CPU time, or wall, for a workload that sleeps):")
    print_table(["workload", "clock", "bare", "attached", "added", "added %", "spread",
                 "bpf_stats on"], workload_rows(samples, meta, arm))
    for name, does in workloads(meta):
        print(f"  {name}: {does}")
    notes = events_notes(meta, arm) + perf_notes(samples, meta, arm)
    if notes:
        print("\nEvents read as the tool reads them, and samples:")
        print("\n".join(notes))
    for n in meta["notrun"]:
        if n[0] == arm:
            print(f"  {n[1]}: did not run: {n[2]}")
    if meta["stats-cost"]:
        own = float(meta["stats-cost"][0][0])
        print(f"  bpf_stats' own cost: {own:.1f} ns a run on this host (an empty program on "
              "getpid's tracepoint, statistics on and off in turns): inside each ns per run "
              "above, and not in production's")
    if "stats-always-on" in meta:
        print("  kernel.bpf_stats_enabled is 1: the attached phase ran with bpf_stats on too, "
              "and their own cost is not measured")
    bmf = {}
    if meta["stats-cost"]:
        bmf["cost/bpf-stats"] = {"latency": {"value": float(meta["stats-cost"][0][0])}}
    for (bench, measure), values in samples[arm].items():
        if bench.startswith("cost/cpus/"):
            continue
        bmf.setdefault(bench, {})[measure] = bmf_entry(values)
    for name, _ in workloads(meta):
        values = added(samples[arm], name)
        if values:
            bmf.setdefault(f"cost/workload/{name}/added", {})["latency"] = bmf_entry(values)
    curve_section(samples, arm, bmf)
    if lines:
        bmf.update(cost_lines.measure_section(lines, out_dir, arm))
    os.makedirs(out_dir, exist_ok=True)
    write_bmf(os.path.join(out_dir, "cost.bmf.json"), bmf)
    rounds = len(samples[arm].get((f"cost/workload/{workloads(meta)[0][0]}", "latency"), []))
    print(f"{cpus} CPUs, {rounds} rounds")
    html_report("measure", out_dir, paths)
    return 0


def html_report(kind, out_dir, paths, verdicts=None, rows=(), closing=""):
    """The run's page beside its BMF file (trace_html.py), named before any verdict: a
    compare's verdict (CLOSING, in the page too) stays the last line."""
    import trace_html  # here, not above: it imports this module's readers
    path = trace_html.write(kind, out_dir, paths, verdicts, rows, closing)
    if path:
        print(f"HTML report: {path}")


def timing_keys(samples, meta):
    keys = [(f"cost/prog/{p[0]}", "latency") for p in progs(meta, gate.BASE)]
    keys += [(f"cost/workload/{w}", "latency") for w, _ in workloads(meta)]
    present = samples[gate.CANDIDATE]
    return [k for k in keys if k in present and k in samples[gate.BASE]]


def judge(samples, meta):
    gate.add_scaling(samples)
    judged = {k: gate.judge_timing(samples, k[0], k[1], "higher", FLOOR[0], FLOOR[1])
              for k in timing_keys(samples, meta)}
    for bench, measure, worse, floor, abs_floor in gate.cpus_timing(samples):
        judged[(bench, measure)] = gate.judge_timing(samples, bench, measure, worse, floor,
                                                     abs_floor)
    return {k: r for k, r in judged.items() if r}


def compare(out_dir, paths, lines):
    samples, meta = load(paths[:1])
    print(f"cost-compare of tracing programs, base against candidate: {machine()}, kernel "
          f"{os.uname().release}")
    exact, rows, bmf = [], [], {}
    base_names = {p[0] for p in progs(meta, gate.BASE)}
    for name in sorted(base_names | {p[0] for p in progs(meta, gate.CANDIDATE)}):
        for m in STATIC:
            b = samples[gate.BASE].get((f"cost/prog/{name}", m))
            c = samples[gate.CANDIDATE].get((f"cost/prog/{name}", m))
            if not b or not c:
                continue
            verdict = gate.exact_verdict(b[0], c[0])
            rows.append([f"cost/prog/{name}", m, f"{b[0]:.0f}", f"{c[0]:.0f}",
                         f"{(c[0] - b[0]) / b[0] * 100 if b[0] else 0:+.1f}%", "", "", verdict])
            bmf.setdefault(f"cost/prog/{name}", {})[m] = {"value": c[0]}
            if verdict == "regressed":
                exact.append(f"{name} {m} {b[0]:.0f} -> {c[0]:.0f}")
    first = judge(samples, meta)
    for (bench, measure), r in first.items():
        rows.append([bench, measure, ns(r["base"]), ns(r["candidate"]),
                     f"{r['change']:+.1f}% [{r['ci'][0]:+.1f}, {r['ci'][1]:+.1f}]",
                     f"{r['aa']:+.1f}%", f"{r['threshold']:.1f}%", r["verdict"]])
        bmf.setdefault(bench, {})[measure] = {"value": r["candidate"],
                                              "lower_value": r["candidate"],
                                              "upper_value": r["candidate"]}
        # The change and its interval, as cost_report.py and the gate write theirs.
        bmf[bench][f"{measure}-change-percent"] = {"value": round(r["change"], 4),
                                                   "lower_value": round(r["ci"][0], 4),
                                                   "upper_value": round(r["ci"][1], 4)}
    print_table(["benchmark", "measure", "base", "candidate", "change [95% CI]", "A/A",
                 "threshold", "verdict"], rows)
    for name, _ in workloads(meta):
        b, c = med(added(samples[gate.BASE], name)), med(added(samples[gate.CANDIDATE], name))
        if b is not None and c is not None:
            print(f"  {name}: the programs add {b:+,.1f} ns a call (base), {c:+,.1f} "
                  f"(candidate)")
    if lines:
        bmf.update(cost_lines.compare_section(lines, out_dir, gate.BASE, gate.CANDIDATE))
    os.makedirs(out_dir, exist_ok=True)
    write_bmf(os.path.join(out_dir, "cost-compare.bmf.json"), bmf)
    closing, status = closing_line(paths, meta, first, exact)
    # The first of a confirmed pair writes no page: the second run's replaces it.
    if status != gate.EXIT_TIMING_ONLY:
        html_report("compare", out_dir, paths[:1],
                    {(r[0], r[1]): r[-1] for r in rows if r[4].endswith("]")}, rows, closing)
    print(closing)
    return status


def closing_line(paths, meta, first, exact):
    """The compare's closing line and exit status."""
    regressed = [k for k, r in first.items() if r["verdict"] == "regressed"]
    timing = [f"{k[0]} {k[1]} {first[k]['change']:+.1f}% (threshold "
              f"{first[k]['threshold']:.1f}%)" for k in regressed]
    if exact and not timing:
        return "cost-compare: REGRESSION: " + "; ".join(exact), gate.EXIT_REGRESSION
    if regressed and len(paths) == 1:
        if exact:
            return ("cost-compare: REGRESSION: " + "; ".join(exact + timing),
                    gate.EXIT_REGRESSION)
        return ("cost-compare: timing regressed in the first run: " + "; ".join(timing) +
                "; confirming with a second run", gate.EXIT_TIMING_ONLY)
    if regressed:
        both, _ = load(paths)
        again = judge(both, meta)
        confirmed = [k for k in regressed if again.get(k, {}).get("verdict") == "regressed"]
        if confirmed or exact:
            return "cost-compare: REGRESSION: " + "; ".join(exact + [
                f"{k[0]} {k[1]} {again[k]['change']:+.1f}% over both runs (threshold "
                f"{again[k]['threshold']:.1f}%)" for k in confirmed]), gate.EXIT_REGRESSION
        return ("cost-compare: PASS: the first run's " + "; ".join(timing) +
                " not confirmed by a second", 0)
    return "cost-compare: PASS: same static figures or fewer, " + "; ".join(
        f"{k[0]} {r['change']:+.1f}% ({r['verdict']}, threshold {r['threshold']:.1f}%)"
        for k, r in first.items() if k[1] == "latency" and "/cpus/" not in k[0]), 0


def main():
    args = sys.argv[1:]
    lines = next((a[len("lines:"):] for a in args if a.startswith("lines:")), None)
    args = [a for a in args if not a.startswith("lines:")]
    if len(args) >= 4 and args[0] == "measure":
        return measure(args[1], args[2], args[3:], lines)
    if len(args) >= 3 and args[0] == "compare":
        return compare(args[1], args[2:], lines)
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
