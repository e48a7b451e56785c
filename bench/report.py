#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Turn raw benchmark output into a table on stdout and a Bencher Metric Format file.

  report.py gbench GBENCH.json BMF.json      Google Benchmark JSON (micro timing)
  report.py callgrind DIR BMF.json           callgrind.out files named BATCH__VARIANT.out
  report.py samples SAMPLES.tsv BMF.json     rows "benchmark<TAB>measure<TAB>value"
  report.py designs LIVE.bmf.json -          macro_live.sh's figures, one row per way of
                                             reporting (arm) and traffic, side by side
  report.py peers PEERS.bmf.json -           peers.sh's figures: each arm on the receiving
                                             veth, beside nothing attached
  report.py curve CURVE.bmf.json DIR         curve_test_run.sh's and curve_flood.sh's figures:
                                             each design as CPUs are added, tables and a text
                                             plot on stdout, the plots as SVG in DIR
  report.py figures RESULTS_DIR OUT.md       every BMF file there as tables, each with the
                                             machine, kernel, date and commit it came from

BMF: {"BENCH": {"MEASURE": {"value": V, "lower_value": L, "upper_value": U}}}, as read by
`bencher run --adapter json --file BMF.json`. Timings are reported as the median of the
repetitions with their minimum and maximum as bounds; counts are exact and have no bounds.
"""
import json
import os
import platform
import statistics
import subprocess
import sys
from collections import defaultdict

from measured_on import MEASURED_FILE, machine, measured_on_line, record, recorded

# Estimated cycles from callgrind's cache simulation, the weights Iai uses.
LL_HIT_CYCLES = 5
RAM_HIT_CYCLES = 35


def bmf_entry(values):
    """A BMF measure from one exact value or from repeated samples."""
    if len(values) == 1:
        return {"value": values[0]}
    return {"value": statistics.median(values), "lower_value": min(values),
            "upper_value": max(values)}


def fmt(value):
    """A figure as a table shows it: whole above a thousand, else four significant digits."""
    if abs(value) >= 1000 or float(value).is_integer():
        return f"{value:.0f}"
    return f"{value:.4g}"


def write_json(path, data):
    with open(path, "w") as out:
        json.dump(data, out, indent=2, sort_keys=True)
        out.write("\n")


def write_bmf(path, bmf, host=None):
    write_json(path, bmf)
    record(path, host)
    print(f"\nBencher Metric Format: {path}")


def print_table(header, rows):
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    for row in [header] + rows:
        print("  ".join(str(c).rjust(w) if i else str(c).ljust(w)
                        for i, (c, w) in enumerate(zip(row, widths))))


def ratio_rows(medians, slow, fast):
    """Rows comparing every benchmark ending in /SLOW with its /FAST sibling."""
    rows = []
    for name in sorted(medians):
        if name.endswith("/" + fast):
            other = name[: -len(fast)] + slow
            if other in medians and medians[name] > 0:
                rows.append([name[: -len(fast) - 1], f"{medians[other] / medians[name]:.2f}x"])
    return rows


def report_gbench(src, dst):
    with open(src) as f:
        runs = json.load(f)["benchmarks"]
    samples = defaultdict(list)
    for run in runs:
        if run.get("run_type") == "iteration":
            samples[run["run_name"]].append(run["ns_per_addr"] * 1e9)
    rows, bmf, medians = [], {}, {}
    for name in sorted(samples):
        vals = samples[name]
        medians[name] = statistics.median(vals)
        spread = (max(vals) - min(vals)) / medians[name] * 100
        rows.append([name, f"{medians[name]:.3f}", f"{min(vals):.3f}", f"{max(vals):.3f}",
                     f"{spread:.1f}%", len(vals)])
        bmf[f"classifier/{name}"] = {"latency": bmf_entry(vals)}
    print("Classifier, wall clock, ns per address (median of repetitions)\n")
    print_table(["benchmark", "median", "min", "max", "spread", "reps"], rows)
    print("\nv3 loop / shipped classifier, same run\n")
    print_table(["batch", "v3 / v4"], ratio_rows(medians, "v3", "v4"))
    write_bmf(dst, bmf)


def parse_callgrind(path):
    """Event totals of one callgrind output file."""
    events = summary = None
    with open(path) as f:
        for line in f:
            if line.startswith("events:"):
                events = line.split()[1:]
            elif line.startswith("summary:"):
                summary = [int(v) for v in line.split()[1:]]
    if not events or summary is None:
        sys.exit(f"report: no callgrind summary in {path}")
    summary += [0] * (len(events) - len(summary))
    return dict(zip(events, summary))


def callgrind_results(src):
    """Per batch and variant in DIR: table rows, BMF and estimated cycles."""
    rows, bmf, cycles = [], {}, {}
    for fname in sorted(os.listdir(src)):
        if not fname.endswith(".out"):
            continue
        batch, variant = fname[:-4].split("__")
        with open(os.path.join(src, fname[:-4] + ".len")) as f:
            length = int(f.read())
        ev = parse_callgrind(os.path.join(src, fname))
        accesses = ev["Ir"] + ev["Dr"] + ev["Dw"]
        l1_miss = ev["I1mr"] + ev["D1mr"] + ev["D1mw"]
        ram = ev["ILmr"] + ev["DLmr"] + ev["DLmw"]
        l1, ll = accesses - l1_miss, l1_miss - ram
        est = l1 + LL_HIT_CYCLES * ll + RAM_HIT_CYCLES * ram
        name = f"{batch}/{variant}"
        cycles[name] = est
        rows.append([name, ev["Ir"], f"{ev['Ir'] / length:.2f}", l1, ll, ram, est,
                     f"{est / length:.2f}"])
        bmf[f"classifier/{name}"] = {
            "instructions": {"value": ev["Ir"]},
            "l1-hits": {"value": l1},
            "ll-hits": {"value": ll},
            "ram-hits": {"value": ram},
            "estimated-cycles": {"value": est},
        }
    return rows, bmf, cycles


def report_callgrind(src, dst):
    rows, bmf, cycles = callgrind_results(src)
    print("Classifier, callgrind counts per batch (deterministic)\n")
    print_table(["benchmark", "instructions", "per addr", "L1 hits", "LL hits", "RAM hits",
                 "est. cycles", "per addr"], rows)
    print("\nv3 loop / shipped classifier, estimated cycles\n")
    print_table(["batch", "v3 / v4"], ratio_rows(cycles, "v3", "v4"))
    write_bmf(dst, bmf)


def report_samples(src, dst):
    """Samples of any measure; rows whose measure ends in _ns are timings."""
    samples = defaultdict(list)
    host = None
    with open(src) as f:
        for line in f:
            here = measured_on_line(line)
            if here and host and here != host:
                sys.exit(f"report.py: {src} holds rows of two hosts ({host[0]}, kernel {host[1]};"
                         f" {here[0]}, kernel {here[1]}): report each host's on its own")
            host = here or host
            if line.strip() and not line.startswith("#"):
                bench, measure, value = line.rstrip("\n").split("\t")
                samples[(bench, measure)].append(float(value))
    rows, bmf = [], {}
    for (bench, measure), vals in sorted(samples.items()):
        entry = bmf_entry(vals)
        bmf.setdefault(bench, {})[measure] = entry
        lo = entry.get("lower_value", entry["value"])
        hi = entry.get("upper_value", entry["value"])
        rows.append([bench, measure, f"{entry['value']:.2f}", f"{lo:.2f}", f"{hi:.2f}",
                     len(vals)])
    print_table(["benchmark", "measure", "median", "min", "max", "samples"], rows)
    write_bmf(dst, bmf, host)


# macro_live.sh's arms as the designs table names them; another arm shows its own name.
DESIGN_NAMES = {
    "xdp_pass": "XDP_PASS (bare)",
    "xdp_fizzbuzzfib": "queue, every event",
    "xdp_fizzbuzzfib-ringbuf": "ring, every event",
    "xdp_fizzbuzzfib-sample16": "queue, 1/16",
    "xdp_fizzbuzzfib-sample256": "queue, 1/256",
    "xdp_fizzbuzzfib-ringbuf-sample16": "ring, 1/16",
    "xdp_fizzbuzzfib-ringbuf-sample256": "ring, 1/256",
    "xdp_fizzbuzzfib-aggregate": "aggregate, 1 s",
}
DESIGN_TRAFFIC = ["http", "1-cpu", "2-cpu"]


def report_designs(src, _dst):
    """One row per arm and traffic of macro_live.sh's BMF: the medians side by side."""
    with open(src) as f:
        bmf = json.load(f)

    def value(bench, measure, form):
        entry = bmf.get(bench, {}).get(measure)
        return form.format(entry["value"]) if entry else "-"

    arms = {b.split("/")[2] for b in bmf
            if b.startswith("macro/flood/") and not b.startswith("macro/flood/overhead")}
    order = list(DESIGN_NAMES)
    arms = sorted(arms, key=lambda a: (order.index(a) if a in order else len(order), a))
    rows = []
    for arm in arms:
        suffix = arm[len("xdp_fizzbuzzfib"):] if arm != "xdp_pass" else None
        for traffic in DESIGN_TRAFFIC:
            if traffic == "http":
                bench, over = f"macro/live/{arm}", f"macro/live/overhead{suffix}"
            else:
                bench = f"macro/flood/{arm}/{traffic}"
                over = f"macro/flood/overhead{suffix}/{traffic}"
            if bench not in bmf:
                continue
            ratio = "1.00x" if suffix is None else value(over, "ratio", "{:.2f}x")
            rows.append([DESIGN_NAMES.get(arm, arm), traffic,
                         value(bench, "latency", "{:.1f}"), ratio,
                         value(bench, "lost", "{:.0f}"), value(bench, "lost-percent", "{:.2f}"),
                         value(bench, "agent-cpu-percent", "{:.2f}"),
                         value(bench, "agent-rss-kb", "{:.0f}"), value(bench, "map-kb", "{:.0f}"),
                         value(bench, "xdp-seen-percent", "{:.2f}"),
                         value(bench, "accounted-percent", "{:.2f}")])
    print("Designs side by side, medians of the rounds (ratio: of the same round's XDP_PASS;"
          "\nlost: events, or for aggregate counts (no_room); CPU: the agent's, % of one core"
          " over the flood;\nRSS: its peak; maps: bytes_memlock of its maps; XDP saw: IPv4"
          " frames XDP saw of those sent;\naccounted: the agent's totals of the frames XDP"
          " classified)\n")
    print_table(["design", "traffic", "ns/pkt", "ratio", "lost", "lost %", "CPU %", "RSS kB",
                 "maps kB", "XDP saw %", "accounted %"], rows)


