#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The tracing family's page, OUT_DIR/cost.html beside its BMF file (trace_report.py calls
write()), made of bench/cost/cost_html.py's parts: one offline file, gnuplot's SVG inlined,
each figure's numbers in a table under it whose rows carry the BMF file's figures in
data-* attributes (bench/cost/trace/trace_html.bats holds the page to the file), and a
figure the run did not measure one line saying why.

What it shows: the header (objects, host, kernel, when, settings); per program its ns per
run with the rounds' spread, runs per call and the verifier's figures; per workload, bare
against attached (and attached with bpf_stats on), each round's value drawn; the CPU curve,
each program's ns per run on N CPUs with its threads' on-CPU share; the events read and
lost; a compare's changes with their intervals and verdicts, the verdict first.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
import cost_html as page  # noqa: E402
import gate  # noqa: E402
import trace_report as trace  # noqa: E402
from report import fmt  # noqa: E402

# Settings shown in the header, as trace.sh and cost.sh export them.
SETTINGS = ["FBF_COST_ROUNDS", "FBF_COST_TRACE_PHASE_MS", "FBF_COST_CPU_ROUNDS",
            "FBF_COST_TRACE_HZ", "FBF_COST_WORKLOAD", "FBF_COST_SET", "FBF_COST_BASE_SET",
            "FBF_COST_CANDIDATE_SET", "FBF_COST_LINES"]


def arms_of(kind):
    """The arms drawn side by side: the program alone, or the base and the candidate."""
    return ["prog"] if kind == "measure" else [gate.BASE, gate.CANDIDATE]


def header(kind, bmf_path, meta):
    # trace.sh's "#object" lines: ARM, the object's path.
    by_arm = {o[0]: o[1] for o in meta["object"]}
    objects = [by_arm.get(arm, "?") for arm in arms_of(kind)]
    title = ("cost: tracing programs of " + objects[0] if kind == "measure" else
             f"cost-compare: tracing programs, {objects[0]} against {objects[1]}")
    rows = ([("object", objects[0])] if kind == "measure" else
            [(gate.BASE, objects[0]), (gate.CANDIDATE, objects[1])])
    rows += page.recorded_rows(bmf_path)
    if meta["cpus"]:
        rows.append(("CPUs", meta["cpus"][0][0]))
    if meta["stats-cost"]:
        rows.append(("bpf_stats' own cost", f"{float(meta['stats-cost'][0][0]):.1f} ns a run"))
    return page.header_table(title, rows + page.settings_rows(SETTINGS))


def entry(bmf, samples, arm, bench, measure):
    """The figure drawn for ARM: a measure's, the BMF file's; a compare's, the median and
    spread of each side's own rounds (the BMF file holds the candidate's median alone)."""
    if arm == "prog" and measure in bmf.get(bench, {}):
        return bmf[bench][measure]
    return page.medians_of(samples[arm].get((bench, measure)))


def shown_rows(bmf, benches, measures):
    """Table rows of each BMF figure of BENCHES and MEASURES, as the file holds it."""
    return [page.data_row(b, m, bmf[b][m], [b, m] + [fmt(bmf[b][m][k]) if k in bmf[b][m] else ""
                                                     for k in ("value", "lower_value",
                                                               "upper_value")])
            for b in benches for m in measures if m in bmf.get(b, {})]


def programs(bmf, samples, meta, kind):
    names = sorted({p[0] for arm in arms_of(kind) for p in trace.progs(meta, arm)})
    benches = [f"cost/prog/{n}" for n in names]
    drawn = [i for i, b in enumerate(benches)
             if any(entry(bmf, samples, arm, b, "latency") for arm in arms_of(kind))]
    if not drawn:
        return page.absent("fig-programs", "Programs", "No program ran: its hook never "
                           "fired, or the kernel refused it (the run's table says which).")
    sides = [(arm, [entry(bmf, samples, arm, benches[i], "latency") for i in drawn])
             for arm in arms_of(kind)]
    svg = page.errorbar_plot([names[i] for i in drawn], sides, "ns/run")
    # bpf_stats' own cost: inside each ns per run, so beside them.
    rows = shown_rows(bmf, benches + ["cost/bpf-stats"], ["latency", "runs"])
    return page.figure("fig-programs", "Programs: ns per run", svg,
                       page.table(["benchmark", "measure", "median", "min", "max"], rows),
                       "bpf_stats' ns per run, the median of the rounds, its bar the rounds' "
                       "min to max; the table: runs per workload call too. The verifier's "
                       "figures are below.")


