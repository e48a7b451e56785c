#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""One HTML page of what a cost run measured, beside its BMF file (cost_report.py calls write()).

  cost_html.py measure|compare OUT_DIR SAMPLES.tsv
      the page again from a run's files: OUT_DIR/cost.html

The page is one file that opens offline: no script, no network, nothing beside it. Its
figures are SVG made by gnuplot (a Debian package the project's plots already use) and
inlined. Each figure's numbers are also in a table under it, each row's data-bench,
data-measure, data-value, data-lower and data-upper as the BMF file has them, so a test
(bench/cost/cost_html.bats) can hold the page to the file. A figure the run did not
measure is one line saying why (class "absent"), never an empty axis.

A capture's frames: each frame's median over the rounds ("#capture-frame" lines), in the
capture's order. Large captures are thinned by one rule (thin()): every frame above the
p99 of those medians is kept, and of the rest, each bucket of consecutive frames (BUCKETS
of them over the capture) keeps its cheapest and its costliest: the shape of the cost over
the capture and every outlier stay, the page stays small.
"""
import html
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "packet"))
sys.path.insert(0, os.path.join(HERE, "chain"))
from measured_on import machine, recorded  # noqa: E402
import cost_report  # noqa: E402
import cost_capture_report as capture  # noqa: E402
import cost_chain_report as chain  # noqa: E402
import gate  # noqa: E402
from report import bmf_entry, fmt  # noqa: E402

NAME = "cost.html"
BMF = {"measure": "cost.bmf.json", "compare": "cost-compare.bmf.json"}
# A capture's frames in capture order: this many buckets keep their cheapest and costliest
# frame each, so at most 2 * BUCKETS points below p99 whatever the capture's length.
BUCKETS = 2000
# The CDF: this many evenly spaced quantiles below p99, and every frame above it.
CDF_POINTS = 1000
# The costliest frames named on the capture's figure: more would cover each other.
LABELLED = 5
# Settings shown in the header, as cost.sh exports them.
SETTINGS = ["FBF_COST_ROUNDS", "FBF_COST_REPEAT", "FBF_COST_LIVE_ROUNDS",
            "FBF_COST_FLOOD_SECONDS", "FBF_COST_SET", "FBF_COST_BASE_SET",
            "FBF_COST_CANDIDATE_SET", "FBF_COST_LINES", "FBF_COST_KERNELS"]
COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"]
STYLE = """body{font:14px sans-serif;margin:1em 2em;max-width:1100px}
table{border-collapse:collapse;margin:.5em 0}td,th{padding:1px 8px;text-align:right}
th{border-bottom:1px solid #999}td:first-child,th:first-child{text-align:left}
.absent{color:#666;font-style:italic}pre{margin:0}figure{margin:1em 0}
table.lines td,table.lines th{text-align:left}
table.lines td{font:12px monospace;white-space:pre}
details summary{cursor:pointer;color:#555}"""


class GnuplotMissing(Exception):
    pass


def esc(v):
    return html.escape(str(v), quote=True)


def number(v):
    """A figure as the BMF file holds it, for data-* attributes: compared, not read."""
    return json.dumps(v)


def data_row(bench, measure, entry, cells):
    """A table row holding one BMF entry in its data-* attributes, CELLS shown."""
    attrs = f' data-bench="{esc(bench)}" data-measure="{esc(measure)}"'
    for key, name in (("value", "value"), ("lower_value", "lower"), ("upper_value", "upper")):
        if key in entry:
            attrs += f' data-{name}="{number(entry[key])}"'
    return f"<tr{attrs}>" + "".join(f"<td>{esc(c)}</td>" for c in cells) + "</tr>"


def timing_row(bench, measure, e):
    """A timing's row: its median and the rounds' min and max, as the BMF file has them."""
    return data_row(bench, measure, e, [bench, fmt(e["value"]), fmt(e.get("lower_value", 0)),
                                        fmt(e.get("upper_value", 0))])


def table(head, rows, cls="data"):
    return (f'<table class="{cls}"><tr>' + "".join(f"<th>{esc(h)}</th>" for h in head) +
            "</tr>" + "".join(rows) + "</table>")


def absent(fig_id, title, why):
    return f'<h2>{esc(title)}</h2><p class="absent" id="{fig_id}-absent">{esc(why)}</p>'


def figure(fig_id, title, svg, data, note=""):
    return (f'<h2>{esc(title)}</h2><figure id="{fig_id}">{svg}'
            f'<figcaption>{esc(note)}</figcaption><details><summary>figures</summary>'
            f'{data}</details></figure>')


def gnuplot(script, blocks, width=900, height=380):
    """SVG of gnuplot's SCRIPT, BLOCKS ({name: rows}) given as $name data blocks: no file
    beside the page, nothing left in /tmp."""
    # noenhanced: a program's or an action's name keeps its underscores (XDP_PASS, tc_ok),
    # which gnuplot's enhanced text would read as subscripts.
    text = (f"set terminal svg size {width},{height} noenhanced font 'sans,11' "
            "background '#ffffff'\n")
    for name, rows in blocks.items():
        text += f"${name} << EOD\n" + "\n".join(
            " ".join(str(c) for c in r) if r else "" for r in rows) + "\nEOD\n"
    text += "set output\nset grid ytics lc rgb '#dddddd'\nset key top left\n" + script
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "plot.gp")
        with open(path, "w") as f:
            f.write(text)
        try:
            out = subprocess.run(["gnuplot", path], capture_output=True, text=True,
                                 check=False)
        except FileNotFoundError:
            raise GnuplotMissing() from None
    if out.returncode:
        raise RuntimeError(f"gnuplot failed: {out.stderr.strip()}")
    # Inline: the XML prolog and doctype belong to a file of its own, not to a page.
    return re.sub(r"^.*?(?=<svg)", "", out.stdout, flags=re.S)


def label(s):
    """A name inside gnuplot's double quotes: no quote, no escape (the terminal reads no
    enhanced-text marks)."""
    return re.sub(r'["\\]', " ", str(s))


def medians_of(values):
    return bmf_entry(values) if values else None


# The page's parts, each returning HTML.

def recorded_rows(bmf_path):
    """The host, kernel, moment and commit measured.json holds for BMF_PATH: the page says
    where its figures were measured, as the file beside it does."""
    rec = recorded(bmf_path) or {}
    rows = [("host", rec.get("machine") or machine()), ("kernel", rec.get("kernel", "?")),
            ("when", rec.get("date", "?"))]
    if rec.get("commit"):
        rows.append(("commit", rec["commit"]))
    return rows


def settings_rows(names):
    """The settings of NAMES the run was given, as the script running it exports them."""
    return [(name, os.environ[name]) for name in names if os.environ.get(name)]


def header_table(title, rows):
    return (f"<h1>{esc(title)}</h1>" +
            table(["", ""], [f"<tr><td>{esc(k)}</td><td>{esc(v)}</td></tr>" for k, v in rows],
                  "header"))


def header(kind, bmf_path, samples_path, names, cap):
    objects = cost_report.objects_of(samples_path)
    rows = []
    if kind == "measure":
        rows.append(("program", names.get("prog", "?")))
        rows.append(("object", objects.get("prog", "?")))
    else:
        for arm in (gate.BASE, gate.CANDIDATE):
            rows.append((arm, f"{names.get(arm, '?')} ({objects.get(arm, '?')})"))
    rows += recorded_rows(bmf_path)
    if cap["read"]:
        rows.append(("capture", f"{cap['read']:,} frames read, {cap['run']:,} run"))
    rows += settings_rows(SETTINGS)
    title = ("cost: " + names.get("prog", "?") if kind == "measure" else
             f"cost-compare: {names.get(gate.BASE, '?')} against "
             f"{names.get(gate.CANDIDATE, '?')}")
    return header_table(title, rows)


def verifier(bmf, kind):
    rows = [data_row(bench, m, bmf[bench][m], [bench, m, fmt(bmf[bench][m]["value"])])
            for bench in sorted(bmf) if bench.startswith(cost_report.PROG)
            for m in cost_report.STATIC if m in bmf[bench]]
    if not rows:
        return absent("fig-verifier", "The verifier", "The run gave no verifier figures.")
    who = "the program's" if kind == "measure" else "the candidate's"
    return (f'<h2>The verifier</h2><div id="fig-verifier"><p>{who} figures (exact), on '
            "this kernel and each of the matrix's (cost/prog@KERNEL)</p>" +
            table(["benchmark", "measure", "value"], rows) + "</div>")


def errorbar_plot(names, sides, ylabel):
    """Points with min-max bars, one series per side: SIDES [(title, [entry or None])]."""
    rows = []
    for i, name in enumerate(names):
        row = [i, f'"{label(name)}"']
        for _, entries in sides:
            e = entries[i]
            row += ([e["value"], e.get("lower_value", e["value"]),
                     e.get("upper_value", e["value"])] if e else ["NaN"] * 3)
        rows.append(row)
    width = 0.3 / max(1, len(sides) - 1)
    plots = [f"$d using ($1{(k - (len(sides) - 1) / 2) * width:+.3f}):{3 + 3 * k}:{4 + 3 * k}:"
             f"{5 + 3 * k}{':xtic(2)' if not k else ''} with yerrorbars pt 7 ps 0.8 "
             f"lc rgb '{COLOURS[k]}' title \"{label(title)}\""
             for k, (title, _) in enumerate(sides)]
    script = (f"set ylabel '{ylabel}'\nset xtics rotate by -30\nset xrange [-0.5:"
              f"{len(names) - 0.5}]\nset yrange [0:*]\nset bmargin 6\nplot " + ", ".join(plots))
    return gnuplot(script, {"d": rows})


def shapes(bmf, kind, samples, order, bare):
    """Each frame shape (and all of them summed): the program against bare, or the
    candidate against the base, median and the rounds' min and max."""
    benches = cost_report.shapes_of(order) + [cost_report.ALL]
    benches = [b for b in benches if "latency" in bmf.get(b, {})]
    if not benches:
        return absent("fig-shapes", "Frame shapes", "No frame shape was timed.")
    if kind == "measure":
        other, other_title = [bmf.get(f"{b}/{bare}", {}).get("latency") for b in benches], bare
        title = "the program"
    else:
        other = [medians_of(samples[gate.BASE].get((b, "latency"))) for b in benches]
        other_title, title = "base", "candidate"
    mine = [bmf[b]["latency"] for b in benches]
    # The sum over the shapes is in the table, not the figure: drawn, it sets the scale
    # and flattens every shape beside it.
    drawn = [i for i, b in enumerate(benches) if b != cost_report.ALL] or [0]
    svg = errorbar_plot([benches[i][len("cost/"):] for i in drawn],
                        [(other_title, [other[i] for i in drawn]),
                         (title, [mine[i] for i in drawn])], "ns/run")
    rows = [timing_row(b, "latency", e) for b, e in zip(benches, mine)]
    if kind == "measure":
        rows += [timing_row(f"{b}/{bare}", "latency", e) for b, e in zip(benches, other) if e]
    return figure("fig-shapes", "Frame shapes", svg,
                  table(["benchmark", "median ns/run", "min", "max"], rows),
                  f"Each shape's median over the rounds, its bar the rounds' min to max: "
                  f"{title} beside {other_title}; the sum over the shapes (cost/all) in the "
                  "table alone.")


def thin(frames):
    """The frames drawn (module doc): all above p99, the rest's min and max per bucket."""
    if len(frames) <= 2 * BUCKETS:
        return frames
    p99 = quantile(sorted(f[1] for f in frames), 0.99)
    kept = [f for f in frames if f[1] > p99]
    rest = [f for f in frames if f[1] <= p99]
    size = -(-len(rest) // BUCKETS)
    for i in range(0, len(rest), size):
        bucket = rest[i:i + size]
        kept += {min(bucket, key=lambda f: f[1]), max(bucket, key=lambda f: f[1])}
    return sorted(kept)


def quantile(ordered, q):
    """The q quantile of ORDERED by nearest rank, as cost_replay.c takes the p99 it prints."""
    k = int(q * len(ordered) + 0.999999)
    return ordered[k - 1 if k else 0]


def cost_axis(axis, values):
    """AXIS's scale for costs VALUES: logarithmic where they span more than a decade (a few
    costly frames among many cheap ones), else linear from 0, since a log axis within one
    decade gets no labelled tic."""
    values = [v for v in values if v > 0]
    if values and max(values) > 10 * min(values):
        return f"set logscale {axis}\n"
    return f"set {axis}range [0:*]\n"


def capture_order(cap, kind, bare, action_name):
    """Each frame's cost in the capture's order: the program's by action, bare's beneath."""
    if kind == "measure":
        mine = cap["frames"].get("prog", [])
        series = [(f"bare {bare}", thin(cap["frames"].get(bare, [])))]
        actions = sorted({a for _, _, a in mine})
        drawn = thin(mine)
        series += [(action_name(a), [f for f in drawn if f[2] == a]) for a in actions]
    else:
        series = [(arm, thin(cap["frames"].get(arm, []))) for arm in (gate.BASE, gate.CANDIDATE)]
        mine = cap["frames"].get(gate.CANDIDATE, [])
    # cost_run's own costliest (by their median), whose summaries the table shows.
    top = cap["costliest"].get("prog" if kind == "measure" else gate.CANDIDATE, [])
    blocks = {f"s{k}": [[i, ns] for i, ns, _ in frames] or [["NaN", "NaN"]]
              for k, (_, frames) in enumerate(series)}
    if top:
        blocks["top"] = [[i, ns, f'"{i}"'] for i, ns, _, _ in top[:LABELLED]]
    colours = ["#bbbbbb"] + COLOURS if kind == "measure" else COLOURS
    plots = [f"$s{k} using 1:2 with points pt 7 ps 0.4 lc rgb '{colours[k % len(colours)]}' "
             f"title \"{label(title)}\"" for k, (title, _) in enumerate(series)]
    if top:
        plots.append("$top using 1:2:3 with labels offset 0,0.8 font 'sans,9' notitle")
    script = ("set key outside right top\nset xlabel 'frame (capture order)'\n"
              "set ylabel 'ns/frame (median of the rounds)'\n" +
              cost_axis("y", [ns for _, frames in series for _, ns, _ in frames]) +
              "plot " + ", ".join(plots))
    drawn = sum(len(f) for _, f in series)
    return gnuplot(script, blocks), drawn, top


def cdf_points(frames):
    """(ns, fraction) of the CDF: CDF_POINTS quantiles to p99, every frame above it."""
    ordered = sorted(ns for _, ns, _ in frames)
    n = len(ordered)
    if n <= 2 * CDF_POINTS:
        return [(v, (i + 1) / n) for i, v in enumerate(ordered)]
    cut = int(0.99 * n)
    pts = [(ordered[int(k * cut / CDF_POINTS)], (int(k * cut / CDF_POINTS) + 1) / n)
           for k in range(CDF_POINTS)]
    return pts + [(v, (i + 1) / n) for i, v in enumerate(ordered) if i >= cut]


def capture_figures(bmf, kind, cap, bare, action_name):
    if not cap["read"]:
        return absent("fig-capture", "The capture", "No capture: the run was given no PCAP.")
    arm = "prog" if kind == "measure" else gate.CANDIDATE
    if not cap["frames"].get(arm):
        return absent("fig-capture", "The capture", "The capture's frames were not timed "
                      "(every frame refused).")
    svg, drawn, top = capture_order(cap, kind, bare, action_name)
    total = len(cap["frames"][arm])
    rows = [f'<tr data-frame="{i}" data-ns="{number(ns)}"><td>{i}</td><td>{ns:g}</td>'
            f"<td>{esc(action_name(int(a)))}</td><td>{esc(summary)}</td></tr>"
            for i, ns, a, summary in top]
    thinned = (f"{drawn:,} points drawn: every frame above p99, and of the rest each of "
               f"{BUCKETS:,} buckets' cheapest and costliest, each side" if drawn < 2 * total else
               "every frame drawn")
    out = figure("fig-capture", "The capture, frame by frame", svg,
                 table(["frame", "ns", "action", "summary"], rows),
                 f"Each frame's median ns over the rounds, in the capture's order "
                 f"({total:,} frames; {thinned}), the {min(len(top), LABELLED)} costliest "
                 "labelled with their index; the figures: the costliest with their summaries.")
    sides = ([(f"bare {bare}", bare), ("the program", "prog")] if kind == "measure" else
             [("base", gate.BASE), ("candidate", gate.CANDIDATE)])
    blocks = {f"c{k}": [[ns, p] for ns, p in cdf_points(cap["frames"].get(a, []))] or
              [["NaN", "NaN"]] for k, (_, a) in enumerate(sides)}
    plots = [f"$c{k} using 1:2 with steps lw 2 lc rgb '{COLOURS[k]}' title \"{label(t)}\""
             for k, (t, _) in enumerate(sides)]
    svg = gnuplot("set xlabel 'ns/frame'\nset ylabel 'fraction of frames'\n" +
                  cost_axis("x", [r[0] for rows in blocks.values() for r in rows
                                  if r[0] != "NaN"]) +
                  "set yrange [0:1.02]\nset key bottom right\nplot " + ", ".join(plots),
                  {k: v for k, v in blocks.items()}, height=320)
    rows = []
    for b in capture.BENCHES:
        for bench in (b, f"{b}/{bare}") if kind == "measure" else (b,):
            e = bmf.get(bench, {}).get("latency")
            if e:
                rows.append(timing_row(bench, "latency", e))
    return out + figure("fig-capture-cdf", "The capture's cost per frame, distributed", svg,
                        table(["benchmark", "median ns/frame", "min", "max"], rows),
                        "The share of frames at or under each cost (each frame's median over "
                        "the rounds); the table: the BMF file's mean and quantiles, each the "
                        "median of the rounds' own.")


def chain_figure(bmf, kind, samples, samples_path, action_name):
    """A chain's hops (cost_chain_report.py): each hop's own ns per frame that reaches it and
    the tail call's, median and the rounds' min and max, and the path each shape took."""
    arm = "prog" if kind == "measure" else gate.CANDIDATE
    names = chain.hops_in(samples[arm])
    if not names:
        return absent("fig-chain", "The chain, hop by hop", "No chain: the program "
                      "tail-calls no filled prog array slot, a chain of one.")
    benches = [chain.HOP + h for h in names] + [chain.TAIL]
    mine = [bmf.get(b, {}).get("latency") or medians_of(samples[arm].get((b, "latency")))
            for b in benches]
    sides = [("the program" if kind == "measure" else "candidate", mine)]
    if kind == "compare":
        sides.insert(0, ("base", [medians_of(samples[gate.BASE].get((b, "latency")))
                                  for b in benches]))
    svg = errorbar_plot([b[len(chain.HOP):] if b.startswith(chain.HOP) else "tail call"
                         for b in benches], sides, "ns/frame")
    # The check: the hops and tail calls added up over the shapes, beside cost/all's whole.
    benches.append(chain.SUM)
    mine.append(bmf.get(chain.SUM, {}).get("latency"))
    rows = [timing_row(b, "latency", e) for b, e in zip(benches, mine) if e]
    hops, fell = chain.load(samples_path, arm)
    paths = [f"<tr><td>{esc(shape)}</td><td>{esc(' > '.join(path))}</td><td>" +
             esc(action_name(action) + (f", fell through at empty {fell[shape]}"
                                        if shape in fell else "")) + "</td></tr>"
             for shape, path, action in hops]
    return figure("fig-chain", "The chain, hop by hop", svg,
                  table(["benchmark", "median ns/frame", "min", "max"], rows) +
                  table(["shape", "hops", "action"], paths),
                  "Each hop's own ns per frame that reaches it (the chain cut after it less "
                  "the chain cut before it, less a tail call) and the tail call's, median of "
                  "the rounds, bars the rounds' min to max; the figures: the path each shape "
                  "took and its action.")


def chain_cpus_figure(bmf):
    """A chain's hops on the CPU curve (cost_chain_report.py): each hop's own ns per frame
    that reaches it, and the tail call's, with N CPUs running the chain at once; "" where the
    run has none (no chain, or a compare, which shows no hop on the curve)."""
    found = {}
    for bench in bmf:
        m = chain.CURVE.match(bench)
        if m and m["what"] != "chain/hop-sum" and "latency" in bmf[bench]:
            found.setdefault(m["what"], {})[int(m["n"])] = bench
    if not any(w.startswith("hop/") for w in found):
        return ""
    counts = sorted(set().union(*found.values()))
    whats = [w for w in found if w.startswith("hop/")] + [w for w in found if w == "tail-call"]
    sides = [(w[len("hop/"):] if w.startswith("hop/") else "tail call",
              [bmf[found[w][n]]["latency"] if n in found[w] else None for n in counts])
             for w in whats]
    data = [timing_row(found[w][n], "latency", bmf[found[w][n]]["latency"])
            for w in whats for n in counts if n in found[w]]
    return figure("fig-chain-cpus", "The chain's hops on the CPU curve",
                  curve_svg(counts, sides, "ns/frame"),
                  table(["benchmark", "median ns/frame", "min", "max"], data),
                  "Each hop's own ns per frame that reaches it, and the tail call's, with N "
                  "CPUs running the chain at once, cut as on one CPU; median of the rounds, "
                  "bars min to max. A hop that shares a value, lock or ring climbs.")


def cpus_figure(bmf, kind, samples, bare):
    # The whole program's curve alone: not the bare program's rows, nor a chain's hops.
    counts = sorted({int(m["n"]) for b in bmf for m in [gate.CPUS_BENCH.match(b)]
                     if m and m["prefix"] == cost_report.CPUS[0] and not m["suffix"]})
    if not counts:
        return absent("fig-cpus", "The CPU curve", "No CPU curve: the run measured none "
                      "(FBF_COST_ROUNDS=0 leaves it out).")
    benches = [gate.cpus_bench(cost_report.CPUS, n) for n in counts]
    if kind == "measure":
        measure, ylabel = "latency", "ns/run"
        sides = [(f"bare {bare}", [bmf.get(f"{b}/{bare}", {}).get("latency") for b in benches],
                  [f"{b}/{bare}" for b in benches]),
                 ("the program", [bmf[b].get("latency") for b in benches], benches)]
    else:
        measure, ylabel = "scaling", "times its cost on one CPU"
        sides = [("base", [medians_of(samples[gate.BASE].get((b, "scaling")))
                           for b in benches], None),
                 ("candidate", [bmf[b].get("scaling") for b in benches], benches)]
    svg = curve_svg(counts, [(t, entries) for t, entries, _ in sides], ylabel)
    data = [timing_row(name, measure, e) for _, entries, names in sides if names
            for name, e in zip(names, entries) if e]
    return figure("fig-cpus", "The CPU curve", svg,
                  table(["benchmark", f"median {ylabel}", "min", "max"], data),
                  "The workload on N CPUs at once, median of the rounds, bars min to max.")


def curve_svg(counts, sides, ylabel, xtics=None):
    """A CPU curve: each side's median on each of COUNTS CPUs, bars min to max; SIDES
    [(title, [entry or None per count])], XTICS the counts' labels where not the counts."""
    rows = [[[n] + ([e["value"], e.get("lower_value", e["value"]),
                     e.get("upper_value", e["value"])] if e else ["NaN"] * 3)
             for n, e in zip(counts, entries)] for _, entries in sides]
    plots = [f"$p{k} using 1:2:3:4 with yerrorlines pt 7 lc rgb '{COLOURS[k % len(COLOURS)]}' "
             f"title \"{label(t)}\"" for k, (t, _) in enumerate(sides)]
    # A tic's label is a format for its position too: a share's "%" doubled to read as one.
    tics = ", ".join(f'"{label(t)}" {n}'.replace("%", "%%")
                     for n, t in zip(counts, xtics or counts))
    return gnuplot(f"set xlabel 'CPUs at once'\nset ylabel '{ylabel}'\nset yrange [0:*]\n"
                   f"set offsets 0.3, 0.3, 0, 0\nset xtics ({tics})\nplot " + ", ".join(plots),
                   {f"p{k}": r for k, r in enumerate(rows)}, height=320)


# What became of the live part's frames, each outcome's colour (cost_report.LIVE_ACTIONS
# names them): passing green, the stopping kinds red to brown, sending on blue to purple.
LIVE_COLOURS = {"passed": "#2ca02c", "dropped": "#d62728", "redirected": "#9467bd",
                "tx": "#1f77b4", "tx-failed": "#8c564b", "stopped": "#ff7f0e",
                "veth-dropped": "#7f7f7f"}
# The frames no counter gave an outcome for (skb mode, nothing attached).
UNCOUNTED = "#cccccc"


def live_arms(bmf, bare):
    """The live part's benchmarks, each with its bar's name (its lines), in the page's
    order: nothing attached, then each mode's bare program and the program."""
    benches = [b for b in bmf if b.startswith("cost/live/") and "throughput" in bmf[b]]
    modes = sorted({b.rsplit("-", 1)[1] for b in benches if "-" in b[len("cost/live/"):]})
    arms = [("cost/live/none", ["nothing", "attached"])]
    for mode in modes:
        arms += [(f"cost/live/{bare}-{mode}", [f"bare {bare}", mode]),
                 (f"cost/live/prog-{mode}", ["the program", mode])]
    return [(b, name) for b, name in arms if b in benches]


def live_figure(bmf, bare):
    """The live part: each arm's frames per second (median of the floods), its bar split by
    what became of the frames, as the counters' shares of them say."""
    benches = sorted(b for b in bmf if b.startswith("cost/live/"))
    if not benches:
        return absent("fig-live", "Live: frames through a veth",
                      "No live part (FBF_COST_LIVE_ROUNDS=0, or a compare).")
    arms = live_arms(bmf, bare)
    outcomes = [(a, said) for a, said in cost_report.LIVE_ACTIONS
                if any(f"{a}-percent" in bmf[b] for b, _ in arms)]
    rows, tops = [], []
    for i, (b, _) in enumerate(arms):
        fps = bmf[b]["throughput"]["value"]
        shares = [bmf[b].get(f"{a}-percent", {}).get("value", 0) for a, _ in outcomes]
        # What the shares leave: frames no counter saw, all of them where none counts.
        rest = max(0.0, 100 - sum(shares))
        rows.append([i] + [fps * v / 100 for v in shares + [rest]])
        tops.append([i, fps, f'"{fps:,.0f}"'])
    plots = [f"$d using {2 + k} title \"{label(said)}\" lc rgb '{LIVE_COLOURS[a]}'"
             for k, (a, said) in enumerate(outcomes)]
    plots.append(f"$d using {2 + len(outcomes)} title \"not counted\" lc rgb '{UNCOUNTED}'")
    plots.append("$top using 1:2:3 with labels offset 0,0.7 font 'sans,10' notitle")
    # A tic's lines joined by gnuplot's own "\\n", which label() would take out.
    tics = ", ".join('"' + "\\n".join(label(t) for t in name) + f'" {i}'
                     for i, (_, name) in enumerate(arms))
    svg = gnuplot("set style data histograms\nset style histogram rowstacked\n"
                  "set style fill solid 0.9 border rgb '#ffffff'\nset boxwidth 0.6\n"
                  "set key outside right top\nset ylabel 'frames/s (median of the floods)'\n"
                  # Room above the highest bar for its figure.
                  f"set format y '%.1s%c'\nset yrange [0:{1.12 * max(t[1] for t in tops)}]\n"
                  f"set xrange [-0.5:{len(arms) - 0.5}]\nset xtics nomirror ({tics})\n"
                  "set bmargin 4\n"
                  "plot " + ", ".join(plots), {"d": rows, "top": tops}, height=340)
    data = [data_row(b, m, bmf[b][m], [b, m, f"{bmf[b][m]['value']:g}"])
            for b in benches for m in sorted(bmf[b])]
    return figure("fig-live", "Live: frames through a veth", svg,
                  table(["benchmark", "measure", "median"], data),
                  "Each arm's frames per second through the veth, the median of the floods "
                  "(on its bar), split by what became of them: each outcome's share of the "
                  "frames, as the counters gave it (grey where none counts: skb mode, nothing "
                  "attached; on TC, frames the stack does not count, not unicast IP, read as "
                  "stopped, as the table's note says); the figures: these, ns per packet and "
                  "each share.")


def changes(bmf, rows, verdicts=None):
    """A compare's timings: each change with its 95% interval, and the table's verdicts
    (VERDICTS {(bench, measure): verdict} where ROWS are not cost_report.py's)."""
    # An exact measure's change has no interval (the gate's): its table shows it.
    judged = [(b, m[:-len("-change-percent")], bmf[b][m]) for b in bmf for m in bmf[b]
              if m.endswith("-change-percent") and "lower_value" in bmf[b][m]]
    if not judged:
        return absent("fig-changes", "Changes", "No timing was judged.")
    if verdicts is None:
        verdicts = {(r[0], "latency" if r[1] != "x 1 CPU" else "scaling"): r[-1] for r in rows
                    if len(r) == 8 and r[4].endswith("]")}
    # A regression reads at a glance: red; an improvement green; the rest blue.
    colour = {"regressed": 0xd62728, "improved": 0x2ca02c}
    # An interval over a base of 0 (an idle agent's wakeups, the gate's) reaches 1e11%
    # and would flatten every other bar: drawn cut at LIMIT, the table holds it whole.
    limit = max(100.0, 2 * max(abs(e["value"]) for _, _, e in judged))

    def cut(v):
        return max(-limit, min(limit, v))
    blocks = {"d": [[i, e["value"], cut(e["lower_value"]), cut(e["upper_value"]),
                     colour.get(verdicts.get((b, m)), 0x1f77b4)]
                    for i, (b, m, e) in enumerate(judged)]}
    svg = gnuplot("set xlabel 'change, candidate over base (%)'\nunset key\nset ytics ("
                  + ", ".join(f'"{label(b.removeprefix("cost/"))}" {i}'
                              for i, (b, _, _) in enumerate(judged)) +
                  f")\nset yrange [-0.5:{len(judged) - 0.5}]\nset arrow from 0, graph 0 to 0, "
                  "graph 1 nohead lc rgb '#888888'\nset lmargin 28\n"
                  "plot $d using 2:1:3:4:5 with xerrorbars pt 7 lc rgb variable",
                  blocks, height=60 + 28 * len(judged))
    data = [data_row(b, f"{m}-change-percent", e,
                     [b, m, f"{e['value']:+.1f}%", f"[{e['lower_value']:+.1f}, "
                      f"{e['upper_value']:+.1f}]", verdicts.get((b, m), "")])
            for b, m, e in judged]
    table_rows = "".join("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in r) + "</tr>"
                         for r in rows)
    return (figure("fig-changes", "What moved", svg,
                   table(["benchmark", "measure", "change", "95% interval", "verdict"], data),
                   "Each timing's change, the median of the paired per-round changes, its "
                   f"bar the 95% bootstrap interval (drawn to ±{limit:g}% at most); red: "
                   "regressed, green: improved.") +
            '<h2>The table</h2><div id="fig-verdicts">' +
            table(["benchmark", "measure", "base", "candidate", "change", "A/A", "threshold",
                   "verdict"], [table_rows]) + "</div>")


LISTED = re.compile(r"^\s*(?P<share>[\d.]+%|-)\s{2}(?P<file>.+?):(?P<line>\d+)\s{2}"
                    r"(?P<text>.*?)(?:   \[(?P<called>[^\]]*)\])?$")


def read_listing(path):
    """cost_lines.py's listing: [(function, [(file, line, share or None, text, called)])]."""
    funcs = []
    with open(path) as f:
        for row in f:
            row = row.rstrip("\n")
            if not row or row.startswith("#"):
                continue
            m = LISTED.match(row)
            if m:
                share = None if m["share"] == "-" else float(m["share"][:-1])
                funcs[-1][1].append((m["file"], int(m["line"]), share, m["text"],
                                     m["called"] or ""))
            else:
                funcs.append((row, []))
    return funcs


def source_lines(path):
    try:
        with open(path, errors="replace") as f:
            return f.read().split("\n")
    except OSError:
        return None


def with_context(listed):
    """A function's lines with the source's lines between them, where the file is readable:
    the hot lines read in their place. [(file, line, share, text, called, sampled?)]"""
    out, seen = [], set()
    for file, line, share, text, called in listed:
        out.append((file, line, share, text, called))
        seen.add((file, line))
    by_file = {}
    for file, line, *_ in listed:
        if line:
            lo, hi = by_file.get(file, (line, line))
            by_file[file] = (min(lo, line), max(hi, line))
    for file, (lo, hi) in by_file.items():
        text = source_lines(file)
        if text is None:
            continue
        out += [(file, n, None, text[n - 1], "") for n in range(lo, min(hi, len(text)) + 1)
                if (file, n) not in seen]
    # Line 0 (code the compiler made) stays first, as the listing puts it.
    return sorted(out, key=lambda r: (r[0], r[1]))


def lines_section(bmf, out_dir, kind):
    names = ["cost-lines.txt"] if kind == "measure" else ["cost-lines-base.txt",
                                                         "cost-lines-candidate.txt"]
    paths = [os.path.join(out_dir, n) for n in names if os.path.exists(os.path.join(out_dir, n))]
    if not paths:
        return absent("fig-lines", "Hot lines", "No hot lines: run with LINES=1 "
                      "(FBF_COST_LINES=1), on an object with line info.")
    out = '<h2>Hot lines</h2><div id="fig-lines">'
    for path in paths:
        mine = path.endswith(("cost-lines.txt", "-candidate.txt"))
        out += f"<h3>{esc(os.path.basename(path))}</h3>"
        for func, listed in read_listing(path):
            rows = []
            for file, line, share, text, called in with_context(listed):
                bench = f"cost/lines/{file}:{line}"
                e = bmf.get(bench, {}).get("sample-percent") if mine else None
                value = e["value"] if e else share
                # Shaded by share, never so dark that the line cannot be read.
                alpha = 0.1 + 0.6 * min(1.0, (value or 0) / 100)
                shade = f' style="background:rgba(214,39,40,{alpha:.3f})"' if value else ""
                cells = (f"<td>{'' if value is None else f'{value:.2f}%'}</td>"
                         f"<td>{esc(file)}:{line}</td><td>{esc(text)}</td>"
                         f"<td>{esc(called)}</td>")
                attrs = (f' data-bench="{esc(bench)}" data-measure="sample-percent" '
                         f'data-value="{number(e["value"])}"' if e else "")
                rows.append(f"<tr{attrs}{shade}>{cells}</tr>")
            out += f"<h4>{esc(func)}</h4>" + table(["share", "line", "source", "called"],
                                                   rows, "lines")
    return out + moved_lines(bmf) + "</div>"


def moved_lines(bmf):
    """A compare's lines that rose and fell beyond the sampling's noise (cost_lines.py's
    points, the candidate's line where it has one), red up, green down."""
    moved = sorted(((b, bmf[b]["points"]) for b in bmf
                    if b.startswith("cost/lines/") and "points" in bmf[b]),
                   key=lambda m: -m[1]["value"])
    if not moved:
        return ""
    rows = [data_row(b, "points", e, [b[len("cost/lines/"):], f"{e['value']:+.1f}"])
            .replace("<tr", '<tr style="color:#%s"' % ("d62728" if e["value"] > 0
                                                       else "2ca02c"), 1)
            for b, e in moved]
    return ("<h3>The lines that moved</h3><p>points: the line's samples in the candidate "
            "less those in the base, in percent of the base's samples; rose first.</p>" +
            table(["line", "points"], rows))


def page(kind, out_dir, samples_path, rows=(), closing=""):
    bmf_path = os.path.join(out_dir, BMF[kind])
    with open(bmf_path) as f:
        bmf = json.load(f)
    samples, names, order, _, actions = cost_report.load(samples_path)
    gate.add_scaling(samples)
    cap = capture.load(samples_path)
    bare = next((arm for arm in names if arm not in ("prog", gate.BASE, "base-again",
                                                     gate.CANDIDATE)), "bare")
    arm = "prog" if kind == "measure" else gate.CANDIDATE
    parts = [header(kind, bmf_path, samples_path, names, cap)]
    if closing:
        parts.append(verdict_line(closing))
    parts.append(verifier(bmf, kind))
    if kind == "compare":
        parts.append(changes(bmf, rows))
    parts += [shapes(bmf, kind, samples, order, bare),
              capture_figures(bmf, kind, cap, bare,
                              lambda v: cost_report.action_name(v, actions[arm])),
              chain_figure(bmf, kind, samples, samples_path,
                           lambda v: cost_report.action_name(v, actions[arm])),
              cpus_figure(bmf, kind, samples, bare), chain_cpus_figure(bmf)]
    if kind == "measure":
        parts.append(live_figure(bmf, bare))
    parts.append(lines_section(bmf, out_dir, kind))
    return document(BMF[kind], parts)


def document(title, parts):
    """The page around PARTS: one file, its style inside it."""
    return ('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
            f"<title>{esc(title)}</title><style>{STYLE}</style></head><body>" +
            "\n".join(parts) + "</body></html>\n")


def verdict_line(closing):
    """The verdict as the run's last line says it, first thing on the page."""
    return f'<p id="verdict"><b>{esc(closing)}</b></p>'


def write(kind, out_dir, samples_path, rows=(), closing=""):
    """OUT_DIR/cost.html from the run's files; its path, or None and one line said."""
    return save(out_dir, lambda: page(kind, out_dir, samples_path, rows, closing))


def save(out_dir, make):
    """OUT_DIR/cost.html, MAKE's page (every family's): its path, or None and one line said
    where gnuplot is missing."""
    path = os.path.join(out_dir, NAME)
    try:
        text = make()
    except GnuplotMissing:
        # An earlier run's page would read as this run's.
        if os.path.exists(path):
            os.remove(path)
        print("cost: gnuplot is missing, so no HTML report: install it with make deps-bench "
              "(Debian's gnuplot-nox)")
        return None
    with open(path, "w") as f:
        f.write(text)
    return path


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in BMF:
        sys.exit(__doc__)
    path = write(sys.argv[1], sys.argv[2], sys.argv[3])
    if path:
        print(f"HTML report: {path}")
    return 0 if path else 1


if __name__ == "__main__":
    sys.exit(main())
