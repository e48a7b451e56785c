#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""make bench-report: one SVG per measure from the gate's local history, with gnuplot.

  history_plot.py HISTORY.tsv OUTDIR

Each picture has one line per benchmark, one point per gate run, oldest on the left,
labelled with the commit it ran on; see bench/gate.py for the history's columns.
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
            commit, date, _machine, _kernel, bench, measure, value, _verdict = \
                line.rstrip("\n").split("\t")
            if not runs or runs[-1] != (commit, date):
                runs.append((commit, date))
            series[measure][bench][len(runs) - 1] = float(value)
    return runs, series


def plot(measure, benches, runs, outdir):
    data = os.path.join(outdir, f"{measure}.dat")
    svg = os.path.join(outdir, f"{measure}.svg")
    names = sorted(benches)
    with open(data, "w") as f:
        for i, (commit, _date) in enumerate(runs):
            values = [str(benches[b].get(i, "NaN")) for b in names]
            f.write(f"{i}\t{commit[:8]}\t" + "\t".join(values) + "\n")
    lines = ", ".join(f"'{data}' using 1:{col + 3}:xtic(2) with linespoints title '{name}'"
                      for col, name in enumerate(names))
    script = f"""
set terminal svg size 900,420 dynamic background rgb 'white'
set output '{svg}'
set title '{measure} per gate run'
set xlabel 'commit (oldest on the left)'
set xtics rotate by -45
set key outside right
set grid
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