def workloads(bmf, samples, meta, kind):
    names = [w for w, _ in trace.workloads(meta)
             if samples[arms_of(kind)[-1]].get((f"cost/workload/{w}", "latency"))]
    if not names:
        return page.absent("fig-workloads", "Workloads", "No workload was timed.")
    # Each round's value, not a summary: a round the host disturbed reads as one point.
    series = ([("bare", "prog", "/bare"), ("attached", "prog", ""),
               ("attached, bpf_stats on", "prog", "/stats")] if kind == "measure" else
              [(f"{arm} attached", arm, "") for arm in arms_of(kind)])
    blocks, plots = {}, []
    width = 0.5 / len(series)
    for k, (title, arm, tail) in enumerate(series):
        x = (k - (len(series) - 1) / 2) * width
        blocks[f"s{k}"] = [[i + x, v] for i, w in enumerate(names)
                           for v in samples[arm].get((f"cost/workload/{w}{tail}", "latency"), [])
                           ] or [["NaN", "NaN"]]
        plots.append(f"$s{k} using 1:2 with points pt 7 ps 0.7 lc rgb "
                     f"'{page.COLOURS[k % len(page.COLOURS)]}' title \"{page.label(title)}\"")
    tics = ", ".join(f'"{page.label(w)}" {i}' for i, w in enumerate(names))
    svg = page.gnuplot(f"set ylabel 'ns/call (each round)'\nset xtics ({tics})\n"
                       f"set xrange [-0.5:{len(names) - 0.5}]\nset yrange [0:*]\nplot " +
                       ", ".join(plots), blocks, height=340)
    benches = [f"cost/workload/{w}{t}" for w in names
               for t in ("/bare", "", "/stats", "/added")]
    rows = shown_rows(bmf, benches, ["latency"])
    rows += shown_rows(bmf, [f"cost/workload/{w}/prog/{p[0]}" for w in names
                             for p in trace.progs(meta, arms_of(kind)[-1])], ["runs"])
    said = "; ".join(f"{w}: {does}" for w, does in trace.workloads(meta) if w in names)
    return page.figure("fig-workloads", "Workloads: bare against attached", svg,
                       page.table(["benchmark", "measure", "median", "min", "max"], rows),
                       "Each round's ns per workload call on CPU 0 (bpf_stats off but where "
                       f"named); the table: medians, the rounds' min and max. {said}")


def curve(bmf, samples, kind):
    arm_curves = [(arm, trace.curve(samples, arm)) for arm in arms_of(kind)]
    counts = sorted({n for _, c in arm_curves for by_n in c.values() for n in by_n})
    if not counts:
        return page.absent("fig-cpus", "The CPU curve", "No CPU curve: FBF_COST_CPU_ROUNDS=0, "
                           "or a WORKLOAD= command (the curve runs the built-in triggers).")
    sides = []
    for arm, c in arm_curves:
        for name in sorted(c):
            bench = "cost/cpus/{}/prog/" + name
            title = name if kind == "measure" else f"{arm} {name}"
            sides.append((title, [entry(bmf, samples, arm, bench.format(n), "latency")
                                  for n in counts]))
    # The on-CPU share beside each count: under trace_report.OVERLAP_MIN the threads met
    # less, and a shared value's contention reads low.
    share = {n: trace.oncpu(samples, arm_curves[-1][0], n) for n in counts}
    tics = [f"{n} ({share[n]:.0f}% on CPU)" if share[n] is not None else str(n)
            for n in counts]
    svg = page.curve_svg(counts, sides, "ns/run", tics)
    rows = shown_rows(bmf, [f"cost/cpus/{n}/prog/{name}" for n in counts
                            for name in sorted(arm_curves[-1][1])], ["latency"])
    rows += shown_rows(bmf, [f"cost/cpus/{n}" for n in counts], ["oncpu-percent"])
    return page.figure("fig-cpus", "The CPU curve", svg,
                       page.table(["benchmark", "measure", "median", "min", "max"], rows),
                       "Each program's ns per run with its workload called on N CPUs at once, "
                       "median of the rounds, bars min to max; beside each count, the least "
                       "any thread ran of its phases (median of the rounds).")


def events(meta, kind):
    rows = [f"<tr><td>{page.esc(e[0])}</td><td>{page.esc(e[1])}</td><td>{int(e[2]):,}</td>"
            f"<td>{int(e[3]):,}</td><td>{page.esc(', '.join(e[4:]))}</td></tr>"
            for e in meta["events"] if e[0] in arms_of(kind)]
    if not rows:
        return page.absent("fig-events", "Events", "No events read: the programs write no "
                           "ring buffer or perf buffer the tool reads.")
    return ('<h2>Events read as the tool reads them</h2><div id="fig-events">' +
            page.table(["arm", "workload", "read", "lost", "from"], rows) + "</div>")


def document(kind, out_dir, paths, verdicts=None, rows=(), closing=""):
    bmf_path = os.path.join(out_dir, page.BMF[kind])
    with open(bmf_path) as f:
        bmf = json.load(f)
    samples, meta = trace.load(paths)
    gate.add_scaling(samples)
    parts = [header(kind, bmf_path, meta)]
    if closing:
        parts.append(page.verdict_line(closing))
    parts.append(page.verifier(bmf, kind))
    if kind == "compare":
        parts.append(page.changes(bmf, rows, verdicts))
    parts += [programs(bmf, samples, meta, kind), workloads(bmf, samples, meta, kind),
              curve(bmf, samples, kind), events(meta, kind)]
    return page.document(page.BMF[kind], parts)


def write(kind, out_dir, paths, verdicts=None, rows=(), closing=""):
    """OUT_DIR/cost.html of a tracing run; its path, or None and one line said."""
    return page.save(out_dir, lambda: document(kind, out_dir, paths, verdicts, rows, closing))