# peers.sh's arms in the order its table shows them.
PEER_NAMES = {
    "none": "nothing attached",
    "xdp_pass-native": "bare XDP_PASS, native",
    "xdp_pass-skb": "bare XDP_PASS, skb",
    "agent-aggregate": "agent --aggregate 1",
    "agent-aggregate-skb": "agent --aggregate 1 --mode skb",
    "agent-sample256": "agent --sample 256",
    "softflowd": "softflowd",
    "pmacctd": "pmacctd",
}


def report_peers(src, _dst):
    """One row per arm and flood of peers.sh's BMF: the medians side by side."""
    with open(src) as f:
        bmf = json.load(f)

    def value(bench, measure, form, scale=1):
        entry = bmf.get(bench, {}).get(measure)
        return form.format(entry["value"] * scale) if entry else "-"

    order = list(PEER_NAMES)
    arms = sorted({b.split("/")[2] for b in bmf if b.startswith("macro/peers/")},
                  key=lambda a: (order.index(a) if a in order else len(order), a))
    rows = []
    for cpus in ("1-cpu", "2-cpu"):
        none = bmf.get(f"macro/peers/none/{cpus}", {}).get("throughput")
        for arm in arms:
            bench = f"macro/peers/{arm}/{cpus}"
            if bench not in bmf:
                continue
            rate = bmf[bench]["throughput"]["value"]
            rows.append([PEER_NAMES.get(arm, arm), cpus, value(bench, "throughput", "{:.0f}"),
                         f"{100 * rate / none['value']:.0f}" if none else "-",
                         value(bench, "counted-percent", "{:.2f}"),
                         value(bench, "meter-cpu-ms-per-mpkt", "{:.0f}"),
                         value(bench, "rx-cpu-ms-per-mpkt", "{:.0f}"),
                         value(bench, "pss-kb", "{:.1f}", 1 / 1024),
                         value(bench, "map-kb", "{:.1f}", 1 / 1024)])
    print("The flood with each arm on the receiving veth, medians of the rounds (frames/s: the"
          "\nflood's rate; of none: of the rate with nothing attached; counted: packets counted"
          " per\nsource of those sent; CPU: ms per million frames sent, the meter's own and"
          " softirq's;\nPSS and maps: the meter's memory and its maps' kernel memory, MB)\n")
    print_table(["on the veth", "flood", "frames/s", "of none %", "counted %", "meter CPU",
                 "rx CPU", "PSS MB", "maps MB"], rows)


