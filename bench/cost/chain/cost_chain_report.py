# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""A chain's hops in make cost's table, from cost_run's rows and lines (cost_chain.h, beside this).

Rows: ARM cost/hop/PROG latency (each hop's own ns per frame that reaches it), cost/tail-call
latency, cost/chain/hop-sum latency (the hops and tail calls added up over the shapes, against
the same round's cost/all, the whole chain). Lines: "#hops<TAB>ARM<TAB>SHAPE<TAB>A>B>C<TAB>ACTION"
and "#fell-through<TAB>ARM<TAB>SHAPE<TAB>MAP[INDEX]".
Rows ARM cost/hop/PROG verified-instructions (translated-instructions, jited-bytes): each
hop's static figures, which a compare judges as exactly as the entry's.
On the CPU curve (cost_run cpus): ARM cost/cpus/N/hop/PROG, cost/cpus/N/tail-call and
cost/cpus/N/chain/hop-sum latency, the same hop by hop with N CPUs running it at once; shown,
never gated (a hop's few ns over its few ns on one CPU is a ratio of two differences).
"""
import re
import statistics

HOP = "cost/hop/"
TAIL = "cost/tail-call"
SUM = "cost/chain/hop-sum"
# A hop's own ns is a difference of two cut chains' times, so a round can put a small hop
# under zero: on this project's 2-vCPU hosts, other work running beside, 5-8 ns hops read
# from -38 to +51 ns in single rounds. A compare judges a hop as the shapes are judged
# (median of the paired per-round changes, its interval, the A/A, the floor), with its
# rounds under HOP_MIN_NS taken as HOP_MIN_NS, since a ratio needs both sides above zero,
# and a change needs to pass HOP_ABS_FLOOR ns too, since one near zero passes any percent.
HOP_MIN_NS = 1.0
HOP_ABS_FLOOR = 10.0
# A hop's row on the curve: cost/cpus/N/hop/PROG (and the tail call's, the check's).
CURVE = re.compile(r"^cost/cpus/(?P<n>[0-9]+)/(?P<what>hop/.+|tail-call|chain/hop-sum)$")


def is_chain(bench):
    """Whether BENCH is a chain's row, not a frame shape's."""
    return bench.startswith(HOP) or bench in (TAIL, SUM)


def load(path, arm):
    """([(shape, [hop, ...], action)], {shape: slot it fell through at}) of ARM."""
    hops, fell = [], {}
    with open(path) as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if fields[0] == "#hops" and fields[1] == arm:
                hops.append((fields[2], fields[3].split(">"), int(fields[4])))
            elif fields[0] == "#fell-through" and fields[1] == arm:
                fell[fields[2]] = fields[3]
    return hops, fell


def section(samples_path, prog, order, arm, all_bench, show, bmf_timing, bmf):
    """The chain's section of the table, printed, and its BMF entries into BMF; SHOW: the
    report's (fmt, spread_cell, action_name, print_table)."""
    fmt, spread_cell, action_name, print_table = show
    hops, fell = load(samples_path, arm)
    if not hops:
        return
    names = [b[len(HOP):] for b in order if b.startswith(HOP)]
    rows = []
    for name in names:
        values = prog[(HOP + name, "latency")]
        reached = sum(1 for _, path, _ in hops if name in path)
        rows.append([f"hop {name}", "ns/frame", fmt(statistics.median(values)),
                     f"{reached} of {len(hops)}", spread_cell(values)])
        bmf_timing(bmf, HOP + name, "latency", values)
    tail = prog[(TAIL, "latency")]
    rows.append(["tail call", "ns", fmt(statistics.median(tail)), "", spread_cell(tail)])
    bmf_timing(bmf, TAIL, "latency", tail)
    sums, whole = prog[(SUM, "latency")], prog[(all_bench, "latency")]
    bmf_timing(bmf, SUM, "latency", sums)
    apart = statistics.median((s - w) / w * 100 for s, w in zip(sums, whole) if w)
    print("\nChain, hop by hop: the chain cut after each hop of a shape's path (a copy of "
          "the object, the slot after that hop a stub that returns at once), in the same "
          "rounds; a hop's own ns: the cut after it less the cut before it, less a tail "
          "call (the first hop: less a bare program's tail call into a bare program; the "
          "last: its whole path in the copy less the cut before it); tail call: those two "
          "bare programs less the one; the check: the hops and tail calls added up, against "
          "the object's own chain, a second load of it (bench/cost/chain/cost_chain.h).\n")
    print_table(["hop", "measure", "program", "shapes reaching it", "spread"], rows)
    print(f"\nchain check: the hops and their tail calls add up to "
          f"{fmt(statistics.median(sums))} ns over the shapes, the whole chain "
          f"{fmt(statistics.median(whole))} ns: {apart:+.1f}% apart (median of the rounds)")
    print()
    print_table(["shape", "hops", "action"],
                [[shape, " > ".join(path), action_name(action) +
                  (f", fell through at empty {fell[shape]}" if shape in fell else "")]
                 for shape, path, action in hops])
    if fell:
        print(f"\nchain: {len(fell)} of {len(hops)} shapes reach an empty slot and fall "
              f"through ({', '.join(sorted(set(fell.values())))}): fill it with "
              "CHAIN=MAP[INDEX]=PROG, or leave it so if that is the chain you run")


def is_curve(bench):
    """Whether BENCH is a chain's row on the CPU curve, which a compare shows and never gates."""
    return bool(CURVE.match(bench))


def curve_section(prog, rounds, show, bmf_timing, bmf):
    """The hops on the CPU curve, printed, and their BMF entries (latency; scaling, each
    round's over that round's on one CPU) into BMF. SHOW: (fmt, print_table)."""
    fmt, print_table = show
    found = {}
    for bench, measure in prog:
        m = CURVE.match(bench)
        if m and measure == "latency":
            found.setdefault(m["what"], {})[int(m["n"])] = prog[(bench, measure)]
    hops = [w for w in found if w.startswith("hop/")]
    if not hops:
        return
    counts = sorted(set.union(*(set(by_n) for by_n in found.values())))
    rows = []
    for n in counts:
        row = [n]
        for what in hops + ["tail-call"]:
            values, one = found.get(what, {}).get(n), found.get(what, {}).get(1)
            if not values:
                row += ["-", ""]
                continue
            bench = f"cost/cpus/{n}/{what}"
            bmf_timing(bmf, bench, "latency", values)
            # The times over one CPU only where one CPU's figure is above the noise of a
            # difference of two runs: a 5 ns hop's ratio says nothing.
            times = ""
            if one and statistics.median(one) >= HOP_ABS_FLOOR:
                ratios = [v / o for v, o in zip(values, one) if o > 0]
                bmf[bench]["scaling"] = {"value": round(statistics.median(ratios), 4)}
                times = f"{statistics.median(ratios):.2f}x"
            row += [fmt(statistics.median(values)), times]
        rows.append(row)
    print(f"\nCPUs, hop by hop: each hop's own ns per frame that reaches it with N CPUs "
          f"running the chain at once, cut as on one CPU, median of {rounds} rounds; x: over "
          f"its figure on one CPU, where that is {HOP_ABS_FLOOR:.0f} ns or more (under it, "
          "a ratio of two differences of runs says nothing).\n")
    header = ["CPUs"]
    for what in hops + ["tail-call"]:
        header += [f"{what[len('hop/'):] if what.startswith('hop/') else 'tail call'} ns",
                   "x"]
    print_table(header, rows)


def hops_in(arm_samples):
    """The hops with timings in one arm's samples, in order."""
    return [b[len(HOP):] for b, m in arm_samples if b.startswith(HOP) and m == "latency"]


def shared(samples, base, cand):
    """The hops both sides' chains ran, in the base's order."""
    c = hops_in(samples[cand])
    return [h for h in hops_in(samples[base]) if h in c]


def compared(samples, base, cand):
    """A line for the hops of one side's chain only, or None; the shared hops' rounds under
    HOP_MIN_NS raised to it in SAMPLES, for their ratios."""
    b, c, both = hops_in(samples[base]), hops_in(samples[cand]), shared(samples, base, cand)
    for arm in samples:
        for h in both:
            key = (HOP + h, "latency")
            if key in samples[arm]:
                samples[arm][key] = [max(v, HOP_MIN_NS) for v in samples[arm][key]]
    alone = [f"{h} in the {side}'s chain only" for hops, other, side in
             ((b, c, base), (c, b, cand)) for h in hops if h not in other]
    return "chain: hop " + "; ".join(alone) + ": not compared" if alone else None


def gated(samples, base, cand, floor):
    """The shared hops' timings as a compare gates them: FLOOR percent, HOP_ABS_FLOOR ns."""
    return [(HOP + h, "latency", "higher", floor, HOP_ABS_FLOOR)
            for h in shared(samples, base, cand)]


def describe(bench, r):
    """A hop's judged change as the verdict line names it, or None for another benchmark."""
    if not bench.startswith(HOP):
        return None
    # The ns beside the percent: a hop's figure is its marginal cost where it runs, and
    # after a costly hop the next one's can rise too (the CPU overlaps less of it), by
    # ns that are small beside the costly hop's.
    return (f"hop {bench[len(HOP):]} {r['change']:+.1f}% ns/frame "
            f"({r['candidate'] - r['base']:+.1f} ns)")
