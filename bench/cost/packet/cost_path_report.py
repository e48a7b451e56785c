# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The path's part of the cost tool's report (bench/cost/cost_report.py imports it).

A path (make cost TC=): the measured XDP program and a TC program after it on the veth's
ingress, flooded together by the live part (bench/cost/packet/cost_path.bash, whose rows,
benchmarks cost/path/MODE/xdp/PROG, cost/path/MODE/tc/PROG and cost/path/MODE/total, are
in the live part's; the BMF file has them as they are, with the live part's).
"""
import statistics

PREFIX = "cost/path/"


def is_path(bench):
    return bench.startswith(PREFIX)


def section(live, show):
    """The path's table, printed, one block of rows per XDP mode; LIVE: the live part's
    values, {(BENCH, MEASURE): [value per round]}; SHOW: (fmt, spread_cell, print_table)."""
    fmt, spread_cell, print_table = show
    benches = sorted({b for b, _ in live if is_path(b)})
    modes = [b[len(PREFIX):-len("/total")] for b in benches if b.endswith("/total")]
    if not modes:
        return

    def med(bench, m):
        values = live.get((bench, m))
        return statistics.median(values) if values else None

    rows, notes = [], []
    for mode in modes:
        total = f"{PREFIX}{mode}/total"
        xdp_runs = med(next((b for b in benches if b.startswith(f"{PREFIX}{mode}/xdp/")),
                            ""), "runs")
        for hook in ("xdp", "tc"):
            for bench in (b for b in benches if b.startswith(f"{PREFIX}{mode}/{hook}/")):
                runs, share = med(bench, "runs"), med(bench, "share-percent")
                reached = 100 * runs / xdp_runs if runs is not None and xdp_runs else None
                rows.append([f"path {mode}", bench[len(f"{PREFIX}{mode}/"):],
                             fmt(med(bench, "latency")),
                             f"{reached:.0f}%" if reached is not None else "-",
                             f"{share:.1f}%" if share is not None else "-", "",
                             spread_cell(live.get((bench, "latency"), []))])
        rows.append([f"path {mode}", "total", fmt(med(total, "latency")), "100%", "100%",
                     fmt(med(total, "throughput")),
                     spread_cell(live.get((total, "latency"), []))])
        unseen = med(total, "tc-unseen-percent")
        if unseen is not None and unseen >= 0.5:
            notes.append(f"path {mode}: TC never saw {unseen:.0f}% of the frames XDP ran on "
                         "(XDP dropped, redirected or sent them back).")
    print("\nPath: the XDP program and, after it on the veth's ingress, the TC program "
          "(TC=), flooded together as in the live part; ns/frame: each program's BPF "
          "run-time statistics over the frames it ran on, the total both programs' time "
          "over the frames that entered the path (XDP's); reached: the frames it ran on, "
          "of XDP's; share: its part of both programs' time; medians of the rounds.\n")
    print_table(["path", "program", "ns/frame", "reached", "share", "frames/s", "spread"], rows)
    for note in notes:
        print("\n" + note)