# The CPU curve's arms in the order its tables show them.
CURVE_NAMES = {
    "none": "nothing attached",
    "xdp_pass": "bare XDP_PASS",
    "xdp_pass-skb": "bare XDP_PASS, skb",
    "xdp_pass-native": "bare XDP_PASS, native",
    "queue": "queue",
    "ring": "ring",
    "aggregate": "--aggregate 1",
    "sample64": "--sample 64",
}


def curve_series(bmf, part):
    """{arm: {cpus: {measure: value}}} of the curve's PART (test_run or flood)."""
    series = defaultdict(dict)
    for bench, measures in bmf.items():
        fields = bench.split("/")
        if len(fields) == 4 and fields[:2] == ["curve", part]:
            cpus = int(fields[3].split("-")[0])
            series[fields[2]][cpus] = {m: e["value"] for m, e in measures.items()}
    order = list(CURVE_NAMES)
    return {a: series[a] for a in sorted(series, key=lambda a: (
        order.index(a) if a in order else len(order), a))}


def curve_plot(series, measure, title, xlabel, svg, logscale, host):
    """One line per arm of MEASURE against CPUs: as text on stdout, and as SVG."""
    arms = list(series)
    counts = sorted({n for arm in arms for n in series[arm]})
    data = svg[:-len(".svg")] + ".dat"
    with open(data, "w") as f:
        for n in counts:
            f.write(f"{n}\t" + "\t".join(str(series[a].get(n, {}).get(measure, "NaN"))
                                       for a in arms) + "\n")
    lines = ", ".join(f"'{data}' using 1:{i + 2} with linespoints title '{CURVE_NAMES.get(a, a)}'"
                      for i, a in enumerate(arms))
    # noenhanced: names such as XDP_PASS as they are, not with a subscript.
    common = f"""
set termoption noenhanced
set title "{title}\\n{host}"
set xlabel '{xlabel}'
set logscale x 2
set xrange [{counts[0] / 1.25}:{counts[-1] * 1.25}]
set xtics ({", ".join(str(n) for n in counts)})
set key below width 2
set datafile missing 'NaN'
{"set logscale y" if logscale else ""}
"""
    # The text plot to gnuplot's stdout (ours), after what was printed before it.
    sys.stdout.flush()
    for terminal, output in (("dumb size 100,24", ""),
                             ("svg size 900,420 dynamic background rgb 'white'",
                              f"set output '{svg}'")):
        subprocess.run(["gnuplot"], check=True, text=True,
                       input=f"set terminal {terminal}\n{output}\n{common}\nplot {lines}\n")


