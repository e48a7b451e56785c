#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""make bench-report: one SVG per measure from the gate's local history, with gnuplot.

  history_plot.py HISTORY.tsv OUTDIR

Each picture has one line per benchmark: the candidate's change against its base in
percent, one point per gate run, oldest on the left, labelled with the commit it ran on.
The change, not the value: each run measured its base beside it on whatever machine it
ran on, so changes compare across runs and machines where raw values do not. See
bench/gate/gate.py for the history's columns.
"""
import os
import subprocess
import sys
from collections import defaultdict


def read_history(path):
    runs = []                      # (commit, date) in file order, one per gate run
    series = defaultdict(lambda: defaultdict(dict))  # measure -> benchmark -> {run: value}
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            fields = line.rstrip("\n").split("\t")
            if len(fields) != 10:
                continue  # a line from before the gate measured a base beside it
            commit, date, _machine, _kernel, bench, measure, _base, _cand, change, _v = fields
            if not runs or runs[-1] != (commit, date):
                runs.append((commit, date))
            series[measure][bench][len(runs) - 1] = float(change)
    return runs, series


def plot(measure, benches, runs, outdir):
    data = os.path.join(outdir, f"{measure}.dat")
    svg = os.path.join(outdir, f"{measure}.svg")
    names = sorted(benches)
    with open(data, "w") as f:
        for i, (commit, _date) in enumerate(runs):
            values = [str(benches[b].get(i, "NaN")) for b in names]
            f.write(f"{i}\t{commit[:8]}\t" + "\t".join(values) + "\n")
    # A measure that never moved is a flat line at 0 in a range around it, not an empty range.
    values = [v for b in names for v in benches[b].values()]
    lo, hi = min(values + [-1.0]) - 1, max(values + [1.0]) + 1
    lines = ", ".join(f"'{data}' using 1:{col + 3}:xtic(2) with linespoints title '{name}'"
                      for col, name in enumerate(names))
    script = f"""
set terminal svg size 900,420 dynamic background rgb 'white'
set output '{svg}'
set title '{measure}: candidate against base, % change, per gate run'
set xlabel 'commit (oldest on the left)'
set xtics rotate by -45
set key outside right
set grid
set yrange [{lo}:{hi}]
set datafile missing 'NaN'
plot {lines}
"""
    subprocess.run(["gnuplot"], input=script, text=True, check=True)
    return svg


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    if not os.path.exists(sys.argv[1]):
        sys.exit(f"bench-report: no history at {sys.argv[1]}: run 'make bench-check' first")
    runs, series = read_history(sys.argv[1])
    os.makedirs(sys.argv[2], exist_ok=True)
    for measure in sorted(series):
        print(f"bench-report: {plot(measure, series[measure], runs, sys.argv[2])}")


if __name__ == "__main__":
    main()