def report_curve(src, outdir):
    """The designs as CPUs are added: curve_test_run.sh's and curve_flood.sh's medians."""
    with open(src) as f:
        bmf = json.load(f)
    os.makedirs(outdir, exist_ok=True)
    # The host that measured them, where the samples said it (a bundle's run), else this one.
    measured = recorded(src) or {"machine": machine(), "kernel": platform.release()}
    host = f"{measured['machine']}, kernel {measured['kernel']}"

    def cell(figures, measure, form):
        return form.format(figures[measure]) if measure in figures else "-"

    runs = curve_series(bmf, "test_run")
    rows = []
    for arm, by_n in runs.items():
        one = by_n.get(1, {}).get("latency")
        for n, fig in sorted(by_n.items()):
            rows.append([CURVE_NAMES.get(arm, arm), n, cell(fig, "latency", "{:.1f}"),
                         f"{fig['latency'] / one:.2f}x" if one else "-",
                         cell(fig, "throughput", "{:,.0f}"),
                         cell(fig, "delivered-per-s", "{:,.0f}"),
                         cell(fig, "lost-percent", "{:.1f}"),
                         cell(fig, "overlap-percent", "{:.0f}")])
    if rows:
        print(f"The program from N CPUs at once (BPF_PROG_TEST_RUN, the agent draining on its own"
              f" CPU), medians;\n{host}. x 1 CPU: ns per run against the same arm's on one CPU;"
              "\nruns/s: all CPUs together; delivered: events (or for --aggregate, frames counted"
              " and read) a second;\nlost: of those made; overlap: of the span the threads ran\n")
        print_table(["arm", "CPUs", "ns/run", "x 1 CPU", "runs/s", "delivered/s", "lost %",
                     "overlap %"], rows)
        print()
        curve_plot(runs, "latency", "ns per run (log scale)", "CPUs running it at once",
                   os.path.join(outdir, "curve-test_run.svg"), True, host)

    floods = curve_series(bmf, "flood")
    rows = []
    for arm, by_k in floods.items():
        for k, fig in sorted(by_k.items()):
            none = floods.get("none", {}).get(k, {}).get("throughput")
            of_pass = next((f"{v:.0f} ({m.split('-')[3]})" for m, v in fig.items()
                            if m.startswith("of-xdp-pass-")), "-")
            rows.append([CURVE_NAMES.get(arm, arm), k, cell(fig, "throughput", "{:,.0f}"),
                         f"{100 * fig['throughput'] / none:.0f}" if none else "-", of_pass,
                         cell(fig, "delivered-per-s", "{:,.0f}"),
                         cell(fig, "lost-per-s", "{:,.0f}"), cell(fig, "lost-percent", "{:.1f}")])
    if rows:
        print(f"\nA raw flood from K CPUs into a veth, each arm on its far end (the designs in the"
              f" agent's default mode,\ndraining on its own CPU), medians; {host}.\n"
              "of XDP_PASS: of the same round's bare XDP_PASS in the agent's mode; delivered and"
              " lost: events\n(or for --aggregate, frames counted and read, and no_room) a second"
              " of the flood\n")
        print_table(["arm", "K", "frames/s", "of none %", "of XDP_PASS %", "delivered/s",
                     "lost/s", "lost %"], rows)
        print()
        curve_plot(floods, "throughput", "frames/s the flood reached", "flood CPUs (K)",
                   os.path.join(outdir, "curve-flood.svg"), False, host)


# The order make bench writes them in; any other BMF file there follows, by name.
FIGURES_ORDER = ["micro-timing", "micro-count", "kernel", "parts", "live", "curve", "trickle",
                 "wake", "drain", "peers", "ifaces", "flood", "metrics", "scrape", "stop"]


def report_figures(src, dst):
    """The figures of a results directory as one page, each file under its host and date."""
    try:
        with open(os.path.join(src, MEASURED_FILE)) as f:
            measured = json.load(f)
    except OSError:
        sys.exit(f"report: no benchmark results in {src}: run make bench (or bench-micro, "
                 "bench-macro) first")
    rank = {name: i for i, name in enumerate(FIGURES_ORDER)}
    files = sorted(measured, key=lambda n: (rank.get(n[:-len(".bmf.json")], len(rank)), n))
    lines = ["# Benchmark figures", "",
             f"From `{os.path.abspath(src)}`. Each file's figures are of the host, kernel and "
             "moment named above its table, and compare only with figures measured beside "
             "them in the same run. value: the median of the samples (or the exact count); "
             "min and max: the samples' range.", ""]
    for name in files:
        path = os.path.join(src, name)
        if not os.path.exists(path):
            continue
        with open(path) as f:
            bmf = json.load(f)
        m = measured[name]
        lines += [f"## {name[:-len('.bmf.json')]}", "",
                  f"Measured on {m['machine']}, kernel {m['kernel']}, {m['date']}" +
                  (f", commit {m['commit']}." if m.get("commit") else "."), "",
                  "| benchmark | measure | value | min | max |", "|---|---|---|---|---|"]
        for bench in sorted(bmf):
            for measure, e in sorted(bmf[bench].items()):
                lines.append(f"| {bench} | {measure} | {fmt(e['value'])} | "
                             f"{fmt(e.get('lower_value', e['value']))} | "
                             f"{fmt(e.get('upper_value', e['value']))} |")
        lines.append("")
    os.makedirs(os.path.dirname(os.path.abspath(dst)), exist_ok=True)
    with open(dst, "w") as out:
        out.write("\n".join(lines))
    print(f"report: {len(files)} result files from {src} in {dst}")


def main():
    modes = {"gbench": report_gbench, "callgrind": report_callgrind,
             "samples": report_samples, "figures": report_figures, "designs": report_designs,
             "peers": report_peers, "curve": report_curve}
    if len(sys.argv) != 4 or sys.argv[1] not in modes:
        sys.exit(__doc__)
    modes[sys.argv[1]](sys.argv[2], sys.argv[3])


if __name__ == "__main__":
    main()
